"""Dask DataFrames reach prefit models partition by partition: each partition is the pandas
DataFrame the model was fitted on (its columns, dtypes and categories), the counts are added
up on a real LocalCluster, and the certificate is the one of the same rows in memory."""

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

from skpacbayes import (  # noqa: E402
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.voters import PrefitVoters  # noqa: E402

pytestmark = pytest.mark.xdist_group("dask")

N = 4000
FEATURES = ["mood", "x", "level"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
    )
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "mood": rng.choice(["nice", "bad", "meh"], N),
            "x": rng.normal(size=N),
            "level": pd.Categorical(rng.choice(["low", "high"], N)),
        }
    )
    flip = rng.random(N) < 0.1
    df["label"] = (((df["mood"] == "nice") ^ (df["x"] > 0.5)).to_numpy() ^ flip).astype(int)
    fit, held = df[:1000], df[1000:]
    encode = ColumnTransformer(
        [("onehot", OneHotEncoder(), ["mood", "level"]), ("scale", StandardScaler(), ["x"])]
    )
    pipe = make_pipeline(encode, LogisticRegression()).fit(fit[FEATURES], fit["label"])
    return pipe, fit, held, dd.from_pandas(held, npartitions=5)


def _on(client, func):
    """Run ``func`` with ``client`` as dask's scheduler; the result and the task names."""
    with distributed.get_task_stream(client) as stream, dask.config.set(scheduler=client):
        result = func()
    names = {t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data}
    return result, names


@pytest.mark.parametrize("risks", [None, "all"])
def test_pipeline_on_a_dask_dataframe(client, data, risks):
    pipe, _, held, frame = data
    est = HoldOutBoundClassifier(voters=PrefitVoters(pipe), risks=risks)
    ref = HoldOutBoundClassifier(voters=PrefitVoters(pipe), risks=risks)
    ref.fit(held[FEATURES], held["label"])
    fitted, tasks = _on(client, lambda: est.fit(frame[FEATURES], frame["label"]))
    assert any(name.startswith("_block_vote_confusions") for name in tasks)
    assert fitted.certificate_ == ref.certificate_
    assert fitted.certificate_.m == (N - 1000,)
    assert list(fitted.feature_names_in_) == FEATURES
    predicted, _ = _on(client, lambda: fitted.predict(frame[FEATURES]))
    assert isinstance(predicted, da.Array)  # lazy until asked
    (labels, proba, scores), _ = _on(
        client,
        lambda: dask.compute(
            predicted,
            fitted.predict_proba(frame[FEATURES]),
            fitted.decision_function(frame[FEATURES]),
        ),
    )
    np.testing.assert_array_equal(labels, pipe.predict(held[FEATURES]))
    np.testing.assert_array_equal(proba, pipe.predict_proba(held[FEATURES]))
    np.testing.assert_array_equal(scores, pipe.decision_function(held[FEATURES]))
    score, _ = _on(client, lambda: fitted.score(frame[FEATURES], frame["label"]))
    assert score == ref.score(held[FEATURES], held["label"])


def test_labels_in_memory_or_as_a_dask_array(data):
    pipe, _, held, frame = data
    ref = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(held[FEATURES], held["label"])
    y = held["label"].to_numpy()
    weights = np.linspace(0.5, 1.5, y.size)
    with dask.config.set(scheduler="sync"):
        for labels in (y, da.from_array(y, chunks=700)):
            est = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(frame[FEATURES], labels)
            assert est.certificate_ == ref.certificate_
            assert est.score(frame[FEATURES], labels) == ref.score(held[FEATURES], y)
            assert est.score(frame[FEATURES], labels, sample_weight=weights) == pytest.approx(
                ref.score(held[FEATURES], y, sample_weight=weights), rel=1e-12
            )


def test_stream_of_dask_dataframes(data):
    pipe, _, held, _ = data
    on_dask = HoldOutBoundClassifier(voters=PrefitVoters(pipe))
    in_memory = HoldOutBoundClassifier(voters=PrefitVoters(pipe))
    with dask.config.set(scheduler="sync"):
        for start in range(0, N - 1000, 1000):
            batch = held[start : start + 1000]
            on_dask.partial_fit(dd.from_pandas(batch[FEATURES], npartitions=2), batch["label"])
            in_memory.partial_fit(batch[FEATURES], batch["label"])
            assert on_dask.bound_ == in_memory.bound_
        with pytest.raises(ValueError, match="feature names"):  # a batch of other columns
            on_dask.partial_fit(dd.from_pandas(batch[["x", "mood", "level"]], 2), batch["label"])
    assert on_dask.n_samples_seen_ == N - 1000


@pytest.mark.parametrize(
    "estimator",
    [
        FirstOrderBoundClassifier,  # the count path: statistics added up over the partitions
        lambda **kw: SecondOrderBoundClassifier(posterior="dirichlet", max_epochs=3, **kw),
    ],
)
def test_pac_bayes_vote_of_pipelines(data, estimator):
    """Several prefit pipelines read the partitions; a per-row family trains on a sample of
    rows drawn from them (the rows of a partition taken by position)."""
    pipe, fit, held, frame = data
    other = make_pipeline(
        ColumnTransformer([("onehot", OneHotEncoder(), ["mood"])]), LogisticRegression()
    ).fit(fit[FEATURES], fit["label"])
    voters = PrefitVoters([pipe, other])
    ref = estimator(voters=voters, random_state=0).fit(held[FEATURES], held["label"])
    with dask.config.set(scheduler="sync"):
        est = estimator(voters=voters, random_state=0).fit(frame[FEATURES], frame["label"])
        predicted = est.predict(frame[FEATURES]).compute()
    assert est.bound_ == pytest.approx(ref.bound_, rel=1e-9, abs=1e-12)
    np.testing.assert_array_equal(predicted, ref.predict(held[FEATURES]))


def test_categories_reach_a_gradient_boosting(client, data):
    _, fit, held, frame = data
    columns = ["x", "level"]
    hgb = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=20)
    hgb.fit(fit[columns], fit["label"])
    ref = HoldOutBoundClassifier(voters=PrefitVoters(hgb)).fit(held[columns], held["label"])
    est, _ = _on(
        client,
        lambda: HoldOutBoundClassifier(voters=PrefitVoters(hgb)).fit(
            frame[columns], frame["label"]
        ),
    )
    assert est.certificate_ == ref.certificate_


def test_labels_by_position(data):
    """A column of a frame in other partitions is read by the position of its rows, as an
    array of labels is (dask fuses the partitions of a one-column projection of Parquet files,
    so a frame's own column may come in other partitions than the frame)."""
    pipe, _, held, frame = data
    other = dd.from_pandas(held, npartitions=3)
    ref = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(held[FEATURES], held["label"])
    with dask.config.set(scheduler="sync"):
        est = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(frame[FEATURES], other["label"])
        assert est.certificate_ == ref.certificate_
        assert est.score(frame[FEATURES], other["label"]) == ref.score(
            held[FEATURES], held["label"]
        )


def test_refusals(data):
    pipe, _, held, frame = data
    with pytest.raises(TypeError, match="PrefitVoters"):  # voters grown here read numbers
        HoldOutBoundClassifier(train_size=100).fit(frame[["x"]], frame["label"])
    with pytest.raises(ValueError, match="rows but y has"):
        HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(frame[FEATURES], np.zeros(5))
    est = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(held[FEATURES], held["label"])
    with pytest.raises(ValueError, match="rows but y has"):
        est.score(frame[FEATURES], frame["label"][:10])
