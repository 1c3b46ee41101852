"""The partition tightening heuristics never report a worse certificate than training."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from skpacbayes import PartitionBoundClassifier
from skpacbayes._tightening import _Budget, tighten


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
