"""CertifiedVoteClassifier's candidates: the default boosting ones, the user's own list, the
weights fixed by the numbers of rows and classes, the selection rules that keep a useful
certificate, and the candidates that drop out with their reason."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression

from skpacbayes import CertifiedVoteClassifier
from skpacbayes.classifiers._held_out_vote import _FoldHoldOut
from skpacbayes.engine.protocols import default_candidates as defaults
from skpacbayes.engine.protocols.candidate_plan import MOST_ACCURATE_MARGIN, candidate_list
from skpacbayes.voters import SplitForest


@pytest.fixture(scope="module")
def binary():
    return make_classification(n_samples=800, n_features=8, flip_y=0.05, random_state=0)


def _alone(voters, candidate, X, y):
    """The candidate fitted on its own: the hold-out of its fraction and fold, at its share."""
    return _FoldHoldOut(
        voters=voters,
        validation_fraction=candidate["validation_fraction"],
        fold=candidate["fold"],
        delta=candidate["delta"],
        random_state=0,
    ).fit(X, y)


def _kinds(clf):
    return [(c["kind"], c["validation_fraction"], c["fold"]) for c in clf.candidates_]


def test_default_candidates_add_boosting_on_binary_tasks_of_enough_rows(binary):
    X, y = binary
    clf = CertifiedVoteClassifier(random_state=0).fit(X, y)
    forests = [("holdout", f, fold) for f in (0.2, 0.5) for fold in (0, 1)]
    boosting = [("boosting", 0.2, 0), ("boosting", 0.2, 1)]
    assert _kinds(clf) == [*forests, *boosting, ("stump", 0.5, 0), ("stump", 0.5, 1)]
    models = [c["model"] for c in clf.candidates_]
    assert (
        models
        == ["RandomForestClassifier"] * 4
        + ["HistGradientBoostingClassifier"] * 2
        + ["DecisionTreeClassifier"] * 2
    )
    # every boosting candidate is a test-set bound of one model grown outside its fold
    for c in clf.candidates_[4:6]:
        alone = _alone(HistGradientBoostingClassifier(), c, X, y)
        assert c["bound"] == alone.bound_
        assert c["estimated_error"] == alone.certificate_.train_error
        assert alone.voters_.n_voters_ == 1  # one voter: its trees are never taken apart
    assert clf.bound_ == min(c["bound"] for c in clf.candidates_)
    assert clf.recompute_bound(clf.delta) == clf.bound_


def test_default_candidates_depend_on_the_number_of_rows_alone():
    def kinds(n_rows, stumps="binary"):
        return [
            (c.kind, c.validation_fraction, c.fold, c.weight, c.binary_only)
            for c in candidate_list(n_rows, None, (0.2, 0.5), 2, stumps, ())
        ]

    # below BOOSTING_MIN_ROWS: no boosting; the small held-out sets weigh less
    small = kinds(244)
    assert [k[0] for k in small] == ["holdout"] * 4 + ["stump"] * 2
    assert [k[3] for k in small] == [0.245, 0.245, 0.61, 0.61, 0.1, 0.1]
    large = kinds(defaults.BOOSTING_MIN_ROWS)
    assert [k[0] for k in large].count("boosting") == 2
    # from 1,000 rows on, every forest and boosting candidate weighs 1
    assert [k[3] for k in kinds(1000)] == [1.0] * 6 + [0.1] * 2
    # the boosting and default stump candidates are grown on binary tasks only (K trees a
    # round; two leaves), but they are in the list, with their shares, whatever the classes
    assert [k[4] for k in kinds(1000)] == [False] * 4 + [True] * 4
    assert [k[4] for k in kinds(1000, stumps=True)][-2:] == [False, False]
    for n in (12, 130, 499, 500, 999, 1000, 10**6):
        for f in (0.1, 0.2, 0.5):
            w = defaults.default_weight("holdout", f, n)
            assert w == min(1.0, int(np.ceil(f * n)) / defaults.FULL_WEIGHT_ROWS) and 0 < w <= 1


def test_binary_only_candidates_drop_out_of_a_multi_class_fit_quietly():
    import warnings

    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=600, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    binary = CertifiedVoteClassifier(random_state=0).fit(X, (y > 0).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a designed drop-out warns nothing
        clf = CertifiedVoteClassifier(random_state=0).fit(X, y)
    kinds = [c["kind"] for c in clf.candidates_]
    assert kinds == [c["kind"] for c in binary.candidates_]  # the same list, same shares
    assert [c["delta"] for c in clf.candidates_] == [c["delta"] for c in binary.candidates_]
    for c in clf.candidates_:
        if c["kind"] in ("boosting", "stump"):
            assert c["bound"] == 1.0 and "3-class task" in c["dropped"]
        else:
            assert "dropped" not in c
    assert clf.candidates_[clf.best_index_]["kind"] == "holdout"


def test_default_shares_are_stated_in_the_certificate(binary):
    X, y = binary
    clf = CertifiedVoteClassifier(random_state=0).fit(X, y)
    deltas = tuple(c["delta"] for c in clf.candidates_)
    weights = np.array(
        [defaults.default_weight(c["kind"], c["validation_fraction"], 800) for c in clf.candidates_]
    )
    assert deltas == pytest.approx(tuple(clf.delta * weights / weights.sum()))
    assert sum(deltas) <= clf.delta
    assert clf.certificate_.details["candidate_deltas"] == deltas
    assert clf.certificate_.details["candidate"] == clf.best_index_
    assert clf.certificate_.delta == deltas[clf.best_index_]


def test_no_stumps_by_default_on_more_than_two_classes():
    X, y = make_classification(
        n_samples=300, n_features=8, n_informative=4, n_classes=3, random_state=0
    )
    clf = CertifiedVoteClassifier(random_state=0).fit(X, y)
    assert {c["kind"] for c in clf.candidates_ if "dropped" not in c} == {"holdout"}
    asked = CertifiedVoteClassifier(stump_candidate=True, random_state=0).fit(X, y)
    grown = [c["kind"] for c in asked.candidates_ if "dropped" not in c]
    assert grown.count("stump") == 2


def test_a_user_candidate_list_is_one_call(binary):
    X, y = binary
    models = [HistGradientBoostingClassifier(max_iter=20), (LogisticRegression(), 0.3)]
    clf = CertifiedVoteClassifier(candidates=models, random_state=0).fit(X, y)
    described = [(c["model"], c["validation_fraction"], c["fold"]) for c in clf.candidates_]
    hgb, lr = "HistGradientBoostingClassifier", "LogisticRegression"
    assert described == [
        (hgb, 0.2, 0),
        (hgb, 0.2, 1),
        (hgb, 0.5, 0),
        (hgb, 0.5, 1),
        (lr, 0.3, 0),
        (lr, 0.3, 1),
    ]
    assert {c["kind"] for c in clf.candidates_} == {"holdout"}  # no stump, no out-of-bag
    assert [c["delta"] for c in clf.candidates_] == pytest.approx([clf.delta / 6] * 6)
    best = clf.best_candidate_
    alone = _alone(models[0] if best["model"] == hgb else models[1][0], best, X, y)
    assert clf.bound_ == alone.bound_
    assert np.array_equal(clf.predict(X), alone.predict(X))
    assert models[0].get_params()["max_iter"] == 20 and not hasattr(models[0], "n_iter_")


@pytest.mark.parametrize(
    "params, match",
    [
        ({"candidates": []}, r"candidates=\[\] lists no model"),
        ({"candidates": [(LogisticRegression(), 0.2, 1)]}, r"candidates\[0\] has 3 items"),
        ({"candidates": ["svm"]}, r"candidates\[0\] must be an unfitted scikit-learn"),
        ({"candidates": [SplitForest()]}, r"candidates\[0\] must be an unfitted scikit-learn"),
        ({"candidates": [(LogisticRegression(), 1.5)]}, r"candidates\[0\]: .*validation_fraction"),
        (
            {"candidates": [LogisticRegression()], "voters": RandomForestClassifier()},
            "Both voters and candidates were set",
        ),
        (
            {"candidates": [LogisticRegression()], "out_of_bag": True},
            r"out_of_bag=True.*candidates",
        ),
        ({"candidates": [(LogisticRegression(), 0.6)]}, "n_folds=2 disjoint held-out sets"),
        ({"candidates": LogisticRegression()}, "'candidates' parameter"),
    ],
)
def test_a_bad_candidate_list_is_refused_with_its_fix(binary, params, match):
    X, y = binary
    with pytest.raises(ValueError, match=match):
        CertifiedVoteClassifier(**params).fit(X[:100], y[:100])


def test_most_accurate_stays_within_its_margin_of_the_tightest_bound(binary):
    X, y = binary
    for seed in range(3):
        clf = CertifiedVoteClassifier(selection="most_accurate", random_state=seed).fit(X, y)
        bounds = [c["bound"] for c in clf.candidates_]
        estimates = [c["estimated_error"] for c in clf.candidates_]
        eligible = [i for i, b in enumerate(bounds) if b <= min(bounds) + MOST_ACCURATE_MARGIN]
        assert clf.best_index_ == min(eligible, key=lambda i: (estimates[i], bounds[i], i))
        assert clf.bound_ <= min(bounds) + MOST_ACCURATE_MARGIN
        assert "out_of_bag" not in {c["kind"] for c in clf.candidates_}  # asked for by inf
    anything = CertifiedVoteClassifier(selection=float("inf"), random_state=0).fit(X, y)
    assert {"out_of_bag"} <= {c["kind"] for c in anything.candidates_}
    estimates = [c["estimated_error"] for c in anything.candidates_]
    assert anything.best_candidate_["estimated_error"] == min(estimates)


def _few_rows():
    """Ten rows, three of class 1: one half of the seed-2 permutation leaves a single class."""
    X = np.random.default_rng(2).normal(size=(10, 3))
    return X, (np.arange(10) < 3).astype(int)


def test_a_candidate_that_cannot_be_fitted_drops_out_with_its_reason(capsys):
    X, y = _few_rows()
    with pytest.warns(FitFailedWarning) as record:
        clf = CertifiedVoteClassifier(random_state=2, verbose=1).fit(X, y)
    said = [str(w.message) for w in record]
    assert [text.split(" (bound")[0] for text in said] == [
        "Candidate 2 (hold-out 0.5 fold 0) dropped out",
        "Candidate 4 (stump 0.5 fold 0) dropped out",
    ]
    assert {w.filename for w in record} == {__file__}  # the user's call
    dropped = [i for i, c in enumerate(clf.candidates_) if "dropped" in c]
    assert dropped == [2, 4]  # the forest and the stump grown on that half
    for i in dropped:
        c = clf.candidates_[i]
        assert c["bound"] == 1.0 and np.isnan(c["estimated_error"])
        assert "training rows left by validation_fraction=0.5 hold a single class" in c["dropped"]
    assert clf.best_index_ not in dropped and clf.bound_ == clf.best_candidate_["bound"] < 1
    out = capsys.readouterr().out
    assert "candidate 2 (hold-out 0.5 fold 0): dropped out: The 5 training rows" in out


class _Broken(ClassifierMixin, BaseEstimator):
    """A classifier whose fit always fails."""

    def fit(self, X, y):
        raise RuntimeError("this model cannot be fitted")

    def predict(self, X):  # pragma: no cover - never fitted
        return np.zeros(len(X))


def test_a_failing_model_drops_out_and_every_drop_out_is_an_error(binary):
    X, y = binary
    with pytest.warns(FitFailedWarning, match="this model cannot be fitted"):
        clf = CertifiedVoteClassifier(
            candidates=[(_Broken(), 0.2), (LogisticRegression(), 0.2)], n_folds=1
        ).fit(X, y)
    assert "dropped" in clf.candidates_[0] and clf.best_index_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the error names every reason
        with pytest.raises(ValueError, match=r"Every candidate dropped out.*cannot be fitted"):
            CertifiedVoteClassifier(candidates=[_Broken()], n_folds=1).fit(X, y)


def test_boosting_candidates_on_a_dask_sample():
    da = pytest.importorskip("dask.array")
    X, y = make_classification(n_samples=3000, n_features=6, random_state=1)
    Xd, yd = da.from_array(X, chunks=500), da.from_array(y, chunks=500)
    clf = CertifiedVoteClassifier(train_size=1000, random_state=0).fit(Xd, yd)
    boosting = [c for c in clf.candidates_ if c["kind"] == "boosting"]
    assert len(boosting) == 2
    for c in boosting:
        assert c["train_size"] == 1000 and c["held_out_rows"] == 2000 + 200
        assert 0 <= c["estimated_error"] <= c["bound"] < 1
    assert clf.certificate_.details["candidate_deltas"] == tuple(
        c["delta"] for c in clf.candidates_
    )
