"""The models people have, as they have them: a prefit model reads its rows as it was fitted on
them (a DataFrame to a pipeline of a ColumnTransformer, categories to a gradient boosting,
dictionaries to a DictVectorizer), and the certificate is the one of the same errors on a
NumPy array."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import FitFailedWarning
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skpacbayes import (
    CertifiedSelectiveClassifier,
    CertifiedThresholdClassifier,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
)
from skpacbayes.monitoring import RiskMonitor
from skpacbayes.voters import PrefitVoters

N = 1200


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "mood": rng.choice(["nice", "bad", "meh"], N),
            "x": rng.normal(size=N),
            "level": pd.Categorical(rng.choice(["low", "high"], N)),
        }
    )
    flip = rng.random(N) < 0.1
    y = (((df["mood"] == "nice") ^ (df["x"] > 0.5)).to_numpy() ^ flip).astype(int)
    return df, y


def _pipeline(columns):
    """A ColumnTransformer + LogisticRegression; ``columns`` (names or positions) of the
    categorical and numerical parts."""
    (cat, num) = columns
    encode = ColumnTransformer([("onehot", OneHotEncoder(), cat), ("scale", StandardScaler(), num)])
    return make_pipeline(encode, LogisticRegression())


def test_column_transformer_pipeline_on_a_dataframe(frame):
    df, y = frame
    train, cal = slice(0, N // 2), slice(N // 2, N)
    pipe = _pipeline((["mood", "level"], ["x"])).fit(df[train], y[train])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(pipe)).fit(df[cal], y[cal])
    assert list(clf.feature_names_in_) == ["mood", "x", "level"]
    np.testing.assert_array_equal(clf.predict(df), pipe.predict(df))
    # the same model on the same values as an object array, by column positions
    values = df.to_numpy(dtype=object)
    by_position = _pipeline(([0, 2], [1])).fit(values[train], y[train])
    np.testing.assert_array_equal(by_position.predict(values), pipe.predict(df))
    on_array = HoldOutBoundClassifier(voters=PrefitVoters(by_position)).fit(values[cal], y[cal])
    assert clf.bound_ == on_array.bound_
    assert clf.bound_ > np.mean(pipe.predict(df[cal]) != y[cal])
    # the feature names are checked as scikit-learn checks them
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df[["x", "mood", "level"]])


def test_categorical_gradient_boosting(frame):
    df, y = frame
    df = df.drop(columns="mood")
    hgb = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=20)
    hgb.fit(df[: N // 2], y[: N // 2])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(hgb)).fit(df[N // 2 :], y[N // 2 :])
    np.testing.assert_array_equal(clf.predict(df), hgb.predict(df))
    errors = int(np.sum(hgb.predict(df[N // 2 :]) != y[N // 2 :]))
    assert errors / (N // 2) < clf.bound_ < 1


def test_list_of_dicts(frame):
    df, y = frame
    records = df.drop(columns="level").to_dict("records")
    model = make_pipeline(DictVectorizer(), LogisticRegression())
    model.fit(records[: N // 2], y[: N // 2])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(records[N // 2 :], y[N // 2 :])
    np.testing.assert_array_equal(clf.predict(records), model.predict(records))
    assert 0 < clf.bound_ < 1


def test_forest_fitted_on_a_numeric_dataframe(frame):
    df, y = frame
    numeric = pd.DataFrame({"a": df["x"], "b": np.arange(N) % 7})
    forest = RandomForestClassifier(10, random_state=0).fit(numeric[: N // 2], y[: N // 2])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(forest)).fit(numeric[N // 2 :], y[N // 2 :])
    np.testing.assert_array_equal(clf.predict(numeric), forest.predict(numeric))
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(numeric[["b", "a"]])


def test_stream_of_dataframes(frame):
    df, y = frame
    pipe = _pipeline((["mood", "level"], ["x"])).fit(df[: N // 2], y[: N // 2])
    stream = HoldOutBoundClassifier(voters=PrefitVoters(pipe))
    for start in range(N // 2, N, 150):
        stream.partial_fit(df[start : start + 150], y[start : start + 150])
    assert stream.n_samples_seen_ == N // 2
    assert 0 < stream.bound_ < 1
    np.testing.assert_array_equal(stream.predict(df), pipe.predict(df))


def test_pac_bayes_vote_of_pipelines(frame):
    df, y = frame
    half = N // 2
    first = _pipeline((["mood", "level"], ["x"])).fit(df[:half], y[:half])
    second = _pipeline((["mood"], ["x"])).fit(df[: half // 2], y[: half // 2])
    clf = OccamBoundClassifier(voters=PrefitVoters([first, second])).fit(df[half:], y[half:])
    assert 0 < clf.bound_ < 1
    assert clf.predict(df).shape == (N,)


def test_decisions_and_monitor_read_dataframes(frame):
    df, y = frame
    half = N // 2
    pipe = _pipeline((["mood", "level"], ["x"])).fit(df[:half], y[:half])
    threshold = CertifiedThresholdClassifier(pipe, risk="miss_rate", max_risk=0.4)
    threshold.fit(df[half:], y[half:])
    assert threshold.bound_ <= 0.4
    selective = CertifiedSelectiveClassifier(pipe, max_risk=0.6).fit(df[half:], y[half:])
    assert selective.bound_ <= 0.6
    monitor = RiskMonitor(pipe, reference=0.5).partial_fit(df[half:], y[half:])
    assert monitor.n_samples_seen_ == N - half and not monitor.shift_detected_


@pytest.mark.parametrize("params", [{}, {"validation_fraction": (0.2, 0.5)}, {"train_size": 700}])
def test_hold_out_grows_a_pipeline_on_a_dataframe(frame, params):
    """A classifier the hold-out grows reads the rows as the user gave them: the certificate of
    the pipeline by column names on the DataFrame is the one by column positions on the same
    values as an object array (the same rows drawn)."""
    df, y = frame
    by_name = HoldOutBoundClassifier(
        voters=_pipeline((["mood", "level"], ["x"])), random_state=0, **params
    ).fit(df, y)
    assert list(by_name.feature_names_in_) == ["mood", "x", "level"]
    values = df.to_numpy(dtype=object)
    by_position = HoldOutBoundClassifier(
        voters=_pipeline(([0, 2], [1])), random_state=0, **params
    ).fit(values, y)
    assert by_name.certificate_ == by_position.certificate_
    np.testing.assert_array_equal(by_name.predict(df), by_position.predict(values))
    with pytest.raises(ValueError, match="feature names"):
        by_name.predict(df[["x", "mood", "level"]])


def test_certified_vote_grows_the_users_models_on_a_dataframe(frame):
    """CertifiedVote's candidates that are the user's models read the DataFrame as given: the
    pipeline by column names certifies as by column positions on an object array, and a
    categorical gradient boosting reads its categories."""
    df, y = frame
    names = CertifiedVoteClassifier(
        candidates=[_pipeline((["mood", "level"], ["x"]))], random_state=0
    ).fit(df, y)
    positions = CertifiedVoteClassifier(candidates=[_pipeline(([0, 2], [1]))], random_state=0).fit(
        df.to_numpy(dtype=object), y
    )
    assert names.bound_ == positions.bound_
    assert list(names.feature_names_in_) == ["mood", "x", "level"]
    np.testing.assert_array_equal(names.predict(df), positions.predict(df.to_numpy(dtype=object)))
    hgb = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=20)
    both = CertifiedVoteClassifier(
        candidates=[_pipeline((["mood", "level"], ["x"])), (hgb, 0.5)], random_state=0
    )
    with pytest.warns(FitFailedWarning, match="could not convert string"):  # strings in mood
        both.fit(df, y)
    categorical = CertifiedVoteClassifier(candidates=[(hgb, 0.5)], random_state=0)
    categorical.fit(df.drop(columns="mood"), y)
    assert categorical.bound_ < 1
    assert categorical.predict_proba(df.drop(columns="mood")).shape == (N, 2)


@pytest.mark.parametrize(
    "estimator, fix",
    [
        (CertifiedVoteClassifier(random_state=0), "CertifiedVoteClassifier(candidates=[pipeline])"),
        (HoldOutBoundClassifier(random_state=0), "HoldOutBoundClassifier(voters=pipeline)"),
        (FirstOrderBoundClassifier(max_epochs=1), "CertifiedVoteClassifier(candidates=[pipeline])"),
    ],
)
def test_default_voters_on_a_dataframe_of_strings_say_how_to_encode_them(frame, estimator, fix):
    """Voters grown on numbers (the default forests and banks) cannot read a column of strings
    or of string categories: the error names those columns, not one cell, and the pipeline that
    fixes it; a categorical column of numbers converts as before."""
    df, y = frame
    with pytest.raises(
        ValueError, match=r"columns 'mood' \(\w+\), 'level' \(category\) do"
    ) as info:
        clone(estimator).fit(df, y)
    assert fix in str(info.value) and "OneHotEncoder" in str(info.value)
    assert "could not convert string to float" in str(info.value.__cause__)
    numbers = df[["x"]].assign(code=pd.Categorical(np.where(df["mood"] == "nice", 1, 2)))
    assert 0 < clone(estimator).fit(numbers, y).bound_ <= 1
