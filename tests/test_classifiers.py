"""End-to-end tests of the estimators on small real data."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.bounds import vc_bound
from skpacbayes.datasets import load_dataset
from skpacbayes.model_selection import BoundSelectionClassifier, SelectionWarning, bound_scorer
from skpacbayes.voters import SplitForest, StumpBank

FAST = {"max_epochs": 10, "batch_size": 128, "random_state": 0}


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


BINARY_CASES = [
    (FirstOrderBoundClassifier, "categorical"),
    (FirstOrderBoundClassifier, "dirichlet"),
    (FirstOrderBoundClassifier, "gaussian"),
    (SecondOrderBoundClassifier, "categorical"),
    (SecondOrderBoundClassifier, "gaussian"),
    (BinomialBoundClassifier, "categorical"),
    (CBoundClassifier, "categorical"),
    (CBoundClassifier, "gaussian"),
    (VCDimBoundClassifier, "categorical"),
    (PartitionBoundClassifier, "categorical"),
    (PartitionBoundClassifier, "dirichlet"),
    (PartitionBoundClassifier, "gaussian"),
    (MarginBoundClassifier, "dirichlet"),
    (OccamBoundClassifier, "categorical"),
]


@pytest.mark.parametrize(("cls", "posterior"), BINARY_CASES)
def test_binary_certificate_is_consistent(cls, posterior, cancer):
    X_tr, X_te, y_tr, y_te = cancer
    clf = cls(posterior=posterior, **FAST).fit(X_tr, y_tr)
    assert 0.0 <= clf.bound_ <= 1.0
    cert = clf.certificate_
    assert cert.value == clf.bound_
    assert cert.posterior == posterior
    # the rows the bound uses (the default stump bank keeps its build rows out)
    used = np.unique(np.concatenate([rows for _, rows in clf.groups_]))
    assert used.size == sum(cert.m) or len(cert.m) > 1
    train_error = np.mean(clf.predict(X_tr[used]) != y_tr[used])
    assert cert.train_error == pytest.approx(train_error)
    # every bound here also bounds the empirical risk of the deployed vote
    assert clf.bound_ >= train_error - 1e-12
    assert clf.predict(X_te).shape == y_te.shape
    proba = clf.predict_proba(X_te)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X_te))
    assert isinstance(clf.weights_, np.ndarray)


def test_partition_bound_is_tighter_than_first_order(cancer):
    X_tr, _, y_tr, _ = cancer
    fo = FirstOrderBoundClassifier(**FAST).fit(X_tr, y_tr)
    part = PartitionBoundClassifier(**FAST).fit(X_tr, y_tr)
    assert part.bound_ < fo.bound_
    c = part.certificate_.c_tilde
    assert 0.5 <= c <= 1.0


@pytest.mark.parametrize(
    ("cls", "posterior"),
    [
        (FirstOrderBoundClassifier, "categorical"),
        (FirstOrderBoundClassifier, "gaussian"),
        (BinomialBoundClassifier, "categorical"),
        (PartitionBoundClassifier, "categorical"),
        (PartitionBoundClassifier, "dirichlet"),
        (OccamBoundClassifier, "categorical"),
    ],
)
def test_split_forest_multiclass(cls, posterior, iris):
    X_tr, X_te, y_tr, y_te = iris
    clf = cls(posterior=posterior, voters=SplitForest(n_estimators=10), **FAST).fit(X_tr, y_tr)
    assert 0.0 < clf.bound_ <= 1.0
    assert len(clf.certificate_.m) == 2
    assert sum(clf.certificate_.m) == X_tr.shape[0]
    assert np.mean(clf.predict(X_te) != y_te) < 0.3


def test_vc_uses_single_half_protocol(cancer):
    X_tr, _, y_tr, _ = cancer
    clf = VCDimBoundClassifier(**FAST, voters=SplitForest(n_estimators=6, split="single"))
    clf.fit(X_tr, y_tr)
    assert len(clf.certificate_.m) == 1
    assert clf.certificate_.m[0] < X_tr.shape[0]


def _one_informative_feature(m, seed, noise=0.2):
    """y = [x_0 > 0] with a fraction ``noise`` of labels flipped; 11 more uniform features."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(m, 12))
    y = (X[:, 0] > 0).astype(int)
    flip = rng.rand(m) < noise
    y[flip] = 1 - y[flip]
    return X, y


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet", "gaussian"])
def test_vc_cross_validation_deploys_one_voter_where_the_vote_fits_noise(posterior):
    # 200 rows, one informative feature among 12: the vote of 240 stumps fits the noise
    X, y = _one_informative_feature(200, seed=0)
    kw = {"posterior": posterior, "voters": StumpBank(feature_range=(-1, 1)), "max_epochs": 20}
    clf = VCDimBoundClassifier(random_state=0, **kw).fit(X, y)
    vote = VCDimBoundClassifier(cv=None, random_state=0, **kw).fit(X, y)
    details = clf.certificate_.details
    assert details["cv_folds"] == 5 and details["cv_choice"] == "single voter"
    gain = details["cv_errors_single_voter"] - details["cv_errors_vote"]
    assert gain <= details["cv_standard_error"]  # the one-standard-error rule
    # the deployed vote is the voter with the fewest training errors, and is certified as such
    votes = clf.voters_.votes(X)
    errors = (votes != y[:, None]).sum(axis=0)
    best = int(np.argmin(errors))
    assert clf.certificate_.n_effective_voters == 1
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[votes[:, best]])
    assert clf.certificate_.train_error == errors[best] / y.size
    assert clf.bound_ == vc_bound(errors[best] / y.size, votes.shape[1], y.size, 0.05)
    assert clf.recompute_bound(0.05) == pytest.approx(clf.bound_)
    # without the cross-validation: the trained vote, many voters, fewer training errors
    assert "cv_choice" not in vote.certificate_.details
    assert vote.certificate_.n_effective_voters > 10
    assert vote.certificate_.train_error < clf.certificate_.train_error
    X_te, y_te = _one_informative_feature(4000, seed=1)
    assert np.mean(clf.predict(X_te) != y_te) < np.mean(vote.predict(X_te) != y_te) - 0.03


@pytest.mark.parametrize("posterior", ["categorical", "dirichlet", "gaussian"])
def test_vc_deploys_the_trained_point_with_the_fewest_training_errors(posterior, monkeypatch):
    # the bound reads the vote's training errors; the cross-entropy's last point can have
    # more than a point it passed through, and the descents from the other starts of the
    # per-row training can end lower than the prior's
    from skpacbayes.engine import descent, rows

    runs = []  # training errors at each evaluated point, one list per L-BFGS run
    count, minimize = rows.vote_training_errors, descent.minimize_lbfgs

    def run(*args, **kwargs):
        runs.append([])
        try:
            return minimize(*args, **kwargs)
        finally:
            runs.append(None)  # counts outside a run (the comparison of the ends) not kept

    def recorded(problem, nats):
        wrong = count(problem, nats)
        if runs and runs[-1] is not None:
            runs[-1].append(wrong)
        return wrong

    monkeypatch.setattr(descent, "minimize_lbfgs", run)
    monkeypatch.setattr(rows, "vote_training_errors", recorded)
    X, y = _one_informative_feature(300, seed=0)
    voters = StumpBank(feature_range=(-1, 1))
    clf = VCDimBoundClassifier(posterior=posterior, voters=voters, cv=None, random_state=0)
    clf.fit(X, y)
    runs = [r for r in runs if r]  # the runs with a rank (not the vote start's)
    assert len(runs) >= 3  # the prior and the mapped starts
    assert any(r[-1] > min(r) for r in runs)  # a last evaluated point is not its run's best
    wrong = int(np.sum(clf.predict(X) != y))
    assert wrong == min(min(r) for r in runs) == round(clf.certificate_.train_error * y.size)
    n_voters = clf.voters_.votes(X).shape[1]
    assert clf.bound_ == vc_bound(wrong / y.size, n_voters, y.size, 0.05)


def test_vc_cross_validation_folds_train_from_the_start_kept_on_all_rows(cancer, monkeypatch):
    # the folds repeat the training of the kept start only: one L-BFGS run each, not one
    # per start
    from skpacbayes.engine import rows

    calls = []
    train, run = rows.train_rows, rows.run_lbfgs

    def recorded_train(spec, problem, seed, solver, start=None, statement_m=None):
        calls.append({"start": start, "runs": 0})
        out = train(spec, problem, seed, solver, start, statement_m=statement_m)
        calls[-1]["kept"] = out[-1]
        return out

    def counted_run(*args, **kwargs):
        calls[-1]["runs"] += 1
        return run(*args, **kwargs)

    monkeypatch.setattr(rows, "train_rows", recorded_train)
    monkeypatch.setattr(rows, "run_lbfgs", counted_run)
    X_tr, _, y_tr, _ = cancer
    VCDimBoundClassifier(posterior="gaussian", cv=3, max_epochs=10, random_state=0).fit(X_tr, y_tr)
    full, *folds = calls
    assert full["start"] is None and full["runs"] >= 3 and len(folds) == 3
    for fold in folds:
        assert fold["start"] == full["kept"] and fold["runs"] == 1
        assert fold["kept"] in (full["kept"], "best voter" if full["kept"] == "gibbs" else None)


def test_vc_cross_validation_keeps_a_vote_that_generalises(cancer):
    X_tr, _, y_tr, _ = cancer
    clf = VCDimBoundClassifier(**FAST).fit(X_tr, y_tr)
    vote = VCDimBoundClassifier(cv=None, **FAST).fit(X_tr, y_tr)
    details = clf.certificate_.details
    assert details["cv_choice"] == "vote"
    gain = details["cv_errors_single_voter"] - details["cv_errors_vote"]
    assert gain > details["cv_standard_error"] > 0
    np.testing.assert_array_equal(clf.weights_, vote.weights_)
    assert clf.bound_ == vote.bound_


@pytest.mark.parametrize(("n_minority", "folds"), [(3, 3), (1, 0)])
def test_vc_cross_validation_folds_follow_the_smallest_class(n_minority, folds):
    X, y = _one_informative_feature(60, seed=2, noise=0.0)
    y[:] = 0
    y[:n_minority] = 1
    clf = VCDimBoundClassifier(voters=StumpBank(feature_range=(-1, 1)), **FAST).fit(X, y)
    assert clf.certificate_.details["cv_folds"] == folds
    if folds == 0:
        assert clf.certificate_.details["cv_choice"] == "vote"


@pytest.mark.parametrize("cv", [1, 0, -2, 2.5, "5"])
def test_vc_cross_validation_rejects_bad_folds(cv, cancer):
    X_tr, _, y_tr, _ = cancer
    with pytest.raises(ValueError, match="'cv' parameter"):
        VCDimBoundClassifier(cv=cv, **FAST).fit(X_tr, y_tr)


@pytest.mark.parametrize(
    "voters", [None, SplitForest(n_estimators=4, split="single"), SplitForest(n_estimators=4)]
)
def test_vc_refuses_more_than_two_classes(voters, iris):
    # no proven multi-class capacity: no value is reported, whatever the voters
    X_tr, _, y_tr, _ = iris
    clf = VCDimBoundClassifier(voters=voters, **FAST)
    with pytest.raises(ValueError, match="Only binary classification.*3 classes"):
        clf.fit(X_tr, y_tr)
    assert not hasattr(clf, "bound_")
    assert clf.__sklearn_tags__().classifier_tags.multi_class is False
    assert VCDimBoundClassifier()._valid_posteriors(3, False) == ()


@pytest.mark.parametrize(
    ("cls", "posterior", "voters"),
    [
        (FirstOrderBoundClassifier, "dirichlet", SplitForest(n_estimators=4)),
        (CBoundClassifier, "categorical", SplitForest(n_estimators=4)),
        (PartitionBoundClassifier, "gaussian", SplitForest(n_estimators=4)),
        (MarginBoundClassifier, "categorical", None),
        (VCDimBoundClassifier, "categorical", SplitForest(n_estimators=4)),
    ],
)
def test_invalid_combinations_name_the_valid_ones(cls, posterior, voters, iris):
    X_tr, _, y_tr, _ = iris
    with pytest.raises(ValueError, match="Valid posteriors|Only binary"):
        cls(posterior=posterior, voters=voters, **FAST).fit(X_tr, y_tr)


def test_bad_parameters(cancer):
    X_tr, _, y_tr, _ = cancer
    from sklearn.utils._param_validation import InvalidParameterError

    for params in ({"delta": 0.0}, {"delta": 1.5}, {"posterior": "beta"}, {"max_epochs": -1}):
        with pytest.raises(InvalidParameterError):
            FirstOrderBoundClassifier(**params).fit(X_tr, y_tr)
    with pytest.raises(InvalidParameterError):
        BinomialBoundClassifier(n_draws=-3).fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="device"):
        FirstOrderBoundClassifier(device="tpu", max_epochs=1).fit(X_tr, y_tr)


def test_bad_input(cancer):
    X_tr, X_te, y_tr, _ = cancer
    clf = FirstOrderBoundClassifier(**FAST)
    X_nan = X_tr.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(X_nan, y_tr)
    with pytest.raises(ValueError, match="class"):
        clf.fit(X_tr, np.zeros_like(y_tr))
    with pytest.raises(ValueError):
        clf.fit(X_tr, y_tr[:-1])
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        clf.predict(X_te)
    clf.fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X_te[:, :5])


def test_string_labels_pipeline_and_gridsearch(cancer):
    X_tr, X_te, y_tr, y_te = cancer
    labels = np.array(["benign", "malignant"])
    pipe = make_pipeline(StandardScaler(), FirstOrderBoundClassifier(**FAST))
    pipe.fit(X_tr, labels[y_tr])
    assert set(pipe.predict(X_te)) <= set(labels)
    grid = GridSearchCV(
        FirstOrderBoundClassifier(**FAST),
        {"posterior": ["categorical", "gaussian"]},
        scoring=bound_scorer,
        cv=2,
    )
    with pytest.warns(SelectionWarning, match="posterior"):  # two families: two statements
        grid.fit(X_tr, y_tr)
    assert grid.best_params_["posterior"] in ("categorical", "gaussian")


def test_bound_selection_splits_delta(cancer):
    X_tr, _, y_tr, _ = cancer
    cands = [FirstOrderBoundClassifier(posterior=p, **FAST) for p in ("categorical", "gaussian")]
    sel = BoundSelectionClassifier(cands, delta=0.05).fit(X_tr, y_tr)
    assert sel.bound_ < 1.0
    assert all(e.delta == 0.025 for e in sel.estimators_)
    assert sel.bound_ == min(e.bound_ for e in sel.estimators_)
    # the per-candidate bound at delta/2 is larger than at the full delta
    full = FirstOrderBoundClassifier(posterior="categorical", **FAST).fit(X_tr, y_tr)
    assert sel.estimators_[0].bound_ > full.bound_


def test_recompute_bound_matches_fit(cancer):
    X_tr, _, y_tr, _ = cancer
    for cls in (FirstOrderBoundClassifier, PartitionBoundClassifier, CBoundClassifier):
        clf = cls(**FAST).fit(X_tr, y_tr)
        assert clf.recompute_bound(clf.delta) == pytest.approx(clf.bound_, rel=1e-12)
        assert clf.recompute_bound(clf.delta / 3) >= clf.bound_


def test_reproducible_and_picklable(cancer):
    X_tr, X_te, y_tr, _ = cancer
    a = PartitionBoundClassifier(posterior="dirichlet", **FAST).fit(X_tr, y_tr)
    b = PartitionBoundClassifier(posterior="dirichlet", **FAST).fit(X_tr, y_tr)
    assert a.bound_ == b.bound_
    np.testing.assert_array_equal(a.weights_, b.weights_)
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict(X_te), a.predict(X_te))
    assert c.certificate_ == a.certificate_


def test_predict_without_torch(tmp_path, cancer):
    X_tr, X_te, y_tr, _ = cancer
    clf = FirstOrderBoundClassifier(**FAST).fit(X_tr, y_tr)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(clf))
    np.save(tmp_path / "X.npy", X_te)
    code = (
        "import pickle, sys, numpy as np\n"
        f"clf = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        f"pred = clf.predict(np.load({str(tmp_path / 'X.npy')!r}))\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print(len(pred))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(X_te.shape[0])


@pytest.mark.parametrize("name", ["haberman", "svmguide1"])
def test_partition_targets_on_real_data(name, data_home):
    X, y = load_dataset(name, data_home=data_home, return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    clf = PartitionBoundClassifier(posterior="categorical", random_state=0, max_epochs=20)
    clf.fit(X_tr, y_tr)
    test_error = np.mean(clf.predict(X_te) != y_te)
    target = {"haberman": 0.45, "svmguide1": 0.12}[name]
    assert clf.bound_ <= target
    assert clf.bound_ >= test_error


def test_stump_bank_is_the_binary_default(cancer):
    X_tr, _, y_tr, _ = cancer
    clf = FirstOrderBoundClassifier(**FAST).fit(X_tr, y_tr)
    assert isinstance(clf.voters_, StumpBank)


def test_abstract_base_refuses_to_fit(cancer):
    from skpacbayes import MajorityVoteClassifier

    X_tr, _, y_tr, _ = cancer
    with pytest.raises(TypeError, match="abstract base class.*FirstOrderBoundClassifier"):
        MajorityVoteClassifier().fit(X_tr, y_tr)


def test_benchmark_never_fits_vc_on_multiclass():
    from skpacbayes.benchmark._request import _plan

    multi = _plan(3, None, None, explicit=False).pairs
    binary = _plan(2, None, None, explicit=False).pairs
    assert not [p for p in multi if p[0] == "VC"]
    assert ("VC", "categorical") in binary
