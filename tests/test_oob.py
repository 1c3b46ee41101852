"""Out-of-bag voter banks and their first-order / tandem certificates."""

import math
import pickle

import mpmath
import numpy as np
import pytest
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.ensemble import BaggingClassifier, ExtraTreesClassifier, RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(
        n_samples=400, n_features=8, n_informative=4, flip_y=0.05, random_state=0
    )
    return X, y


class RecordingTree(ClassifierMixin, BaseEstimator):
    """A decision tree that records the rows (by a row-id feature) it was fitted on."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.seen_ = np.asarray(X[:, 0], dtype=np.int64)
        self.weights_seen_ = None if sample_weight is None else np.asarray(sample_weight)
        self.tree_ = DecisionTreeClassifier(max_depth=3, random_state=self.random_state)
        self.tree_.fit(X[:, 1:], y, sample_weight=sample_weight)
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        return self.tree_.predict(X[:, 1:])


# ---------------------------------------------------------------- index draws
@pytest.mark.parametrize("bootstrap", [False, True])
def test_draws_depend_only_on_seed_and_sample_size(binary, bootstrap):
    X, y = binary
    rng = np.random.RandomState(1)
    perm = rng.permutation(len(y))
    a = OutOfBagVoters(n_estimators=6, bootstrap=bootstrap, random_state=3).fit(X, y)
    # permuted rows, relabelled classes, other features: same draws
    Xb = rng.normal(size=(len(y), 3))
    b = OutOfBagVoters(n_estimators=6, bootstrap=bootstrap, random_state=3).fit(
        Xb, np.where(y[perm] == 1, "cat", "dog")
    )
    for i in range(6):
        np.testing.assert_array_equal(a.in_bag_indices(i), b.in_bag_indices(i))
    np.testing.assert_array_equal(a.evaluation_mask(), b.evaluation_mask())
    c = OutOfBagVoters(n_estimators=6, bootstrap=bootstrap, random_state=4).fit(X, y)
    assert not np.array_equal(a.evaluation_mask(), c.evaluation_mask())


def test_members_never_see_an_out_of_bag_row(binary):
    X, y = binary
    Xr = np.column_stack([np.arange(len(y)), X])
    for bootstrap in (False, True):
        bank = OutOfBagVoters(
            RecordingTree(), n_estimators=5, bootstrap=bootstrap, random_state=0
        ).fit(Xr, y)
        mask = bank.evaluation_mask()
        for i, est in enumerate(bank.estimators_):
            drawn = bank.in_bag_indices(i)
            np.testing.assert_array_equal(np.sort(np.unique(est.seen_)), np.unique(drawn))
            assert not mask[est.seen_, i].any()
            assert mask[:, i].sum() == len(y) - np.unique(drawn).size == bank.oob_sizes_[i]
            if bootstrap:  # the distinct rows, with their counts as sample weights
                rows, counts = np.unique(drawn, return_counts=True)
                np.testing.assert_array_equal(est.seen_, rows)
                np.testing.assert_array_equal(est.weights_seen_, counts)
            else:
                assert est.weights_seen_ is None


def test_out_of_bag_sizes_subsample_and_bootstrap(binary):
    X, y = binary
    m = len(y)
    half = OutOfBagVoters(n_estimators=20, random_state=0).fit(X, y)
    assert not half.bootstrap_ and half.n_drawn_ == m // 2
    np.testing.assert_array_equal(half.oob_sizes_, m - m // 2)
    mask = half.evaluation_mask().astype(int)
    pairs = mask.T @ mask
    off = pairs[~np.eye(20, dtype=bool)]
    assert abs(off.mean() / m - 0.25) < 0.03
    boot = OutOfBagVoters(n_estimators=20, bootstrap=True, random_state=0).fit(X, y)
    assert boot.n_drawn_ == m
    assert abs(boot.oob_sizes_.mean() / m - math.exp(-1)) < 0.03
    q = OutOfBagVoters(n_estimators=3, max_samples=100, random_state=0).fit(X, y)
    np.testing.assert_array_equal(q.oob_sizes_, m - 100)


# ---------------------------------------------------------------- certificates
def _kl_inv_upper(q, eps):
    """sup {p : kl(q || p) <= eps} by bisection at 40 digits (mpmath)."""
    with mpmath.workdps(40):
        q, eps = mpmath.mpf(q), mpmath.mpf(eps)

        def kl(p):
            out = q * mpmath.log(q / p) if q > 0 else mpmath.mpf(0)
            return out + ((1 - q) * mpmath.log((1 - q) / (1 - p)) if q < 1 else 0)

        lo, hi = q, mpmath.mpf(1)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if kl(mid) <= eps else (lo, mid)
        return float(lo)


def _independent_certificate(clf, X, y):
    """Recompute the bound from the votes and the draws, in plain NumPy / SciPy."""
    bank = clf.voters_
    V = bank.votes(X)
    y_idx = np.searchsorted(clf.classes_, y)
    n = V.shape[1]
    oob = np.ones((len(y), n), dtype=bool)
    for i in range(n):
        oob[bank.in_bag_indices(i), i] = False
    err = (V != y_idx[:, None]) & oob
    p = clf.weights_
    kl = float(np.sum(p[p > 0] * np.log(p[p > 0] * n)))
    delta = clf.delta
    if isinstance(clf, FirstOrderBoundClassifier):
        sizes = oob.sum(axis=0)
        stat = float(np.sum(p * err.sum(axis=0) / sizes))
        r = int(sizes.min())
        return min(1.0, 2 * _kl_inv_upper(stat, (kl + math.log(2 * math.sqrt(r) / delta)) / r)), r
    pair_sizes = oob.T.astype(np.int64) @ oob.astype(np.int64)
    pair_err = err.T.astype(np.int64) @ err.astype(np.int64)
    stat = float(p @ (pair_err / pair_sizes) @ p)
    r2 = int(pair_sizes.min())
    eps = (2 * kl + math.log(2 * math.sqrt(r2) / delta)) / r2
    return min(1.0, 4 * _kl_inv_upper(stat, eps)), r2


@pytest.mark.parametrize("cls", [FirstOrderBoundClassifier, SecondOrderBoundClassifier])
@pytest.mark.parametrize("bootstrap", [False, True])
def test_certificate_matches_an_independent_recomputation(binary, cls, bootstrap):
    X, y = binary
    clf = cls(
        voters=OutOfBagVoters(n_estimators=15, bootstrap=bootstrap), random_state=0, max_epochs=20
    ).fit(X, y)
    expected, size = _independent_certificate(clf, X, y)
    assert clf.certificate_.m == (size,)
    assert clf.bound_ >= expected  # safe side
    assert clf.bound_ == pytest.approx(expected, rel=1e-9, abs=1e-10)
    assert clf.recompute_bound(clf.delta) == clf.bound_
    details = clf.certificate_.details
    assert details["scheme"] == "out_of_bag"
    assert details["r"] == clf.voters_.oob_sizes_.min()
    if cls is SecondOrderBoundClassifier:
        assert details["r2"] == size
    # the deployed vote is the weighted vote of ALL members
    assert clf.weights_.shape == (15,) and np.all(clf.weights_ > 0)
    assert abs(clf.weights_.sum() - 1) < 1e-12


def test_training_lowers_the_bound_below_the_uniform_vote(binary):
    X, y = binary
    bank = OutOfBagVoters(n_estimators=20)
    trained = FirstOrderBoundClassifier(voters=bank, random_state=0).fit(X, y)
    uniform = FirstOrderBoundClassifier(solver="none", voters=bank, random_state=0).fit(X, y)
    assert trained.n_iter_ > 0
    assert trained.bound_ < uniform.bound_


def test_multiclass():
    X, y = load_iris(return_X_y=True)
    for cls in (FirstOrderBoundClassifier, SecondOrderBoundClassifier):
        clf = cls(voters=OutOfBagVoters(n_estimators=10), random_state=0).fit(X, y)
        expected, _ = _independent_certificate(clf, X, y)
        assert clf.bound_ >= expected and clf.bound_ == pytest.approx(expected, rel=1e-9)
        assert clf.predict_proba(X).shape == (150, 3)
        assert clf.score(X, y) > 0.9


# ---------------------------------------------------------------- ensembles
def test_random_forest_parameters_are_honoured(binary):
    X, y = binary
    rf = RandomForestClassifier(n_estimators=7, max_depth=2, criterion="entropy", max_samples=0.3)
    bank = OutOfBagVoters(rf, random_state=0).fit(X, y)
    assert bank.n_voters_ == 7 and bank.bootstrap_ and bank.n_drawn_ == round(0.3 * len(y))
    for tree in bank.estimators_:
        assert isinstance(tree, DecisionTreeClassifier)
        assert tree.max_depth == 2 and tree.criterion == "entropy" and tree.max_features == "sqrt"
        assert tree.get_depth() <= 2
    et = OutOfBagVoters(ExtraTreesClassifier(n_estimators=4, max_features=2, bootstrap=True)).fit(
        X, y
    )
    assert et.n_voters_ == 4 and all(isinstance(t, ExtraTreeClassifier) for t in et.estimators_)
    assert all(t.max_features == 2 for t in et.estimators_)
    # the same number of trees given twice is fine
    OutOfBagVoters(RandomForestClassifier(n_estimators=3), n_estimators=3, bootstrap=True).fit(X, y)


def test_bagging_parameters_are_honoured(binary):
    X, y = binary
    bag = BaggingClassifier(
        LogisticRegression(), n_estimators=4, max_samples=0.5, bootstrap=False, max_features=3
    )
    bank = OutOfBagVoters(bag, random_state=0).fit(X, y)
    assert bank.n_voters_ == 4 and not bank.bootstrap_ and bank.n_drawn_ == 200
    for est, feats in zip(bank.estimators_, bank.estimators_features_, strict=True):
        assert isinstance(est, LogisticRegression) and feats.size == 3 == est.n_features_in_
    assert bank.votes(X).shape == (len(y), 4)


def _fitted_state(est):
    if hasattr(est, "tree_"):
        t = est.tree_
        return [t.feature, t.threshold, t.value]
    return [est.coef_, est.intercept_]


@pytest.mark.parametrize(
    "estimator",
    [
        None,
        RandomForestClassifier(n_estimators=4, class_weight="balanced_subsample", max_depth=4),
        BaggingClassifier(LogisticRegression(), n_estimators=4, max_features=3),
        BaggingClassifier(n_estimators=4, max_samples=0.4, bootstrap=False),
    ],
)
def test_a_member_does_not_depend_on_its_out_of_bag_rows(binary, estimator):
    """Scrambling voter 0's out-of-bag rows (features and labels) leaves voter 0 unchanged."""
    X, y = binary
    n_estimators = 4 if estimator is None else None
    a = OutOfBagVoters(estimator, n_estimators=n_estimators, random_state=0).fit(X, y)
    oob = a.evaluation_mask()[:, 0]
    rng = np.random.RandomState(0)
    X2, y2 = X.copy(), y.copy()
    X2[oob] = rng.normal(size=(oob.sum(), X.shape[1]))
    y2[oob] = rng.randint(0, 2, oob.sum())
    b = OutOfBagVoters(estimator, n_estimators=n_estimators, random_state=0).fit(X2, y2)

    def same(e, f):
        pairs = zip(_fitted_state(e), _fitted_state(f), strict=True)
        return all(np.array_equal(u, v) for u, v in pairs)

    assert same(a.estimators_[0], b.estimators_[0])
    # the other members did see some of these rows
    assert not all(same(e, f) for e, f in zip(a.estimators_[1:], b.estimators_[1:], strict=True))


@pytest.mark.parametrize(
    ("bank", "match"),
    [
        (OutOfBagVoters(RandomForestClassifier(n_estimators=30), n_estimators=50), "conflicts"),
        (OutOfBagVoters(RandomForestClassifier(), bootstrap=False), "conflicts"),
        (OutOfBagVoters(RandomForestClassifier(max_samples=0.5), max_samples=0.7), "conflicts"),
        (OutOfBagVoters(RandomForestClassifier(bootstrap=False)), "out-of-bag"),
        (OutOfBagVoters(RandomForestClassifier(class_weight="balanced")), "balanced"),
        (OutOfBagVoters(RandomForestClassifier(random_state=0)), "random_state"),
        (OutOfBagVoters(RandomForestClassifier(oob_score=True)), "oob_score"),
        (OutOfBagVoters(BaggingClassifier(bootstrap=False)), "out-of-bag"),
        (OutOfBagVoters(max_samples=1.0), "no out-of-bag row"),
        (OutOfBagVoters(max_samples=400), "no out-of-bag row"),
        (OutOfBagVoters(max_samples=401), "at most"),
    ],
)
def test_invalid_banks_raise(binary, bank, match):
    X, y = binary
    with pytest.raises(ValueError, match=match):
        bank.fit(X, y)


@pytest.mark.parametrize("solver", ["auto", "lbfgs", "adam"])
def test_tandem_bound_without_a_shared_out_of_bag_row_says_so(solver):
    X = np.random.default_rng(0).normal(size=(4, 3))
    y = np.arange(4) % 2
    bank = OutOfBagVoters(n_estimators=10, random_state=0)
    clf = SecondOrderBoundClassifier(voters=bank, solver=solver, max_epochs=2, random_state=0)
    with pytest.raises(ValueError, match="shares no row on which both may be evaluated"):
        clf.fit(X, y)
    mask = clone(bank).fit(X, y).evaluation_mask().astype(int)
    assert np.min(mask.T @ mask) == 0  # the pair sample of some two trees is empty
    FirstOrderBoundClassifier(voters=bank, solver=solver, max_epochs=2).fit(X, y)  # no pairs


@pytest.mark.parametrize(
    "clf",
    [
        FirstOrderBoundClassifier(posterior="dirichlet"),
        SecondOrderBoundClassifier(posterior="gaussian"),
        PartitionBoundClassifier(),
        BinomialBoundClassifier(),
        CBoundClassifier(),
        OccamBoundClassifier(),
    ],
)
def test_other_bounds_and_posteriors_refuse_out_of_bag_voters(binary, clf):
    X, y = binary
    clf.set_params(voters=OutOfBagVoters(n_estimators=4))
    with pytest.raises(ValueError, match="FirstOrderBoundClassifier\\(posterior='categorical'\\)"):
        clf.fit(X, y)


def test_holdout_refuses_out_of_bag_voters_in_the_halves_protocol(binary):
    X, y = binary
    with pytest.raises(ValueError, match="OutOfBagVoters"):
        HoldOutBoundClassifier(voters=OutOfBagVoters(n_estimators=4), validation_fraction=None).fit(
            X, y
        )
    # with held-out rows (the default for such a bank) the whole bank is grown on the other
    # rows and its plain vote certified on the held-out ones
    clf = HoldOutBoundClassifier(voters=OutOfBagVoters(n_estimators=4), random_state=0)
    assert clf.fit(X, y).validation_fraction_ in (0.1, 0.2, 0.5)


def test_other_banks_are_not_out_of_bag():
    assert OutOfBagVoters().is_out_of_bag and OutOfBagVoters().is_split
    assert not SplitForest().is_out_of_bag and not StumpBank().is_out_of_bag
    bank = OutOfBagVoters(n_estimators=2).fit(*load_iris(return_X_y=True))
    assert not hasattr(bank, "voter_groups_") and not hasattr(bank, "sample_groups_")


# ---------------------------------------------------------------- sanity
def test_pandas_and_string_labels():
    pd = pytest.importorskip("pandas")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    labels = np.where(y == 1, "benign", "malignant")
    clf = SecondOrderBoundClassifier(
        voters=OutOfBagVoters(n_estimators=10), random_state=0, max_epochs=10
    ).fit(X, labels)
    assert isinstance(X, pd.DataFrame)
    assert set(clf.predict(X)) <= {"benign", "malignant"}
    assert clf.feature_names_in_.tolist() == X.columns.tolist()
    assert clf.score(X, labels) > 0.9
    assert 0 < clf.bound_ < 1


def test_reproducible_and_parallel(binary):
    X, y = binary
    a = FirstOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=8), random_state=5).fit(X, y)
    b = FirstOrderBoundClassifier(
        voters=OutOfBagVoters(n_estimators=8, n_jobs=2), random_state=5
    ).fit(X, y)
    assert a.bound_ == b.bound_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_bank_pickles_clones_and_refuses_unfitted_use(binary):
    X, y = binary
    bank = OutOfBagVoters(n_estimators=3, random_state=0)
    with pytest.raises(NotFittedError):
        bank.votes(X)
    with pytest.raises(NotFittedError):
        bank.evaluation_mask()
    bank.fit(X, y)
    restored = pickle.loads(pickle.dumps(bank))
    np.testing.assert_array_equal(restored.votes(X), bank.votes(X))
    np.testing.assert_array_equal(restored.evaluation_mask(), bank.evaluation_mask())
    assert clone(bank).get_params() == bank.get_params()
    with pytest.raises(ValueError, match="voter must be"):
        bank.in_bag_indices(3)


def test_sparse_input(binary):
    X, y = binary
    Xs = sparse.csr_matrix(np.where(np.abs(X) > 1, X, 0.0))
    dense = OutOfBagVoters(n_estimators=4, random_state=0).fit(Xs.toarray(), y)
    sparse_bank = OutOfBagVoters(n_estimators=4, random_state=0).fit(Xs, y)
    np.testing.assert_array_equal(dense.votes(Xs.toarray()), sparse_bank.votes(Xs))


@parametrize_with_checks(
    [
        FirstOrderBoundClassifier(
            voters=OutOfBagVoters(n_estimators=10), max_epochs=3, random_state=0
        ),
        SecondOrderBoundClassifier(
            voters=OutOfBagVoters(n_estimators=10), max_epochs=3, random_state=0
        ),
    ]
)
def test_sklearn_checks_with_out_of_bag_voters(estimator, check):
    check(estimator)
