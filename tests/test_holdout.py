"""The hold-out line: a plain vote certified on rows its voters never saw.

Halves protocol (``validation_fraction=None``): one half's trees certified on the other
half. Fraction protocol: held-out rows drawn from the seed and the sample size alone, the
ensemble grown on the rest. :class:`~skpacbayes.CertifiedVoteClassifier` deploys one of
several such candidates, each at ``delta / K``, by a selection rule.
"""

from fractions import Fraction

import numpy as np
import pytest
from _exact_binomial import exact_lower_tail
from _progress import lines_printed_before_each_fit
from sklearn.datasets import load_digits
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
from skpacbayes.bounds import kl_inv_upper
from skpacbayes.engine.protocols.held_out import validation_rows
from skpacbayes.objectives import TestSet
from skpacbayes.voters import SplitForest

_holdout_bound = TestSet().statement  # the exact binomial test-set bound


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


def _forest(n=10):
    return RandomForestClassifier(n_estimators=n, max_depth=8)


def test_holdout_bound_is_the_binomial_test_set_bound(digits):
    X_tr, X_te, y_tr, y_te = digits
    clf = HoldOutBoundClassifier(
        voters=SplitForest(n_estimators=20), validation_fraction=None, random_state=0
    ).fit(X_tr, y_tr)
    cert = clf.certificate_
    k, m = cert.statistics["errors"][clf.half_], cert.m[clf.half_]
    # the exact binomial limit at delta / 2 (two halves): the tail at the bound is below
    # delta / 2, and just below the bound it is not (tight), exactly
    assert exact_lower_tail(k, m, clf.bound_) < Fraction(clf.delta) / 2
    assert exact_lower_tail(k, m, clf.bound_ * (1 - 1e-9)) >= Fraction(clf.delta) / 2
    # never looser than Chernoff's test-set bound, and strictly tighter here
    assert clf.bound_ < float(kl_inv_upper(k / m, np.log(2 / clf.delta) / m))
    # the other half's bound is not smaller (the tighter half is deployed)
    assert clf.bound_ == min(cert.details["bounds_per_half"])
    assert clf.bound_ >= cert.train_error
    # the deployed classifier is the plain vote of one half's trees only
    assert set(np.unique(clf.weights_)) == {0.0, 1.0}
    assert clf.weights_.sum() == 10
    test_error = np.mean(clf.predict(X_te) != y_te)
    assert test_error <= clf.bound_


def test_holdout_recompute_bound_is_monotone_in_delta(digits):
    X_tr, _, y_tr, _ = digits
    for fraction in (None, 0.3, (0.2, 0.4)):
        voters = SplitForest(n_estimators=10) if fraction is None else _forest()
        clf = HoldOutBoundClassifier(voters=voters, validation_fraction=fraction, random_state=0)
        clf.fit(X_tr, y_tr)
        values = [clf.recompute_bound(d) for d in (0.5, 0.05, 0.005)]
        assert values[0] < values[1] < values[2]
        assert clf.recompute_bound(clf.delta) == clf.bound_
        # the DEPLOYED statement is re-certified, at the same split of delta
        cert, i = clf.certificate_, clf.certificate_.details["statement"]
        k, m = cert.statistics["errors"][i], cert.m[i]
        assert values[2] == _holdout_bound(k, m, 0.005 / len(cert.m))
        with pytest.raises(ValueError, match="delta"):
            clf.recompute_bound(0.0)


def test_holdout_counts_the_errors_of_predict_ties_included():
    # two trees per half on a task they cannot separate: votes tie often, and the
    # certified error count is that of predict, which gives a tie to the first class
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = rng.integers(0, 2, size=400)
    clf = HoldOutBoundClassifier(
        voters=SplitForest(RandomForestClassifier(max_depth=2), n_estimators=4),
        validation_fraction=None,
        random_state=0,
    )
    clf.fit(X, y)
    g = clf.half_
    cert = clf.certificate_
    votes = clf.voters_.votes(X)
    groups = np.asarray(clf.voters_.voter_groups_)
    samples = np.flatnonzero(np.asarray(clf.voters_.sample_groups_) != np.unique(groups)[g])
    mine = votes[np.ix_(samples, np.flatnonzero(groups == np.unique(groups)[g]))]
    ones = (mine == 1).sum(axis=1)
    zeros = (mine == 0).sum(axis=1)
    truth = y[samples]
    assert np.any(ones == zeros)  # the case under test does occur
    wrong = np.where(truth == 1, ones <= zeros, zeros < ones)
    assert cert.statistics["errors"][g] == int(wrong.sum())
    assert cert.statistics["errors"][g] == int(np.sum(clf.predict(X[samples]) != truth))
    # the fraction protocol too: two trees, one held-out statement
    clf = HoldOutBoundClassifier(
        voters=RandomForestClassifier(n_estimators=2, max_depth=2),
        validation_fraction=0.5,
        random_state=0,
    ).fit(X, y)
    held = clf.validation_indices_
    votes = clf.voters_.votes(X[held])
    ones, zeros = (votes == 1).sum(axis=1), (votes == 0).sum(axis=1)
    assert np.any(ones == zeros)
    wrong = np.where(y[held] == 1, ones <= zeros, zeros < ones)
    assert clf.certificate_.statistics["errors"] == (int(wrong.sum()),)
    assert clf.certificate_.statistics["errors"] == (int(np.sum(clf.predict(X[held]) != y[held])),)


def test_validation_rows_depend_on_the_seed_and_size_alone():
    train, held = validation_rows(101, 0.2, seed=3)
    assert held.size == 21 and train.size == 80
    assert np.intersect1d(train, held).size == 0
    again = validation_rows(101, 0.2, seed=3)
    assert np.array_equal(again[1], held)
    # nested: a larger fraction holds out a superset of the rows
    assert np.isin(held, validation_rows(101, 0.5, seed=3)[1]).all()
    # at least one row on each side
    assert [a.size for a in validation_rows(3, 0.01, 0)] == [2, 1]
    assert [a.size for a in validation_rows(3, 0.99, 0)] == [1, 2]


def test_fraction_protocol_grows_on_the_rest_and_certifies_on_the_held_out_rows(digits):
    X_tr, X_te, y_tr, y_te = digits
    m = y_tr.size
    # a 1-nearest-neighbour classifier stores the rows it was fitted on
    clf = HoldOutBoundClassifier(
        voters=KNeighborsClassifier(n_neighbors=1), validation_fraction=0.25, random_state=0
    ).fit(X_tr, y_tr)
    held = clf.validation_indices_
    assert held.size == int(np.ceil(0.25 * m))
    seen = clf.voters_.estimators_[0]._fit_X
    assert seen.shape[0] == m - held.size
    assert not (X_tr[held][:, None, :] == seen[None, :, :]).all(axis=2).any(axis=1).all()
    k = int(np.sum(clf.voters_.estimators_[0].predict(X_tr[held]) != y_tr[held]))
    assert clf.certificate_.statistics["errors"] == (k,)
    assert clf.bound_ == _holdout_bound(k, held.size, clf.delta)
    assert clf.certificate_.train_error == k / held.size
    # the held-out rows are chosen without looking at the labels (nor at X)
    shuffled = np.random.default_rng(0).permutation(y_tr)
    other = HoldOutBoundClassifier(voters=_forest(), validation_fraction=0.25, random_state=0).fit(
        X_tr[::-1], shuffled
    )
    assert np.array_equal(other.validation_indices_, held)
    assert np.mean(clf.predict(X_te) != y_te) <= clf.bound_


def test_a_sequence_of_fractions_splits_delta(digits):
    X_tr, _, y_tr, _ = digits
    fractions = (0.15, 0.3, 0.5)
    clf = HoldOutBoundClassifier(voters=_forest(), validation_fraction=fractions, random_state=0)
    clf.fit(X_tr, y_tr)
    cert = clf.certificate_
    assert len(cert.m) == 3 and cert.details["validation_fractions"] == fractions
    expected = [_holdout_bound(k, n, clf.delta / 3) for k, n in zip(*_stats(cert), strict=True)]
    assert list(cert.details["bounds"]) == expected
    assert clf.bound_ == min(expected)
    assert clf.validation_fraction_ == fractions[int(np.argmin(expected))]
    # each statement is the single-fraction fit at delta / 3 (same seed: same rows, same trees)
    f = clf.validation_fraction_
    alone = HoldOutBoundClassifier(
        voters=_forest(), validation_fraction=f, delta=clf.delta / 3, random_state=0
    ).fit(X_tr, y_tr)
    assert alone.bound_ == clf.bound_
    assert np.array_equal(alone.predict(X_tr), clf.predict(X_tr))


def _stats(cert):
    return cert.statistics["errors"], cert.m


def test_a_class_missing_from_the_training_rows_is_mapped_to_the_global_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, "b", "a").astype(object)
    seed_rows = validation_rows(60, 0.2, seed=np.random.RandomState(0).randint(2**31 - 1))
    y[seed_rows[1][:2]] = "zz"  # a third class only among the held-out rows
    clf = HoldOutBoundClassifier(voters=_forest(), validation_fraction=0.2, random_state=0).fit(
        X, y
    )
    assert np.array_equal(clf.validation_indices_, seed_rows[1])
    assert clf.classes_.tolist() == ["a", "b", "zz"]
    assert clf.voters_.classes_.tolist() == ["a", "b"]
    assert clf.decision_function(X).shape == (60, 3)
    assert set(clf.predict(X)) <= {"a", "b"}
    assert clf.certificate_.statistics["errors"][0] >= 2  # "zz" is never predicted


def test_auto_keeps_a_banks_own_rule_and_grows_anything_else_on_part_of_the_rows(digits):
    from skpacbayes.voters import PrefitVoters

    X_tr, _, y_tr, _ = digits
    halves = HoldOutBoundClassifier(voters=SplitForest(n_estimators=10), random_state=0)
    assert halves.fit(X_tr, y_tr).half_ in (0, 1) and halves.validation_fraction_ is None
    grown = HoldOutBoundClassifier(voters=_forest(), random_state=0).fit(X_tr, y_tr)
    assert grown.half_ is None and grown.certificate_.details["validation_fractions"] == (
        0.1,
        0.2,
        0.5,
    )
    # a forest fitted on other rows is certified on every row, as before
    rf = _forest().set_params(random_state=0).fit(X_tr[:300], y_tr[:300])
    prefit = HoldOutBoundClassifier(voters=PrefitVoters(rf), random_state=0).fit(
        X_tr[300:], y_tr[300:]
    )
    assert prefit.certificate_.m == (y_tr.size - 300,)


def test_invalid_validation_fractions_are_refused(digits):
    X_tr, _, y_tr, _ = digits
    for bad in (0.0, 1.0, 1.5, -0.2, (), (0.2, 0.2), (0.2, float("nan")), "abc", (0.5, 1.0)):
        with pytest.raises(ValueError, match="validation_fraction"):
            HoldOutBoundClassifier(voters=_forest(), validation_fraction=bad).fit(
                X_tr[:50], y_tr[:50]
            )
    with pytest.raises(ValueError, match="voters"):
        HoldOutBoundClassifier(voters=_forest(), validation_fraction=None).fit(X_tr, y_tr)
    X = np.arange(8.0)[:, None]
    y = np.array([0, 1, 1, 1, 1, 1, 1, 1])
    train, held = validation_rows(8, 0.9, seed=np.random.RandomState(0).randint(2**31 - 1))
    y = np.ones(8, dtype=int)
    y[held[0]] = 0
    with pytest.raises(ValueError, match="single class.*validation_fraction"):
        HoldOutBoundClassifier(voters=_forest(), validation_fraction=0.9, random_state=0).fit(X, y)


def test_certified_vote_certifies_every_candidate_at_its_share_of_delta(digits):
    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut

    X_tr, X_te, y_tr, y_te = digits
    fractions = (0.1, 0.3, 0.5)
    clf = CertifiedVoteClassifier(voters=_forest(), validation_fraction=fractions, random_state=0)
    clf.fit(X_tr, y_tr)
    described = [(c["validation_fraction"], c["fold"]) for c in clf.candidates_]
    assert described == [(0.1, 0), (0.1, 1), (0.3, 0), (0.3, 1), (0.5, 0), (0.5, 1)]
    # one equal share per forest, summing to delta
    shares = [c["delta"] for c in clf.candidates_]
    assert shares == pytest.approx([clf.delta / 6] * 6)
    assert sum(shares) == pytest.approx(clf.delta)
    assert clf.best_estimator_.random_state == 0  # an int random_state is handed on as is
    fitted = []
    for c in clf.candidates_:
        alone = _FoldHoldOut(
            voters=_forest(),
            validation_fraction=c["validation_fraction"],
            fold=c["fold"],
            delta=c["delta"],
            random_state=0,
        ).fit(X_tr, y_tr)
        assert c["bound"] == alone.bound_
        assert c["estimated_error"] == alone.certificate_.train_error
        assert alone.voters_.n_voters_ == 10  # every fold grows the whole ensemble
        fitted.append(alone)
    # the folds of one fraction are disjoint, of the same size; fold 1 of 0.5 is the other half
    for first, other in zip(fitted[::2], fitted[1::2], strict=True):
        held0, held1 = first.validation_indices_, other.validation_indices_
        assert np.intersect1d(held0, held1).size == 0
        assert abs(held0.size - held1.size) <= 1
    both = np.union1d(fitted[4].validation_indices_, fitted[5].validation_indices_)
    assert np.array_equal(both, np.arange(len(y_tr)))
    other = fitted[5]
    votes = other.voters_.votes(X_tr[other.validation_indices_])
    labels = other.voters_.classes_[votes]
    counts = np.stack([(labels == k).sum(axis=1) for k in other.classes_], axis=1)
    # what predict returns: the first class of most votes
    wrong = other.classes_[counts.argmax(axis=1)] != y_tr[other.validation_indices_]
    n_held = other.validation_indices_.size
    assert other.bound_ == _holdout_bound(int(wrong.sum()), n_held, clf.candidates_[5]["delta"])
    assert clf.bound_ == clf.best_candidate_["bound"] == min(c["bound"] for c in clf.candidates_)
    assert clf.certificate_.delta == clf.best_candidate_["delta"]
    assert clf.recompute_bound(clf.delta) == clf.bound_
    assert np.mean(clf.predict(X_te) != y_te) <= clf.bound_


def test_shares_of_delta_never_sum_to_more_than_delta():
    from skpacbayes.engine.certificate import equal_share
    from skpacbayes.engine.protocols.candidates import candidate_deltas
    from skpacbayes.engine.protocols.default_candidates import candidate_weight

    rounded = 0
    for delta in (1.0, 0.5, 0.1, 0.05, 0.01, 0.001, 0.037):
        for k in range(1, 101):  # fractions x folds: any count of hold-out candidates
            equal = equal_share(delta, k)  # BoundSelection's and HoldOut's statements
            assert Fraction(equal) * k <= Fraction(delta)
            assert equal == delta / k or Fraction(delta / k) * k > Fraction(delta)
            for kinds in (
                [],
                ["stump"] * 2,
                ["out_of_bag"] * 2,
                ["stump"] * 2 + ["out_of_bag"] * 2,
            ):
                weights = np.array([candidate_weight(c) for c in ["holdout"] * k + kinds])
                shares = weights / weights.sum()
                deltas = candidate_deltas(delta, shares)
                assert sum(map(Fraction, deltas)) <= Fraction(delta)
                before = [float(delta * share) for share in shares]
                if sum(map(Fraction, before)) <= Fraction(delta):
                    assert deltas == before  # unchanged wherever they already fit
                else:
                    rounded += 1
                    gaps = np.subtract(before, deltas)  # a few ulps each
                    assert np.all((gaps > 0) & (gaps <= 4 * np.spacing(before)))
    assert rounded > 0


def test_certified_vote_shares_fit_in_delta_and_recompute_at_them(digits):
    X_tr, _, y_tr, _ = digits
    fractions = (0.1, 0.2, 0.3, 0.4, 0.5)  # five shares of 0.05 sum to more than 0.05
    clf = CertifiedVoteClassifier(
        voters=_forest(5), validation_fraction=fractions, n_folds=1, random_state=0
    ).fit(X_tr[:300], y_tr[:300])
    shares = [c["delta"] for c in clf.candidates_]
    assert Fraction(0.05 * 0.2) * 5 > Fraction(0.05)  # the unrounded share
    assert sum(map(Fraction, shares)) <= Fraction(0.05) and shares[0] < 0.05 * 0.2
    assert clf.certificate_.delta == clf.best_candidate_["delta"]
    assert clf.recompute_bound(clf.delta) == clf.bound_


def test_certified_vote_holds_the_holdout_candidates_of_the_same_random_state(digits):
    """Fold 0 of every fraction is HoldOut's candidate; one fold and no stump: HoldOut itself."""
    X_tr, X_te, y_tr, y_te = digits
    fractions = (0.1, 0.2, 0.5)
    for random_state in (0, 7):
        ho = HoldOutBoundClassifier(
            voters=_forest(), validation_fraction=fractions, random_state=random_state
        ).fit(X_tr, y_tr)
        cv = CertifiedVoteClassifier(
            voters=_forest(), validation_fraction=fractions, random_state=random_state
        ).fit(X_tr, y_tr)
        fold0 = [c for c in cv.candidates_ if c["fold"] == 0]
        errors, sizes = ho.certificate_.statistics["errors"], ho.certificate_.m
        for c, k, n in zip(fold0, errors, sizes, strict=True):
            assert c["estimated_error"] == k / n
            assert c["bound"] == _holdout_bound(k, n, c["delta"])
        # the tightest of a superset: at most HoldOut's candidates at the smaller share
        at_share = [_holdout_bound(k, n, cv.delta / 6) for k, n in zip(errors, sizes, strict=True)]
        assert cv.bound_ <= min(at_share)
        same = CertifiedVoteClassifier(
            voters=_forest(), validation_fraction=fractions, n_folds=1, random_state=random_state
        ).fit(X_tr, y_tr)
        assert same.bound_ == ho.bound_
        assert same.best_candidate_["validation_fraction"] == ho.validation_fraction_
        assert np.array_equal(same.predict(X_te), ho.predict(X_te))


def test_certified_vote_refuses_folds_that_do_not_fit(digits):
    X_tr, _, y_tr, _ = digits
    with pytest.raises(ValueError, match="n_folds=3 disjoint held-out sets of validation_fraction"):
        CertifiedVoteClassifier(voters=_forest(), n_folds=3).fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="Fold 2 of validation_fraction=0.5 does not fit"):
        validation_rows(10, 0.5, seed=0, fold=2)
    train, held = validation_rows(9, 0.5, seed=0, fold=1)  # the other half
    assert (train.size, held.size) == (5, 4)
    assert np.array_equal(validation_rows(9, 0.5, seed=0)[1], train)


def test_certified_vote_reports_each_candidate_as_it_finishes(digits, capsys, monkeypatch):
    """verbose: a line per candidate as soon as it is certified, not all at the end."""
    import skpacbayes.engine.protocols.candidates as module

    X_tr, _, y_tr, _ = digits
    printed_before = lines_printed_before_each_fit(module, "_held_out_job", capsys, monkeypatch)
    clf = CertifiedVoteClassifier(voters=_forest(), validation_fraction=(0.2, 0.5), verbose=1)
    clf.fit(X_tr, y_tr)
    # when each candidate starts, every earlier one has had its line
    assert printed_before == [0, 1, 1, 1]
    last = capsys.readouterr().out.splitlines()
    assert last[0].startswith("[CertifiedVoteClassifier] 4/4 candidate 3 (hold-out 0.5 fold 1)")
    assert last[-1].startswith("[CertifiedVoteClassifier] deployed candidate")


def _expected_pick(candidates, tolerance, margin=0.0):
    smallest = min(c["bound"] for c in candidates)
    eligible = [
        (c["estimated_error"], c["bound"], i)
        for i, c in enumerate(candidates)
        if c["bound"] <= (1 + tolerance) * smallest + margin
    ]
    return min(eligible)[2]


@pytest.mark.parametrize(
    "selection, tolerance, margin",
    [
        ("tightest_bound", 0.0, 0.0),
        (0.05, 0.05, 0.0),
        (0.3, 0.3, 0.0),
        ("most_accurate", 0.0, 0.01),  # within one point of the tightest bound
        (float("inf"), float("inf"), 0.0),  # any bound: asked for explicitly
    ],
)
def test_selection_rules_deploy_the_documented_candidate(digits, selection, tolerance, margin):
    X_tr, _, y_tr, _ = digits
    clf = CertifiedVoteClassifier(
        voters=_forest(),
        validation_fraction=(0.05, 0.2, 0.5),
        selection=selection,
        out_of_bag=False,
        random_state=0,
    ).fit(X_tr, y_tr)
    assert clf.best_index_ == _expected_pick(clf.candidates_, tolerance, margin)
    assert clf.best_estimator_.validation_fraction_ == clf.best_candidate_["validation_fraction"]
    assert clf.bound_ == clf.best_candidate_["bound"]


def test_selection_rules_can_disagree_and_all_keep_the_certificate(digits):
    # whatever the rule, the deployed bound is that candidate's bound at its share of delta
    X_tr, X_te, y_tr, y_te = digits
    picks = {}
    for selection in ("tightest_bound", "most_accurate", 0.05):
        clf = CertifiedVoteClassifier(
            voters=_forest(),
            validation_fraction=(0.05, 0.2, 0.5),
            n_folds=1,
            selection=selection,
            out_of_bag=False,
            random_state=0,
        ).fit(X_tr, y_tr)
        picks[selection] = clf.best_index_
        assert clf.bound_ == clf.candidates_[clf.best_index_]["bound"]
        assert clf.certificate_.delta == clf.candidates_[clf.best_index_]["delta"]
    # the trade-off is real here: the smallest fraction looks the most accurate (estimated
    # on 63 rows) but certifies less tightly; the largest one is the tightest
    assert picks == {"tightest_bound": 2, "most_accurate": 0, 0.05: 2}


def test_select_is_the_most_accurate_among_the_nearly_tightest():
    from skpacbayes.engine.protocols.candidates import select

    bounds, estimates = [0.10, 0.104, 0.2, 0.104], [0.08, 0.06, 0.01, 0.06]
    assert select(bounds, estimates, 0.0) == 0
    assert select(bounds, estimates, 0.05) == 1  # ties: the earlier candidate
    assert select(bounds, estimates, 1.0) == 2
    assert select([0.0, 0.1], [0.0, 0.0], float("inf")) == 0


def test_out_of_bag_candidates_join_where_they_can_win(digits):
    X_tr, X_te, y_tr, y_te = digits
    forest = RandomForestClassifier(n_estimators=30)
    common = dict(validation_fraction=(0.2,), n_folds=1, random_state=0)
    tightest = CertifiedVoteClassifier(voters=forest, **common).fit(X_tr, y_tr)
    assert [c["kind"] for c in tightest.candidates_] == ["holdout"]  # "auto": not here
    clf = CertifiedVoteClassifier(voters=forest, selection=float("inf"), **common).fit(X_tr, y_tr)
    kinds = [(c["kind"], c["out_of_bag_bound"]) for c in clf.candidates_]
    assert kinds == [("holdout", None), ("out_of_bag", "FO"), ("out_of_bag", "SO")]
    for c in clf.candidates_:
        assert 0 <= c["estimated_error"] <= c["bound"] <= 1
    # one equal share each, the deployed one the most accurate by its estimate
    assert [c["delta"] for c in clf.candidates_] == pytest.approx([0.05 / 3] * 3)
    assert clf.certificate_.delta == clf.best_candidate_["delta"]
    assert clf.best_index_ == _expected_pick(clf.candidates_, float("inf"))
    assert clf.recompute_bound(clf.delta) == clf.bound_
    assert np.mean(clf.predict(X_te) != y_te) <= clf.bound_
    forced = CertifiedVoteClassifier(voters=forest, out_of_bag=True, **common).fit(X_tr, y_tr)
    assert len(forced.candidates_) == 3
    oob = [c for c in forced.candidates_ if c["kind"] == "out_of_bag"]
    assert [c["bound"] for c in oob] == [c["bound"] for c in clf.candidates_[1:]]


def test_a_candidate_without_a_bound_drops_out_instead_of_sinking_the_fit(monkeypatch):
    import skpacbayes.engine.protocols.candidate_plan as candidate_plan
    import skpacbayes.engine.protocols.default_candidates as default_candidates

    # 200 trees on 12 rows (the default forests from 128 rows on): some pair of out-of-bag
    # trees shares no out-of-bag row (the hold-out forests and the out-of-bag one)
    for module in (candidate_plan, default_candidates):
        monkeypatch.setattr(module, "default_n_estimators", lambda n_rows: 200)
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.arange(12) % 2
    with pytest.warns(FitFailedWarning, match=r"Candidate 7 \(out-of-bag SO\) dropped out"):
        clf = CertifiedVoteClassifier(selection=float("inf"), random_state=0).fit(X, y)
    dropped = clf.candidates_[7]
    assert dropped["bound"] == 1.0 and np.isnan(dropped["estimated_error"])
    assert "tandem bound has no sample" in dropped["dropped"]
    assert ["dropped" in c for c in clf.candidates_] == [False] * 7 + [True]
    assert clf.best_index_ != 7 and clf.bound_ == clf.best_candidate_["bound"] < 1


@pytest.mark.parametrize(
    "clf",
    [
        HoldOutBoundClassifier(random_state=0),
        HoldOutBoundClassifier(voters=BaggingClassifier(n_estimators=3), random_state=0),
        CertifiedVoteClassifier(voters=_forest(3), random_state=0),
    ],
)
@pytest.mark.parametrize("row", [3, 4])  # a training row; a held-out row of fraction 0.1
def test_values_beyond_float32_are_named_before_the_trees_refuse_them(clf, row):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    X[row, 1] = -1e300
    with pytest.raises(ValueError, match=r"values up to \|x\| = 1e\+300, beyond the float32"):
        clf.fit(X, y)
    knn = BaggingClassifier(KNeighborsClassifier(3), n_estimators=3)
    assert 0 < HoldOutBoundClassifier(voters=knn, random_state=0).fit(X, y).bound_ <= 1  # no trees


def test_out_of_bag_error_votes_each_row_with_the_members_that_never_saw_it():
    from skpacbayes import SecondOrderBoundClassifier
    from skpacbayes.engine.protocols.candidates import out_of_bag_error
    from skpacbayes.voters import OutOfBagVoters

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    clf = SecondOrderBoundClassifier(
        voters=OutOfBagVoters(n_estimators=8, random_state=0), random_state=0
    ).fit(X, y)
    votes, mask = clf.voters_.votes(X), clf.voters_.evaluation_mask()
    wrong, counted = 0, 0
    for i in range(X.shape[0]):
        if not mask[i].any():
            continue
        scores = np.zeros(clf.classes_.size)
        for j in np.flatnonzero(mask[i]):
            scores[votes[i, j]] += clf.weights_[j]
        top = np.flatnonzero(scores == scores.max())
        wrong += not (top.size == 1 and clf.classes_[top[0]] == y[i])
        counted += 1
    assert out_of_bag_error(clf, X, y) == pytest.approx(wrong / counted, abs=1e-12)


def test_fractions_do_not_warn_about_sample_reuse():
    # the forest is grown on the training rows on purpose; only held-out rows are certified
    import warnings

    from sklearn.datasets import load_breast_cancer

    from skpacbayes.voters import SampleReuseWarning

    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SampleReuseWarning)
        clf = HoldOutBoundClassifier(validation_fraction=(0.2, 0.5), random_state=0).fit(X, y)
    assert clf.validation_fraction_ in (0.2, 0.5)


def test_certified_vote_with_one_half_fraction_fits_both_halves(digits):
    X_tr, X_te, y_tr, y_te = digits
    clf = CertifiedVoteClassifier(voters=_forest(), validation_fraction=0.5, random_state=0)
    clf.fit(X_tr, y_tr)
    assert [c["fold"] for c in clf.candidates_] == [0, 1]
    assert [c["delta"] for c in clf.candidates_] == pytest.approx([clf.delta / 2] * 2)
    assert clf.bound_ == min(c["bound"] for c in clf.candidates_)
    assert clf.best_estimator_.voters_.n_voters_ == 10
    assert np.mean(clf.predict(X_te) != y_te) <= clf.bound_


def _one_split_task(m=400, seed=0):
    """Labels from one split of feature 0 (25 % flipped), and 20 features of noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 21))
    y = ((X[:, 0] > 0) ^ (rng.random(m) < 0.25)).astype(int)
    return X, y


def test_certified_vote_stump_candidates_are_certified_and_deployed_where_they_win():
    from sklearn.tree import DecisionTreeClassifier

    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut
    from skpacbayes.engine.protocols.default_candidates import STUMP_WEIGHT

    X, y = _one_split_task()
    # a forest of eight deep trees on noise is far weaker than the one split
    clf = CertifiedVoteClassifier(
        voters=RandomForestClassifier(n_estimators=8), stump_candidate=True, random_state=0
    ).fit(X, y)
    kinds = [(c["kind"], c["validation_fraction"], c["fold"]) for c in clf.candidates_]
    forests = [("holdout", f, fold) for f in (0.2, 0.5) for fold in (0, 1)]
    assert kinds == [*forests, ("stump", 0.5, 0), ("stump", 0.5, 1)]
    weights = (1, 1, 1, 1, STUMP_WEIGHT, STUMP_WEIGHT)
    total = sum(weights)
    assert [c["delta"] for c in clf.candidates_] == pytest.approx(
        [clf.delta * w / total for w in weights]
    )
    assert sum(c["delta"] for c in clf.candidates_) == pytest.approx(clf.delta)
    assert clf.best_candidate_["kind"] == "stump"
    # each stump is a test-set bound of one split grown on one half, read on the other
    for c in clf.candidates_[4:]:
        alone = _FoldHoldOut(
            voters=DecisionTreeClassifier(max_depth=1),
            validation_fraction=0.5,
            fold=c["fold"],
            delta=c["delta"],
            random_state=0,
        ).fit(X, y)
        assert c["bound"] == alone.bound_
        assert c["estimated_error"] == alone.certificate_.train_error
    (tree,) = clf.best_estimator_.voters_.estimators_
    assert tree.get_depth() == 1 and tree.tree_.feature[0] == 0  # the informative split
    assert np.array_equal(clf.predict(X), tree.predict(X))
    assert clf.certificate_.n_effective_voters == 1
    assert clf.recompute_bound(clf.delta) == clf.bound_
    X_new, y_new = _one_split_task(m=20_000, seed=1)
    assert np.mean(clf.predict(X_new) != y_new) <= clf.bound_


def test_certified_vote_stump_candidates_only_with_the_default_forest_unless_asked():
    X, y = _one_split_task(m=200)
    forest = RandomForestClassifier(n_estimators=4)
    own = CertifiedVoteClassifier(voters=forest, random_state=0).fit(
        X, y
    )  # "auto", a user's ensemble
    assert {c["kind"] for c in own.candidates_} == {"holdout"}
    default = CertifiedVoteClassifier(random_state=0).fit(X, y)  # "auto", the default forest
    assert [c["kind"] for c in default.candidates_].count("stump") == 2
    off = CertifiedVoteClassifier(stump_candidate=False, random_state=0).fit(X, y)
    assert {c["kind"] for c in off.candidates_} == {"holdout"}
    with pytest.raises(ValueError, match="stump_candidate"):
        CertifiedVoteClassifier(stump_candidate="yes").fit(X, y)


def test_holdout_verbose_reports_each_statement(digits, capsys):
    X_tr, _, y_tr, _ = digits
    clf = HoldOutBoundClassifier(
        voters=_forest(), validation_fraction=(0.2, 0.5), random_state=0, verbose=1
    ).fit(X_tr, y_tr)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3  # a start line (before the first forest is grown), one per fraction
    assert lines[0] == (
        f"[HoldOutBoundClassifier] validation fractions 0.2, 0.5 on {X_tr.shape[0]} rows, "
        "each reported as it ends"
    )
    for line, f, k, n, b in zip(
        lines[1:],
        (0.2, 0.5),
        clf.certificate_.statistics["errors"],
        clf.certificate_.m,
        clf.certificate_.details["bounds"],
        strict=True,
    ):
        assert line.startswith(f"[HoldOutBoundClassifier] fraction {f} (grown on ")
        assert f"{k} errors on {n} held-out rows, bound {b:.4f}" in line
    HoldOutBoundClassifier(voters=_forest(), validation_fraction=0.2, random_state=0).fit(
        X_tr, y_tr
    )
    assert capsys.readouterr().out == ""


def test_certified_vote_default_trees_are_grown_outside_their_held_out_rows():
    """Every tree of a default candidate was grown on its training rows only (checked from the
    tree's own record of its bootstrap draws), and how many trees a candidate grows depends
    on the number of rows and its fraction only, not on the data's values."""
    from sklearn.datasets import make_classification

    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut
    from skpacbayes.engine.protocols.default_candidates import default_forest_trees
    from skpacbayes.voters._prefit import _in_bag_rows

    m = 200
    counts = []
    for flip in (0.0, 0.4):  # two samples of the same size, different values
        X, y = make_classification(n_samples=m, n_features=5, flip_y=flip, random_state=0)
        clf = CertifiedVoteClassifier(random_state=3)
        per_candidate = []
        for candidate in clf._spec(m, 2, 3, None).candidates:
            info = candidate.info()
            if info["kind"] != "holdout":
                continue
            f, fold = info["validation_fraction"], info["fold"]
            est = _FoldHoldOut(
                voters=candidate.voters, validation_fraction=f, fold=fold, random_state=3
            )
            est.fit(X, y)
            held = est.validation_indices_
            train = np.setdiff1d(np.arange(m), held)
            X_train = X[train].astype(np.float32)
            trees = est.voters_.estimators_
            assert len(trees) == default_forest_trees(m, info["validation_fraction"])
            for tree in trees:
                assert tree.tree_.weighted_n_node_samples[0] == train.size  # drawn from these
                draws = np.bincount(_in_bag_rows(tree, train.size), minlength=train.size)
                leaf = tree.apply(X_train)
                is_leaf = tree.tree_.children_left == -1
                node_counts = np.bincount(leaf, weights=draws, minlength=tree.tree_.node_count)
                # the replayed draws of the training rows fill every leaf exactly as recorded
                assert np.allclose(
                    node_counts[is_leaf], tree.tree_.weighted_n_node_samples[is_leaf]
                )
            per_candidate.append((info["validation_fraction"], info["fold"], len(trees)))
        counts.append(per_candidate)
    assert counts[0] == counts[1] == [(0.2, 0, 140), (0.2, 1, 140), (0.5, 0, 40), (0.5, 1, 40)]
