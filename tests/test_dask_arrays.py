"""More rows than memory: fits and certificates on dask arrays, on a real LocalCluster.

Every check compares the dask fit with the in-memory fit on the same rows: the counts are
exact integers, so the certificates must agree to the last bit (the bounds to 1e-9), and
the predictions must be identical. Two clusters for the module: worker processes (what a
real cluster does: the voters and the blocks' rules are pickled, the counts come back) and
in-process workers (threads).
"""

import warnings

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import dask  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402

import skpacbayes  # noqa: E402
from skpacbayes import (  # noqa: E402
    CBoundClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.model_selection import BoundSelectionClassifier  # noqa: E402
from skpacbayes.voters import (  # noqa: E402
    OutOfBagVoters,
    PrefitVoters,
    SampleReuseWarning,
    SplitForest,
    StumpBank,
)

pytestmark = pytest.mark.xdist_group("dask")


def _warm_up():
    import skpacbayes.engine.fit  # noqa: F401  (imports torch)
    import skpacbayes.voters  # noqa: F401


def _cluster(processes):
    """A 2-worker LocalCluster's client, closed with the cluster at the end of the module."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=":0",
        silence_logs=40,  # logging.ERROR
    )
    client = distributed.Client(cluster, set_as_default=False)
    client.run(_warm_up)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def processes():
    yield from _cluster(processes=True)


@pytest.fixture(scope="module")
def threads():
    yield from _cluster(processes=False)


def _data(n_rows, n_classes=2, seed=0, n_features=5):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_rows, n_features)
    score = X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2] ** 2 + 0.5 * rng.randn(n_rows)
    edges = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    return X, np.searchsorted(edges, score)


def _dask(X, y, n_chunks=4):
    rows = -(-X.shape[0] // n_chunks)
    return da.from_array(X, chunks=(rows, X.shape[1])), da.from_array(y, chunks=rows)


def _on(client, func):
    """Run ``func`` with ``client`` as dask's scheduler; the result and the task names."""
    with distributed.get_task_stream(client) as stream, dask.config.set(scheduler=client):
        result = func()
    return result, {
        task["key"][0] if isinstance(task["key"], tuple) else task["key"] for task in stream.data
    }


def _assert_same_fit(a, b):
    assert a.certificate_.statistics == b.certificate_.statistics
    assert a.certificate_.m == b.certificate_.m
    assert a.certificate_.train_error == b.certificate_.train_error
    assert abs(a.bound_ - b.bound_) <= 1e-9
    np.testing.assert_array_equal(a.weights_, b.weights_)


@pytest.fixture(scope="module")
def big():
    X, y = _data(200_000)
    return X, y, *_dask(X, y)


@pytest.mark.parametrize("estimator", [FirstOrderBoundClassifier, SecondOrderBoundClassifier])
def test_200k_rows_as_in_memory(processes, big, estimator):
    """The issue's target: 200,000 rows, 4 chunks, stumps on a given range."""
    X, y, Xd, yd = big
    params = dict(voters=StumpBank(feature_range=(-5, 5)), random_state=0)
    ref = estimator(**params).fit(X, y)
    est, tasks = _on(processes, lambda: estimator(**params).fit(Xd, yd))
    assert any(key.startswith("_block_statistics") for key in tasks)  # counted on the workers
    _assert_same_fit(ref, est)
    predicted, tasks = _on(processes, lambda: est.predict(Xd).compute())
    np.testing.assert_array_equal(predicted, ref.predict(X))


_COUNT_PATH = [
    FirstOrderBoundClassifier(),
    SecondOrderBoundClassifier(),
    CBoundClassifier(max_epochs=20),
    PartitionBoundClassifier(),
    OccamBoundClassifier(),
]


@pytest.mark.parametrize(
    "estimator, n_classes",
    [
        (e, k)
        for k in (2, 3)
        for e in _COUNT_PATH
        if k == 2 or not e._bound_class.capabilities.binary_only
    ],
    ids=lambda p: type(p).__name__ if hasattr(p, "fit") else f"{p}-classes",
)
def test_count_path_estimators(threads, estimator, n_classes):
    """Every count-path bound, default stumps (build rows fetched from the dask array)."""
    X, y = _data(6000, n_classes=n_classes, seed=1, n_features=3)
    est = clone(estimator)
    params = dict(voters=StumpBank(n_thresholds=4), random_state=0)
    ref = est.set_params(**params).fit(X, y)
    ref_cert, ref_pred = ref.certificate_, ref.predict_proba(X)
    build = ref.voters_.build_indices_
    Xd, yd = _dask(X, y, n_chunks=3)
    fitted, _ = _on(threads, lambda: est.fit(Xd, yd))
    np.testing.assert_array_equal(fitted.voters_.build_indices_, build)
    assert fitted.certificate_.statistics == ref_cert.statistics
    assert abs(fitted.bound_ - ref_cert.value) <= 1e-9
    np.testing.assert_allclose(fitted.predict_proba(Xd).compute(), ref_pred)


def test_prefit_voters_and_lazy_outputs(threads):
    X, y = _data(9000, n_classes=3, seed=2)
    forest = RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0)
    forest.fit(*_data(2000, n_classes=3, seed=3))
    params = dict(voters=PrefitVoters(forest), random_state=0)
    ref = SecondOrderBoundClassifier(**params).fit(X, y)
    Xd, yd = _dask(X, y, n_chunks=5)
    est, _ = _on(threads, lambda: SecondOrderBoundClassifier(**params).fit(Xd, y))  # numpy y
    _assert_same_fit(ref, est)
    for method in ("predict", "predict_proba", "decision_function"):
        lazy = getattr(est, method)(Xd)
        assert isinstance(lazy, da.Array)
        expected = getattr(ref, method)(X)
        assert lazy.shape == expected.shape and lazy.dtype == expected.dtype
        np.testing.assert_array_equal(lazy.compute(scheduler="threads"), expected)
    unknown = Xd[Xd[:, 0] > 0]  # unknown chunk sizes: still lazy, still right
    np.testing.assert_array_equal(
        est.predict(unknown).compute(scheduler="threads"), ref.predict(X[X[:, 0] > 0])
    )


def test_without_a_cluster_and_misaligned_chunks():
    """The default (threaded) scheduler runs the same passes; y is rechunked to X's rows."""
    X, y = _data(5000, seed=4)
    params = dict(voters=StumpBank(feature_range=(-4, 4), n_thresholds=3), random_state=0)
    ref = FirstOrderBoundClassifier(**params).fit(X, y)
    Xd = da.from_array(X, chunks=(1000, 2))
    yd = da.from_array(y, chunks=1700)
    with dask.config.set(scheduler="threads"):
        est = FirstOrderBoundClassifier(**params).fit(Xd, yd)
    _assert_same_fit(ref, est)


_PER_ROW = [
    FirstOrderBoundClassifier(posterior="dirichlet"),
    SecondOrderBoundClassifier(posterior="gaussian"),
    skpacbayes.BinomialBoundClassifier(posterior="gaussian", n_draws=10),
    PartitionBoundClassifier(posterior="dirichlet"),
    skpacbayes.VCDimBoundClassifier(posterior="gaussian", cv=2),
    FirstOrderBoundClassifier(solver="adam", max_epochs=2),
]


@pytest.mark.parametrize("estimator", _PER_ROW, ids=lambda e: f"{type(e).__name__}-{e.posterior}")
def test_per_row_families_certified_by_map_reduce(threads, estimator):
    """Trained on a seeded in-memory sample, certified on every row by sums from the workers:
    the certificate of the in-memory fit that trains on the same sample, to 1e-12."""
    X, y = _data(8000, seed=8, n_features=3)
    params = dict(
        voters=StumpBank(feature_range=(-4, 4), n_thresholds=4), random_state=0,
        max_train_rows=1500, max_epochs=min(estimator.max_epochs, 15),
    )  # fmt: skip
    ref = clone(estimator).set_params(**params).fit(X, y)
    Xd, yd = _dask(X, y)
    est, tasks = _on(threads, lambda: clone(estimator).set_params(**params).fit(Xd, yd))
    assert any(key.startswith("_block_rows") for key in tasks)  # the sample, from the workers
    if not isinstance(estimator, skpacbayes.VCDimBoundClassifier):  # (VC: its vote's errors)
        assert any(key.startswith("_block_loss_sums") for key in tasks)
    assert est.certificate_.m == ref.certificate_.m == (8000,)  # every row certified
    for key, values in ref.certificate_.statistics.items():
        np.testing.assert_allclose(est.certificate_.statistics[key], values, rtol=0, atol=1e-12)
    assert est.certificate_.train_error == ref.certificate_.train_error
    assert abs(est.bound_ - ref.bound_) <= 1e-12
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    if isinstance(estimator, FirstOrderBoundClassifier) and estimator.solver == "auto":
        again, _ = _on(threads, lambda: clone(estimator).set_params(**params).fit(Xd, yd))
        assert again.bound_ == est.bound_  # the sample is drawn from the seed alone
        other = clone(ref).set_params(random_state=1).fit(X, y)
        assert other.bound_ != ref.bound_


def test_training_sample_in_memory():
    """Up to max_train_rows rows the fit is the every-row fit, bit for bit; above, it trains
    on a sample and certifies every row."""
    X, y = _data(3000, seed=9, n_features=3)
    params = dict(
        voters=StumpBank(n_thresholds=4), posterior="gaussian", random_state=0, max_epochs=10
    )
    every = FirstOrderBoundClassifier(max_train_rows=None, **params).fit(X, y)
    same = FirstOrderBoundClassifier(max_train_rows=3000, **params).fit(X, y)
    assert same.certificate_ == every.certificate_
    np.testing.assert_array_equal(same.posterior_params_[0], every.posterior_params_[0])
    sampled = FirstOrderBoundClassifier(max_train_rows=1000, **params).fit(X, y)
    assert sampled.certificate_.m == every.certificate_.m  # every row not built on
    assert not np.array_equal(sampled.posterior_params_[0], every.posterior_params_[0])
    Xs, ys = _data(3000, n_classes=3, seed=10, n_features=3)  # split voters: within each half
    split = dict(voters=SplitForest(n_estimators=4), posterior="gaussian")
    full = FirstOrderBoundClassifier(max_train_rows=None, random_state=0, **split).fit(Xs, ys)
    half = FirstOrderBoundClassifier(max_train_rows=500, random_state=0, **split).fit(Xs, ys)
    assert half.deployed_ == "mixture_bayes" and half.certificate_.m == full.certificate_.m
    for bad in (0, -1, 1.5, "all"):
        with pytest.raises(ValueError, match="max_train_rows"):
            FirstOrderBoundClassifier(max_train_rows=bad).fit(X, y)


@pytest.mark.parametrize(
    "estimator",
    [
        FirstOrderBoundClassifier(posterior="dirichlet", max_train_rows=None),
        skpacbayes.MarginBoundClassifier(),
        FirstOrderBoundClassifier(voters=SplitForest(n_estimators=4)),
        FirstOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=4)),
        FirstOrderBoundClassifier(),  # three classes: the default voters are a SplitForest
    ],
    ids=lambda e: f"{type(e).__name__}-{e.posterior}-{type(e.voters).__name__}",
)
def test_refused_with_what_works(estimator):
    X, y = _data(300, n_classes=3, seed=5)
    if type(estimator).__name__ == "MarginBoundClassifier":
        y = y % 2
    Xd, yd = _dask(X, y)
    with pytest.raises(ValueError, match="FirstOrderBoundClassifier, SecondOrder"):
        estimator.fit(Xd, yd)


def test_bad_input():
    X, y = _data(400, seed=6)
    Xd, yd = _dask(X, y)
    est = FirstOrderBoundClassifier(voters=StumpBank(feature_range=(-5, 5)))
    with pytest.raises(ValueError, match="unknown sizes"):
        est.fit(Xd[Xd[:, 0] > 0], yd[Xd[:, 0] > 0])
    with pytest.raises(ValueError, match="rows but y has"):
        est.fit(Xd, yd[:-1])
    with pytest.raises(ValueError, match="1-D dask array y"):
        est.fit(Xd, yd[:, None])
    with pytest.raises(ValueError, match="2-D dask array X"):
        est.fit(Xd[:, 0], yd)
    with pytest.raises(ValueError, match="at least 2 classes"):
        est.fit(Xd, da.zeros_like(yd))
    with pytest.raises(ValueError, match="numeric features"):
        est.fit(Xd.astype(str), yd)
    with pytest.raises(TypeError, match="both X and y as dask arrays"):
        est.fit(X, yd)
    bad = X.copy()
    bad[321, 2] = np.nan  # in the second block: raised by the pass on the worker
    with dask.config.set(scheduler="threads"), pytest.raises(ValueError, match="NaN"):
        est.fit(_dask(bad, y)[0], yd)
    est.fit(Xd, yd)
    with pytest.raises(ValueError, match="2-D dask array"):
        est.predict(Xd[:, 0])


@pytest.fixture(scope="module")
def forest():
    X, y = _data(3000, seed=7)
    return RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0).fit(X, y)


def test_hold_out_prefit(processes, forest):
    """Certify a model fitted beforehand on every row of a dask hold-out."""
    X, y = _data(40_000, seed=8)
    est = HoldOutBoundClassifier(voters=PrefitVoters(forest))
    ref = est.fit(X, y)
    ref_cert, ref_pred = ref.certificate_, ref.predict(X)
    Xd, yd = _dask(X, y)
    fitted, tasks = _on(processes, lambda: est.fit(Xd, yd))
    assert any(key.startswith("_block_vote_confusions") for key in tasks)
    assert fitted.certificate_ == ref_cert
    assert fitted.certificate_.m == (40_000,)
    np.testing.assert_array_equal(fitted.predict(Xd).compute(scheduler="threads"), ref_pred)


def test_hold_out_sample_protocol(threads):
    """A forest grown on train_size rows held in memory, certified on all the others."""
    X, y = _data(30_000, seed=9)
    est = HoldOutBoundClassifier(
        voters=RandomForestClassifier(n_estimators=5, max_depth=5), train_size=2000, random_state=0
    )
    ref = est.fit(X, y)
    ref_cert, held = ref.certificate_, ref.validation_indices_
    assert held.size == 28_000 and ref_cert.m == (28_000,)
    assert ref.bound_ == ref.recompute_bound(ref.delta)
    Xd, yd = _dask(X, y)
    fitted, _ = _on(threads, lambda: est.fit(Xd, yd))
    assert fitted.certificate_ == ref_cert
    np.testing.assert_array_equal(fitted.validation_indices_, held)
    np.testing.assert_array_equal(
        fitted.predict_proba(Xd).compute(scheduler="threads"), ref.predict_proba(X)
    )


def test_hold_out_refusals(forest):
    X, y = _data(500, seed=10)
    Xd, yd = _dask(X, y)
    with pytest.raises(ValueError, match="train_size=<number of rows>"):
        HoldOutBoundClassifier().fit(Xd, yd)  # the default fractions
    with pytest.raises(ValueError, match="grown on the training rows"):
        HoldOutBoundClassifier(voters=SplitForest(n_estimators=4), validation_fraction=None).fit(
            Xd, yd
        )
    with pytest.raises(ValueError, match="set one of them"):
        HoldOutBoundClassifier(train_size=100, validation_fraction=0.3).fit(X, y)
    with pytest.raises(ValueError, match="at least one of the"):
        HoldOutBoundClassifier(train_size=500).fit(X, y)


def test_prefit_reuse_check_cannot_read_dask(forest):
    """A model that recorded as many rows as the dask array: the unchecked reuse is said."""
    X, y = _data(3000, seed=7)  # the forest's own training rows
    Xd, yd = _dask(X, y)
    with dask.config.set(scheduler="threads"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        HoldOutBoundClassifier(voters=PrefitVoters(forest)).fit(Xd, yd)
    assert any(
        issubclass(w.category, SampleReuseWarning) and "did not run" in str(w.message)
        for w in caught
    )


@pytest.mark.parametrize(
    "estimator",
    [
        skpacbayes.CertifiedVoteClassifier(train_size=None),
        BoundSelectionClassifier([OccamBoundClassifier(voters=StumpBank())]),
    ],
    ids=lambda e: type(e).__name__,
)
def test_in_memory_selections_refuse_a_dask_array(estimator, monkeypatch):
    """Estimators that hold their rows in memory refuse a dask array (naming what works)
    instead of loading it whole: no block is ever computed."""
    X, y = _data(300, seed=7)
    Xd, yd = _dask(X, y)
    monkeypatch.setattr(da.Array, "__array__", _never_loaded, raising=False)
    with pytest.raises(ValueError, match="(cannot fit on a dask array|set train_size)"):
        estimator.fit(Xd, yd)
    with pytest.raises((ValueError, TypeError), match="(cannot fit on a dask array|dask array)"):
        estimator.fit(X, yd)  # dask labels alone are refused too


@pytest.mark.parametrize("bank", [StumpBank(), SplitForest(n_estimators=2)], ids=repr)
def test_voter_banks_refuse_a_dask_array(bank, monkeypatch):
    X, y = _data(300, seed=8)
    Xd, yd = _dask(X, y)
    monkeypatch.setattr(da.Array, "__array__", _never_loaded, raising=False)
    with pytest.raises(ValueError, match="does not take a dask array.*StumpBank"):
        bank.fit(Xd, yd)


def _never_loaded(self, *args, **kwargs):
    raise AssertionError("the dask array was loaded into memory")


def _counted(candidate, X, y, sample, params):
    """A candidate's errors and rows recomputed in memory: its forest grown again on its
    training rows of the sample (same seed), scored by ``predict`` on every other row."""
    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut

    fold = _FoldHoldOut(
        voters=params["voters"],
        validation_fraction=candidate["validation_fraction"],
        fold=candidate["fold"],
        random_state=params["random_state"],
    ).fit(X[sample], y[sample])
    held = np.ones(X.shape[0], dtype=bool)
    held[sample] = False
    held[sample[fold.validation_indices_]] = True
    return int(np.sum(fold.predict(X[held]) != y[held])), int(held.sum())


def test_certified_vote_on_a_dask_array(processes, monkeypatch):
    """``train_size="auto"`` on 20,000 rows: forests grown on a third of them drawn into
    memory, every candidate certified on at least two thirds of the rows in ONE pass over
    the blocks, its counts those of the same forest's ``predict`` on the same rows in
    memory; nothing loaded whole; ``predict`` lazy."""
    from skpacbayes.engine.dask_passes import DaskVotePasses
    from skpacbayes.engine.protocols.held_out import rows_seed, training_rows
    from skpacbayes.objectives import TestSet

    X, y = _data(20_000, n_classes=3, seed=11)
    Xd, yd = _dask(X, y, n_chunks=8)
    params = dict(voters=RandomForestClassifier(n_estimators=10), random_state=0)
    passes = []
    each = DaskVotePasses.vote_confusions
    monkeypatch.setattr(
        DaskVotePasses,
        "vote_confusions",
        lambda self, *a, **k: passes.append(1) or each(self, *a, **k),
    )
    monkeypatch.setattr(da.Array, "__array__", _never_loaded, raising=False)
    est, tasks = _on(processes, lambda: skpacbayes.CertifiedVoteClassifier(**params).fit(Xd, yd))
    monkeypatch.undo()
    assert passes == [1] and any("_block_vote_confusions" in t for t in tasks)
    assert [c["kind"] for c in est.candidates_] == ["holdout"] * 4  # no out-of-bag ones
    sample = training_rows(20_000, 20_000 // 3, rows_seed(0))
    for c in est.candidates_:
        errors, rows = _counted(c, X, y, sample, params)
        assert c["held_out_rows"] == rows >= 2 / 3 * 20_000 and c["train_size"] == 6666
        assert c["estimated_error"] == errors / rows
        share = TestSet().share(c["delta"], 1)
        assert c["bound"] == TestSet().statement(errors, rows, share)
    best = est.best_estimator_
    wrong = est.predict(X)[best.validation_indices_] != y[best.validation_indices_]
    assert wrong.sum() == best.certificate_.statistics["errors"][0]
    assert est.bound_ == min(c["bound"] for c in est.candidates_)
    predicted, _ = _on(processes, lambda: est.predict(Xd))
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(_on(processes, predicted.compute)[0], est.predict(X))


def test_certified_vote_sample_protocol_per_class_and_refusals(threads):
    """The sample protocol in memory (``train_size`` set) gives the dask fit's candidates and
    per-class bounds; bad ``train_size`` values and the out-of-bag candidates are refused."""
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _data(3000, n_classes=3, seed=12)
    Xd, yd = _dask(X, y)
    params = dict(
        voters=RandomForestClassifier(n_estimators=3),
        validation_fraction=0.5,
        per_class=True,
        random_state=1,
        train_size=1000,
    )
    on_dask, _ = _on(threads, lambda: skpacbayes.CertifiedVoteClassifier(**params).fit(Xd, yd))
    in_memory = skpacbayes.CertifiedVoteClassifier(**params).fit(X, y)
    assert on_dask.candidates_ == [
        {**c, "fit_time": d["fit_time"]}
        for c, d in zip(in_memory.candidates_, on_dask.candidates_, strict=True)
    ]
    np.testing.assert_array_equal(on_dask.class_bounds_, in_memory.class_bounds_)
    assert on_dask.best_candidate_["held_out_rows"] == 2500
    proba, _ = _on(threads, lambda: on_dask.predict_proba(Xd).compute())
    np.testing.assert_array_equal(proba, in_memory.predict_proba(X))
    scores, _ = _on(threads, lambda: on_dask.decision_function(Xd).compute())
    np.testing.assert_array_equal(scores, in_memory.decision_function(X))
    CertifiedVote = skpacbayes.CertifiedVoteClassifier
    with pytest.raises(ValueError, match="set train_size='auto'"):
        CertifiedVote(train_size=None).fit(Xd, yd)
    with pytest.raises(ValueError, match="5 rows are too few"):
        CertifiedVote().fit(*_dask(X[:5], np.array([0, 1, 0, 1, 0])))
    with pytest.raises(ValueError, match="out_of_bag=False"):
        CertifiedVote(train_size=1000, out_of_bag=True).fit(X, y)
    with pytest.raises(ValueError, match="train_size=3000 must leave"):
        CertifiedVote(train_size=3000).fit(X, y)
    with pytest.raises(InvalidParameterError, match="train_size"):
        CertifiedVote(train_size=0).fit(X, y)
    y_rare = y.copy()
    y_rare[0] = 3  # one row of a fourth class, not drawn into a sample of 10 rows
    with pytest.raises(ValueError, match=r"miss the classes \[3\]"):
        CertifiedVote(train_size=10, random_state=1).fit(X, y_rare)
