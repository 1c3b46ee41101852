"""Numerical extremes of the math core, against high-precision mpmath references.

Every value must be finite, inside its range, and CONSERVATIVE (an upper bound never below
the exact value, a lower bound never above it) up to the rounding the function documents:

* ``kl_inv_upper`` / ``kl_inv_lower``: below / above the exact inverse by at most the
  rounding of kl, ``8 u (1 + eps)`` translated into ``p`` by the slope of ``kl(q || .)`` at
  the exact root (``u = 2**-53``); with the statistic moved by the certificates' ``1e-12``
  allowance first, never on the wrong side.
* the stochastic losses: within ``loss_tolerance`` of the exact value (what the certificate
  adds and subtracts);
* the partition terms ``b~``, ``c~``: never above the exact value (exact rational arithmetic
  on the floats actually given, mpmath for the special functions).

Extremes covered: empirical risk 0 and 1, KL 0 / tiny / huge / inf, m = 1 and m huge, delta
tiny, Dirichlet concentrations 1e-300 .. 1e15, Gaussian weights with huge norms (KL overflow),
binomial tails at r ~ 0 and 1, partition weights at float32 resolution, denormals and 1e308.
"""

import math
from fractions import Fraction
from itertools import product

import mpmath as mp
import numpy as np
import pytest
import torch

from skpacbayes import bounds, partition
from skpacbayes.engine.certificate import _STAT_SLACK
from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian, dirichlet_kl

U = 2.0**-53
mp.mp.dps = 60


# -------------------------------------------------------------------------------------------
# mpmath references
# -------------------------------------------------------------------------------------------
def _kl_logs(q, lp, l1p):
    """kl(q || p) from log p and log(1 - p) (no cancellation near 0 or 1)."""
    q = mp.mpf(q)
    first = 0 if q == 0 else q * (mp.log(q) - lp)
    second = 0 if q == 1 else (1 - q) * (mp.log1p(-q) - l1p)
    return first + second


def ref_kl_inv(q, eps, upper):
    """Exact inverse, by bisection on log(1 - p) (upper) or log p (lower), 400 steps."""
    q, eps = mp.mpf(q), mp.mpf(eps)
    if eps == 0:
        return q
    if mp.isinf(eps):
        return mp.mpf(1) if upper else mp.mpf(0)
    if upper:
        if q == 1:
            return mp.mpf(1)
        if q == 0:
            return -mp.expm1(-eps)
        # v = log(s), s = -log(1 - p): relative resolution for p near 0 AND near 1
        lo, hi = mp.log(-mp.log1p(-q)), mp.log(mp.mpf(10) ** 6)
        for _ in range(400):
            v = (lo + hi) / 2
            s = mp.exp(v)
            if _kl_logs(q, mp.log(-mp.expm1(-s)), -s) <= eps:
                lo = v
            else:
                hi = v
        return -mp.expm1(-mp.exp((lo + hi) / 2))
    if q == 0:
        return mp.mpf(0)
    if q == 1:
        return mp.exp(-eps)
    lo, hi = -(mp.mpf(10) ** 6), mp.log(q)  # t = log p
    for _ in range(400):
        t = (lo + hi) / 2
        if _kl_logs(q, t, mp.log1p(-mp.exp(t))) <= eps:
            hi = t
        else:
            lo = t
    return mp.exp((lo + hi) / 2)


def kl_rounding_allowance(q, eps, p):
    """Wrong-side tolerance of a kl inverse: 8 u (1 + eps) divided by |d kl / d p| at p."""
    q, p = mp.mpf(q), mp.mpf(p)
    if p in (0, 1) or p == q:
        return mp.mpf(8 * U)
    slope = abs(p - q) / (p * (1 - p))
    return 8 * U * (1 + mp.mpf(eps)) / slope


def ref_betainc_half(a, b):
    """I_{1/2}(a, b) with the limits at 0 of the theory page (point masses)."""
    if b == 0:
        return mp.mpf(0)
    if a == 0:
        return mp.mpf(1)
    if a == b:
        return mp.mpf(1) / 2  # symmetry (mpmath's series does not converge for huge a = b)
    return mp.betainc(mp.mpf(a), mp.mpf(b), 0, mp.mpf(1) / 2, regularized=True)


def ref_phi_cdf(x):
    x = mp.mpf(x)
    if abs(x) > 1000:  # Mills ratio; mpmath's ncdf overflows converting such arguments
        tail = mp.exp(-x * x / 2) / (abs(x) * mp.sqrt(2 * mp.pi))
        return 1 - tail if x > 0 else tail
    return mp.ncdf(x)


def fr(f):
    """Fraction -> mpf (exact numerator / denominator)."""
    f = Fraction(f)
    return mp.mpf(f.numerator) / f.denominator


def brute_cstar(a):
    """Exact cstar of the float values (Fractions), by enumeration."""
    w = [Fraction(float(x)) for x in np.asarray(a, dtype=np.float64) if x > 0]
    if not w:
        return Fraction(0), Fraction(0)
    total = sum(w)
    best = total
    for mask in range(1 << len(w)):
        s = sum(w[i] for i in range(len(w)) if mask >> i & 1)
        if 2 * s >= total and s < best:
            best = s
    return best, total


def _mpf(x):
    return mp.mpf(float(x))


# -------------------------------------------------------------------------------------------
# kl and its inverses
# -------------------------------------------------------------------------------------------
QS = [0.0, 5e-324, 1e-300, 1e-17, 1e-9, 0.3, 0.5, 1 - 1e-9, 1 - 2**-53, 1.0]
EPSS = [0.0, 5e-324, 1e-300, 1e-30, 1e-16, 1e-8, 0.5, 5.0, 50.0, 700.0, 1e300, math.inf]


@pytest.mark.parametrize("q", QS)
def test_kl_inverses_are_conservative_at_extremes(q):
    for eps in EPSS:
        up = bounds.kl_inv_upper(q, eps)
        lo = bounds.kl_inv_lower(q, eps)
        assert math.isfinite(up) and math.isfinite(lo), (q, eps)
        assert 0.0 <= lo <= q <= up <= 1.0, (q, eps, lo, up)
        for value, upper in ((up, True), (lo, False)):
            exact = ref_kl_inv(q, eps, upper)
            wrong_side = (exact - _mpf(value)) if upper else (_mpf(value) - exact)
            if wrong_side > 0:
                allowed = kl_rounding_allowance(q, eps, exact)
                assert wrong_side <= allowed, (q, eps, upper, value, mp.nstr(exact, 20))
            # accuracy: target 1e-14 relative, or the kl rounding where it is larger
            # (e.g. eps = 50: p ~ 1e-74 is only determined to ~1e-14 relative by float kl)
            tol = max(1e-14 * exact, kl_rounding_allowance(q, eps, exact)) + 1e-300
            assert abs(_mpf(value) - exact) <= tol, (q, eps, upper, value)


@pytest.mark.parametrize("q", [1e-9, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.25, 0.5, 0.9, 0.999])
def test_kl_inverses_of_a_statistic_raised_by_its_allowance_are_conservative(q):
    """A raw inverse may sit on the wrong side of the exact one by the rounding of kl; the
    inverse of the statistic moved by ``_STAT_SLACK`` (as every certificate moves it) never
    does, at ordinary budgets as well as at the extremes above."""
    for eps in (1e-12, 1e-10, 1e-8, 1e-5, 1e-4, 1e-3, 0.01, 0.3, 3.0, 30.0):
        for upper in (True, False):
            inverse = bounds.kl_inv_upper if upper else bounds.kl_inv_lower
            exact = ref_kl_inv(q, eps, upper)
            raw = _mpf(inverse(q, eps))
            wrong_side = (exact - raw) if upper else (raw - exact)
            assert wrong_side <= kl_rounding_allowance(q, eps, exact), (q, eps, upper)
            assert abs(raw - exact) <= 1e-13 * exact + 1e-300, (q, eps, upper)
            moved = min(1.0, q + _STAT_SLACK) if upper else max(0.0, q - _STAT_SLACK)
            certified = _mpf(inverse(moved, eps))
            assert (certified >= exact) if upper else (certified <= exact), (q, eps, upper)


def test_kl_inverse_closed_forms():
    """The closed forms of the kl inverses at the edges (theory page), exactly."""
    for eps in (1e-300, 1e-8, 0.5, 50.0):
        assert bounds.kl_inv_upper(0.0, eps) == -math.expm1(-eps)
        assert bounds.kl_inv_lower(1.0, eps) == math.exp(-eps)
        assert bounds.kl_inv_upper(1.0, eps) == 1.0
        assert bounds.kl_inv_lower(0.0, eps) == 0.0
    for q in QS:
        assert bounds.kl_inv_upper(q, 0.0) == q == bounds.kl_inv_lower(q, 0.0)
        assert bounds.kl_inv_upper(q, math.inf) == 1.0
        assert bounds.kl_inv_lower(q, math.inf) == 0.0


@pytest.mark.parametrize(
    ("q", "p"),
    [
        (0.0, 0.0),
        (1.0, 1.0),
        (0.0, 1.0),
        (1.0, 0.0),
        (0.5, 5e-324),
        (1e-300, 0.5),
        (0.3, 1 - 2**-53),
        (5e-324, 5e-324),
        (0.3, 0.3),
    ],
)
def test_binary_kl_extremes(q, p):
    value = bounds.kl(q, p)
    assert value >= 0 and not math.isnan(value)
    if (p == 0 and q > 0) or (p == 1 and q < 1):
        assert value == math.inf
    elif p in (0.0, 1.0):  # then q == p
        assert value == 0.0
    else:
        exact = _kl_logs(q, mp.log(_mpf(p)), mp.log1p(-_mpf(p)))
        assert abs(_mpf(value) - exact) <= 1e-12 * max(exact, 1) + 1e-300


# -------------------------------------------------------------------------------------------
# PAC-Bayes statements and deterministic bounds: risk 0 / 1, KL 0 / huge, m = 1 / huge
# -------------------------------------------------------------------------------------------
# Composite bounds (FO, SO, C-bound, ...) are conservative up to a few roundings of values of
# order 1 (e.g. the C-bound's 1 - (1 - 2 G)^2 / (1 - 2 d) cancels for G ~ 1e-8): 4 u absolute.
ABS = 4 * U


def _ref_seeger(q, kl, m, delta):
    eps = (mp.mpf(kl) + mp.log(2 * mp.sqrt(mp.mpf(m)) / mp.mpf(delta))) / mp.mpf(m)
    return ref_kl_inv(q, eps, True), eps


@pytest.mark.parametrize(
    ("q", "kl", "m", "delta"),
    [
        (0.0, 0.0, 1, 0.05),  # m = 1: 1 - delta / 2 exactly
        (1.0, 0.0, 1, 0.05),
        (0.0, 0.0, 1, 1.0),
        (0.0, 1e-300, 2, 0.5),
        (0.0, 0.0, 1e300, 1.0),
        (0.3, 0.0, 1e18, 0.05),
        (0.0, 700.0, 1000, 0.05),
        (0.5, 1e300, 1000, 0.05),
        (0.5, math.inf, 1000, 0.05),
        (0.0, 0.0, 100, 5e-324),
        (1.0, 1e-300, 1e6, 1.0),
    ],
)
def test_seeger_and_first_order_extremes(q, kl, m, delta):
    exact, _ = _ref_seeger(q, kl, m, delta)
    value = bounds.pac_bayes_upper(q, kl, m, delta)
    assert 0.0 <= value <= 1.0 and value >= q
    assert _mpf(value) >= exact * (1 - 1e-13)
    assert abs(_mpf(value) - exact) <= 1e-12 * exact + 1e-300
    fo = bounds.first_order_bound(q, kl, m, delta)
    assert 0.0 <= fo <= 1.0
    assert _mpf(fo) >= min(1, 2 * exact) * (1 - 1e-13)
    if q == 0.0 and kl == 0.0 and m == 1:
        assert value == pytest.approx(1 - delta / 2, rel=1e-15)


@pytest.mark.parametrize("stat", [0.0, 1.0])
@pytest.mark.parametrize("kl", [0.0, 1e-300, 3.0, 1e300, math.inf])
@pytest.mark.parametrize("m", [1, 7, 10**9])
def test_every_bound_is_finite_and_in_range_at_empirical_risk_0_and_1(stat, kl, m):
    delta = 0.05
    values = {
        "FO": bounds.first_order_bound(stat, kl, m, delta),
        "SO": bounds.second_order_bound(stat, kl, m, delta),
        "Bin3": bounds.binomial_bound(stat, kl, m, delta, 3),
        "Bin100": bounds.binomial_bound(stat, kl, m, delta, 100),
        "CBound": bounds.cbound_bound(stat, 2 * stat * (1 - stat), kl, m, delta),
        "VC": bounds.vc_bound(stat, 40, m, delta),
        "Partition": bounds.partition_bound(stat, kl, m, delta, 0.0, 0.5),
        "Margin": bounds.margin_bound(stat, 0.1, 100.0, kl, m, delta),
        "Occam": bounds.occam_bound(stat, 40, m, delta),
    }
    for name, v in values.items():
        assert isinstance(v, float) and 0.0 <= v <= 1.0, (name, v)
    if stat == 1.0:  # nothing can be certified below 1 from an empirical risk of 1
        for name in ("FO", "SO", "Bin3", "Bin100", "CBound", "VC", "Partition", "Occam"):
            assert values[name] == 1.0, name
    if stat == 0.0 and math.isfinite(kl):
        _, eps = _ref_seeger(0.0, kl, m, delta)
        g = -mp.expm1(-eps)
        assert _mpf(values["FO"]) >= min(1, 2 * g) * (1 - 1e-13)
        assert _mpf(values["Partition"]) >= min(1, 2 * g) * (1 - 1e-13)
        # SO: 4 kl^-1(0, (2 KL + ln(2 sqrt m / delta)) / m)
        eps2 = (2 * mp.mpf(kl) + mp.log(2 * mp.sqrt(m) / mp.mpf(delta))) / m
        assert _mpf(values["SO"]) >= min(1, 4 * -mp.expm1(-eps2)) * (1 - 1e-13)
        # C-bound with G = d = 0: 1 - (1 - 2 G_up)^2 with G_up at delta / 2
        eps_c = (mp.mpf(kl) + mp.log(4 * mp.sqrt(m) / mp.mpf(delta))) / m
        g_up = -mp.expm1(-eps_c)
        ref_c = 1 if g_up >= 0.5 else 1 - (1 - 2 * g_up) ** 2
        assert _mpf(values["CBound"]) >= ref_c * (1 - 1e-13) - ABS
    if not math.isfinite(kl) or kl >= 1e300:
        for name in ("FO", "SO", "Bin3", "Bin100", "CBound", "Partition"):
            assert values[name] == 1.0, name


def test_vc_bound_with_m_equal_one_and_no_room():
    assert bounds.vc_bound(0.0, 1, 1, 0.05) == 1.0
    assert bounds.vc_bound(0.0, 5, 5, 0.05) == 1.0
    v = bounds.vc_bound(0.0, 1, 10**12, 0.05)
    ref = mp.sqrt((1 * (mp.log(2 * mp.mpf(10) ** 12) + 1) + mp.log(80)) / mp.mpf(10) ** 12)
    assert _mpf(v) >= ref * (1 - 1e-13)


# -------------------------------------------------------------------------------------------
# binomial tail
# -------------------------------------------------------------------------------------------
def _ref_binomial_tail(r, n):
    r = mp.mpf(r)
    k = (n + 1) // 2
    return mp.fsum(mp.binomial(n, j) * r**j * (1 - r) ** (n - j) for j in range(k, n + 1))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 100, 101, 1000])
def test_binomial_tail_extremes(n):
    rs = [0.0, 5e-324, 1e-300, 1e-10, 0.25, 0.5, 1 - 1e-10, 1 - 2**-53, 1.0]
    values = bounds.binomial_tail(np.array(rs), n)
    for r, v in zip(rs, values, strict=True):
        exact = _ref_binomial_tail(r, n)
        assert 0.0 <= v <= 1.0
        assert abs(_mpf(v) - exact) <= 1e-12 * exact + 1e-300, (r, n, v, mp.nstr(exact, 17))


# -------------------------------------------------------------------------------------------
# posteriors: Dirichlet concentrations tiny / huge, Gaussian huge norms
# -------------------------------------------------------------------------------------------
VOTES4 = torch.tensor([[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 0, 0]])
Y4 = torch.ones(5, dtype=torch.long)


@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1.0, 1e8, 1e15])
def test_dirichlet_loss_and_kl_at_tiny_and_huge_concentrations(scale):
    post = Dirichlet(4)
    alpha = torch.tensor([1.0, 1.0, 1.0, 1.0], dtype=torch.float64) * scale
    r = post.stochastic_loss(alpha, VOTES4, Y4).numpy()
    assert np.all(np.isfinite(r)) and np.all((r >= 0) & (r <= 1))
    a = mp.mpf(scale)
    for row, value in zip(VOTES4.numpy(), r, strict=True):
        n_t = int((row == 1).sum())
        a_t, a_f = n_t * a, (4 - n_t) * a
        if a_t == a_f:
            exact = mp.mpf(1) / 2  # symmetry
        elif scale > 1e6 and n_t not in (0, 4):
            # I_{1/2}(a_T, a_F) with a_T + a_F = 4 scale: Chernoff, below exp(-0.13 scale) (or
            # above 1 - that), i.e. 0 or 1 in double precision.
            exact = mp.mpf(0) if n_t > 2 else mp.mpf(1)
        else:
            exact = ref_betainc_half(a_t, a_f)
        assert abs(_mpf(value) - exact) <= post.loss_tolerance, (scale, row, value)
    kl = float(post.kl(alpha))
    n = 4
    exact_kl = (
        mp.loggamma(n * a)
        - n * mp.loggamma(a)
        - mp.loggamma(n)
        + n * (a - 1) * (mp.digamma(a) - mp.digamma(n * a))
    )
    assert math.isfinite(kl)
    assert abs(_mpf(kl) - exact_kl) <= 1e-12 * abs(exact_kl) + 1e-12
    # the same through the public helper
    assert float(dirichlet_kl(alpha, torch.ones_like(alpha))) == pytest.approx(kl, rel=1e-15)


def test_dirichlet_loss_refuses_concentrations_beyond_its_certified_range():
    alpha = torch.full((4,), 1e16, dtype=torch.float64)
    with pytest.raises(ValueError, match="1e16|certified"):
        Dirichlet(4).stochastic_loss(alpha, VOTES4, Y4)


@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1e8, 1e15])
def test_dirichlet_partition_term_is_conservative_at_extreme_scales(scale):
    alpha = np.array([1.0, 2.0, 3.0, 5.0]) * scale
    b, c = partition.dirichlet_partition_terms(alpha)
    cs, total = brute_cstar(alpha)
    exact = ref_betainc_half(fr(total - cs), fr(cs)) if scale < 1e6 else None
    assert b == 0.0 and 0.0 <= c <= 1.0
    if exact is not None:
        assert _mpf(c) <= exact
        assert exact - _mpf(c) <= 1e-9
    else:  # I_{1/2}(5 s, 6 s) = 1 - (below 1e-300) for s >= 1e8
        assert 1 - 1e-9 <= c < 1.0


@pytest.mark.parametrize("scale", [1.0, 1e10, 1e150, 1e200, 1e300])
def test_gaussian_huge_norms(scale):
    p = torch.tensor([1.0, -0.5, 1.0 / 3.0], dtype=torch.float64) * scale
    votes = torch.tensor([[1, 0, 1], [0, 0, 0], [1, 1, 1]])
    y = torch.tensor([1, 1, 0])
    post = Gaussian(3)
    r = post.stochastic_loss(p, votes, y).numpy()
    assert np.all(np.isfinite(r)) and np.all((r >= 0) & (r <= 1))
    kl = float(post.kl(p))
    exact_kl = sum(_mpf(v) ** 2 for v in p.numpy()) / 2
    if exact_kl < mp.mpf(np.finfo(np.float64).max):
        assert abs(_mpf(kl) - exact_kl) <= 1e-15 * exact_kl
    else:
        assert kl == math.inf  # overflow is on the safe side, never NaN
    fo = bounds.first_order_bound(float(np.mean(r)), kl, 100, 0.05)
    assert 0.0 <= fo <= 1.0
    if scale >= 1e10:
        # margins are +-huge: the losses saturate exactly
        assert list(r) == [0.0, 1.0, 1.0]
        assert fo == 1.0  # KL >= 1e19 / 2 >> m
    b, c = partition.gaussian_partition_terms(p.numpy(), 3)
    pbar = abs(sum(Fraction(float(v)) for v in p.numpy() * np.array([1, 1, -1])))  # optimum
    exact_c = ref_phi_cdf(fr(pbar) / mp.sqrt(3))
    l1 = sum(abs(Fraction(float(v))) for v in p.numpy())
    exact_b = ref_phi_cdf(-fr(l1) / mp.sqrt(3))
    assert 0.0 <= b <= c <= 1.0
    assert _mpf(c) <= exact_c and _mpf(b) <= exact_b
    assert exact_c - _mpf(c) <= 1e-9


def test_gaussian_multiclass_huge_weights_stay_in_range():
    post = Gaussian(4, n_classes=3)
    votes = torch.tensor([[0, 1, 2, 2], [1, 1, 0, 2], [2, 2, 2, 2]])
    y = torch.tensor([2, 1, 0])
    for scale in (1e-300, 1.0, 1e10, 1e150):
        p = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64) * scale
        r = post.stochastic_loss(p, votes, y).numpy()
        assert np.all(np.isfinite(r)) and np.all((r >= 0) & (r <= 1)), (scale, r)


@pytest.mark.parametrize("n", [1, 2, 40])
def test_categorical_point_mass_and_uniform(n):
    """KL of a point mass is exactly ln n; uniform weights give KL 0 and r = error fraction."""
    post = Categorical(n)
    point = torch.zeros(n, dtype=torch.float64)
    point[0] = 1.0
    assert float(post.kl(point)) == pytest.approx(math.log(n), abs=1e-15)
    uniform = torch.full((n,), 1.0 / n, dtype=torch.float64)
    assert abs(float(post.kl(uniform))) <= 1e-15
    votes = torch.zeros((1, n), dtype=torch.long)
    votes[0, : n // 2] = 1
    r = float(post.stochastic_loss(uniform, votes, torch.tensor([1]))[0])
    assert r == pytest.approx((n - n // 2) / n, abs=post.loss_tolerance)


# -------------------------------------------------------------------------------------------
# partition inputs at float32 resolution and at the ends of the float range
# -------------------------------------------------------------------------------------------
PARTITION_CASES = {
    "float32 decimals": np.array([0.1, 0.2, 0.3, 0.15, 0.25], dtype=np.float32),
    "float32 renormalized": (lambda v: v / v.sum())(
        np.array([0.1, 0.2, 0.3, 0.15, 0.25], dtype=np.float32)
    ),
    "float32 one ulp apart": np.array([1.0, 1.0 + 2**-23, 2.0], dtype=np.float32),
    "float32 tiny": np.array([1e-38, 2e-38, 3e-38, 1.5e-45], dtype=np.float32),
    "near float max": np.array([1.7e308, 1.7e308, 1e308]),
    "denormals": np.array([5e-324, 1e-323, 1.5e-323]),
    "mixed magnitudes": np.array([1e300, 1e-300, 5e-324, 1e300]),
    "float16": np.array([0.1, 0.2, 0.3], dtype=np.float16),
}


@pytest.mark.parametrize("name", list(PARTITION_CASES))
def test_partition_values_at_float_resolution_are_certified(name):
    a = PARTITION_CASES[name]
    exact, total = brute_cstar(a)
    cert = partition.certified_cstar(a)
    assert cert.lower_exact <= exact <= cert.upper_exact
    assert Fraction(cert.lower) <= exact
    assert cert.exact  # <= 5 weights: proven optimal
    # the Categorical term: cstar / total on the EXACT given floats, rounded down
    _, c = partition.categorical_partition_terms(a)
    assert 0.5 - 1e-15 <= c <= 1.0
    assert Fraction(c) <= exact / total
    # the Gaussian form: pbar = 2 cstar - total
    pbar = partition.certified_pbar(a)
    assert Fraction(pbar.lower) <= 2 * exact - total
    assert pbar.lower >= 0.0


def test_float32_weights_are_not_treated_as_decimals():
    """[0.1, 0.2, 0.3, 0.15, 0.25] in float32 has a minimum difference 2**-27, not 0."""
    a = PARTITION_CASES["float32 decimals"]
    exact, total = brute_cstar(a)
    assert 2 * exact - total == Fraction(1, 2**27)
    cert = partition.certified_cstar(a)
    assert cert.lower_exact == exact


@pytest.mark.parametrize("t", [3.0, 0.1, 1e-300, 1e300, 2.0**-1000])
def test_scaled_cstar_lower_holds_for_the_rounded_product(t):
    a = np.array([0.4, 0.35, 0.25, 0.125], dtype=np.float32).astype(np.float64)
    cert = partition.certified_cstar(a)
    scaled = a * t  # the vector a deployed classifier would hold
    if not np.all(np.isfinite(scaled)):
        pytest.skip("overflow")
    exact, _ = brute_cstar(scaled)
    low = partition.scaled_cstar_lower(cert, t)
    assert Fraction(low) <= exact


@pytest.mark.parametrize(
    ("a1", "a2", "mix"),
    [
        ([1e-260, 2e-260], [1e260, 1e260], 0.5),  # the scan supports sums in [2**-900, 2**900]
        ([1e-8, 1e-8, 1e-8], [1e8, 1e8], 0.25),
        (np.float32([0.1, 0.2, 0.3]), np.float32([0.15, 0.25]), 0.5),
    ],
)
def test_dirichlet_split_scan_at_extremes(a1, a2, mix):
    """c~ of the two-set scan against brute force over all error patterns (mpmath)."""
    c = partition.dirichlet_split_c_tilde(a1, a2, mix)
    assert 0.0 <= c <= 1.0
    a1 = [Fraction(float(x)) for x in np.asarray(a1, dtype=np.float64)]
    a2 = [Fraction(float(x)) for x in np.asarray(a2, dtype=np.float64)]
    t1, t2 = sum(a1), sum(a2)
    mix_q = Fraction(mix)
    best = mp.inf
    for e1 in product((0, 1), repeat=len(a1)):
        s1 = sum(x for x, e in zip(a1, e1, strict=True) if e)
        for e2 in product((0, 1), repeat=len(a2)):
            s2 = sum(x for x, e in zip(a2, e2, strict=True) if e)
            if mix_q * s1 / t1 + (1 - mix_q) * s2 / t2 >= Fraction(1, 2):
                g1 = ref_betainc_half(fr(t1 - s1), fr(s1))
                g2 = ref_betainc_half(fr(t2 - s2), fr(s2))
                best = min(best, mp.mpf(mix) * g1 + (1 - mp.mpf(mix)) * g2)
    assert _mpf(c) <= best
