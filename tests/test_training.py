"""Tests of the shared optimisation loop (skpacbayes.engine.optimisers.train)."""

import pytest
import torch

from skpacbayes.engine.optimisers import train


def _quadratic(target, n_samples=64):
    """Mini-batch and full objectives of ``mean_i (p - target_i)^2`` for a scalar ``p``."""
    p = torch.zeros((), requires_grad=True)
    targets = torch.linspace(target - 1.0, target + 1.0, n_samples)

    def batch(index):
        return ((p - targets[index]) ** 2).mean()

    def full():
        with torch.no_grad():
            return float(((p - targets) ** 2).mean())

    return p, batch, full


def test_train_minimises_and_keeps_the_best_epoch():
    p, batch, full = _quadratic(2.0)
    result = train(
        [p],
        batch,
        full,
        64,
        max_epochs=60,
        batch_size=16,
        generator=torch.Generator().manual_seed(0),
    )
    assert len(result.history) == result.n_iter + 1
    assert result.history[result.best_epoch] == min(result.history)
    assert float(result.params[0]) == pytest.approx(2.0, abs=1e-2)
    assert 1 <= result.n_iter <= 60


@pytest.mark.parametrize(
    ("min_lr_ratio", "expected"),
    [
        # a constant objective: epoch 1 sets the schedule's reference, then the rate is
        # divided by 10 every lr_patience + 1 = 3 epochs (epochs 4, 7, 10, 13, 16);
        # 0.1 -> 1e-6 < 0.1 * 1e-4 after the fifth reduction (epoch 16)
        (1e-4, 16),
        (1e-2, 10),  # 0.1 -> 1e-4 < 1e-3 after the third
        (0.0, 25),  # only the patience stops it
    ],
)
def test_train_stops_once_the_learning_rate_has_collapsed(min_lr_ratio, expected):
    p = torch.zeros(3, requires_grad=True)

    def batch(index):
        return (p * 0.0).sum() + 1.0

    result = train(
        [p],
        batch,
        lambda: 1.0,
        10,
        max_epochs=100,
        batch_size=5,
        early_stopping_patience=25,
        min_lr_ratio=min_lr_ratio,
    )
    assert result.n_iter == expected
    assert result.best_epoch == 0


def test_small_samples_get_min_steps_per_epoch():
    # 10 samples, batch 1024: one pass is one step; the epoch still takes 10 steps
    calls = []
    p = torch.zeros((), requires_grad=True)

    def batch(index):
        calls.append(index.numel())
        return (p - 1.0) ** 2

    result = train(
        [p],
        batch,
        lambda: float((p.detach() - 1.0) ** 2),
        10,
        max_epochs=3,
        batch_size=1024,
        min_steps_per_epoch=10,
    )
    assert result.n_iter == 3
    assert calls == [10] * 30
    # a large sample keeps one pass per epoch (here 4 batches < 10: three more passes)
    calls.clear()
    train([p], batch, lambda: 0.0, 40, max_epochs=1, batch_size=10, min_steps_per_epoch=1)
    assert calls == [10] * 4


def test_polish_lowers_the_objective_or_restores():
    from skpacbayes.engine.optimisers import polish

    p = torch.tensor([3.0, -2.0], requires_grad=True)
    before, after = polish([p], lambda: ((p - torch.tensor([1.0, 0.5])) ** 4).sum())
    assert after < before
    assert torch.allclose(p.detach(), torch.tensor([1.0, 0.5]), atol=0.05)
    # an objective that cannot be lowered: the parameters are left as they were
    q = torch.tensor([1.0], requires_grad=True)
    before, after = polish([q], lambda: (q * 0.0).sum() + 1.0)
    assert before == after == 1.0
    assert float(q.detach()) == 1.0


@pytest.mark.parametrize("posterior", ["dirichlet", "gaussian"])
def test_binomial_bound_deploys_a_genuine_vote(posterior):
    # issue 16: on breast cancer the Bin objective saturated after one Adam step per epoch
    # (455 rows < batch 1024); the start (every vote a tie) was kept: 58.8 % test error,
    # one class everywhere, against 14 % for the best single stump
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from skpacbayes import BinomialBoundClassifier, OccamBoundClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    occam = OccamBoundClassifier(random_state=0).fit(X_tr, y_tr)
    clf = BinomialBoundClassifier(posterior=posterior, random_state=0).fit(X_tr, y_tr)
    occam_error = np.mean(occam.predict(X_te) != y_te)
    error = np.mean(clf.predict(X_te) != y_te)
    assert np.unique(clf.predict(X_te)).size == 2
    assert error <= occam_error + 0.01
    assert clf.bound_ < 1.0
    assert clf.certificate_.n_effective_voters > 1


def test_minimize_lbfgs_keeps_the_evaluated_point_of_lowest_rank():
    from skpacbayes.engine.optimisers import minimize_lbfgs

    target = torch.tensor([1.0, 0.5], dtype=torch.float64)
    p = torch.tensor([3.0, -2.0], dtype=torch.float64, requires_grad=True)
    seen = []

    def objective():
        return ((p - target) ** 2).sum()

    def rank():  # prefers points far from the minimiser: ranks the start first
        seen.append((p.detach().clone(), float(objective().detach())))
        return float(-torch.linalg.norm(p.detach() - target))

    result = minimize_lbfgs([p], objective, rank=rank)
    assert len(seen) > 2
    far = min(seen, key=lambda s: (-torch.linalg.norm(s[0] - target), s[1]))
    torch.testing.assert_close(p.detach(), far[0])
    assert result.value == far[1] > min(v for _, v in seen) + 1.0
    # without a rank the same run ends at the minimiser
    q = torch.tensor([3.0, -2.0], dtype=torch.float64, requires_grad=True)
    assert minimize_lbfgs([q], lambda: ((q - target) ** 2).sum()).value < 1e-12


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_training_threads_follow_n_jobs_and_blas_keeps_one(n_jobs, monkeypatch):
    # two multi-threaded pools (torch's OpenMP and BLAS) taking turns wait for each other's
    # cores: the BLAS products of the training run on one thread, torch on n_jobs
    from sklearn.datasets import make_classification
    from threadpoolctl import threadpool_info

    from skpacbayes import FirstOrderBoundClassifier
    from skpacbayes.posteriors import _vote_sums

    seen = []
    original = _vote_sums._matvec

    def spy(a, x):
        blas = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        seen.append((torch.get_num_threads(), blas))
        return original(a, x)

    monkeypatch.setattr(_vote_sums, "_matvec", spy)
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    FirstOrderBoundClassifier(posterior="gaussian", n_jobs=n_jobs, max_epochs=3).fit(X, y)
    assert seen
    assert {threads for threads, _ in seen} == {1 if n_jobs is None else 2}
    assert all(blas <= {1} for _, blas in seen)


def test_minimize_lbfgs_stops_when_asked():
    from skpacbayes.engine.optimisers import minimize_lbfgs

    p = torch.tensor([3.0, -2.0, 5.0], dtype=torch.float64, requires_grad=True)
    scales = torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64)
    seen = []

    def stop(history):
        seen.append(list(history))
        return len(history) == 3  # the start and two iterations

    result = minimize_lbfgs([p], lambda: (scales * (p - 1.0) ** 2).sum(), stop=stop)
    assert result.n_iter == 2 and len(result.history) == 3 and seen[-1] == result.history
    assert result.value == min(result.history) > 1e-6  # stopped short of the minimum


def test_caught_up_needs_the_level_and_a_slow_step():
    from skpacbayes.engine.descent import _CAUGHT_UP_TOL, caught_up

    tol = _CAUGHT_UP_TOL
    level = 0.4
    assert not caught_up([0.5], level)  # no iteration yet
    assert not caught_up([0.5, 0.41], level)  # above the level
    assert not caught_up([0.5, 0.4], level)  # at the level but still descending fast
    assert caught_up([0.4 + tol, 0.4 + tol / 2], level)
    assert caught_up([0.4, 0.4 - tol / 2], level)
    assert not caught_up([0.4 - 2 * tol, 0.4 - 2.5 * tol], level)  # going on below it
    assert not caught_up([0.4, 0.4], float("inf"))  # no earlier run


@pytest.mark.parametrize("posterior", ["dirichlet", "gaussian"])
def test_descents_that_catch_up_stop_at_the_earlier_end(posterior, monkeypatch):
    # the runs after the first stop once they arrive where it ended: fewer iterations in all,
    # the certificate within the stopping tolerance of the one of full runs
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    from skpacbayes import FirstOrderBoundClassifier
    from skpacbayes.engine import descent

    X, y = load_breast_cancer(return_X_y=True)
    runs = []
    original = descent.minimize_lbfgs

    def counted(*args, **kwargs):
        result = original(*args, **kwargs)
        runs.append(result.n_iter)
        return result

    monkeypatch.setattr(descent, "minimize_lbfgs", counted)

    def fit():
        runs.clear()
        clf = FirstOrderBoundClassifier(posterior=posterior, random_state=0).fit(X, y)
        return clf.bound_, list(runs)

    bound, iterations = fit()
    monkeypatch.setattr(descent, "_CAUGHT_UP_TOL", 0.0)  # every run to its own end
    full_bound, full_iterations = fit()
    assert len(iterations) == len(full_iterations) >= 3
    assert iterations[0] == full_iterations[0]  # the first run is never stopped
    assert sum(iterations) < sum(full_iterations)
    assert abs(bound - full_bound) <= 1e-4
    assert np.all(np.array(iterations) <= np.array(full_iterations))


@pytest.mark.parametrize("tighten", [True, False])
def test_partition_runs_converge_before_the_tightening(tighten, monkeypatch):
    # the tightening's search depends on the last bits of its start: before it, no run stops
    # where an earlier one ended
    import math

    from sklearn.datasets import load_breast_cancer

    from skpacbayes import PartitionBoundClassifier
    from skpacbayes.engine import rows

    X, y = load_breast_cancer(return_X_y=True)
    levels = []
    original = rows.run_lbfgs

    def recorded(*args, level=math.inf, **kwargs):
        levels.append(level)
        return original(*args, level=level, **kwargs)

    monkeypatch.setattr(rows, "run_lbfgs", recorded)
    PartitionBoundClassifier(posterior="gaussian", tighten=tighten, random_state=0).fit(X, y)
    assert len(levels) >= 3 and math.isinf(levels[0])
    assert all(math.isinf(v) for v in levels) == tighten


def test_categorical_search_coordinates_are_the_square_roots_of_the_probabilities():
    # L-BFGS searches a Categorical posterior in x = sqrt(p): the map back gives the same
    # probabilities, x**2 / sum(x**2) for any x, and a zero weight stays zero without a NaN
    from skpacbayes import BinomialBoundClassifier, VCDimBoundClassifier
    from skpacbayes.engine.descent import _from_search, _square_root_search, _to_search
    from skpacbayes.engine.spec import make_posterior

    post = make_posterior("categorical", 4, 2)
    raw = torch.tensor([0.3, -2.0, 1.5, -1e4], dtype=torch.float64)
    x = _to_search(raw, True)
    assert torch.allclose(x, torch.sqrt(torch.softmax(raw, dim=0)), rtol=1e-15, atol=0)
    assert float(x[3]) == 0.0
    x = (3.0 * x).requires_grad_(True)  # the scale of x is free
    p = post.natural(_from_search(x, True))
    assert torch.allclose(p, torch.softmax(raw, dim=0), rtol=1e-14, atol=0)
    assert float(p[3].detach()) == 0.0
    p[0].backward()
    assert torch.isfinite(x.grad).all() and float(x.grad[3]) == 0.0
    y = torch.tensor([-0.5, 0.5, 1.0], dtype=torch.float64)  # signs do not matter
    q = make_posterior("categorical", 3, 2).natural(_from_search(y, True))
    assert torch.allclose(q, y**2 / (y**2).sum(), rtol=1e-14, atol=0)
    assert _to_search(raw, False) is raw and _from_search(raw, False) is raw
    # the PAC-Bayes objectives' Categorical posteriors only (the VC cross-entropy has no KL)
    binomial, vc = BinomialBoundClassifier()._fit_spec(2), VCDimBoundClassifier()._fit_spec(2)
    assert _square_root_search(binomial, post)
    assert not _square_root_search(vc, post)
    assert not _square_root_search(binomial, make_posterior("dirichlet", 4, 2))


def test_categorical_lbfgs_converges_within_its_iterations():
    # in the logits, the small weights of a trained Categorical posterior make the objective
    # ill-conditioned: the C-bound's descent on breast cancer (seed 1) used all 100 iterations
    # and ended higher; in the square roots of the probabilities it converges in about 30
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from skpacbayes import CBoundClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, _, y_tr, _ = train_test_split(X, y, test_size=0.2, stratify=y, random_state=1)
    clf = CBoundClassifier(posterior="categorical", random_state=1).fit(X_tr, y_tr)
    assert clf.solver_ == "lbfgs"
    assert clf.n_iter_ < 60
    assert clf.bound_ < 0.5462


@pytest.mark.parametrize("posterior", ["dirichlet", "gaussian"])
def test_above_the_error_matrix_budget_adam_reads_the_votes(posterior, monkeypatch):
    # solver="auto" falls back to Adam on the votes (no error matrix held) above the budget:
    # the same protocol as solver="adam" on the held error matrix, up to float32 rounding
    from sklearn.datasets import load_breast_cancer

    from skpacbayes import FirstOrderBoundClassifier
    from skpacbayes.engine import rows

    X, y = load_breast_cancer(return_X_y=True)
    common = dict(posterior=posterior, max_epochs=3, random_state=0)
    held = FirstOrderBoundClassifier(solver="adam", **common).fit(X, y)
    monkeypatch.setattr(rows, "ERROR_MATRIX_BYTES", 0)
    votes = FirstOrderBoundClassifier(**common).fit(X, y)
    assert votes.solver_ == held.solver_ == "adam"
    assert votes.bound_ == pytest.approx(held.bound_, abs=2e-3)
