"""The partition tightening heuristics never report a worse certificate than training."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from skpacbayes import PartitionBoundClassifier
from skpacbayes.objectives.partition import _Budget, tighten


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    keep = rng.choice(X.shape[0], 300, replace=False)
    # a shifted, rescaled copy: the clip scan and the scale profile have work to do
    return 3.0 * X[keep] - 7.0, y[keep]


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet", "gaussian"])
def test_tightening_never_worsens_the_certificate(data, posterior):
    X, y = data
    common = dict(posterior=posterior, max_epochs=5, random_state=0)
    trained = PartitionBoundClassifier(tighten=False, **common).fit(X, y)
    tightened = PartitionBoundClassifier(tighten=True, **common).fit(X, y)
    assert tightened.bound_ <= trained.bound_ + 1e-12
    assert tightened.bound_ >= tightened.certificate_.train_error


def _quadratic_with_scale(theta):
    """A scale-dependent objective: best at |theta|_1 = 10 with one weight dominant."""
    theta = np.asarray(theta, dtype=np.float64)
    return float((theta.sum() - 10.0) ** 2 + (theta[1:] ** 2).sum())


@pytest.mark.parametrize("budget", [1, 3, 12, 30, 200])
def test_tighten_returns_the_point_its_value_was_measured_at(budget):
    """Whenever the budget runs out, the returned value is the objective AT the returned point."""
    calls = {"n": 0}

    def objective(theta):
        if calls["n"] >= budget:
            raise _Budget
        calls["n"] += 1
        return _quadratic_with_scale(theta)

    start = np.array([1.0, 0.5, 0.25, 0.125])
    theta, value = tighten(start, objective, "dirichlet")
    if np.isfinite(value) and calls["n"] > 0:
        assert value == pytest.approx(_quadratic_with_scale(theta), rel=1e-12, abs=1e-12)
        assert value <= _quadratic_with_scale(start) + 1e-12


def _search_inputs(clf, X, y, dtype):
    """The row problem of a fitted estimator and the inputs of its partition search."""
    import torch

    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.spec import RefineContext
    from skpacbayes.engine.statistics import EvaluationGroup

    groups = [EvaluationGroup(v, s) for v, s in clf.groups_]
    votes, y_idx = clf.voters_.votes(X), np.searchsorted(clf.classes_, y)
    spec = clf._fit_spec(len(clf.classes_))
    problem = RowProblem(spec, votes, y_idx, groups, torch.device("cpu"), dtype)
    errors = [problem.voter_errors(g) for g in range(problem.n_groups)]
    context = RefineContext(
        clf.posterior,
        clf.delta,
        groups,
        lambda: (problem.posteriors, problem.m, problem.gibbs, errors),
    )
    return problem, groups, context


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet"])
def test_rearranged_result_never_ends_above_the_plain_tightening(data, posterior):
    import torch

    from skpacbayes.objectives.partition import PartitionObjective, tighten_partition

    X, y = data
    clf = PartitionBoundClassifier(posterior=posterior, max_epochs=2, tighten=False, random_state=0)
    clf.fit(X, y)
    problem, groups, inputs = _search_inputs(clf, X, y, torch.float32)
    natural, mixture = clf.posterior_params_, clf.mixture_weights_

    def objective(budget=600, cache=None):
        return PartitionObjective(inputs, mixture, budget, cache)

    # the two branches of tighten_partition, replayed: the second reads the first's values
    cache = {}
    start = objective().flatten(natural, mixture)
    plain_theta, plain = tighten(start, objective(600, cache), posterior)
    second_theta, second = tighten(start, objective(300, cache), posterior, h1_rank=1)
    best_theta = plain_theta if plain <= second else second_theta
    result = objective().flatten(*tighten_partition(inputs, natural, mixture))
    assert objective()(result) <= min(plain, second) + 1e-12
    # the same weights as the better branch's, possibly on other voters
    np.testing.assert_allclose(
        np.sort(result / result.sum()), np.sort(best_theta / best_theta.sum())
    )


def test_second_branch_follows_the_second_best_first_scan_candidate():
    """``h1_rank=1`` moves the first clip scan to its second best distinct value; the
    search of each branch then descends from there."""
    target = np.array([0.0, 3.0, 0.0, 0.0])  # clipping all but voter 1 is best...

    def objective(theta):
        theta = np.asarray(theta, dtype=np.float64)
        return float(np.sum((theta - target) ** 2) + 2.0 * np.count_nonzero(theta))

    start = np.array([1.0, 3.0, 2.0, 0.5])
    first, first_value = tighten(start, objective, "categorical", max_rounds=1)
    second, second_value = tighten(start, objective, "categorical", max_rounds=1, h1_rank=1)
    assert np.count_nonzero(first) == 1 and np.count_nonzero(second) == 2
    assert first_value < second_value < objective(start)


def _short_fit_search(data, posterior, split):
    """A two-iteration partition fit (split voters or not), its search inputs and its flat
    parameters."""
    import torch

    from skpacbayes.objectives.partition import PartitionObjective
    from skpacbayes.voters import SplitForest

    X, y = data
    voters = SplitForest(n_estimators=8, random_state=0) if split else None
    clf = PartitionBoundClassifier(
        posterior=posterior, voters=voters, max_epochs=2, tighten=False, random_state=0
    ).fit(X, y)
    _, _, inputs = _search_inputs(clf, X, y, torch.float32)
    mixture = clf.mixture_weights_
    theta = PartitionObjective(inputs, mixture, 1).flatten(clf.posterior_params_, mixture)
    return clf, inputs, theta


@pytest.fixture(scope="module")
def untrained(data):
    """An untrained Dirichlet partition fit and the inputs of its search."""
    import torch

    X, y = data
    clf = PartitionBoundClassifier(solver="none", posterior="dirichlet", random_state=0)
    clf.fit(X, y)
    return clf, _search_inputs(clf, X, y, torch.float32)[2]


def test_cached_values_are_not_counted(untrained):
    from skpacbayes.objectives.partition import PartitionObjective

    clf, inputs = untrained
    cache = {}
    first = PartitionObjective(inputs, clf.mixture_weights_, 2, cache)
    theta = first.flatten(clf.posterior_params_, clf.mixture_weights_)
    value = first(theta)
    second = PartitionObjective(inputs, clf.mixture_weights_, 0, cache)
    assert second(theta.copy()) == value and second.evaluations == 0  # read, not counted
    with pytest.raises(_Budget):
        second(2.0 * theta)


def test_sorted_by_errors_gives_the_largest_weights_to_the_best_voters(data):
    import torch

    from skpacbayes.objectives.partition import PartitionObjective

    X, y = data
    clf = PartitionBoundClassifier(solver="none", posterior="dirichlet", random_state=0)
    clf.fit(X, y)
    problem, groups, inputs = _search_inputs(clf, X, y, torch.float64)
    votes, y_idx = clf.voters_.votes(X), np.searchsorted(clf.classes_, y)
    objective = PartitionObjective(inputs, clf.mixture_weights_, 10)
    theta = np.random.default_rng(0).uniform(0.5, 1.5, size=votes.shape[1])
    out = objective.sorted_by_errors(theta)
    np.testing.assert_array_equal(np.sort(out), np.sort(theta))  # the same weights
    ((voters, samples),) = clf.groups_
    errors = (votes[np.ix_(samples, voters)] != y_idx[samples, None]).sum(axis=0)
    order = np.argsort(errors, kind="stable")
    assert np.all(np.diff(out[order]) <= 0)  # fewer errors, larger weight
    assert objective.evaluations == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_untrained_dirichlet_keeps_its_weight_on_a_best_voter(data, seed):
    # the untrained start is the prior plus noise: nearly equal weights whose order is the
    # noise's; the clip scan of the rearranged weights finds a voter with the fewest errors
    X, y = data
    common = dict(solver="none", posterior="dirichlet", random_state=seed)
    clf = PartitionBoundClassifier(**common).fit(X, y)
    untightened = PartitionBoundClassifier(tighten=False, **common).fit(X, y)
    ((voters, samples),) = clf.groups_
    votes = clf.voters_.votes(X)[np.ix_(samples, voters)]
    errors = (votes != np.searchsorted(clf.classes_, y[samples])[:, None]).sum(axis=0)
    assert errors[np.argmax(clf.weights_[voters])] == errors.min()
    assert clf.bound_ < untightened.bound_ - 0.05


@pytest.mark.parametrize(
    ("posterior", "split"),
    [("categorical", False), ("dirichlet", False), ("gaussian", False), ("dirichlet", True)],
)
def test_search_values_are_the_partition_bound_with_newtons_root(
    data, posterior, split, monkeypatch
):
    # the search scores candidates with Newton's kl root (NumPy): its value is the
    # certified partition bound of the same Gibbs risks, divergences and partition terms
    from skpacbayes import bounds
    from skpacbayes.bounds import _kl
    from skpacbayes.objectives.partition import PartitionObjective

    clf, inputs, theta = _short_fit_search(data, posterior, split)
    mixture = clf.mixture_weights_
    seen = {}

    def recorder(name, function, index):
        def recorded(*args):
            seen[name] = args[index]
            return function(*args)

        return recorded

    monkeypatch.setattr(bounds, "seeger_epsilon", recorder("kl", bounds.seeger_epsilon, 0))
    root = recorder("gibbs", _kl.newton_kl_inv_upper, 0)
    monkeypatch.setattr(_kl, "newton_kl_inv_upper", root)
    monkeypatch.setattr(bounds, "triple_bound", recorder("terms", bounds.triple_bound, slice(1, 3)))
    rng = np.random.default_rng(0)
    values = []
    for noise in (0.0, 0.3, 1.0):
        point = theta * np.exp(noise * rng.standard_normal(theta.size))
        value = PartitionObjective(inputs, mixture, 1)(point)
        b, c = seen["terms"]
        m = inputs.m
        # (one point: the ray's arrays have one row)
        gibbs, kl = (np.asarray(seen[k]).reshape(len(m)) for k in ("gibbs", "kl"))
        certified = bounds.partition_bound(gibbs, kl, m, clf.delta, b, c, weights=mixture)
        assert len(m) == (2 if split else 1)
        assert value == pytest.approx(float(certified), rel=1e-13, abs=1e-15)
        values.append(value)
    # the points move the bound below 1: the check compared something
    assert len(set(values)) == 3 and min(values) < 1.0


@pytest.mark.parametrize(
    ("posterior", "split"),
    [("categorical", False), ("dirichlet", False), ("gaussian", False), ("dirichlet", True)],
)
def test_profile_scores_a_ray_as_its_points(data, posterior, split):
    # the ray's shared sums, partition certificate and kl roots give the values of the
    # points scored one by one (up to the float32 rounding of the scaled sums)
    from skpacbayes.objectives.partition import _SCALES, PartitionObjective

    clf, inputs, theta = _short_fit_search(data, posterior, split)
    mixture = clf.mixture_weights_
    ray = PartitionObjective(inputs, mixture, 100)
    together = ray.profile(theta, list(_SCALES))
    assert ray.evaluations == len(_SCALES)
    alone = [PartitionObjective(inputs, mixture, 1)(t * theta) for t in _SCALES]
    np.testing.assert_allclose(together, alone, rtol=0, atol=2e-5)
    assert min(together) < 1.0
    if posterior != "categorical":  # (whose vote does not change with the scale)
        assert len(set(np.round(together, 6))) > 1  # a real profile


def test_profile_spends_the_budget_point_by_point(untrained):
    from skpacbayes.objectives.partition import PartitionObjective

    clf, inputs = untrained
    cache = {}
    first = PartitionObjective(inputs, clf.mixture_weights_, 3, cache)
    theta = first.flatten(clf.posterior_params_, clf.mixture_weights_)
    scales = [0.5, 1.0, 2.0, 4.0, 8.0]
    with pytest.raises(_Budget):  # three points fit in the budget, five are asked for
        first.profile(theta, scales)
    assert first.evaluations == 3 and len(cache) == 3
    second = PartitionObjective(inputs, clf.mixture_weights_, 2, cache)
    values = second.profile(theta, scales)  # the first three read, the last two evaluated
    assert second.evaluations == 2 and len(values) == 5
    assert values[:3] == [cache[(t * theta).tobytes()] for t in scales[:3]]


def test_profile_scores_invalid_points_as_infinite(untrained):
    # a ray of zero weights (one point, cached once) and one through a NaN
    from skpacbayes.objectives.partition import PartitionObjective

    clf, inputs = untrained
    objective = PartitionObjective(inputs, clf.mixture_weights_, 100)
    theta = objective.flatten(clf.posterior_params_, clf.mixture_weights_)
    assert objective.profile(np.zeros_like(theta), [0.5, 1.0, 2.0]) == [np.inf] * 3
    assert objective.evaluations == 1  # the same point three times
    theta[0] = np.nan
    assert objective.profile(theta, [0.5, 1.0]) == [np.inf] * 2
