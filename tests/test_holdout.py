"""The hold-out line: a plain vote of one half's trees, certified on the other half."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
from skpacbayes.bounds import kl_inv_upper
from skpacbayes.voters import SplitForest


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


def test_holdout_bound_is_the_chernoff_test_set_bound(digits):
    X_tr, X_te, y_tr, y_te = digits
    clf = HoldOutBoundClassifier(SplitForest(n_estimators=20), random_state=0).fit(X_tr, y_tr)
    cert = clf.certificate_
    k, m = cert.statistics["errors"][clf.half_], cert.m[clf.half_]
    expected = float(kl_inv_upper(k / m, np.log(2 / clf.delta) / m))
    assert clf.bound_ == pytest.approx(expected, rel=1e-12)
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
    clf = HoldOutBoundClassifier(SplitForest(n_estimators=10), random_state=0).fit(X_tr, y_tr)
    values = [clf.recompute_bound(d) for d in (0.5, 0.05, 0.005)]
    assert values[0] < values[1] < values[2]
    assert clf.recompute_bound(clf.delta) == clf.bound_
    with pytest.raises(ValueError, match="delta"):
        clf.recompute_bound(0.0)


def test_holdout_ties_count_as_errors():
    # two trees per half on a task they cannot separate: votes tie often, and the
    # certified error count must include every tie
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = rng.integers(0, 2, size=400)
    clf = HoldOutBoundClassifier(
        SplitForest(RandomForestClassifier(max_depth=2), n_estimators=4), random_state=0
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
    wrong = np.where(truth == 1, ones <= zeros, zeros <= ones)
    assert cert.statistics["errors"][g] == int(wrong.sum())


def test_certified_vote_includes_the_holdout_candidate(digits):
    X_tr, X_te, y_tr, y_te = digits
    common = dict(voters=SplitForest(n_estimators=20), prior_scales=(2.0,), max_epochs=0)
    with_holdout = CertifiedVoteClassifier(**common, random_state=0).fit(X_tr, y_tr)
    without = CertifiedVoteClassifier(**common, holdout=False, random_state=0).fit(X_tr, y_tr)
    assert [c["kind"] for c in with_holdout.candidates_] == ["holdout", "gaussian"]
    assert [c["kind"] for c in without.candidates_] == ["gaussian"]
    # delta is split over the candidates: each candidate's bound is at delta / K
    assert with_holdout.bound_ == min(c["bound"] for c in with_holdout.candidates_)
    assert with_holdout.bound_ >= with_holdout.certificate_.train_error
