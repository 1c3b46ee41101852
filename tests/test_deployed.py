"""The hold-out line certifies the classifier the user deploys: its own predict, its errors."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from skpacbayes import HoldOutBoundClassifier
from skpacbayes.bounds import binomial_inv_upper
from skpacbayes.voters import PrefitVoters


@pytest.fixture(scope="module")
def three_parts():
    X, y = make_classification(
        n_samples=3000, n_features=8, n_informative=5, n_classes=3, flip_y=0.05, random_state=0
    )
    y = np.array(["cat", "dog", "eel"])[y]
    return X[:1000], y[:1000], X[1000:2000], y[1000:2000], X[2000:]


def _certifies_model(model, X_bound, y_bound, X_fresh, delta=0.05):
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), delta=delta).fit(X_bound, y_bound)
    np.testing.assert_array_equal(clf.predict(X_fresh), model.predict(X_fresh))
    errors = int(np.sum(model.predict(X_bound) != y_bound))
    assert clf.certificate_.statistics["errors"] == (errors,)
    assert clf.bound_ == binomial_inv_upper(errors, len(y_bound), delta)
    # the model's own scores, where it has them (issue 55 item 5)
    for method in ("predict_proba", "decision_function"):
        if hasattr(model, method):
            np.testing.assert_array_equal(
                getattr(clf, method)(X_fresh), getattr(model, method)(X_fresh)
            )
    return clf


def test_a_prefit_forest_is_deployed_as_its_own_predict(three_parts):
    # a forest's predict averages its trees' probabilities: on shallow trees it often differs
    # from the vote of the trees, and the certificate must count rf.predict's errors
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    rf = RandomForestClassifier(n_estimators=15, max_depth=3, random_state=0).fit(X_fit, y_fit)
    hard = PrefitVoters(rf).fit(X_bound, y_bound)
    tree_vote = hard.classes_[
        np.argmax([(hard.votes(X_fresh) == k).sum(axis=1) for k in range(3)], axis=0)
    ]
    assert np.any(tree_vote != rf.predict(X_fresh))  # the case under test does occur
    clf = _certifies_model(rf, X_bound, y_bound, X_fresh)
    assert clf.voters_.n_voters_ == 1 and clf.voters_.estimators_ == [rf]


def test_any_fitted_classifier_is_certified_on_its_own_predict(three_parts):
    # boosting was refused before; the others are one voter either way
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    models = [
        GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0),
        HistGradientBoostingClassifier(max_iter=5, random_state=0),
        MLPClassifier(hidden_layer_sizes=(8,), max_iter=30, random_state=0),
        SVC(),  # no predict_proba
        make_pipeline(StandardScaler(), LogisticRegression()),
        DecisionTreeClassifier(max_depth=3, random_state=0),
    ]
    for model in models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the MLP's ConvergenceWarning
            model.fit(X_fit, y_fit)
        _certifies_model(model, X_bound, y_bound, X_fresh)
        _certifies_model(FrozenEstimator(model), X_bound, y_bound, X_fresh)


def test_a_list_of_models_is_their_plain_vote_ties_to_the_first_class(three_parts):
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    models = [DecisionTreeClassifier(max_depth=d, random_state=0).fit(X_fit, y_fit) for d in (1, 2)]
    clf = HoldOutBoundClassifier(voters=PrefitVoters(models)).fit(X_bound, y_bound)
    labels = np.stack([m.predict(X_bound) for m in models], axis=1)
    assert np.any(labels[:, 0] != labels[:, 1])  # ties of two voters occur
    counts = np.stack([(labels == k).sum(axis=1) for k in clf.classes_], axis=1)
    vote = clf.classes_[np.argmax(counts, axis=1)]
    np.testing.assert_array_equal(clf.predict(X_bound), vote)
    assert clf.certificate_.statistics["errors"] == (int(np.sum(vote != y_bound)),)


def test_a_class_the_model_knows_but_the_rows_lack_is_kept(three_parts):
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    model = LogisticRegression().fit(X_fit, y_fit)
    keep = y_bound != "eel"
    clf = _certifies_model(model, X_bound[keep], y_bound[keep], X_fresh)
    assert clf.classes_.tolist() == ["cat", "dog", "eel"]
    # a held-out fraction too: the model is deployed, on every class it knows
    clf.set_params(validation_fraction=0.5, random_state=0).fit(X_bound[keep], y_bound[keep])
    np.testing.assert_array_equal(clf.predict(X_fresh), model.predict(X_fresh))
    held = clf.validation_indices_
    wrong = model.predict(X_bound[keep][held]) != y_bound[keep][held]
    assert clf.certificate_.statistics["errors"] == (int(wrong.sum()),)


def test_the_deployed_model_is_certified_on_dask_arrays(three_parts):
    da = pytest.importorskip("dask.array")
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    rf = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X_fit, y_fit)
    X_bound, y_bound = X_bound[:900], y_bound[:900]  # not the fit's size: no reuse warning
    clf = HoldOutBoundClassifier(voters=PrefitVoters(rf)).fit(
        da.from_array(X_bound, chunks=300), da.from_array(y_bound, chunks=300)
    )
    assert clf.certificate_.statistics["errors"] == (int(np.sum(rf.predict(X_bound) != y_bound)),)
    np.testing.assert_array_equal(
        clf.predict(da.from_array(X_fresh, chunks=300)).compute(), rf.predict(X_fresh)
    )
    np.testing.assert_array_equal(
        clf.predict_proba(da.from_array(X_fresh, chunks=300)).compute(), rf.predict_proba(X_fresh)
    )


def test_per_class_bounds_certify_each_class_at_its_share(three_parts):
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    model = LogisticRegression().fit(X_fit, y_fit)
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True, delta=0.1)
    clf.fit(X_bound, y_bound)
    wrong = model.predict(X_bound) != y_bound
    share = 0.1 / 4  # one statement, split over the overall error and 3 classes
    expected = [
        binomial_inv_upper(int(wrong[y_bound == k].sum()), int((y_bound == k).sum()), share)
        for k in clf.classes_
    ]
    np.testing.assert_allclose(clf.class_bounds_, expected, rtol=0, atol=1e-15)
    assert clf.class_bounds_.shape == (3,)
    assert clf.bound_ == binomial_inv_upper(int(wrong.sum()), len(y_bound), share)
    assert clf.recompute_bound(0.1) == clf.bound_
    assert not hasattr(
        HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X_bound, y_bound), "class_bounds_"
    )
    refit = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True).fit(X_bound, y_bound)
    assert not hasattr(refit.set_params(per_class=False).fit(X_bound, y_bound), "class_bounds_")
    # a class without held-out rows is certified at the trivial bound 1
    keep = y_bound != "eel"
    clf.fit(X_bound[keep], y_bound[keep])
    assert clf.class_bounds_[2] == 1.0 and clf.class_bounds_[:2].max() < 1.0


def test_per_class_bounds_on_dask_arrays_are_the_in_memory_ones(three_parts):
    da = pytest.importorskip("dask.array")
    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    model = LogisticRegression().fit(X_fit, y_fit)
    X_bound, y_bound = X_bound[:900], y_bound[:900]  # not the fit's size: no reuse warning
    est = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True)
    in_memory = est.fit(X_bound, y_bound).class_bounds_
    out_of_core = est.fit(
        da.from_array(X_bound, chunks=300), da.from_array(y_bound, chunks=300)
    ).class_bounds_
    np.testing.assert_array_equal(in_memory, out_of_core)


def test_per_class_on_the_hold_out_forests_and_certified_vote(three_parts):
    from skpacbayes import CertifiedVoteClassifier

    X_fit, y_fit, X_bound, y_bound, X_fresh = three_parts
    forest = RandomForestClassifier(n_estimators=5, max_depth=3)
    clf = HoldOutBoundClassifier(voters=forest, validation_fraction=(0.2, 0.5), per_class=True)
    clf.set_params(random_state=0).fit(X_fit, y_fit)
    held = clf.validation_indices_
    wrong = clf.predict(X_fit[held]) != y_fit[held]
    details = clf.certificate_.details
    assert details["class_errors"] == tuple(
        int(wrong[y_fit[held] == k].sum()) for k in clf.classes_
    )
    assert clf.bound_ == binomial_inv_upper(int(wrong.sum()), held.size, 0.05 / 8)
    vote = CertifiedVoteClassifier(
        voters=forest, validation_fraction=0.5, n_folds=1, per_class=True
    )
    vote.set_params(random_state=0).fit(X_fit, y_fit)
    np.testing.assert_array_equal(vote.class_bounds_, vote.best_estimator_.class_bounds_)
    assert all(c["kind"] != "out_of_bag" for c in vote.candidates_)
    with pytest.raises(ValueError, match="no per-class statement"):
        vote.set_params(out_of_bag=True).fit(X_fit, y_fit)


def test_anytime_bound_is_the_upper_end_of_the_mixture_confidence_sequence():
    from scipy.special import logsumexp

    from skpacbayes.bounds import binomial_anytime_upper
    from skpacbayes.bounds._sequence import _BETS, _bin_of, _table

    def log_mixture(r, k, n):  # the weights of r's bin over their window of bets
        start, log_weights = _table()
        b = _bin_of(r)
        bets = _BETS[start[b] : start[b] + log_weights.shape[1]]
        terms = log_weights[b] - bets * k - n * np.log1p(r * np.expm1(-bets))
        return logsumexp(terms)

    for k, n, delta in ((0, 1, 0.05), (3, 40, 0.5), (120, 1000, 0.05), (900, 10_000, 0.01)):
        u = binomial_anytime_upper(k, n, delta)
        assert log_mixture(u, k, n) >= np.log(1 / delta)  # u is rejected: an upper end
        assert log_mixture(u - 1e-6, k, n) < np.log(1 / delta)  # and a tight one
        assert u > binomial_inv_upper(k, n, delta) > k / n  # the price of every n at once
    assert binomial_anytime_upper(0, 0, 0.05) == binomial_anytime_upper(5, 5, 0.05) == 1.0
    for bad in ((6, 5, 0.05), (-1, 5, 0.05), (1, 5, 0.0), (1, 5.0, 0.05)):
        with pytest.raises(ValueError):
            binomial_anytime_upper(*bad)


def _stream_parts():
    X, y = make_classification(n_samples=6000, n_features=6, flip_y=0.1, random_state=1)
    model = LogisticRegression().fit(X[:1000], y[:1000])
    return model, X[1000:], y[1000:]


def test_partial_fit_certifies_the_stream_with_the_time_uniform_bound():
    from skpacbayes.bounds import binomial_anytime_upper

    model, X, y = _stream_parts()
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True, delta=0.1)
    wrong = model.predict(X) != y
    reported = []
    for start, stop in ((0, 500), (500, 1500), (1500, 1600), (1600, 5000)):
        clf.partial_fit(X[start:stop], y[start:stop])
        reported.append((stop, clf.bound_, clf.class_bounds_.copy()))
        seen_wrong, seen_y = wrong[:stop], y[:stop]
        now = binomial_anytime_upper(int(seen_wrong.sum()), stop, 0.1 / 3)
        assert clf.n_samples_seen_ == stop
        assert clf.certificate_.details["bound_now"] == now
        assert clf.bound_ == min(now, *(b for _, b, _ in reported))  # the running minimum
        for k in (0, 1):
            rows = seen_y == k
            assert clf.class_bounds_[k] <= binomial_anytime_upper(
                int(seen_wrong[rows].sum()), int(rows.sum()), 0.1 / 3
            )
    np.testing.assert_array_equal(clf.predict(X[:50]), model.predict(X[:50]))
    assert clf.recompute_bound(0.1) == clf.certificate_.details["bound_now"]


def test_partial_fit_on_dask_arrays_is_the_in_memory_stream():
    da = pytest.importorskip("dask.array")
    model, X, y = _stream_parts()
    memory = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True)
    out_of_core = HoldOutBoundClassifier(voters=PrefitVoters(model), per_class=True)
    for start in range(0, 3000, 1000):
        memory.partial_fit(X[start : start + 1000], y[start : start + 1000])
        out_of_core.partial_fit(
            da.from_array(X[start : start + 1000], chunks=300),
            da.from_array(y[start : start + 1000], chunks=300),
        )
        assert out_of_core.bound_ == memory.bound_
        np.testing.assert_array_equal(out_of_core.class_bounds_, memory.class_bounds_)


def test_partial_fit_refuses_what_it_cannot_certify():
    from sklearn.base import clone

    model, X, y = _stream_parts()
    with pytest.raises(AttributeError, match="partial_fit"):
        HoldOutBoundClassifier().partial_fit(X, y)  # voters grown on the rows: not fixed
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model))
    with pytest.raises(ValueError, match="validation_fraction"):
        clone(clf).set_params(validation_fraction=0.5).partial_fit(X, y)
    with pytest.raises(ValueError, match="fitted with fit"):
        clone(clf).fit(X, y).partial_fit(X, y)
    with pytest.raises(ValueError, match="classes"):
        clone(clf).partial_fit(X, y, classes=[0, 1, 2])
    clf.partial_fit(X[:100], y[:100], classes=[0, 1])
    with pytest.raises(ValueError, match="do not know"):
        clf.partial_fit(X[:100], np.where(y[:100] == 1, 2, 0))
    with pytest.raises(ValueError, match="fixed for a stream"):
        clf.set_params(delta=0.1).partial_fit(X[100:200], y[100:200])
    streamed = clone(clf).set_params(delta=0.05).partial_fit(X[:100], y[:100])
    assert not hasattr(streamed.fit(X[:500], y[:500]), "n_samples_seen_")  # fit ends it
    one_class = y[:400] == 0
    fresh = clone(clf).set_params(delta=0.05)
    assert fresh.partial_fit(X[:400][one_class], y[:400][one_class]).bound_ < 1.0


def test_sample_reuse_is_detected_beyond_tree_ensembles():
    import warnings

    from sklearn.datasets import load_digits
    from sklearn.neighbors import KNeighborsClassifier

    from skpacbayes.voters import SampleReuseWarning

    X, y = load_digits(return_X_y=True)
    own, other = slice(0, 600), slice(600, 1200)  # the same size: only the rows differ
    models = [
        MLPClassifier(hidden_layer_sizes=(16,), max_iter=60, random_state=0),
        SVC(),
        KNeighborsClassifier(),
        HistGradientBoostingClassifier(max_iter=5, random_state=0),
        make_pipeline(StandardScaler(), SVC()),
    ]
    for model in models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the MLP's ConvergenceWarning
            model.fit(X[own], y[own])
        with pytest.warns(SampleReuseWarning, match="looks trained on the rows"):
            PrefitVoters(model).fit(X[own], y[own])
        with warnings.catch_warnings():
            warnings.simplefilter("error", SampleReuseWarning)
            PrefitVoters(model).fit(X[other], y[other])


def test_a_grown_forest_is_certified_on_the_errors_of_predict_on_dask_arrays():
    # two shallow trees tie often: the count is that of predict (ties to the first class)
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 3))
    y = rng.integers(0, 2, size=1200)
    clf = HoldOutBoundClassifier(
        voters=RandomForestClassifier(n_estimators=2, max_depth=2), train_size=400, random_state=0
    ).fit(da.from_array(X, chunks=400), da.from_array(y, chunks=400))
    held = clf.validation_indices_
    votes = clf.voters_.votes(X[held])
    assert np.any(votes[:, 0] != votes[:, 1])  # ties occur
    assert clf.certificate_.statistics["errors"] == (int(np.sum(clf.predict(X[held]) != y[held])),)
