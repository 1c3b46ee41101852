"""The adversarial matrix of ``test_adversarial`` for the estimators built on selection.

:class:`~skpacbayes.HoldOutBoundClassifier` and :class:`~skpacbayes.CertifiedVoteClassifier`
take other parameters than the bound classifiers, so they get their own rows here, with the
same invalid-data cases (E1-E12), their own invalid parameters (P), and the certificate
contract on odd but valid inputs (float32, pandas, string labels, constant features).

| id | input / parameter                           | expected                                |
|----|---------------------------------------------|-----------------------------------------|
| E* | every case of ``test_adversarial.FIT_ERRORS`` / ``PREDICT_ERRORS`` | the same error   |
| P1 | delta 0, 1.5, "a"                           | InvalidParameterError naming delta      |
| P2 | validation_fraction 0, 1, (), (nan,), "abc", duplicates | ValueError naming it        |
| P3 | selection "XX"; estimator a bank; voters a classifier in halves mode | ValueError   |
| V1 | float32, pandas, string labels, constant column | certified: bound in [0, 1] |
| V2 | recompute_bound(0), recompute_bound(2)      | ValueError naming delta                 |
"""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from test_adversarial import FIT_ERRORS, PREDICT_ERRORS, data

from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
from skpacbayes.voters import SplitForest


def _make(name, **kwargs):
    if name == "HoldOut":  # the halves protocol
        params = {"voters": SplitForest(n_estimators=6), "validation_fraction": None}
        return HoldOutBoundClassifier(**{**params, "random_state": 0, **kwargs})
    forest = RandomForestClassifier(n_estimators=6)
    params = {"validation_fraction": (0.25, 0.5), "random_state": 0}
    if name == "HoldOutFraction":
        return HoldOutBoundClassifier(**{"voters": forest, **params, **kwargs})
    return CertifiedVoteClassifier(**{"voters": forest, **params, **kwargs})


NAMES = ["HoldOut", "HoldOutFraction", "CertifiedVote"]


@pytest.mark.parametrize("case", list(FIT_ERRORS))
@pytest.mark.parametrize("name", NAMES)
def test_invalid_training_data_raises(name, case):
    make_xy, exc, match = FIT_ERRORS[case]
    X, y = make_xy()
    if case in ("E4-one-sample", "E5-one-class"):
        match = "one class|at least 2 classes"
    with pytest.raises(exc, match=match):
        _make(name).fit(X, y)


@pytest.fixture(scope="module")
def fitted():
    X, y = data(m=40)
    return {name: _make(name).fit(X, y) for name in NAMES}


@pytest.mark.parametrize("case", list(PREDICT_ERRORS))
@pytest.mark.parametrize("name", NAMES)
def test_invalid_prediction_data_raises(fitted, name, case):
    transform, exc, match = PREDICT_ERRORS[case]
    X_bad = transform(data(m=40)[0])
    est = fitted[name]
    for method in (est.predict, est.predict_proba, est.decision_function):
        with pytest.raises(exc, match=match):
            method(X_bad)


@pytest.mark.parametrize("name", NAMES)
def test_unfitted_raises(name):
    est = _make(name)
    for method in (est.predict, est.predict_proba, est.decision_function):
        with pytest.raises(NotFittedError):
            method(data()[0])
    with pytest.raises(NotFittedError):
        est.recompute_bound(0.05)


@pytest.mark.parametrize(
    "name, param, value",
    [
        ("HoldOut", "delta", 0.0),
        ("HoldOut", "delta", 1.5),
        ("HoldOut", "delta", "a"),
        ("HoldOutFraction", "delta", 0.0),
        ("HoldOutFraction", "validation_fraction", 1.5),
        ("HoldOutFraction", "validation_fraction", "abc"),
        ("HoldOutFraction", "voters", "forest"),
        ("CertifiedVote", "delta", 0.0),
        ("CertifiedVote", "delta", 1.5),
        ("CertifiedVote", "selection", "XX"),
        ("CertifiedVote", "validation_fraction", 0.0),
        ("CertifiedVote", "validation_fraction", None),
        ("CertifiedVote", "voters", "forest"),
        ("CertifiedVote", "estimator", "forest"),  # the deprecated name is validated too
        ("CertifiedVote", "delta", 1.0),
        ("HoldOutFraction", "delta", 1.0),
        ("CertifiedVote", "n_jobs", 0),
        ("HoldOutFraction", "n_jobs", 0),
    ],
)
def test_invalid_parameters_raise(name, param, value):
    with pytest.raises(InvalidParameterError, match=param):
        _make(name, **{param: value}).fit(*data(m=40))


@pytest.mark.parametrize("name", ["HoldOutFraction", "CertifiedVote"])
@pytest.mark.parametrize(
    "fractions", [(), (float("nan"),), (0.2, float("inf")), (0.3, 0.3), (0.2, 1.0), ("a",)]
)
def test_invalid_validation_fractions_raise(name, fractions):
    with pytest.raises(ValueError, match="validation_fraction"):
        _make(name, validation_fraction=fractions).fit(*data(m=40))


def test_voters_and_estimator_of_the_wrong_kind_raise():
    X, y = data(m=40)
    with pytest.raises(ValueError, match="voters"):
        _make("HoldOut", voters=RandomForestClassifier(n_estimators=4)).fit(X, y)
    with pytest.raises(ValueError, match="'voters' parameter of CertifiedVoteClassifier"):
        _make("CertifiedVote", voters=SplitForest(n_estimators=4)).fit(X, y)


def _check_certified(est, X, y):
    b = est.bound_
    assert isinstance(b, float) and not math.isnan(b) and 0.0 <= b <= 1.0
    assert b >= est.certificate_.train_error - 1e-12
    pred = est.predict(X)
    assert set(np.unique(pred)) <= set(np.asarray(est.classes_).tolist())
    proba = est.predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", ["float32", "pandas", "strings", "constant-feature"])
def test_odd_but_valid_inputs_are_certified(name, variant):
    X, y = data(m=40)
    if variant == "float32":
        X = X.astype(np.float32)
    elif variant == "pandas":
        X = pd.DataFrame(X, columns=["a", "b", "c"])
    elif variant == "strings":
        y = np.where(y == 1, "yes", "no")
    else:
        X = np.column_stack([X, np.full(X.shape[0], 3.0)])
    est = _make(name).fit(X, y)
    _check_certified(est, X, y)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("delta", [0.0, 2.0, -1.0])
def test_recompute_bound_rejects_invalid_delta(fitted, name, delta):
    with pytest.raises(ValueError, match="delta"):
        fitted[name].recompute_bound(delta)
