"""BoundDisplay names each point by its estimator (its posterior only where it has one) and
says the confidence level the bounds hold at."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression

from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier, OccamBoundClassifier
from skpacbayes.voters import PrefitVoters

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def fitted():
    import matplotlib

    matplotlib.use("Agg")
    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    model = LogisticRegression().fit(X[:100], y[:100])
    forest = RandomForestClassifier(n_estimators=5)
    return (
        X,
        y,
        [
            OccamBoundClassifier(random_state=0).fit(X, y),
            HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X[100:], y[100:]),
            CertifiedVoteClassifier(voters=forest, n_folds=1, random_state=0).fit(X, y),
        ],
    )


def _legend(display):
    legend = display.ax_.get_legend()
    return legend.get_title().get_text(), [t.get_text() for t in legend.get_texts()]


def test_points_are_named_by_estimator_and_delta_titles_the_legend(fitted):
    from skpacbayes.plotting import BoundDisplay

    X, y, estimators = fitted
    display = BoundDisplay.from_estimators(estimators, X, y)
    assert display.names == ["Occam/categorical", "HoldOut", "CertifiedVote"]
    title, texts = _legend(display)
    assert title == "delta = 0.05"
    assert texts[:3] == display.names


def test_points_at_different_levels_say_their_own(fitted):
    from sklearn.base import clone

    from skpacbayes.plotting import BoundDisplay

    X, y, estimators = fitted
    other = clone(estimators[0]).set_params(delta=0.01).fit(X, y)
    display = BoundDisplay.from_estimators([estimators[0], other], X, y, names=["a", "b"])
    assert display.names == ["a (delta 0.05)", "b (delta 0.01)"]
    assert _legend(display)[0] == ""


def test_results_take_their_delta():
    from skpacbayes.plotting import BoundDisplay

    rows = [{"method": "FO", "posterior": "best", "bound": 0.3, "test_error": 0.1}]
    assert _legend(BoundDisplay.from_results(rows, delta=0.05))[0] == "delta = 0.05"
    assert BoundDisplay.from_results(rows).delta is None
    assert np.isclose(BoundDisplay.from_results(rows).bounds[0], 0.3)
