"""scikit-learn's estimator checks on every estimator (fast settings).

Expected failures, with their reasons, live in ``EXPECTED_FAILURES``
(ideally empty).
"""

import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    CertifiedSelectiveClassifier,
    CertifiedThresholdClassifier,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import SplitForest

FAST = {"max_epochs": 3, "random_state": 0}


def _estimators():
    forest = SplitForest(n_estimators=10)
    yield FirstOrderBoundClassifier(**FAST)
    yield FirstOrderBoundClassifier(posterior="gaussian", voters=forest, **FAST)
    yield SecondOrderBoundClassifier(voters=forest, **FAST)
    yield BinomialBoundClassifier(n_draws=3, **FAST)
    yield CBoundClassifier(**FAST)
    yield VCDimBoundClassifier(**FAST)
    yield PartitionBoundClassifier(**FAST)
    # tighten=False keeps this split-Dirichlet variant fast; tightening is checked above
    yield PartitionBoundClassifier(posterior="dirichlet", voters=forest, tighten=False, **FAST)
    yield MarginBoundClassifier(**FAST)
    yield OccamBoundClassifier(**FAST)
    yield HoldOutBoundClassifier(voters=forest, validation_fraction=None, random_state=0)
    yield HoldOutBoundClassifier(
        voters=RandomForestClassifier(n_estimators=10),
        validation_fraction=(0.2, 0.5),
        random_state=0,
    )
    yield CertifiedVoteClassifier(random_state=0)  # the defaults: small forests on tiny samples
    # the decisions on the checks' tiny random samples: a lenient target, a short grid (the
    # threshold 0.5 of scikit-learn's predict, answering every row), an unfitted model
    # fitted on half the rows
    lenient = dict(max_risk=0.99, delta=0.9, random_state=0)
    yield CertifiedThresholdClassifier(LogisticRegression(), thresholds=(0.0, 0.5), **lenient)
    yield CertifiedSelectiveClassifier(LogisticRegression(), thresholds=(0.0,), risks=(), **lenient)
    yield BoundSelectionClassifier(
        [FirstOrderBoundClassifier(**FAST), FirstOrderBoundClassifier(posterior="gaussian", **FAST)]
    )


# (estimator class name, check name) -> reason
EXPECTED_FAILURES = {}


def _expected_failed_checks(estimator):
    return {
        check: reason
        for (name, check), reason in EXPECTED_FAILURES.items()
        if name == type(estimator).__name__
    }


@parametrize_with_checks(list(_estimators()), expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_every_public_estimator_is_checked():
    import skpacbayes

    checked = {type(e).__name__ for e in _estimators()}
    public = {
        name
        for name in skpacbayes.__all__
        if name.endswith("Classifier") and name != "MajorityVoteClassifier"
    }
    missing = public - checked
    assert not missing, f"not run through check_estimator: {missing}"
    pytest.importorskip("sklearn")
