"""The exact optimisers on the counts reach the optimum over the whole simplex."""

import numpy as np
import pytest

from skpacbayes.engine.exact_search import (
    _GibbsPath,
    _log_prior,
    _objective,
    gibbs_posterior,
    gibbs_search,
    tandem_search,
)
from skpacbayes.posteriors import categorical_kl as _kl  # the searches' KL


def _random_posteriors(n, rng, count=400):
    """Dense, sparse and one-hot points of the simplex."""
    dense = rng.dirichlet(np.ones(n), size=count)
    sparse = rng.dirichlet(np.full(n, 0.05), size=count)
    return np.vstack([dense, sparse, np.eye(n)])


def _first_order(q, rates, m, delta):
    return _objective(q @ rates, _kl(q, _log_prior(rates.size, None)), m, delta, 1)


def _tandem(q, T, m, delta):
    stats = np.einsum("gi,ij,gj->g", np.atleast_2d(q), T, np.atleast_2d(q))
    return _objective(stats, _kl(np.atleast_2d(q), _log_prior(T.shape[0], None)), m, delta, 2)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("m", [50, 2000])
def test_gibbs_search_is_below_every_posterior(seed, m):
    rng = np.random.default_rng(seed)
    n = 12
    rates = rng.integers(0, m // 2, size=n) / m  # error rates of voters on m rows
    q, value = gibbs_search(rates, m, 0.05)
    assert value == pytest.approx(float(_first_order(q, rates, m, 0.05)), abs=1e-12)
    others = _first_order(_random_posteriors(n, rng), rates, m, 0.05)
    assert value <= others.min() + 1e-9


def _gibbs_values(rates, log_betas, m, delta, prior=None):
    """The first-order objective on the Gibbs family, exactly (a kl inverse per point)."""
    q = gibbs_posterior(rates, np.exp(log_betas), prior)
    return _objective(q @ rates, _kl(q, _log_prior(rates.size, prior)), m, delta, 1)


@pytest.mark.parametrize("seed", range(6))
def test_slope_sign_is_the_sign_of_the_objectives_slope(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.choice([30, 500, 20000]))
    rates = rng.integers(0, m // 2, size=int(rng.integers(2, 40))) / m
    path = _GibbsPath(rates, _log_prior(rates.size, None), m, 0.05)
    x = np.linspace(-3.0, 12.0, 400)
    values = _gibbs_values(rates, x, m, 0.05)
    slopes = np.diff(values) / np.diff(x)  # central differences at the midpoints
    signs = path.slope_sign((x[1:] + x[:-1]) / 2)
    clear = np.abs(slopes) > 1e-7 * (1 + np.abs(values[1:]))
    assert clear.sum() > 50
    np.testing.assert_array_equal(np.sign(signs[clear]), np.sign(slopes[clear]))


@pytest.mark.parametrize("seed", range(4))
def test_stationary_value_is_the_objective_near_a_stationary_point(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.choice([40, 2000, 50000]))
    rates = rng.integers(0, m // 2, size=30) / m
    path = _GibbsPath(rates, _log_prior(rates.size, None), m, 0.05)
    x = np.linspace(-5.0, 15.0, 2001)
    h = path.slope_sign(x)
    (root,) = np.flatnonzero((h[:-1] < 0) & (h[1:] >= 0))
    for log_beta in x[root] + np.array([-1e-2, 0.0, 1e-4, 1e-2]):  # as far as a scan cell
        exact = float(_gibbs_values(rates, np.array([log_beta]), m, 0.05)[0])
        assert path.stationary_value(log_beta) == pytest.approx(exact, abs=1e-13)


@pytest.mark.parametrize("seed", range(8))
def test_gibbs_search_is_below_the_dense_gibbs_family(seed):
    """The search's minimum is at most the minimum on 4,000 values of beta and both ends,
    on rates in clusters (where local minima could hide), some of zero, some prior weights
    of zero."""
    rng = np.random.default_rng(100 + seed)
    m = int(rng.choice([25, 400, 5000, 100000]))
    centres = rng.uniform(0.0, 0.5, size=3)
    rates = np.clip(rng.choice(centres, size=50) + rng.normal(0, 1e-3, 50), 0, 1)
    rates[: seed % 3] = 0.0
    prior = rng.uniform(size=50) if seed % 2 else None
    if prior is not None:
        prior[-3:] = 0.0
    q, value = gibbs_search(rates, m, 0.05, prior)
    log_prior = _log_prior(rates.size, prior)
    assert value == pytest.approx(
        float(_objective(q @ rates, _kl(q, log_prior), m, 0.05, 1)), abs=1e-12
    )
    dense = _gibbs_values(rates, np.linspace(-12.0, 20.0, 4000), m, 0.05, prior)
    ends = _gibbs_values(rates, np.array([-np.inf, np.inf]), m, 0.05, prior)
    assert value <= min(dense.min(), ends.min()) + 1e-12


def test_gibbs_posterior_ends():
    rates = np.array([0.3, 0.1, 0.1, 0.4])
    np.testing.assert_allclose(gibbs_posterior(rates, 0.0), np.full(4, 0.25))
    np.testing.assert_allclose(gibbs_posterior(rates, np.inf), [0.0, 0.5, 0.5, 0.0])
    q = gibbs_posterior(rates, np.array([1.0, 10.0]))
    assert q.shape == (2, 4) and np.all(np.diff(q[:, 1]) > 0)  # more beta, more weight


def test_equal_rates_keep_the_prior():
    q, value = gibbs_search(np.full(5, 0.2), 100, 0.05)
    np.testing.assert_allclose(q, np.full(5, 0.2))
    assert value == pytest.approx(float(_first_order(q, np.full(5, 0.2), 100, 0.05)))


@pytest.mark.parametrize("seed", range(3))
def test_tandem_search_is_below_every_posterior_and_local_search(seed):
    rng = np.random.default_rng(seed)
    m, n = 400, 10
    errors = rng.random((m, n)) < rng.uniform(0.1, 0.45, size=n)  # a 0/1 error matrix
    T = errors.T.astype(float) @ errors / m  # a Gram matrix: positive semidefinite
    q, value = tandem_search(T, m, 0.05)
    assert value == pytest.approx(float(_tandem(q, T, m, 0.05)[0]), abs=1e-12)
    assert value <= _tandem(_random_posteriors(n, rng), T, m, 0.05).min() + 1e-9
    # nor does any small multiplicative move around it (beyond the search's resolution)
    for scale in (0.3, 0.03, 0.003):
        moved = q * np.exp(scale * rng.normal(size=(2000, n)))
        assert value <= _tandem(moved / moved.sum(axis=1, keepdims=True), T, m, 0.05).min() + 1e-6


def test_tandem_search_of_independent_equal_voters_is_uniform():
    T = np.full((3, 3), 0.05) + np.diag([0.25] * 3)
    q, _ = tandem_search(T, 1000, 0.05)
    np.testing.assert_allclose(q, np.full(3, 1 / 3), atol=1e-6)


def test_search_objective_matches_the_certified_inverse():
    """The searches rank candidates by Newton's root: within a few ulps of the certified
    (conservative) inverse, edge cases included."""
    from skpacbayes.bounds import kl_inv_upper
    from skpacbayes.bounds._kl import newton_kl_inv_upper

    rng = np.random.default_rng(0)
    q = np.concatenate([[0.0, 1.0, 0.5, 1e-300, 1 - 1e-16], rng.random(200), rng.random(50) ** 8])
    eps = np.concatenate([[0.1, 0.3, 0.0, 0.2, 1e-3], 10.0 ** rng.uniform(-8, 1, 250)])
    newton = newton_kl_inv_upper(q, eps)
    certified = kl_inv_upper(q, eps)
    assert np.all(newton >= q)
    np.testing.assert_allclose(newton, certified, rtol=1e-12, atol=1e-300)
    assert newton_kl_inv_upper(0.3, np.inf) == 1.0


@pytest.mark.parametrize("upper", [True, False])
def test_newton_root_is_the_same_on_numpy_and_on_torch(upper):
    """The steering root runs on NumPy (CPU) and on torch (accelerators) with the same code:
    both give the same roots, and the kl they are built on agrees to the last bits."""
    import torch

    from skpacbayes.bounds._kl import _kl, _newton_root

    rng = np.random.default_rng(1)
    q = np.concatenate([[0.0, 1.0, 0.5, 1e-300, 1 - 1e-16], rng.random(300), rng.random(50) ** 8])
    eps = np.concatenate([[0.1, 0.3, 0.0, 0.2, 1e-3], 10.0 ** rng.uniform(-8, 1, 350)])
    p = rng.random(q.size)
    np.testing.assert_allclose(
        _kl(q, p), _kl(torch.from_numpy(q), torch.from_numpy(p)).numpy(), rtol=1e-14, atol=0
    )
    on_numpy = _newton_root(q, eps, upper)
    on_torch = _newton_root(torch.from_numpy(q), torch.from_numpy(eps), upper).numpy()
    assert isinstance(on_numpy, np.ndarray)
    np.testing.assert_allclose(on_numpy, on_torch, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("upper", [True, False])
def test_float32_training_root_on_the_cpu_is_the_float64_root_rounded(upper):
    """A float32 training objective on the CPU steers with the float64 Newton root rounded to
    float32: within a few float32 ulps of the bisection's conservative end, and the same
    gradient (the implicit one, from the root)."""
    import torch

    from skpacbayes.bounds._kl import _bisect, _kl_inv, _solve

    rng = np.random.default_rng(2)
    q = torch.tensor(np.concatenate([[0.0, 0.5, 0.999], rng.uniform(0.01, 0.99, 200)]))
    eps = torch.tensor(np.concatenate([[0.1, 0.0, 1e-3], 10.0 ** rng.uniform(-5, 0, 200)]))
    q32, eps32 = q.float(), eps.float()
    steered = _solve(q32, eps32, upper, steer=True)
    assert steered.dtype == torch.float32
    float64_root = _solve(q32.double(), eps32.double(), upper, steer=True).float()
    torch.testing.assert_close(steered, float64_root, rtol=0, atol=0)
    bisected = _solve(q32, eps32, upper)
    interior = (q32 > 0) & (eps32 > 0)
    assert torch.equal(steered[~interior], bisected[~interior])
    torch.testing.assert_close(steered, bisected, rtol=4e-7, atol=1e-7)
    assert torch.equal(bisected, _bisect(q32, eps32, upper).where(interior, bisected))
    # the training path (inputs that require gradients) takes the steered root
    q_req = q32.clone().requires_grad_(True)
    assert torch.equal(_kl_inv(q_req, eps32, upper).detach(), steered)
