"""Tests of skpacbayes.voters (StumpBank, SplitForest, PrefitVoters)."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
    StackingClassifier,
    VotingClassifier,
)
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError

from skpacbayes.datasets import load_dataset
from skpacbayes.voters import (
    BaseVoters,
    PrefitVoters,
    SampleReuseWarning,
    SplitForest,
    StumpBank,
)


@pytest.fixture(scope="module")
def binary_data():
    X, y = make_classification(
        n_samples=120, n_features=5, n_informative=3, n_redundant=0, random_state=0
    )
    return X, y


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _naive_stump_votes(bank, X):
    X = np.asarray(X, dtype=np.float64)
    above = X[:, bank.stump_features_] > bank.stump_thresholds_
    return np.where(above, bank.stump_votes_[:, 1], bank.stump_votes_[:, 0])


# ---------------------------------------------------------------------- StumpBank
def test_stump_thresholds_are_interior_grid_points():
    X = np.array([[0.0, -1.0], [11.0, 1.0], [5.0, 0.0]])
    y = np.array([0, 1, 0])
    bank = StumpBank(n_thresholds=10, feature_range=[[0, 11], [-1, 1]]).fit(X, y)
    np.testing.assert_array_equal(bank.thresholds_[0], np.arange(1.0, 11.0))
    expected = -1.0 + np.arange(1, 11) * (2.0 / 11)
    np.testing.assert_array_equal(bank.thresholds_[1], expected)
    assert np.all(bank.thresholds_ > X.min(axis=0)[:, None])
    assert np.all(bank.thresholds_ < X.max(axis=0)[:, None])
    np.testing.assert_array_equal(bank.feature_range_, [[0.0, 11.0], [-1.0, 1.0]])
    # both orientations of every (feature, threshold)
    assert bank.n_voters_ == 2 * 2 * 10
    assert bank.votes(X).dtype == np.int8


def test_stump_orientations_and_tie_exactly_as_specified():
    X = np.array([[0.0], [3.0]])
    y = np.array(["a", "b"])
    bank = StumpBank(n_thresholds=2, feature_range=(0, 3)).fit(X, y)  # thresholds 1 and 2
    np.testing.assert_array_equal(bank.stump_thresholds_, [1.0, 2.0, 1.0, 2.0])
    np.testing.assert_array_equal(bank.stump_signs_, [1, 1, -1, -1])
    np.testing.assert_array_equal(bank.stump_features_, [0, 0, 0, 0])
    X_test = np.array([[0.5], [1.0], [1.5], [2.0], [2.5]])
    V = bank.votes(X_test)
    for j in range(bank.n_voters_):
        s, t = bank.stump_signs_[j], bank.stump_thresholds_[j]
        f = s * np.where(X_test[:, 0] > t, 1, -1)  # tie x == t -> -s
        np.testing.assert_array_equal(V[:, j], (f + 1) // 2)
    # x == t gives -1 for s = +1, i.e. classes_[0]
    assert bank.classes_[V[1, 0]] == "a"
    assert bank.classes_[V[1, 2]] == "b"


def test_stump_votes_match_naive_and_chunks(binary_data):
    X, y = binary_data
    bank = StumpBank(n_thresholds=7).fit(X, y)
    V = bank.votes(X)
    np.testing.assert_array_equal(V, _naive_stump_votes(bank, X))
    np.testing.assert_array_equal(bank.votes(X, chunk_size=7), V)
    np.testing.assert_array_equal(bank.votes(X, chunk_size=1), V)
    np.testing.assert_array_equal(
        bank.votes(X.astype(np.float32)), _naive_stump_votes(bank, X.astype(np.float32))
    )
    assert bank.votes(X[:0]).shape == (0, bank.n_voters_)


def test_stump_feature_range_makes_voters_data_independent(binary_data):
    X, y = binary_data
    rng = np.random.default_rng(1)
    X_other = rng.normal(size=(30, X.shape[1])) * 0.01
    y_other = np.arange(30) % 2
    a = StumpBank(n_thresholds=4, feature_range=(-3, 3)).fit(X, y)
    b = StumpBank(n_thresholds=4, feature_range=(-3, 3)).fit(X_other, y_other)
    np.testing.assert_array_equal(a.thresholds_, b.thresholds_)
    np.testing.assert_array_equal(a.stump_thresholds_, b.stump_thresholds_)
    np.testing.assert_array_equal(a.thresholds_[0], -3.0 + np.arange(1, 5) * (6.0 / 5))
    np.testing.assert_allclose(a.thresholds_[0], [-1.8, -0.6, 0.6, 1.8])
    # per-feature ranges, shape (d, 2)
    ranges = np.column_stack([np.arange(5.0), np.arange(5.0) + 5])
    c = StumpBank(n_thresholds=4, feature_range=ranges).fit(X, y)
    np.testing.assert_allclose(c.thresholds_, ranges[:, :1] + np.arange(1, 5))
    # the data range differs from the given range
    d = StumpBank(n_thresholds=4).fit(X, y)
    assert not np.array_equal(d.thresholds_, a.thresholds_)


def test_stump_constant_features_produce_no_voters():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50), np.full(50, 3.0), rng.normal(size=50)])
    y = np.arange(50) % 2
    bank = StumpBank(n_thresholds=5).fit(X, y)
    assert bank.n_voters_ == 2 * 2 * 5
    assert 1 not in bank.stump_features_
    assert np.all(np.isnan(bank.thresholds_[1]))
    keys = np.column_stack([bank.stump_features_, bank.stump_thresholds_, bank.stump_votes_])
    assert np.unique(keys, axis=0).shape[0] == bank.n_voters_
    # no voter is a duplicate of another on the data either
    V = bank.votes(X)
    assert np.unique(V, axis=1).shape[1] == V.shape[1]
    # feature_range with min == max for a feature: no voters from it either
    rng_ = np.array([[-5.0, 5.0], [0.0, 0.0], [-5.0, 5.0]])
    assert 1 not in StumpBank(3, feature_range=rng_).fit(X, y).stump_features_
    # tiny range: rounded thresholds coincide and are kept once
    tiny = np.column_stack([np.array([0.0, 5e-324] * 5), rng.normal(size=10)])
    bank = StumpBank(n_thresholds=10).fit(tiny, np.arange(10) % 2)
    keys = np.column_stack([bank.stump_features_, bank.stump_thresholds_, bank.stump_votes_])
    assert np.unique(keys, axis=0).shape[0] == bank.n_voters_
    with pytest.raises(ValueError, match="no stump"):
        StumpBank().fit(np.ones((6, 2)), np.arange(6) % 2)


def test_stump_multiclass_one_vs_one_pairs(iris):
    X, y = iris
    ranges = np.column_stack([X.min(axis=0), X.max(axis=0)])
    bank = StumpBank(n_thresholds=3, feature_range=ranges).fit(X, y)
    k, d, T = 3, X.shape[1], 3
    assert bank.n_voters_ == d * T * k * (k - 1)
    V = bank.votes(X)
    np.testing.assert_array_equal(V, _naive_stump_votes(bank, X))
    below, above = bank.stump_votes_.T
    assert np.all(below != above)
    assert np.all(bank.stump_signs_ == np.where(above > below, 1, -1))
    # every ordered pair of classes, for every (feature, threshold), exactly once
    keys = {
        (f, t, a, b)
        for f, t, a, b in zip(
            bank.stump_features_, bank.stump_thresholds_, below, above, strict=True
        )
    }
    assert len(keys) == bank.n_voters_
    pairs = {(a, b) for a in range(k) for b in range(k) if a != b}
    assert {(a, b) for _, _, a, b in keys} == pairs
    assert set(np.unique(V)) <= {0, 1, 2}
    # string labels
    y_str = np.array(["setosa", "versicolor", "virginica"])[y]
    bank_s = StumpBank(n_thresholds=3, feature_range=ranges).fit(X, y_str)
    np.testing.assert_array_equal(bank_s.votes(X), V)


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(
        np.float64,
        st.tuples(st.integers(2, 12), st.integers(1, 4)),
        elements=st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False),
    ),
    n_thresholds=st.integers(1, 6),
    k=st.integers(2, 4),
)
def test_stump_property_grid_and_votes(X, n_thresholds, k):
    y = np.arange(X.shape[0]) % k
    k = min(k, X.shape[0])
    lo, hi = X.min(axis=0), X.max(axis=0)
    ranges = np.column_stack([lo, hi])
    if np.all(lo == hi):
        with pytest.raises(ValueError, match="no stump"):
            StumpBank(n_thresholds, feature_range=ranges).fit(X, y)
        return
    # even grid on a given range
    bank = StumpBank(n_thresholds, feature_range=ranges).fit(X, y)
    active = hi > lo
    expected = (
        lo[:, None] + np.arange(1, n_thresholds + 1) * ((hi - lo) / (n_thresholds + 1))[:, None]
    )
    for f in np.flatnonzero(active):
        uniq = np.unique(expected[f])
        np.testing.assert_array_equal(bank.thresholds_[f, : uniq.size], uniq)
        assert np.all(np.isnan(bank.thresholds_[f, uniq.size :]))
    assert np.all(np.isnan(bank.thresholds_[~active]))
    assert np.all(bank.stump_thresholds_ >= lo[bank.stump_features_])
    assert np.all(bank.stump_thresholds_ <= hi[bank.stump_features_])
    keys = np.column_stack([bank.stump_features_, bank.stump_thresholds_, bank.stump_votes_])
    assert np.unique(keys, axis=0).shape[0] == bank.n_voters_
    n_unique = sum(np.unique(expected[f]).size for f in np.flatnonzero(active))
    assert bank.n_voters_ == n_unique * k * (k - 1)
    np.testing.assert_array_equal(bank.votes(X, chunk_size=5), _naive_stump_votes(bank, X))
    assert bank.evaluation_mask().all()
    # default: quantiles of the build rows, which the bound never uses
    for spacing in ("quantile", "uniform"):
        default = StumpBank(n_thresholds, spacing=spacing, random_state=0)
        built = default._build_rows(X.shape[0])
        Xb = X[built]
        # quantile i / (T + 1) < max iff at least a fraction 1 / (T + 1) lies below the max
        below_max = np.mean(Xb < Xb.max(axis=0), axis=0)
        usable = below_max >= 1 / (n_thresholds + 1) if spacing == "quantile" else below_max > 0
        if not usable.any():
            with pytest.raises(ValueError, match="no stump"):
                default.fit(X, y)
            continue
        bank = default.fit(X, y)
        np.testing.assert_array_equal(bank.build_indices_, built)
        f, t = bank.stump_features_, bank.stump_thresholds_
        assert np.all(t >= Xb.min(axis=0)[f]) and np.all(t < Xb.max(axis=0)[f])
        if spacing == "quantile":
            assert all(np.isin(t[f == j], Xb[:, j]).all() for j in np.unique(f))
        keys = np.column_stack([f, t, bank.stump_votes_])
        assert np.unique(keys, axis=0).shape[0] == bank.n_voters_
        np.testing.assert_array_equal(bank.votes(X), _naive_stump_votes(bank, X))
        usable = bank.evaluation_mask().any(axis=1)
        np.testing.assert_array_equal(~usable, np.isin(np.arange(X.shape[0]), built))
        assert bank.evaluation_mask()[usable].all()


def test_stump_many_classes_int16():
    X = np.linspace(0, 1, 260)[:, None]
    y = np.arange(260) % 130
    bank = StumpBank(n_thresholds=1).fit(X, y)
    assert bank.n_voters_ == 130 * 129
    V = bank.votes(X)
    assert V.dtype == np.int16
    np.testing.assert_array_equal(V, _naive_stump_votes(bank, X))


def test_stump_multiclass_reduces_to_binary_for_two_classes(binary_data):
    X, y = binary_data
    bank = StumpBank(n_thresholds=3).fit(X, y)
    np.testing.assert_array_equal(bank.stump_votes_[bank.stump_signs_ == 1], [[0, 1]] * 15)
    np.testing.assert_array_equal(bank.stump_votes_[bank.stump_signs_ == -1], [[1, 0]] * 15)


def test_stump_sparse_input_matches_dense(binary_data):
    X, y = binary_data
    X = np.where(np.abs(X) < 0.7, 0.0, X)
    Xs = sparse.csr_matrix(X)
    dense = StumpBank(n_thresholds=4, random_state=0).fit(X, y)
    sp = StumpBank(n_thresholds=4, random_state=0).fit(Xs, y)
    np.testing.assert_array_equal(dense.build_indices_, sp.build_indices_)
    np.testing.assert_array_equal(dense.thresholds_, sp.thresholds_)
    np.testing.assert_array_equal(sp.votes(Xs), dense.votes(X))
    np.testing.assert_array_equal(sp.votes(sparse.csc_matrix(X), chunk_size=9), dense.votes(X))


def test_stump_bad_inputs(binary_data):
    X, y = binary_data
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        StumpBank().fit(Xn, y)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        StumpBank().fit(Xi, y)
    bank = StumpBank().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        bank.votes(Xn)
    with pytest.raises(ValueError, match="features"):
        bank.votes(X[:, :3])
    with pytest.raises(ValueError, match="2 classes"):
        StumpBank().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="shape"):
        StumpBank(feature_range=[[0, 1]] * 3).fit(X, y)
    with pytest.raises(ValueError, match="min <= max"):
        StumpBank(feature_range=(1, 0)).fit(X, y)
    with pytest.raises(ValueError, match="finite"):
        StumpBank(feature_range=(0, np.inf)).fit(X, y)
    with pytest.raises(InvalidParameterError):
        StumpBank(n_thresholds=0).fit(X, y)
    with pytest.raises(ValueError, match="chunk_size"):
        bank.votes(X, chunk_size=0)
    with pytest.raises(ValueError, match="continuous"):
        StumpBank().fit(X, X[:, 0])


def test_stump_default_thresholds_ignore_the_rows_the_bound_uses(binary_data):
    """(A2): the default bank must not depend on any row that evaluates it."""
    X, y = binary_data
    bank = StumpBank(random_state=3).fit(X, y)
    used = bank.evaluation_mask().any(axis=1)
    assert used.sum() < len(y)  # some rows built the thresholds and are not used
    rng = np.random.default_rng(0)
    X2, y2 = X.copy(), y.copy()
    X2[used] = 100 * rng.normal(size=(used.sum(), X.shape[1])) + 50  # new values and range
    y2[used] = rng.integers(0, 2, used.sum())
    other = StumpBank(random_state=3).fit(X2, y2)
    np.testing.assert_array_equal(other.thresholds_, bank.thresholds_)
    np.testing.assert_array_equal(other.stump_thresholds_, bank.stump_thresholds_)
    np.testing.assert_array_equal(other.evaluation_mask(), bank.evaluation_mask())


@pytest.mark.parametrize(
    "make",
    [
        lambda: __import__("skpacbayes").FirstOrderBoundClassifier(posterior="categorical"),
        lambda: __import__("skpacbayes").FirstOrderBoundClassifier(posterior="dirichlet"),
        lambda: __import__("skpacbayes").OccamBoundClassifier(),
        lambda: __import__("skpacbayes").PartitionBoundClassifier(posterior="categorical"),
        lambda: __import__("skpacbayes").HoldOutBoundClassifier(voters=StumpBank()),
    ],
)
def test_default_binary_certificate_uses_only_rows_that_did_not_build_the_stumps(make):
    X, y = make_classification(n_samples=200, n_features=4, random_state=1)
    clf = make().set_params(random_state=0)
    if hasattr(clf, "max_epochs"):
        clf.set_params(max_epochs=3)
    clf.fit(X, y)
    # one group of voters (not the two-halves protocol), evaluated on the 180 other rows
    assert clf.certificate_.m == (180,) and clf.certificate_.mixture_weights == (1.0,)
    bank = clf.voters_
    assert isinstance(bank, StumpBank) and bank.build_indices_.size == 20
    if clf.certificate_.bound == "HoldOut":
        return  # the plain vote of both orientations ties everywhere (ties count as errors)
    used = np.setdiff1d(np.arange(200), bank.build_indices_)
    train_error = np.mean(clf.predict(X[used]) != y[used])
    assert clf.certificate_.train_error == pytest.approx(train_error)


def test_stump_build_rows_depend_on_seed_and_size_only():
    rng = np.random.default_rng(0)
    X1, X2 = rng.normal(size=(300, 3)), rng.exponential(size=(300, 3))
    y1, y2 = np.arange(300) % 2, (np.arange(300) // 7) % 2
    a = StumpBank(random_state=5).fit(X1, y1)
    b = StumpBank(random_state=5).fit(X2, y2)
    np.testing.assert_array_equal(a.build_indices_, b.build_indices_)
    c = StumpBank(random_state=6).fit(X1, y1)
    assert not np.array_equal(a.build_indices_, c.build_indices_)
    for m, expected in [(2, 1), (4, 2), (19, 9), (20, 10), (150, 15), (9999, 999), (50000, 1000)]:
        assert StumpBank(random_state=0)._build_rows(m).size == expected
    assert StumpBank(build_size=0.25, random_state=0)._build_rows(101).size == 26
    assert StumpBank(build_size=7, random_state=0)._build_rows(101).size == 7
    np.testing.assert_array_equal(a.sample_groups_[a.build_indices_], 0)
    assert a.sample_groups_.sum() == 300 - 30 and np.all(a.voter_groups_ == 0)
    with pytest.raises(ValueError, match="build_size"):
        StumpBank(build_size=300).fit(X1, y1)
    with pytest.raises(ValueError, match="build_size"):
        StumpBank(build_size=5, feature_range=(0, 1)).fit(X1, y1)
    with pytest.raises(ValueError, match="spacing"):
        StumpBank(spacing="quantile", feature_range=(0, 1)).fit(X1, y1)
    uniform = StumpBank(spacing="uniform", feature_range=(0, 1)).fit(X1, y1)
    assert uniform.evaluation_mask().all()
    with pytest.raises(InvalidParameterError):
        StumpBank(build_size=1.5).fit(X1, y1)


def test_stump_quantile_thresholds_are_build_values():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 2, 400), rng.normal(size=400), np.full(400, 2.0)])
    y = np.arange(400) % 2
    bank = StumpBank(random_state=0).fit(X, y)
    Xb = X[bank.build_indices_]
    # a 0/1 feature gives exactly one stump pair (threshold 0), a constant feature none
    np.testing.assert_array_equal(bank.stump_thresholds_[bank.stump_features_ == 0], [0.0, 0.0])
    assert 2 not in bank.stump_features_
    t1 = bank.stump_thresholds_[bank.stump_features_ == 1][:10]
    assert np.isin(t1, Xb[:, 1]).all() and t1.size == 10
    levels = np.mean(Xb[:, 1][:, None] <= t1[None, :], axis=0)
    np.testing.assert_allclose(levels, np.arange(1, 11) / 11, atol=1 / len(Xb) + 1e-12)


def test_stump_bank_blames_too_few_rows_not_constant_features():
    """On 3 rows the single build row makes every feature constant: say the rows are few."""
    from skpacbayes import FirstOrderBoundClassifier

    X = np.random.default_rng(0).normal(size=(3, 2))
    y = np.array([0, 1, 0])
    with pytest.raises(ValueError, match=r"too few training rows \(3\)") as info:
        FirstOrderBoundClassifier(random_state=0).fit(X, y)
    assert "every feature is constant on the" not in str(info.value)
    # genuinely constant features on enough rows keep their own message
    with pytest.raises(ValueError, match="every feature is constant on the 10 build rows"):
        StumpBank(random_state=0).fit(np.ones((40, 2)), np.arange(40) % 2)


def test_stump_real_data_haberman(data_home):
    X, y = load_dataset("haberman", data_home=data_home, return_X_y=True)
    bank = StumpBank(random_state=0).fit(X, y)
    assert bank.classes_.tolist() == [1, 2]
    assert bank.build_indices_.size == len(y) // 10
    n_thresholds = np.sum(~np.isnan(bank.thresholds_))
    assert 2 * 3 <= n_thresholds <= 3 * 10 and bank.n_voters_ == 2 * n_thresholds
    np.testing.assert_array_equal(bank.votes(X), _naive_stump_votes(bank, X))
    mask = bank.evaluation_mask()
    assert not mask[bank.build_indices_].any()
    assert mask.sum(axis=0).tolist() == [len(y) - len(y) // 10] * bank.n_voters_
    assert not bank.is_split and bank.n_groups_ == 1
    assert StumpBank(feature_range=(0, 100)).fit(X, y).evaluation_mask().all()


# -------------------------------------------------------------------- SplitForest
def _forest_member_predictions(forest, X):
    """Global class indices predicted by every tree, through the public API."""
    cols = []
    for f in forest.forests_:
        for tree in f.estimators_:
            local = tree.predict(X).astype(int)
            cols.append(f.classes_[local])
    return np.column_stack(cols)


def test_split_halves_disjoint_cover_reproducible(iris):
    X, y = iris
    a = SplitForest(n_estimators=4, random_state=3, stratify=True).fit(X, y)
    h0, h1 = a.halves_
    assert len(np.intersect1d(h0, h1)) == 0
    np.testing.assert_array_equal(np.sort(np.concatenate([h0, h1])), np.arange(len(y)))
    assert (len(h0), len(h1)) == (75, 75)
    assert a.stratified_
    np.testing.assert_array_equal(np.bincount(y[h0]), [25, 25, 25])
    b = SplitForest(n_estimators=4, random_state=3, stratify=True).fit(X, y)
    np.testing.assert_array_equal(a.halves_[0], b.halves_[0])
    np.testing.assert_array_equal(a.votes(X), b.votes(X))
    c = SplitForest(n_estimators=4, random_state=4, stratify=True).fit(X, y)
    assert not np.array_equal(a.halves_[0], c.halves_[0])
    np.testing.assert_array_equal(a.sample_groups_[h0], 0)
    np.testing.assert_array_equal(a.sample_groups_[h1], 1)
    # odd sample size: halves of sizes m // 2 and m - m // 2
    d = SplitForest(n_estimators=3, random_state=0).fit(X[:101], y[:101])
    assert (len(d.halves_[0]), len(d.halves_[1])) == (50, 51)
    assert d.voter_groups_.tolist() == [0, 0, 1]


def test_split_forest_never_evaluated_on_own_half(iris):
    X, y = iris
    forest = SplitForest(n_estimators=6, random_state=0).fit(X, y)
    assert forest.is_split and forest.n_groups_ == 2
    mask = forest.evaluation_mask()
    assert mask.shape == (len(y), 6)
    for j in range(forest.n_voters_):
        g = forest.voter_groups_[j]
        own, other = forest.halves_[g], forest.halves_[1 - g]
        assert not mask[own, j].any()
        assert mask[other, j].all()
    # the trees were grown on their own half only: refitting the half forest on that
    # half alone (same parameters, encoded labels) reproduces every tree exactly
    y_enc = np.searchsorted(forest.classes_, y)
    for g, f in enumerate(forest.forests_):
        h = forest.halves_[g]
        assert max(rows.max() for rows in f.estimators_samples_) < len(h)
        again = clone(f).fit(X[h], y_enc[h])
        for t_a, t_b in zip(f.estimators_, again.estimators_, strict=True):
            np.testing.assert_array_equal(t_a.tree_.threshold, t_b.tree_.threshold)
            np.testing.assert_array_equal(t_a.tree_.value, t_b.tree_.value)


class _RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Predicts the majority label of its training rows and records them."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        self.rows_ = np.asarray(X)[:, 0].copy()
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], self.majority_)


def test_split_generic_estimator_grown_on_its_half_only(binary_data):
    X, y = binary_data
    X = X.copy()
    X[:, 0] = np.arange(len(y))  # row id in column 0
    forest = SplitForest(_RecordingClassifier(), n_estimators=6, random_state=0, n_jobs=2)
    forest.fit(X, y)
    assert forest.forests_ == []
    seeds = set()
    for est, g in zip(forest.estimators_, forest.voter_groups_, strict=True):
        rows = est.rows_.astype(int)
        assert np.isin(rows, forest.halves_[g]).all()
        assert not np.isin(rows, forest.halves_[1 - g]).any()
        seeds.add(est.random_state)
    assert len(seeds) == 6
    V = forest.votes(X)
    for j, est in enumerate(forest.estimators_):
        np.testing.assert_array_equal(V[:, j], est.predict(X))


def test_split_forest_votes_match_trees(iris):
    X, y = iris
    y_str = np.array(["a", "b", "c"])[y]
    forest = SplitForest(n_estimators=8, random_state=0).fit(X, y_str)
    V = forest.votes(X)
    assert V.dtype == np.int8
    np.testing.assert_array_equal(V, _forest_member_predictions(forest, X))
    np.testing.assert_array_equal(forest.votes(X, chunk_size=11), V)
    # the half forests' own majority agrees with the per-tree votes' plurality
    for g, f in enumerate(forest.forests_):
        cols = forest.voter_groups_ == g
        counts = np.apply_along_axis(np.bincount, 1, V[:, cols], minlength=3)
        plurality = np.argmax(counts, axis=1)
        agree = np.mean(plurality == f.predict(X))
        assert agree > 0.9
    # threaded votes give the same matrix
    forest.set_params(n_jobs=2)
    np.testing.assert_array_equal(forest.votes(X), V)


def test_split_forest_half_missing_a_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.array([0] * 20 + [1] * 19 + [2])
    X[-1] += 10  # the lonely class-2 example
    forest = SplitForest(n_estimators=4, random_state=0).fit(X, y)
    assert not forest.stratified_
    half_with_2 = forest.sample_groups_[-1]
    classes = [f.classes_.tolist() for f in forest.forests_]
    assert classes[half_with_2] == [0, 1, 2]
    assert classes[1 - half_with_2] == [0, 1]
    V = forest.votes(X)
    np.testing.assert_array_equal(V, _forest_member_predictions(forest, X))
    assert set(np.unique(V)) <= {0, 1, 2}


def test_split_single_protocol(iris):
    X, y = iris
    forest = SplitForest(n_estimators=5, split="single", random_state=0).fit(X, y)
    assert forest.n_voters_ == 5
    np.testing.assert_array_equal(forest.voter_groups_, 0)
    assert len(forest.forests_) == 1
    mask = forest.evaluation_mask()
    h0, h1 = forest.halves_
    assert not mask[h0].any()
    assert mask[h1].all()
    np.testing.assert_array_equal(forest.votes(X), _forest_member_predictions(forest, X))


def test_split_forest_other_learners_and_sparse(binary_data):
    X, y = binary_data
    et = SplitForest(ExtraTreesClassifier(n_estimators=4, max_depth=3), random_state=0)
    et.fit(X, y)
    assert all(t.max_depth == 3 for t in et.estimators_)
    np.testing.assert_array_equal(et.votes(X), _forest_member_predictions(et, X))
    lr = SplitForest(LogisticRegression(), n_estimators=4, random_state=0).fit(X, y)
    V = lr.votes(X)
    for j, est in enumerate(lr.estimators_):
        np.testing.assert_array_equal(V[:, j], est.predict(X))
    Xs = sparse.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    dense = SplitForest(n_estimators=4, random_state=0).fit(Xs.toarray(), y)
    sp = SplitForest(n_estimators=4, random_state=0).fit(Xs, y)
    np.testing.assert_array_equal(sp.votes(Xs), dense.votes(Xs.toarray()))


def test_split_forest_honours_the_given_forest_size(binary_data):
    X, y = binary_data
    forest = SplitForest(RandomForestClassifier(n_estimators=30, max_depth=3), random_state=0)
    forest.fit(X, y)
    assert forest.n_voters_ == 30 and [len(f.estimators_) for f in forest.forests_] == [15, 15]
    assert all(t.max_depth == 3 for t in forest.estimators_)
    same = SplitForest(ExtraTreesClassifier(n_estimators=6), n_estimators=6, random_state=0)
    assert same.fit(X, y).n_voters_ == 6
    with pytest.raises(ValueError, match="n_estimators=20 and an estimator"):
        SplitForest(RandomForestClassifier(n_estimators=30), n_estimators=20).fit(X, y)
    assert SplitForest(random_state=0).fit(X, y).n_voters_ == 200
    assert SplitForest(LogisticRegression(), random_state=0).fit(X, y).n_voters_ == 200


def test_split_forest_bad_inputs(binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="at least 2 samples in each half"):
        SplitForest(n_estimators=2).fit(X[:3], [0, 1, 0])
    with pytest.raises(ValueError, match="n_estimators >= 2"):
        SplitForest(n_estimators=1).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        SplitForest(n_estimators=2).fit(X, np.ones(len(y)))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SplitForest(n_estimators=2).fit(Xn, y)
    forest = SplitForest(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        forest.votes(Xn)
    with pytest.raises(InvalidParameterError):
        SplitForest(split="both").fit(X, y)
    with pytest.raises(InvalidParameterError):
        SplitForest(estimator="tree").fit(X, y)
    # single protocol works with one tree
    assert SplitForest(n_estimators=1, split="single").fit(X, y).n_voters_ == 1


# ------------------------------------------------------------------- PrefitVoters
def test_prefit_list_matches_predictions(iris):
    X, y = iris
    y_str = np.array(["setosa", "versicolor", "virginica"])[y]
    fitted = [
        DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[::2], y_str[::2]),
        LogisticRegression(max_iter=500).fit(X[::2], y_str[::2]),
        FrozenEstimator(DecisionTreeClassifier(max_depth=1).fit(X[::2], y_str[::2])),
    ]
    bank = PrefitVoters(fitted).fit(X[1::2], y_str[1::2])
    assert not bank.is_split and bank.n_groups_ == 1
    assert bank.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    V = bank.votes(X)
    for j, est in enumerate(fitted):
        np.testing.assert_array_equal(bank.classes_[V[:, j]], est.predict(X))
    assert bank.evaluation_mask().all()
    np.testing.assert_array_equal(bank.voter_groups_, -1)
    np.testing.assert_array_equal(bank.sample_groups_, 0)


def _check_ensemble_votes(bank, ensemble, X, members_predict):
    V = bank.votes(X)
    assert V.shape == (len(X), len(members_predict))
    for j, pred in enumerate(members_predict):
        np.testing.assert_array_equal(bank.classes_[V[:, j]], pred)


def test_prefit_ensembles(iris):
    X, y = iris
    y_lab = np.array([10, 20, 30])[y]
    Xp, yp, Xb, yb = X[::2], y_lab[::2], X[1::2], y_lab[1::2]

    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(Xp, yp)
    bank = PrefitVoters(rf).fit(Xb, yb)
    preds = [rf.classes_[t.predict(X).astype(int)] for t in rf.estimators_]
    _check_ensemble_votes(bank, rf, X, preds)

    bag = BaggingClassifier(
        DecisionTreeClassifier(max_depth=2), n_estimators=4, max_features=2, random_state=0
    ).fit(Xp, yp)
    bank = PrefitVoters(FrozenEstimator(bag)).fit(Xb, yb)
    preds = [
        bag.classes_[e.predict(X[:, f]).astype(int)]
        for e, f in zip(bag.estimators_, bag.estimators_features_, strict=True)
    ]
    _check_ensemble_votes(bank, bag, X, preds)

    vote = VotingClassifier(
        [("lr", LogisticRegression(max_iter=500)), ("dt", DecisionTreeClassifier(max_depth=2))]
    ).fit(Xp, yp)
    bank = PrefitVoters(vote).fit(Xb, yb)
    preds = [vote.le_.inverse_transform(e.predict(X)) for e in vote.estimators_]
    _check_ensemble_votes(bank, vote, X, preds)

    stack = StackingClassifier(
        [("lr", LogisticRegression(max_iter=500)), ("dt", DecisionTreeClassifier(max_depth=2))],
        cv=2,
    ).fit(Xp, yp)
    bank = PrefitVoters(stack).fit(Xb, yb)
    preds = [stack.classes_[e.predict(X)] for e in stack.estimators_]
    _check_ensemble_votes(bank, stack, X, preds)

    ada = AdaBoostClassifier(n_estimators=4, random_state=0).fit(Xp, yp)
    bank = PrefitVoters(ada).fit(Xb, yb)
    _check_ensemble_votes(bank, ada, X, [e.predict(X) for e in ada.estimators_])


def test_prefit_boosting_is_one_voter_alone_or_in_a_list(iris):
    """Gradient boosting is not a majority vote: alone or in a list, it is ONE voter."""
    X, y = iris
    Xp, yp, Xb, yb = X[::2], y[::2], X[1::2], y[1::2]
    for model in (
        GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0),
        HistGradientBoostingClassifier(max_iter=3, random_state=0),
    ):
        model.fit(Xp, yp)
        for passed in (model, FrozenEstimator(model), [model]):
            bank = PrefitVoters(passed).fit(Xb, yb)
            assert bank.n_voters_ == 1
            np.testing.assert_array_equal(bank.classes_[bank.votes(X)[:, 0]], model.predict(X))


def test_prefit_warns_on_voters_grown_on_the_same_rows():
    X, y = make_classification(
        n_samples=1200, n_features=8, n_informative=4, flip_y=0.1, random_state=0
    )
    own, other = slice(0, 600), slice(600, 1200)
    ensembles = [
        RandomForestClassifier(n_estimators=20, random_state=0),
        RandomForestClassifier(n_estimators=20, max_depth=3, random_state=0),
        ExtraTreesClassifier(n_estimators=20, random_state=0),
        BaggingClassifier(
            DecisionTreeClassifier(), n_estimators=5, max_samples=0.5, random_state=0
        ),
    ]
    for model in ensembles:
        model.fit(X[own], y[own])
        with pytest.warns(SampleReuseWarning, match="NOT a certificate"):
            PrefitVoters(model).fit(X[own], y[own])
        with pytest.warns(SampleReuseWarning):
            PrefitVoters(FrozenEstimator(model)).fit(X[own], y[own])
        with warnings.catch_warnings():
            warnings.simplefilter("error", SampleReuseWarning)
            PrefitVoters(model).fit(X[other], y[other])  # other rows of the same size: silent
    with pytest.warns(SampleReuseWarning):
        PrefitVoters(list(ensembles[0].estimators_)).fit(X[own], y[own])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SampleReuseWarning)
        PrefitVoters(ensembles[0]).fit(X[:900], y[:900])  # a superset: another size


def test_prefit_clone_keeps_fitted_voters(iris):
    X, y = iris
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    bank = PrefitVoters([tree])
    cloned = clone(bank)
    assert cloned.estimators[0] is tree
    cloned.fit(X, y)
    np.testing.assert_array_equal(cloned.votes(X)[:, 0], tree.predict(X))


def test_prefit_bad_inputs(iris):
    X, y = iris
    t3 = DecisionTreeClassifier(max_depth=1).fit(X, y)
    t2 = DecisionTreeClassifier(max_depth=1).fit(X[y < 2], y[y < 2])
    with pytest.raises(ValueError, match="disagree on classes_"):
        PrefitVoters([t3, t2]).fit(X, y)
    with pytest.raises(ValueError, match="not fitted"):
        PrefitVoters([t3, DecisionTreeClassifier()]).fit(X, y)
    with pytest.raises(ValueError, match="do not know"):
        PrefitVoters([t2]).fit(X, y)
    with pytest.raises(ValueError, match="2 classes in y"):
        PrefitVoters([t3]).fit(X[y == 0], y[y == 0])
    with pytest.raises(ValueError, match="features"):
        PrefitVoters([t3]).fit(X[:, :3], y)
    with pytest.raises(ValueError, match="empty"):
        PrefitVoters([]).fit(X, y)
    with pytest.raises(InvalidParameterError):
        PrefitVoters("tree").fit(X, y)
    Xn = X.copy()
    Xn[5, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        PrefitVoters([t3]).fit(Xn, y)


# ---------------------------------------------------------------------- common
def _all_banks(X, y):
    t = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[::3], y[::3])
    return [
        StumpBank(n_thresholds=3).fit(X, y),
        SplitForest(n_estimators=4, random_state=0).fit(X, y),
        SplitForest(LogisticRegression(), n_estimators=2, split="single", random_state=0).fit(X, y),
        PrefitVoters([t, FrozenEstimator(t)]).fit(X, y),
    ]


def test_common_interface_and_pickle(iris):
    X, y = iris
    for bank in _all_banks(X, y):
        assert isinstance(bank, BaseVoters)
        assert bank.n_features_in_ == 4 and bank.n_classes_ == 3
        assert bank.voter_groups_.shape == (bank.n_voters_,)
        assert bank.sample_groups_.shape == (len(y),)
        assert bank.evaluation_mask().shape == (len(y), bank.n_voters_)
        V = bank.votes(X)
        assert V.dtype == np.int8 and V.shape == (len(y), bank.n_voters_)
        assert V.min() >= 0 and V.max() < 3
        restored = pickle.loads(pickle.dumps(bank))
        np.testing.assert_array_equal(restored.votes(X), V)
        np.testing.assert_array_equal(restored.evaluation_mask(), bank.evaluation_mask())
        assert repr(restored) == repr(bank)
        # unfitted clone round-trips through get_params / pickle too
        pickle.loads(pickle.dumps(clone(bank)))


def test_votes_dtype_grows_with_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2))
    y = np.arange(600) % 200
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.warns(SampleReuseWarning):  # grown on these very rows
        bank = PrefitVoters([tree]).fit(X, y)
    V = bank.votes(X)
    assert V.dtype == np.int16
    np.testing.assert_array_equal(bank.classes_[V[:, 0]], tree.predict(X))


def test_not_fitted_votes():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        StumpBank().votes(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        SplitForest().evaluation_mask()
