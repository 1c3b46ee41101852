"""Sparse input end to end: CSR and dense X give the same voters, bounds and predictions.

Every public estimator accepts any scipy sparse format in ``fit``, ``predict``,
``decision_function`` and ``predict_proba`` (converted to CSR, which the voter banks take);
a bank whose voters cannot evaluate sparse input says so.
"""

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.utils import get_tags

import skpacbayes as skp
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import PrefitVoters, SplitForest, StumpBank

FAST = {"max_epochs": 3, "random_state": 0}


def _binary():
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    X[np.abs(X) < 0.5] = 0.0  # genuinely sparse: about 40 % zeros
    return X, y


def _multi():
    X, y = load_iris(return_X_y=True)
    X = X - np.median(X, axis=0)
    X[np.abs(X) < 0.3] = 0.0
    return X, y


def _forest():
    return SplitForest(n_estimators=6)


class _FirstFeature(ClassifierMixin, BaseEstimator):
    """A fitted binary model scoring the first feature, the same on sparse and dense rows
    (the certified decisions wrap a model: their outputs are the model's)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        column = X[:, [0]]
        return np.asarray(column.toarray() if sparse.issparse(column) else column).ravel()

    def predict_proba(self, X):
        p = 1.0 / (1.0 + np.exp(-self.decision_function(X)))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _decision(cls, **params):
    return cls(_FirstFeature().fit(None, None), max_risk=0.5, delta=0.5, **params)


CASES = [
    ("FO-cat", lambda: skp.FirstOrderBoundClassifier(**FAST), _binary),
    (
        "FO-gauss-forest",
        lambda: skp.FirstOrderBoundClassifier(posterior="gaussian", voters=_forest(), **FAST),
        _multi,
    ),
    ("SO-forest", lambda: skp.SecondOrderBoundClassifier(voters=_forest(), **FAST), _multi),
    ("Bin3", lambda: skp.BinomialBoundClassifier(n_draws=3, **FAST), _binary),
    ("CBound", lambda: skp.CBoundClassifier(**FAST), _binary),
    ("VC", lambda: skp.VCDimBoundClassifier(**FAST), _binary),
    ("Part-cat", lambda: skp.PartitionBoundClassifier(**FAST), _binary),
    (
        "Part-dir-forest",
        lambda: skp.PartitionBoundClassifier(
            posterior="dirichlet", voters=_forest(), tighten=False, **FAST
        ),
        _multi,
    ),
    ("Margin", lambda: skp.MarginBoundClassifier(n_margins=4, **FAST), _binary),
    ("Occam", lambda: skp.OccamBoundClassifier(**FAST), _binary),
    ("HoldOut", lambda: skp.HoldOutBoundClassifier(voters=_forest(), random_state=0), _multi),
    (
        "Vote",
        lambda: skp.CertifiedVoteClassifier(
            voters=RandomForestClassifier(n_estimators=6), out_of_bag=True, random_state=0
        ),
        _multi,
    ),
    ("Threshold", lambda: _decision(skp.CertifiedThresholdClassifier), _binary),
    ("Selective", lambda: _decision(skp.CertifiedSelectiveClassifier), _binary),
    (
        "Selection",
        lambda: BoundSelectionClassifier(
            [skp.FirstOrderBoundClassifier(**FAST), skp.OccamBoundClassifier(random_state=0)]
        ),
        _binary,
    ),
]


def test_every_public_estimator_is_covered():
    covered = {type(make()).__name__ for _, make, _ in CASES}
    public = {
        name
        for name in skp.__all__
        if name.endswith("Classifier") and name != "MajorityVoteClassifier"
    } | {"BoundSelectionClassifier"}
    assert public <= covered, public - covered


@pytest.mark.parametrize(("name", "make", "data"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_and_dense_agree(name, make, data, fmt):
    X, y = data()
    Xs = sparse.csr_matrix(X).asformat(fmt)
    dense = make().fit(X, y)
    sp = make().fit(Xs, y)
    assert get_tags(sp).input_tags.sparse
    assert sp.bound_ == dense.bound_
    cert = getattr(sp, "certificate_", None) or sp.best_estimator_.certificate_
    assert cert == (getattr(dense, "certificate_", None) or dense.best_estimator_.certificate_)
    for method in ("predict", "decision_function", "predict_proba"):
        np.testing.assert_array_equal(getattr(sp, method)(Xs), getattr(dense, method)(X))
        # a model fitted on dense input predicts sparse input identically, and conversely
        np.testing.assert_array_equal(getattr(dense, method)(Xs), getattr(dense, method)(X))
        np.testing.assert_array_equal(getattr(sp, method)(X), getattr(sp, method)(Xs))


class _DenseOnly(ClassifierMixin, BaseEstimator):
    """A fitted binary model whose predict refuses sparse input."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        if sparse.issparse(X):
            raise TypeError("this model needs a dense array")
        return (np.asarray(X)[:, 0] > 0).astype(int)


def test_bank_that_refuses_sparse_input_says_so():
    X, y = _binary()
    clf = skp.FirstOrderBoundClassifier(voters=PrefitVoters([_DenseOnly().fit(X, y)]), **FAST)
    with pytest.raises(TypeError, match="could not evaluate its voters on sparse input.*dense"):
        clf.fit(sparse.csr_matrix(X), y)
    clf.fit(X, y)  # dense input is fine
    with pytest.raises(TypeError, match="sparse input.*X.toarray"):
        clf.predict(sparse.csr_matrix(X))


def test_selection_tag_follows_its_candidates():
    assert get_tags(BoundSelectionClassifier([skp.OccamBoundClassifier()])).input_tags.sparse

    class Dense(skp.OccamBoundClassifier):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.sparse = False
            return tags

    assert not get_tags(BoundSelectionClassifier([Dense()])).input_tags.sparse


def test_stump_bank_on_sparse_input_matches_dense():
    X, y = _binary()
    dense = StumpBank(random_state=0).fit(X, y)
    sp = StumpBank(random_state=0).fit(sparse.csr_matrix(X), y)
    np.testing.assert_array_equal(sp.votes(sparse.csr_matrix(X)), dense.votes(X))
