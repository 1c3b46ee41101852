"""Risks beyond the error rate on the hold-out line (``risks=``), and a stream that refuses a
model changed under it."""

import numpy as np
import pytest
from scipy.stats import beta, binom
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import confusion_matrix

from skpacbayes import HoldOutBoundClassifier
from skpacbayes.bounds import binomial_anytime_upper, binomial_inv_upper
from skpacbayes.engine.certificate import equal_share
from skpacbayes.engine.risks import RISKS, beside_error, confusion_counts
from skpacbayes.voters import PrefitVoters


class Above(ClassifierMixin, BaseEstimator):
    """Predict 1 where the first feature is at least ``t``: a classifier fixed in advance."""

    def __init__(self, t=0.5):
        self.t = t

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] >= self.t).astype(int)


@pytest.fixture(scope="module")
def three_classes():
    X, y = make_classification(
        n_samples=3000, n_features=6, n_informative=4, n_classes=3, flip_y=0.05, random_state=1
    )
    model = LogisticRegression(max_iter=1000).fit(X[:1000], y[:1000])
    return model, X[1000:], y[1000:]


def _expected(model, X, y, risks, delta, n_statements=1):
    """Each rate's bound from the counts of scikit-learn's confusion matrix."""
    k = 3
    confusion = confusion_counts(y, model.predict(X), k)
    statements = beside_error(risks, k)
    share = equal_share(delta, n_statements * (1 + len(statements)))
    return confusion, statements, share


def test_every_risk_is_certified_at_its_share(three_classes):
    model, X, y = three_classes
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks="all", delta=0.1).fit(X, y)
    confusion, statements, share = _expected(model, X, y, RISKS, 0.1)
    assert len(statements) == 9  # 3 classes x 3 rates (the error rate is bound_)
    assert clf.certificate_.details["n_risk_statements"] == 9
    np.testing.assert_array_equal(np.array(clf.certificate_.details["confusion"]), confusion)
    np.testing.assert_array_equal(confusion[:, :3], confusion_matrix(y, model.predict(X)))
    errors = int(np.sum(model.predict(X) != y))
    assert clf.bound_ == binomial_inv_upper(errors, y.size, share)
    assert list(clf.risk_bounds_) == list(RISKS) and clf.risk_bounds_["error"] == clf.bound_
    for s in statements:
        k, n = s.counts(confusion)
        for name, c in s.names:
            assert clf.risk_bounds_[name][c] == binomial_inv_upper(k, n, share)
    # each bound is above its rate on the rows
    predicted = model.predict(X)
    for c in range(3):
        assert clf.risk_bounds_["miss_rate"][c] > np.mean(predicted[y == c] != c)
        assert clf.risk_bounds_["false_positive_rate"][c] > np.mean(predicted[y != c] == c)
        assert clf.risk_bounds_["false_discovery_rate"][c] > np.mean(y[predicted == c] != c)


def test_per_class_is_the_miss_rate_case(three_classes):
    model, X, y = three_classes
    per_class = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True).fit(X, y)
    miss = HoldOutBoundClassifier(voters=PrefitVoters(model), risks=("miss_rate",)).fit(X, y)
    assert per_class.bound_ == miss.bound_
    np.testing.assert_array_equal(per_class.class_bounds_, miss.risk_bounds_["miss_rate"])
    np.testing.assert_array_equal(per_class.class_bounds_, per_class.risk_bounds_["miss_rate"])
    assert not hasattr(miss, "class_bounds_")
    both = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True, risks=["error"])
    assert both.fit(X, y).bound_ == miss.bound_
    plain = HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X, y)
    assert not hasattr(plain, "risk_bounds_") and plain.bound_ < miss.bound_
    # refitting without risks removes them
    assert not hasattr(miss.set_params(risks=None).fit(X, y), "risk_bounds_")


def test_binary_statements_with_the_same_cells_share_one_share():
    X, y = make_classification(n_samples=2000, random_state=0)
    model = LogisticRegression().fit(X[:500], y[:500])
    clf = HoldOutBoundClassifier(
        voters=PrefitVoters(model), risks=("miss_rate", "false_positive_rate")
    ).fit(X[500:], y[500:])
    assert clf.certificate_.details["n_risk_statements"] == 2  # miss(0) = fpr(1), and back
    np.testing.assert_array_equal(
        clf.risk_bounds_["miss_rate"], clf.risk_bounds_["false_positive_rate"][::-1]
    )


def test_risks_on_the_fractions_and_on_dask(three_classes):
    da = pytest.importorskip("dask.array")
    model, X, y = three_classes
    params = dict(voters=PrefitVoters(model), risks="all")
    fractions = HoldOutBoundClassifier(**params, validation_fraction=(0.2, 0.5), random_state=0)
    fractions.fit(X, y)
    held = fractions.validation_indices_
    confusion = confusion_counts(y[held], model.predict(X[held]), 3)
    np.testing.assert_array_equal(np.array(fractions.certificate_.details["confusion"]), confusion)
    share = equal_share(0.05, 2 * 10)
    assert fractions.bound_ == binomial_inv_upper(int(np.sum(confusion) - np.trace(confusion)),
                                                  held.size, share)  # fmt: skip
    memory = HoldOutBoundClassifier(**params).fit(X, y)
    lazy = HoldOutBoundClassifier(**params).fit(
        da.from_array(X, chunks=500), da.from_array(y, chunks=500)
    )
    assert lazy.certificate_ == memory.certificate_
    for name in RISKS:
        np.testing.assert_array_equal(lazy.risk_bounds_[name], memory.risk_bounds_[name])


def test_risks_along_a_stream(three_classes):
    model, X, y = three_classes
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks=("false_discovery_rate",))
    previous = None
    for start in range(0, 2000, 500):
        clf.partial_fit(X[start : start + 500], y[start : start + 500])
        fdr = clf.risk_bounds_["false_discovery_rate"]
        if previous is not None:
            assert np.all(fdr <= previous)
        previous = fdr
    confusion = confusion_counts(y, model.predict(X), 3)
    share = equal_share(0.05, 1 + 3)
    now = [binomial_anytime_upper(*s.counts(confusion), share) for s in beside_error(
        ("false_discovery_rate",), 3)]  # fmt: skip
    assert np.all(fdr <= now)
    with pytest.raises(ValueError, match="risks are fixed for a stream"):
        clf.set_params(risks="all").partial_fit(X[:10], y[:10])


@pytest.mark.parametrize("risks", [("precision",), ("error", "error"), "miss"])
def test_unknown_risks_are_refused(three_classes, risks):
    model, X, y = three_classes
    with pytest.raises(ValueError, match="risks.*must be"):
        HoldOutBoundClassifier(voters=PrefitVoters(model), risks=risks).fit(X, y)


def test_a_model_changed_under_a_stream_is_refused_and_the_stream_kept(three_classes):
    _, X, y = three_classes
    changes = {
        "set_params": lambda m: m.set_params(C=0.1),
        "refit": lambda m: m.fit(X[:300], y[:300]),
        "edited": lambda m: m.coef_.__setitem__((0, 0), 9.0),
    }
    for change in changes.values():
        model = LogisticRegression(max_iter=1000).fit(X[:500], y[:500])
        stream = HoldOutBoundClassifier(voters=PrefitVoters(model))
        stream.partial_fit(X[500:1000], y[500:1000])
        certificate = stream.certificate_
        change(model)
        with pytest.raises(ValueError, match="changed since the first partial_fit"):
            stream.partial_fit(X[1000:1500], y[1000:1500])
        assert stream.n_samples_seen_ == 500 and stream.certificate_ is certificate
    # an unchanged model goes on; a later classes= that differs is refused, the state kept
    model = LogisticRegression(max_iter=1000).fit(X[:500], y[:500])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model)).partial_fit(X[500:1000], y[500:1000])
    bound = clf.bound_
    clf.partial_fit(X[1000:1500], y[1000:1500], classes=[0, 1, 2])
    assert clf.n_samples_seen_ == 1000 and clf.bound_ <= bound
    certificate = clf.certificate_
    with pytest.raises(ValueError, match=r"classes=\[0, 1\] differs from the stream's"):
        clf.partial_fit(X[1500:2000], y[1500:2000], classes=[0, 1])
    assert clf.n_samples_seen_ == 1000 and clf.certificate_ is certificate


# ----------------------------------------------------------------------------- Monte Carlo

DELTA_MC = 0.2


def _rates(t, a1, b1, a0, b0, prior):
    """True rates of ``Above(t)`` with x | y=1 ~ Beta(a1, b1), x | y=0 ~ Beta(a0, b0)."""
    miss1, fpr1 = beta.cdf(t, a1, b1), beta.sf(t, a0, b0)
    fn, fp = prior * miss1, (1 - prior) * fpr1
    tp, tn = prior - fn, 1 - prior - fp
    return {
        "error": fn + fp,
        "miss_rate": np.array([fpr1, miss1]),
        "false_positive_rate": np.array([miss1, fpr1]),
        "false_discovery_rate": np.array([fn / (fn + tn), fp / (tp + fp)]),
    }


def _draw(rng, n, a1, b1, a0, b0, prior):
    y = (rng.random(n) < prior).astype(int)
    return np.where(y == 1, rng.beta(a1, b1, n), rng.beta(a0, b0, n))[:, None], y


@pytest.mark.slow
def test_every_statement_of_a_fit_holds_together():
    """Lemma D with the split of delta: all the risk bounds and bound_ hold at once in at
    least 1 - delta of the repetitions (fixed-size and on a stream at every batch)."""
    rng = np.random.default_rng(3)
    params, t, n, reps = (4, 2, 2, 4, 0.3), 0.55, 300, 500
    truth = _rates(t, *params)
    model = Above(t).fit(np.zeros((1, 1)), [0])
    fails = {"fixed": 0, "stream": 0}
    for _ in range(reps):
        x, y = _draw(rng, n, *params)
        clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks="all", delta=DELTA_MC)
        clf.fit(x, y)
        fails["fixed"] += any(np.any(truth[r] > clf.risk_bounds_[r]) for r in RISKS)
        stream, failed = clf.__sklearn_clone__(), False
        for start in range(0, n, 60):
            stream.partial_fit(x[start : start + 60], y[start : start + 60])
            failed |= any(np.any(truth[r] > stream.risk_bounds_[r]) for r in RISKS)
        fails["stream"] += failed
    limit = binom.ppf(0.999, reps, DELTA_MC)
    assert fails["fixed"] <= limit and fails["stream"] <= limit, fails
    print("every statement together: failure rates", {k: v / reps for k, v in fails.items()})


def test_a_pickled_stream_goes_on_and_still_checks_its_model(three_classes):
    import pickle

    _, X, y = three_classes
    model = LogisticRegression(max_iter=1000).fit(X[:500], y[:500])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks="all")
    clf.partial_fit(X[500:1000], y[500:1000])
    restored = pickle.loads(pickle.dumps(clf))
    restored.partial_fit(X[1000:1500], y[1000:1500])
    clf.partial_fit(X[1000:1500], y[1000:1500])
    assert restored.certificate_ == clf.certificate_
    restored.voters.estimators.fit(X[:300], y[:300])
    with pytest.raises(ValueError, match="changed since the first partial_fit"):
        restored.partial_fit(X[1500:2000], y[1500:2000])


def test_each_group_is_certified_at_its_share(three_classes):
    from sklearn.utils import metadata_routing  # noqa: F401  (the routing API is there)

    model, X, y = three_classes
    groups = np.array(["north", "south", "west"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 1)]
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks=("miss_rate",))
    clf.fit(X, y, groups=groups)
    assert clf.group_labels_.tolist() == ["north", "south", "west"]
    predicted = model.predict(X)
    share = equal_share(0.025, 3 * 4)  # half of delta, 3 groups x (error + 3 miss rates)
    for g, name in enumerate(clf.group_labels_):
        rows = groups == name
        errors = int(np.sum(predicted[rows] != y[rows]))
        assert clf.group_bounds_["error"][g] == binomial_inv_upper(errors, rows.sum(), share)
        for c in range(3):
            of_c = rows & (y == c)
            missed = int(np.sum(predicted[of_c] != c))
            expected = binomial_inv_upper(missed, of_c.sum(), share) if of_c.any() else 1.0
            assert clf.group_bounds_["miss_rate"][g, c] == expected
    # the statements without groups at delta / 2, recomputed with the same split
    alone = HoldOutBoundClassifier(voters=PrefitVoters(model), risks=("miss_rate",), delta=0.025)
    assert clf.bound_ == alone.fit(X, y).bound_ == clf.recompute_bound(0.05)
    # a new fit without groups drops them
    assert not hasattr(clf.fit(X, y), "group_bounds_")


def test_groups_are_routed_as_metadata_and_refused_where_not_certified(three_classes):
    import sklearn
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    model, X, y = three_classes
    groups = (X[:, 0] > 0).astype(int)
    with sklearn.config_context(enable_metadata_routing=True):
        inner = HoldOutBoundClassifier(voters=PrefitVoters(model)).set_fit_request(groups=True)
        pipe = make_pipeline(FunctionTransformer(), inner).fit(X, y, groups=groups)
    assert pipe[-1].group_bounds_["error"].shape == (2,)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X, y, groups=groups[:-1])
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="groups are certified in memory only"):
        HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(
            da.from_array(X, chunks=500), da.from_array(y, chunks=500), groups=groups
        )
    with pytest.raises(TypeError, match="groups"):
        HoldOutBoundClassifier(voters=PrefitVoters(model)).partial_fit(X, y, groups=groups)


@pytest.mark.slow
def test_every_group_statement_holds_together():
    """Proposition 5e: the groups' statements and the others hold at once in at least
    1 - delta of the repetitions; the groups shift the rates."""
    rng = np.random.default_rng(4)
    n, reps, t = 400, 400, 0.55
    model = Above(t).fit(np.zeros((1, 1)), [0])
    settings = [(4, 2, 2, 4, 0.3), (3, 2, 2, 3, 0.5)]  # the two groups' laws
    truth = [_rates(t, *p) for p in settings]
    fails = 0
    for _ in range(reps):
        g = (rng.random(n) < 0.4).astype(int)
        x, y = np.zeros((n, 1)), np.zeros(n, dtype=int)
        for k, p in enumerate(settings):
            xk, yk = _draw(rng, int(np.sum(g == k)), *p)
            x[g == k], y[g == k] = xk, yk
        clf = HoldOutBoundClassifier(voters=PrefitVoters(model), risks="all", delta=DELTA_MC)
        clf.fit(x, y, groups=g)
        failed = False
        for k in range(2):
            failed |= truth[k]["error"] > clf.group_bounds_["error"][k]
            for r in RISKS[1:]:
                failed |= bool(np.any(truth[k][r] > clf.group_bounds_[r][k]))
        fails += failed
    assert fails <= binom.ppf(0.999, reps, DELTA_MC / 2), fails
    print("group statements together: failure rate", fails / reps)
