"""Adversarial input matrix: every estimator and the public functions, hostile inputs.

Each case gets either a correct result or a clear exception (type and message). A correct
result: ``bound_`` is a float in [0, 1] (never NaN), equal to ``certificate_.value`` and at
least ``certificate_.train_error`` (the training error of ``predict`` on the examples the
bound uses, exact ties of the vote counted as errors: ``predict`` breaks them towards the
first class), and ``predict`` returns labels of ``classes_``. Nothing may silently change what
is certified (a CPU fallback for an unavailable device, a case fix-up of the posterior name,
a dropped imaginary part, an overflowed threshold).

Estimator ids: FO-cat, FO-dir, FO-gauss, SO-gauss, Bin3-cat, CBound-cat, VC-cat, Part-cat
(tighten=True), Part-dir / Part-gauss (tighten=False), Margin-dir, Occam-cat.
Scope: A = every id, C = FO-cat, FO-gauss, Part-cat, Occam-cat; T = the trained ones of C
(Occam trains nothing: ``device`` is documented unused). No row is a known bug today.

| #   | input                                            | on | expected                          |
|-----|--------------------------------------------------|----|-----------------------------------|
| E1  | NaN in X (fit / predict)                         | A  | ValueError "NaN"                  |
| E2  | +-inf in X (fit / predict)                       | A  | ValueError "infinity"             |
| E3  | empty X (0, d) (fit / predict)                   | A  | ValueError "0 sample"             |
| E4  | a single sample                                  | A  | ValueError "at least 2 classes"   |
| E5  | a single class                                   | A  | ValueError "at least 2 classes"   |
| E6  | 1-D X / 3-D X                                    | A  | ValueError "2D" / "dim 3"         |
| E7  | len(X) != len(y)                                 | A  | ValueError "inconsistent"         |
| E8  | scipy.sparse X (fit / predict)                   |    | accepted: tests/test_sparse.py    |
| E9  | complex X                                        | A  | ValueError "Complex"              |
| E10 | string features                                  | A  | ValueError "convert"              |
| E11 | continuous / NaN / None labels                   | A  | ValueError "Unknown label type"   |
| E12 | predict with another feature count               | A  | ValueError "features"             |
| E13 | predict / recompute_bound before fit             | A  | NotFittedError                    |
| E14 | DataFrame with renamed columns at predict        | C  | ValueError "feature names"        |
| P1  | delta 0, 1.5, -0.1, nan, "0.05", None            | A  | InvalidParameterError "delta"     |
| P2  | max_epochs -1 / 1.5, batch_size 0, lr 0 / -1 /   | A  | InvalidParameterError naming it   |
|     | nan / inf, patience 0, n_jobs "two", verbose -1  |    |                                   |
| P3  | posterior "beta", "Dirichlet", None              | A  | InvalidParameterError (no fix-up) |
| P4  | device "tpu", "CPU", "cuda:x", 0, None           | T  | ValueError / InvalidParameterError|
| P4b | device "cuda", "cuda:0" if unavailable; "mps"    | FO | ValueError (no CPU fallback)      |
| P5  | device "meta" (no storage)                       | FO | ValueError "device"               |
| P6  | n_draws -1 / 0 / 2.5, tighten "yes", n_margins 0 |    | InvalidParameterError naming it   |
| P7  | learning_rate 1e300 (declared range (0, inf))    | T  | ValueError "learning_rate"        |
| P8  | Dirichlet, learning_rate 10 (diverges)           | FO | certificate (best epoch kept)     |
| P9  | prior: float for Categorical, Dirichlet <= 0 /   | FO | ValueError naming the prior       |
|     | nan / inf, Gaussian nan / inf                    |    |                                   |
| P10 | prior 1e-300 / 1e300 (Dir), +-1e300 (Gauss)      | FO | ValueError "prior=" (range)       |
| C1  | unsupported (bound, posterior, task, split)      | *  | ValueError naming the valid ones  |
| C2  | Bin(N >= 3) on split voters                      |Bin | mixture weights (1/2, 1/2)        |
| S1  | float32 / float16 / int / bool / object / list X |A, C| certificate                       |
| S2  | pandas DataFrame + Series                        | A  | certificate, feature_names_in_    |
| S3  | string / bool / +-1 / object / float / offset    |A, C| certificate, same partition       |
|     | labels; y as a column vector                     |    |                                   |
| S4  | one feature; constant columns beside a real one  |A, C| certificate                       |
| S5  | all features constant, StumpBank(feature_range)  | C  | certificate (no data fallback)    |
| S6  | all features constant, default StumpBank         | C  | ValueError "min == max"           |
| S7  | magnitudes 1e300, 1e-300, denormals 1e-310       |A, C| certificate                       |
| S8  | rescaling by 2**900 / 2**-900                    | C  | the identical certificate         |
| S9  | magnitudes near float max (+-1.7e308)            | C  | finite thresholds, no warning     |
| S10 | two samples; duplicated rows, opposite labels    | C  | certificate (bound >= 1/2)        |
| S11 | 3-class string labels (SplitForest)              | mc | certificate                       |
| B1  | bounds: NaN / out-of-range stats, KL < 0, m < 1, | *  | ValueError naming the argument    |
|     | delta not in (0, 1], bad n_draws / weights /     |    |                                   |
|     | lengths / mode, strings                          |    |                                   |
| B2  | bounds: a required argument is None              | *  | ValueError / TypeError naming it  |
| B3  | bounds: empty arrays (elementwise functions)     | *  | empty result                      |
| B4  | bounds: KL inf, m huge, delta 5e-324, ...        | *  | finite value in [0, 1]            |
| Q1  | certified_cstar: NaN, inf, < 0, 2-D, scalar, str |    | ValueError                        |
| Q2  | certified_cstar: complex weights                 |    | ValueError (no dropped imag part) |
| Q3  | certified_cstar: bits / relax / rtol invalid     |    | ValueError                        |
| Q4  | certified_cstar: empty, zeros, bool, int, uint64,|    | exact result                      |
|     | pandas, float16, numeric strings                 |    |                                   |
| Q5  | family terms: zero sum, bad n_voters / mix,      |    | ValueError                        |
|     | sums outside the scan's range                    |    |                                   |
| V1  | StumpBank / SplitForest: bad parameters, NaN X,  |    | ValueError / InvalidParameterError|
|     | one class, wrong feature count, chunk_size 0     |    |                                   |
| V2  | StumpBank: sparse X = dense X; empty X           |    | same votes; shape (0, n)          |
| V3  | StumpBank: feature_range (-1e308, 1e308)         |    | finite thresholds, no warning     |
| V4  | SplitForest: fewer than 4 samples                |    | ValueError                        |
| V4b | SplitForest / PrefitVoters (trees): |X| > 3.4e38 |    | ValueError "float32 range"        |
| V5  | PrefitVoters: empty, unfitted, classes disagree, |    | ValueError / TypeError            |
|     | unknown label, feature mismatch, not estimators  |    |                                   |
| M1  | BoundSelectionClassifier: [], delta 0, invalid   |    | ValueError                        |
| M2  | BoundSelectionClassifier: min bound at delta / K |    | exact                             |
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import torch
from sklearn.exceptions import DataConversionWarning, NotFittedError
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError

import skpacbayes as skp
from skpacbayes import bounds, partition
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import PrefitVoters, SplitForest, StumpBank

FAST = {"max_epochs": 1, "random_state": 0}

ESTIMATORS = {
    "FO-cat": (skp.FirstOrderBoundClassifier, {"posterior": "categorical"}),
    "FO-dir": (skp.FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
    "FO-gauss": (skp.FirstOrderBoundClassifier, {"posterior": "gaussian"}),
    "SO-gauss": (skp.SecondOrderBoundClassifier, {"posterior": "gaussian"}),
    "Bin3-cat": (skp.BinomialBoundClassifier, {"posterior": "categorical", "n_draws": 3}),
    "CBound-cat": (skp.CBoundClassifier, {"posterior": "categorical"}),
    "VC-cat": (skp.VCDimBoundClassifier, {"posterior": "categorical"}),
    "Part-cat": (skp.PartitionBoundClassifier, {"posterior": "categorical", "tighten": True}),
    "Part-dir": (skp.PartitionBoundClassifier, {"posterior": "dirichlet", "tighten": False}),
    "Part-gauss": (skp.PartitionBoundClassifier, {"posterior": "gaussian", "tighten": False}),
    "Margin-dir": (skp.MarginBoundClassifier, {"posterior": "dirichlet"}),
    "Occam-cat": (skp.OccamBoundClassifier, {"posterior": "categorical"}),
}
ALL = list(ESTIMATORS)
CHEAP = ["FO-cat", "FO-gauss", "Part-cat", "Occam-cat"]
TRAINED = ["FO-cat", "FO-gauss", "Part-cat"]  # Occam trains nothing: device is documented unused
MULTICLASS = ["FO-cat", "FO-gauss", "SO-gauss", "Bin3-cat", "Part-cat", "Occam-cat"]


def make(name, **kwargs):
    cls, params = ESTIMATORS[name]
    return cls(**{**params, **FAST, **kwargs})


def data(m=24, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=m) > 0).astype(int)
    y[:2] = [0, 1]  # both classes, whatever the seed
    return X, y


def check_certified(est, X, y):
    """The contract of a successful fit (see the module docstring)."""
    b = est.bound_
    assert isinstance(b, float) and not math.isnan(b) and 0.0 <= b <= 1.0, b
    cert = est.certificate_
    assert cert.value == b
    used = np.unique(np.concatenate([s for _, s in est.groups_]))
    y_arr = np.asarray(y).ravel()
    pred = est.predict(X)
    assert pred.shape == y_arr.shape
    assert set(np.unique(pred)) <= set(est.classes_.tolist())
    # ties of the weighted vote count as errors in the certificate (predict breaks them)
    scores = est.decision_function(X)
    if scores.ndim == 1:
        tie = scores == 0
    else:
        tie = (scores == scores.max(axis=1, keepdims=True)).sum(axis=1) > 1
    err = float(np.mean(pred[used] != y_arr[used]))
    err_ties = float(np.mean((pred[used] != y_arr[used]) | tie[used]))
    assert err - 1e-12 <= cert.train_error <= err_ties + 1e-12
    assert b >= cert.train_error - 1e-12
    proba = est.predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)


@pytest.fixture(autouse=True)
def _quiet_user_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's requires_grad notices
        yield


# -------------------------------------------------------------------------------------------
# E: invalid data
# -------------------------------------------------------------------------------------------
def _with(X, i, j, v):
    X = X.copy()
    X[i, j] = v
    return X


X0, Y0 = data()
FIT_ERRORS = {
    "E1-nan": (lambda: (_with(X0, 3, 1, np.nan), Y0), ValueError, "NaN"),
    "E2-inf": (lambda: (_with(X0, 3, 1, np.inf), Y0), ValueError, "infinity"),
    "E2-neginf": (lambda: (_with(X0, 3, 1, -np.inf), Y0), ValueError, "infinity"),
    "E3-empty": (lambda: (np.zeros((0, 3)), np.zeros(0, dtype=int)), ValueError, "0 sample"),
    "E4-one-sample": (lambda: (X0[:1], Y0[:1]), ValueError, "at least 2 classes"),
    "E5-one-class": (lambda: (X0, np.zeros_like(Y0)), ValueError, "at least 2 classes"),
    "E6-1d": (lambda: (X0[:, 0], Y0), ValueError, "2D"),
    "E6-3d": (lambda: (X0[:, :, None], Y0), ValueError, "dim 3"),
    "E7-lengths": (lambda: (X0, Y0[:-1]), ValueError, "inconsistent numbers of samples"),
    "E9-complex": (lambda: (X0 + 1j, Y0), ValueError, "[Cc]omplex"),
    "E10-strings": (lambda: (np.full((24, 3), "a"), Y0), ValueError, "convert"),
    "E11-continuous-y": (lambda: (X0, X0[:, 0]), ValueError, "Unknown label type"),
    "E11-nan-y": (lambda: (X0, np.where(Y0 == 1, 1.0, np.nan)), ValueError, "NaN"),
    "E11-none-y": (
        lambda: (X0, np.array([None, "a"] * 12, dtype=object)),
        ValueError,
        "Unknown label type",
    ),
}


@pytest.mark.parametrize("case", list(FIT_ERRORS))
@pytest.mark.parametrize("name", ALL)
def test_invalid_training_data_raises(name, case):
    make_xy, exc, match = FIT_ERRORS[case]
    X, y = make_xy()
    with pytest.raises(exc, match=match):
        make(name).fit(X, y)


@pytest.fixture(scope="module")
def fitted():
    """One fitted estimator per id on the same small binary data (shared: fits are slow)."""
    X, y = data()
    return {name: make(name).fit(X, y) for name in ALL}


PREDICT_ERRORS = {
    "E12-features": (lambda X: X[:, :2], ValueError, "features"),
    "E1-nan": (lambda X: _with(X, 0, 0, np.nan), ValueError, "NaN"),
    "E2-inf": (lambda X: _with(X, 0, 0, np.inf), ValueError, "infinity"),
    "E3-empty": (lambda X: X[:0], ValueError, "0 sample"),
    "E6-1d": (lambda X: X[0], ValueError, "2D"),
}


@pytest.mark.parametrize("case", list(PREDICT_ERRORS))
@pytest.mark.parametrize("name", ALL)
def test_invalid_prediction_data_raises(fitted, name, case):
    transform, exc, match = PREDICT_ERRORS[case]
    X_bad = transform(data()[0])
    est = fitted[name]
    for method in (est.predict, est.predict_proba, est.decision_function):
        with pytest.raises(exc, match=match):
            method(X_bad)


@pytest.mark.parametrize("name", ALL)
def test_unfitted_estimator_raises_not_fitted(name):
    est = make(name)
    X, _ = data()
    for method in (est.predict, est.predict_proba, est.decision_function):
        with pytest.raises(NotFittedError):
            method(X)
    with pytest.raises(NotFittedError):
        est.recompute_bound(0.05)


@pytest.mark.parametrize("name", CHEAP)
def test_renamed_dataframe_columns_at_predict_raise(name):
    X, y = data()
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = make(name).fit(df, pd.Series(y))
    with pytest.raises(ValueError, match="feature names"):
        est.predict(df.rename(columns={"a": "z"}))


# -------------------------------------------------------------------------------------------
# P: invalid parameters
# -------------------------------------------------------------------------------------------
COMMON_BAD_PARAMS = [
    ("delta", 0),
    ("delta", 1.5),
    ("delta", 1.0),  # a statement with probability at least 0 certifies nothing
    ("delta", -0.1),
    ("delta", float("nan")),
    ("delta", "0.05"),
    ("delta", None),
    ("max_epochs", -1),
    ("max_epochs", 0),  # no training: refused, not a vacuous bound
    ("max_epochs", 1.5),
    ("batch_size", 0),
    ("learning_rate", 0),
    ("learning_rate", -1.0),
    ("learning_rate", float("nan")),
    ("learning_rate", float("inf")),
    ("early_stopping_patience", 0),
    ("posterior", "beta"),
    ("posterior", "Dirichlet"),
    ("posterior", None),
    ("device", 0),
    ("device", None),
    ("voters", "stumps"),
    ("n_jobs", "two"),
    ("n_jobs", 0),  # scikit-learn's error, not joblib's
    ("verbose", -1),
]


@pytest.mark.parametrize(("param", "value"), COMMON_BAD_PARAMS)
@pytest.mark.parametrize("name", ALL)
def test_invalid_common_parameter_raises(name, param, value):
    X, y = data()
    with pytest.raises(InvalidParameterError, match=param):
        make(name, **{param: value}).fit(X, y)


@pytest.mark.parametrize(
    ("name", "param", "value"),
    [
        ("Bin3-cat", "n_draws", -1),
        ("Bin3-cat", "n_draws", 0),
        ("Bin3-cat", "n_draws", 2.5),
        ("Part-cat", "tighten", "yes"),
        ("Margin-dir", "n_margins", 0),
    ],
)
def test_invalid_specific_parameter_raises(name, param, value):
    X, y = data()
    with pytest.raises(InvalidParameterError, match=param):
        make(name, **{param: value}).fit(X, y)


@pytest.mark.parametrize("device", ["tpu", "CPU", "cuda:x"])
@pytest.mark.parametrize("name", TRAINED)
def test_unknown_device_raises(name, device):
    X, y = data()
    with pytest.raises(ValueError, match="device"):
        make(name, device=device).fit(X, y)


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_unavailable_accelerator_is_refused_not_replaced(device):
    if torch.cuda.is_available():
        pytest.skip(f"{device} is available here")
    X, y = data()
    with pytest.raises(ValueError, match="not available"):
        make("FO-cat", device=device).fit(X, y)


@pytest.mark.parametrize("name", ["FO-cat", "FO-dir"])
def test_mps_is_refused_with_the_reason_whether_or_not_it_is_there(name):
    # MPS has no float64: training would fail at its first epoch, so it is refused up front
    X, y = data()
    with pytest.raises(ValueError, match="MPS has no float64"):
        make(name, device="mps").fit(X, y)


def test_device_cpu_index_is_accepted():
    X, y = data()
    check_certified(make("FO-gauss", device="cpu:0").fit(X, y), X, y)


def test_meta_device_is_refused_clearly():
    """device="meta" is a torch device without storage: no training is possible."""
    X, y = data()
    with pytest.raises(ValueError, match="device"):
        make("FO-cat", device="meta").fit(X, y)


@pytest.mark.parametrize("name", CHEAP)
def test_huge_learning_rate_inside_the_declared_range(name):
    """learning_rate=1e300 passes the (0, inf) constraint: certify, or refuse it clearly."""
    X, y = data()
    try:
        est = make(name, learning_rate=1e300, max_epochs=2).fit(X, y)
    except ValueError as exc:
        assert "learning_rate" in str(exc)
    else:
        check_certified(est, X, y)


def test_dirichlet_training_divergence_is_handled():
    """A large (valid) learning rate makes the float32 Dirichlet training diverge.

    Expected: a certificate of a finite posterior (e.g. the best epoch), or a ValueError
    that says the training diverged / names the learning rate -- not an internal check on
    concentrations or statistics the user never passed.
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] + 0.1 * rng.normal(size=100) > 0).astype(int)
    est = skp.FirstOrderBoundClassifier(
        posterior="dirichlet", learning_rate=10.0, max_epochs=2, batch_size=16, random_state=0
    )
    try:
        est.fit(X, y)
    except ValueError as exc:
        assert "learning_rate" in str(exc) or "diverge" in str(exc), str(exc)
    else:
        check_certified(est, X, y)


@pytest.mark.parametrize(
    ("posterior", "prior", "match"),
    [
        ("categorical", 1.0, "prior"),
        ("dirichlet", 0.0, "prior|> 0"),
        ("dirichlet", -1.0, "prior|> 0"),
        ("dirichlet", float("nan"), "prior|> 0"),
        ("dirichlet", float("inf"), "prior"),
        ("gaussian", float("nan"), "prior"),
        ("gaussian", float("inf"), "prior"),
    ],
)
def test_invalid_prior_raises(posterior, prior, match):
    X, y = data()
    with pytest.raises(ValueError, match=match):
        skp.FirstOrderBoundClassifier(posterior=posterior, prior=prior, **FAST).fit(X, y)


@pytest.mark.parametrize(
    ("posterior", "prior"),
    [("dirichlet", 1e-300), ("dirichlet", 1e300), ("gaussian", 1e300), ("gaussian", -1e300)],
)
def test_extreme_but_finite_prior(posterior, prior):
    """A finite prior the float32 training cannot represent: certify, or name the prior."""
    X, y = data()
    est = skp.FirstOrderBoundClassifier(posterior=posterior, prior=prior, **FAST)
    try:
        est.fit(X, y)
    except ValueError as exc:  # the message must be about the prior parameter itself
        assert re.search(r"prior (concentration|mean|must|value)|prior=|'prior'", str(exc)), exc
    else:
        check_certified(est, X, y)


def test_moderate_priors_are_certified():
    X, y = data()
    for posterior, prior in (("dirichlet", 1e-3), ("dirichlet", 50.0), ("gaussian", -5.0)):
        est = skp.FirstOrderBoundClassifier(posterior=posterior, prior=prior, **FAST).fit(X, y)
        check_certified(est, X, y)


# -------------------------------------------------------------------------------------------
# C: unsupported combinations
# -------------------------------------------------------------------------------------------
def _multiclass(m=30, seed=0):
    X, _ = data(m, seed=seed)
    y = np.digitize(X[:, 1], [-0.4, 0.4])
    return X, y


UNSUPPORTED = [
    # (estimator, params, task, valid posteriors named in the message)
    (skp.CBoundClassifier, {"posterior": "categorical"}, "multi", r"binary"),
    (skp.VCDimBoundClassifier, {"posterior": "categorical"}, "multi", r"binary"),
    (skp.MarginBoundClassifier, {"posterior": "dirichlet"}, "multi", r"binary"),
    (skp.MarginBoundClassifier, {"posterior": "categorical"}, "binary", r"\['dirichlet'\]"),
    (skp.MarginBoundClassifier, {"posterior": "gaussian"}, "binary", r"\['dirichlet'\]"),
    (skp.OccamBoundClassifier, {"posterior": "gaussian"}, "binary", r"\['categorical'\]"),
    (skp.OccamBoundClassifier, {"posterior": "dirichlet"}, "multi", r"\['categorical'\]"),
    (
        skp.FirstOrderBoundClassifier,
        {"posterior": "dirichlet"},
        "multi",
        r"\['categorical', 'gaussian'\]",
    ),
    (
        skp.SecondOrderBoundClassifier,
        {"posterior": "dirichlet"},
        "split-binary",
        r"\['categorical', 'gaussian'\]",
    ),
    (
        skp.BinomialBoundClassifier,
        {"posterior": "dirichlet"},
        "split-binary",
        r"\['categorical', 'gaussian'\]",
    ),
    (
        skp.CBoundClassifier,
        {"posterior": "dirichlet"},
        "split-binary",
        r"\['categorical', 'gaussian'\]",
    ),
    (
        skp.PartitionBoundClassifier,
        {"posterior": "gaussian"},
        "multi",
        r"\['categorical', 'dirichlet'\]",
    ),
    (
        skp.PartitionBoundClassifier,
        {"posterior": "gaussian"},
        "stumps-multi",
        r"\['categorical', 'dirichlet'\]",
    ),
    (skp.VCDimBoundClassifier, {"posterior": "categorical"}, "split-binary", r"none"),
    (skp.MarginBoundClassifier, {"posterior": "dirichlet"}, "split-binary", r"none"),
]


@pytest.mark.parametrize(("cls", "params", "task", "valid"), UNSUPPORTED)
def test_unsupported_combination_names_the_valid_ones(cls, params, task, valid):
    if task in ("multi", "stumps-multi"):
        X, y = _multiclass()
    else:
        X, y = data(40)
    kwargs = dict(params, **FAST)
    if task.startswith("split"):
        kwargs["voters"] = SplitForest(n_estimators=4)
    if task == "stumps-multi":
        kwargs["voters"] = StumpBank(n_thresholds=3)
    with pytest.raises(ValueError, match=valid):
        cls(**kwargs).fit(X, y)


def test_binomial_on_split_voters_fixes_the_mixture_weight():
    X, y = data(40)
    est = skp.BinomialBoundClassifier(n_draws=3, voters=SplitForest(n_estimators=4), **FAST)
    est.fit(X, y)
    assert est.certificate_.mixture_weights == (0.5, 0.5)
    check_certified(est, X, y)


# -------------------------------------------------------------------------------------------
# S: unusual but valid inputs give certificates
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_float32_input(name):
    X, y = data()
    X32 = X.astype(np.float32)
    est = make(name).fit(X32, y)
    check_certified(est, X32, y)
    # float32 and float64 copies of the same values are the same points
    np.testing.assert_array_equal(est.predict(X32), est.predict(X32.astype(np.float64)))


@pytest.mark.parametrize(
    "convert",
    [
        lambda X: (X * 10).astype(np.int64),
        lambda X: X > 0,
        lambda X: X.astype(np.float16),
        lambda X: X.astype(object),
        lambda X: X.tolist(),
    ],
    ids=["int", "bool", "float16", "object", "list"],
)
@pytest.mark.parametrize("name", CHEAP)
def test_other_numeric_dtypes(name, convert):
    X, y = data()
    Xc = convert(X)
    check_certified(make(name).fit(Xc, y), Xc, y)


@pytest.mark.parametrize("name", ALL)
def test_pandas_input(name):
    X, y = data()
    df = pd.DataFrame(X, columns=["f0", "f1", "f2"])
    s = pd.Series(np.where(y == 1, "pos", "neg"), name="target")
    est = make(name).fit(df, s)
    check_certified(est, df, s)
    assert list(est.feature_names_in_) == ["f0", "f1", "f2"]
    assert est.predict(df).dtype.kind in "OU"


@pytest.mark.parametrize("name", ALL)
def test_string_labels(name):
    X, y = data()
    labels = np.where(y == 1, "yes", "no")
    est = make(name).fit(X, labels)
    check_certified(est, X, labels)
    assert list(est.classes_) == ["no", "yes"]


@pytest.mark.parametrize(
    "relabel",
    [
        lambda y: 2 * y - 1,
        lambda y: y.astype(bool),
        lambda y: np.where(y == 1, "b", "a").astype(object),
        lambda y: y.astype(float),
        lambda y: y + 1000,
    ],
    ids=["pm1", "bool", "object", "float", "offset"],
)
@pytest.mark.parametrize("name", CHEAP)
def test_other_label_encodings(name, relabel):
    X, y = data()
    yy = relabel(y)
    est = make(name).fit(X, yy)
    check_certified(est, X, yy)
    # the same partition of the data, whatever the label encoding
    ref = make(name).fit(X, y)
    assert est.bound_ == ref.bound_
    np.testing.assert_array_equal(np.searchsorted(est.classes_, est.predict(X)), ref.predict(X))


def test_column_vector_y_warns_and_fits():
    X, y = data()
    with pytest.warns(DataConversionWarning):
        est = make("FO-cat").fit(X, y[:, None])
    check_certified(est, X, y)


@pytest.mark.parametrize("name", ALL)
def test_single_feature(name):
    X, y = data(d=1)
    check_certified(make(name).fit(X, y), X, y)


@pytest.mark.parametrize("name", CHEAP)
def test_constant_features_next_to_an_informative_one(name):
    X, y = data()
    Xc = np.column_stack([np.ones(24), X[:, 0], np.full(24, -3.0)])
    est = make(name).fit(Xc, y)
    check_certified(est, Xc, y)
    # constant features produce no stump (the bank has only feature 1)
    assert set(est.voters_.stump_features_.tolist()) == {1}


@pytest.mark.parametrize("name", CHEAP)
def test_all_constant_features_with_a_fixed_range(name):
    """Data-independent stumps do not look at the data: constant data is fine."""
    X, y = data()
    Xc = np.zeros_like(X)
    est = make(name, voters=StumpBank(n_thresholds=4, feature_range=(-1, 1))).fit(Xc, y)
    check_certified(est, Xc, y)
    np.testing.assert_array_equal(est.voters_.feature_range_, [[-1, 1]] * 3)


@pytest.mark.parametrize("name", CHEAP)
def test_all_constant_features_with_the_data_range_raise(name):
    X, y = data()
    with pytest.raises(ValueError, match="min == max"):
        make(name).fit(np.ones_like(X), y)


@pytest.mark.parametrize("name", ALL)
def test_huge_magnitudes(name):
    X, y = data()
    check_certified(make(name).fit(X * 1e300, y), X * 1e300, y)


@pytest.mark.parametrize("scale", [1e-300, 1e-310])
@pytest.mark.parametrize("name", CHEAP)
def test_tiny_magnitudes(name, scale):
    X, y = data()
    check_certified(make(name).fit(X * scale, y), X * scale, y)


@pytest.mark.parametrize("exponent", [900, -900])
@pytest.mark.parametrize("name", CHEAP)
def test_power_of_two_rescaling_gives_the_identical_certificate(name, exponent):
    """With the data-range grid, x -> 2**e x is exact: same votes, same everything."""
    X, y = data()
    ref = make(name).fit(X, y)
    est = make(name).fit(X * 2.0**exponent, y)
    assert est.bound_ == ref.bound_
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    np.testing.assert_array_equal(est.predict(X * 2.0**exponent), ref.predict(X))


@pytest.mark.parametrize("name", CHEAP)
def test_magnitudes_near_float_max(name):
    """Features spanning +-1.7e308: the threshold grid must stay finite (no overflow)."""
    X, y = data()
    Xh = X / np.abs(X).max() * 1.7e308
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = make(name).fit(Xh, y)
    assert np.all(np.isfinite(est.voters_.stump_thresholds_))
    check_certified(est, Xh, y)


@pytest.mark.parametrize("name", CHEAP)
def test_two_samples_and_contradicting_duplicates(name):
    X, y = data()
    # the default bank needs build rows that vary: two samples leave one, a clear error
    with pytest.raises(ValueError, match="no stump"):
        make(name).fit(X[:2], y[:2])
    # stumps on a given range use every row (a range taken from X here, for the test only)
    ranges = np.column_stack([X.min(axis=0), X.max(axis=0)])
    fixed = make(name, voters=StumpBank(feature_range=ranges)).fit(X[:2], y[:2])
    check_certified(fixed, X[:2], y[:2])
    Xd = np.vstack([X, X])
    yd = np.concatenate([y, 1 - y])  # every point with both labels: risk >= 1/2
    est = make(name, voters=StumpBank(feature_range=ranges)).fit(Xd, yd)
    check_certified(est, Xd, yd)
    # every vote errs on one copy of each point (a tie, counted as an error, on both)
    assert est.certificate_.train_error in (0.5, 1.0)
    assert est.bound_ >= 0.5
    est = make(name).fit(Xd, yd)  # default bank: certified on the rows that did not build it
    check_certified(est, Xd, yd)
    assert est.certificate_.m == (len(yd) - est.voters_.build_indices_.size,)


@pytest.mark.parametrize("name", MULTICLASS)
def test_multiclass_string_labels(name):
    X, y = _multiclass(60)
    labels = np.array(["red", "green", "blue"])[y]
    kwargs = {"voters": SplitForest(n_estimators=4)} if name != "Part-cat" else {}
    est = make(name, **kwargs).fit(X, labels)
    check_certified(est, X, labels)
    assert est.predict_proba(X).shape == (60, 3)


# -------------------------------------------------------------------------------------------
# B: bound functions
# -------------------------------------------------------------------------------------------
NAN = float("nan")
BOUND_ERRORS = [
    ("kl_inv_upper", (NAN, 0.1), "q"),
    ("kl_inv_upper", (1.5, 0.1), "q"),
    ("kl_inv_upper", (0.1, -0.1), "eps"),
    ("kl_inv_upper", (0.1, NAN), "eps"),
    ("kl_inv_upper", ("a", 0.1), "number"),
    ("kl_inv_lower", (-0.1, 0.1), "q"),
    ("kl", (0.1, NAN), "p"),
    ("seeger_epsilon", (1.0, 0, 0.05), "m"),
    ("seeger_epsilon", (1.0, 10, 0), "delta"),
    ("pac_bayes_upper", ([0.1, 0.2], [1, 1], [10, 10], 0.05, [0.5, 0.6]), "weights"),
    ("pac_bayes_upper", ([0.1, 0.2], [1, 1], [10, 10], 0.05, [1.5, -0.5]), "weights"),
    ("pac_bayes_upper", ([0.1, 0.2], [1, 1, 1], [10, 10], 0.05), "same length"),
    ("pac_bayes_upper", (0.1, 1.0, 10, 0.05, [0.5, 0.5]), "weights"),
    ("pac_bayes_upper", ([], [], [], 0.05), "1-D"),
    ("first_order_bound", (0.1, 1.0, 10, 1.5), "delta"),
    ("first_order_bound", (0.1, 1.0, NAN, 0.05), "m"),
    ("first_order_bound", (0.1, 1.0, math.inf, 0.05), "m"),
    ("first_order_bound", (0.1, 1.0, 0.5, 0.05), "m"),
    ("first_order_bound", (0.1, -1.0, 10, 0.05), "kl"),
    ("first_order_bound", (0.1, NAN, 10, 0.05), "kl"),
    ("second_order_bound", (1.1, 1.0, 10, 0.05), "tandem"),
    ("binomial_bound", (0.1, 1.0, 10, 0.05, 0), "n_draws"),
    ("binomial_bound", (0.1, 1.0, 10, 0.05, -1), "n_draws"),
    ("binomial_bound", (0.1, 1.0, 10, 0.05, 2.5), "n_draws"),
    ("binomial_bound", (0.1, 1.0, 10, 0.05, True), "n_draws"),
    ("binomial_bound", ([0.1, 0.1], [1, 1], [10, 10], 0.05, 3, [0.3, 0.7]), "1/2"),
    ("binomial_tail", (NAN, 3), "r"),
    ("binomial_tail", (0.1, 0), "n_draws"),
    ("cbound_bound", (0.1, 1.1, 1.0, 10, 0.05), "disagreement"),
    ("cbound_pb2", (0.1, 0.9, 2.0, 1000, 0.05), "inconsistent"),
    ("vc_bound", (0.1, 0, 10, 0.05), "n_voters"),
    ("vc_bound", (NAN, 1, 10, 0.05), "det_risk"),
    ("triple_bound", (0.1, 0.0, 1.5), "c_tilde"),
    ("partition_bound", (0.1, 1.0, 10, 0.05, -0.1, 0.5), "b_tilde"),
    ("cross_bound", (0.1, 0.1, 1, 1, 10, 10, 0.5, 0.05, "x"), "mode"),
    ("cross_bound", (0.1, 0.1, 1, 1, 10, 12, 0.5, 0.05, "paper"), "paper"),
    ("occam_bound", (0.1, 0, 10, 0.05), "n_voters"),
    ("margin_bound", (0.1, math.inf, 1.0, 1.0, 10, 0.05), "gamma"),
    ("margin_bound", (0.1, 0.1, 0.0, 1.0, 10, 0.05), "concentration"),
    (
        "single_hypothesis_triple_bound",
        (0.2, 0.1, 0.6, 2.0, 1000, 800, 200, (0.5, 0.5, 0.5)),
        "sum",
    ),
    (
        "single_hypothesis_triple_bound",
        (0.2, 0.1, 0.6, 2.0, 1000, 800, 100, (0.01,) * 3),
        "m0 \\+ m1",
    ),
]


@pytest.mark.parametrize(("func", "args", "match"), BOUND_ERRORS)
def test_bound_functions_reject_invalid_arguments(func, args, match):
    with pytest.raises(ValueError, match=match):
        getattr(bounds, func)(*args)


@pytest.mark.parametrize(
    ("func", "args", "name"),
    [
        ("kl_inv_upper", (None, 0.1), "q"),
        ("first_order_bound", (None, 1.0, 10, 0.05), "gibbs"),
        ("first_order_bound", (0.1, None, 10, 0.05), "kl"),
    ],
)
def test_bound_functions_reject_none_clearly(func, args, name):
    """None for a required number: an error that names the argument (not a torch internal)."""
    with pytest.raises((ValueError, TypeError), match=name):
        getattr(bounds, func)(*args)


def test_elementwise_bound_functions_accept_empty_arrays():
    for out in (
        bounds.kl_inv_upper([], 0.1),
        bounds.kl_inv_lower([], 0.1),
        bounds.binomial_tail([], 3),
        bounds.kl([], []),
    ):
        assert isinstance(out, np.ndarray) and out.shape == (0,)


@pytest.mark.parametrize(
    "call",
    [
        lambda: bounds.first_order_bound(0.1, math.inf, 100, 0.05),
        lambda: bounds.first_order_bound(0.0, 0.0, 1e300, 1.0),
        lambda: bounds.first_order_bound(0.0, 0.0, 100, 5e-324),
        lambda: bounds.second_order_bound(1.0, 0.0, 1, 1.0),
        lambda: bounds.binomial_bound(0.0, 1e300, 10, 0.05, 1000),
        lambda: bounds.cbound_bound(0.49, 0.4998, 0.0, 1e12, 0.05),
        lambda: bounds.cbound_bound(0.0, 0.0, math.inf, 1, 0.05),
        lambda: bounds.vc_bound(0.0, 10**9, 1, 1e-300),
        lambda: bounds.partition_bound(0.0, 0.0, 1e6, 0.05, 0.0, 5e-324),
        lambda: bounds.triple_bound(0.2, 0.5, 0.5),
        lambda: bounds.margin_bound(0.0, 0.0, 1e300, 0.0, 1, 1.0),
        lambda: bounds.occam_bound(0.0, 10**9, 1, 1.0),
        lambda: bounds.cross_bound(0.0, 1.0, 0.0, math.inf, 1, 10**9, 0.0, 0.05),
        lambda: bounds.pac_bayes_lower(1.0, math.inf, 1, 0.05),
    ],
)
def test_bound_functions_stay_in_range_at_valid_extremes(call):
    value = call()
    assert isinstance(value, float) and 0.0 <= value <= 1.0 and not math.isnan(value)


def test_bound_functions_return_tensors_for_tensors():
    q = torch.tensor([0.1, 0.2], dtype=torch.float32, requires_grad=True)
    out = bounds.first_order_bound(q.mean(), torch.tensor(1.0), 100, 0.05)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    out.backward()
    assert torch.isfinite(q.grad).all()


# -------------------------------------------------------------------------------------------
# Q: partition
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "match"),
    [
        ([0.1, NAN], "finite"),
        ([0.1, math.inf], "finite"),
        ([0.1, -0.2], "non-negative"),
        ([[0.1, 0.2]], "1-D"),
        (0.5, "1-D"),
        (["a", "b"], "real numbers"),
    ],
)
def test_certified_cstar_rejects_invalid_weights(a, match):
    with pytest.raises(ValueError, match=match):
        partition.certified_cstar(a)


def test_certified_cstar_rejects_complex_weights():
    """The imaginary part must not be dropped silently (numpy only warns)."""
    with pytest.raises(ValueError):
        partition.certified_cstar(np.array([0.4 + 1j, 0.35, 0.25]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bits": 3},
        {"bits": 31},
        {"bits": 24.0},
        {"bits": True},
        {"relax": 0.5},
        {"relax": -1e-3},
        {"relax": NAN},
        {"rtol": NAN},
        {"rtol": -1.0},
        {"max_exact_log2": -1},
    ],
)
def test_certified_cstar_rejects_invalid_options(kwargs):
    with pytest.raises(ValueError):
        partition.certified_cstar([0.5, 0.3, 0.2], **kwargs)


@pytest.mark.parametrize(
    ("a", "expected"),
    [
        ([], 0.0),
        ([0.0, 0.0], 0.0),
        ([True, True, False], 1.0),
        ([3, 1, 1, 1], 3.0),
        (np.array([2**62, 2**62, 1], dtype=np.int64), float(2**62 + 1)),
        (np.array([2**64 - 1, 2**64 - 1], dtype=np.uint64), float(2**64 - 1)),
        (pd.Series([0.4, 0.35, 0.25]), 0.6),
        (np.array([0.5, 0.25, 0.25], dtype=np.float16), 0.5),
        (["0.5", "0.5"], 0.5),
    ],
)
def test_certified_cstar_valid_unusual_inputs(a, expected):
    cert = partition.certified_cstar(a)
    assert cert.exact
    assert cert.lower == pytest.approx(expected, rel=1e-15)
    assert cert.lower <= cert.upper


@pytest.mark.parametrize(
    "call",
    [
        lambda: partition.categorical_partition_terms([0, 0]),
        lambda: partition.categorical_partition_terms([]),
        lambda: partition.dirichlet_partition_terms([1, -1]),
        lambda: partition.dirichlet_partition_terms([0.0]),
        lambda: partition.gaussian_partition_terms([1, 2, 3], 2),
        lambda: partition.gaussian_partition_terms([1, 2, 3], True),
        lambda: partition.gaussian_partition_terms([1, 2, 3], 3.0),
        lambda: partition.gaussian_partition_terms([1, NAN], 2),
        lambda: partition.dirichlet_split_c_tilde([1, 2], [1, 2], 1.5),
        lambda: partition.dirichlet_split_c_tilde([1, 2], [1, 2], NAN),
        lambda: partition.dirichlet_split_c_tilde([1, 2], [1, 2], True),
        lambda: partition.dirichlet_split_c_tilde([0, 0], [1, 2], 0.5),
        lambda: partition.dirichlet_split_c_tilde([1e300, 1e300], [1, 2], 0.5),
        lambda: partition.scaled_cstar_lower(partition.certified_cstar([1, 2]), -1.0),
        lambda: partition.scaled_cstar_lower(partition.certified_cstar([1, 2]), math.inf),
        lambda: partition.scaled_cstar_lower(partition.certified_cstar([1, 2], relax=0.1), 2.0),
    ],
)
def test_partition_family_terms_reject_invalid_arguments(call):
    with pytest.raises(ValueError):
        call()


def test_partition_terms_stay_in_range():
    for b, c in (
        partition.categorical_partition_terms([1e-300, 1e300]),
        partition.dirichlet_partition_terms([1e-300, 1e-300, 1e-300]),
        partition.gaussian_partition_terms([0.0, 0.0], 2),
        partition.gaussian_partition_terms([1.7e308, -1.7e308], 2),
        (0.0, partition.dirichlet_split_c_tilde([1e-8], [1e8, 1e8], 0.0)),
    ):
        assert 0.0 <= b <= c <= 1.0


# -------------------------------------------------------------------------------------------
# V: voters
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bank", "exc", "match"),
    [
        (StumpBank(n_thresholds=0), InvalidParameterError, "n_thresholds"),
        (StumpBank(feature_range=[1, 2, 3]), ValueError, "shape"),
        (StumpBank(feature_range=(2, -2)), ValueError, "min <= max"),
        (StumpBank(feature_range=(NAN, 2)), ValueError, "finite"),
        (StumpBank(feature_range=("a", "b")), ValueError, "numeric"),
        (StumpBank(feature_range=(1, 1)), ValueError, "min == max"),
        (SplitForest(n_estimators=1), ValueError, "n_estimators >= 2"),
        (SplitForest(split="bogus"), InvalidParameterError, "split"),
    ],
)
def test_voter_banks_reject_invalid_parameters(bank, exc, match):
    X, y = data()
    with pytest.raises(exc, match=match):
        bank.fit(X, y)


@pytest.mark.parametrize("bank", [StumpBank(), SplitForest(n_estimators=4)])
def test_voter_banks_reject_invalid_data(bank):
    X, y = data()
    with pytest.raises(ValueError, match="NaN"):
        bank.fit(_with(X, 0, 0, np.nan), y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        bank.fit(X, np.zeros_like(y))
    fitted = bank.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.votes(X[:, :2])
    with pytest.raises(ValueError, match="chunk_size"):
        fitted.votes(X, chunk_size=0)


def test_split_forest_needs_four_samples():
    X, y = data()
    with pytest.raises(ValueError, match="n_samples >= 4"):
        SplitForest(n_estimators=4).fit(X[:2], y[:2])


@pytest.mark.parametrize("where", ["fit", "votes", "prefit", "estimator"])
def test_tree_voters_refuse_values_beyond_float32(where):
    """scikit-learn trees compare float32 features: |x| > 3.4e38 is refused by the bank."""
    X, y = data()
    big = X * 1e300
    with pytest.raises(ValueError, match="beyond the float32 range"):
        if where == "fit":
            SplitForest(n_estimators=4).fit(big, y)
        elif where == "votes":
            SplitForest(n_estimators=4).fit(X, y).votes(big)
        elif where == "prefit":
            PrefitVoters([DecisionTreeClassifier().fit(X, y)]).fit(X, y).votes(big)
        else:
            make("FO-cat", voters=SplitForest(n_estimators=4)).fit(big, y)
    SplitForest(n_estimators=4).fit(X * 1e30, y).votes(X * 1e30)  # inside the range: fine


def test_stump_votes_sparse_equals_dense_and_empty_input():
    X, y = data()
    dense = StumpBank(random_state=0).fit(X, y)
    sparse = StumpBank(random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.votes(X), sparse.votes(sp.csr_matrix(X)))
    assert dense.votes(X[:0]).shape == (0, dense.n_voters_)


def test_stump_bank_range_near_float_max():
    """A fixed range (-1e308, 1e308): thresholds must be finite and inside the range."""
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        bank = StumpBank(feature_range=(-1e308, 1e308)).fit(X, y)
    assert np.all(np.isfinite(bank.thresholds_))
    assert np.all((bank.thresholds_ > -1e308) & (bank.thresholds_ < 1e308))


@pytest.mark.parametrize(
    ("make_voters", "fit_y", "exc", "match"),
    [
        (lambda X, y: PrefitVoters([]), None, ValueError, "at least one"),
        (lambda X, y: PrefitVoters([DecisionTreeClassifier()]), None, ValueError, "not fitted"),
        (
            lambda X, y: PrefitVoters(
                [DecisionTreeClassifier().fit(X, y), DecisionTreeClassifier().fit(X, y + 1)]
            ),
            None,
            ValueError,
            "disagree",
        ),
        (
            lambda X, y: PrefitVoters([DecisionTreeClassifier().fit(X, y)]),
            lambda y: y + 5,
            ValueError,
            "do not know",
        ),
        (lambda X, y: PrefitVoters(["tree"]), None, TypeError, "predict"),
    ],
)
def test_prefit_voters_reject_invalid_input(make_voters, fit_y, exc, match):
    X, y = data()
    voters = make_voters(X, y)
    with pytest.raises(exc, match=match):
        voters.fit(X, fit_y(y) if fit_y else y)


def test_prefit_voters_feature_mismatch():
    X, y = data()
    voters = PrefitVoters([DecisionTreeClassifier().fit(X, y)])
    with pytest.raises(ValueError, match="features"):
        voters.fit(X[:, :1], y)


def test_estimator_with_prefit_voters_and_unknown_label():
    X, y = data()
    voters = PrefitVoters([DecisionTreeClassifier(max_depth=1).fit(X, y)])
    with pytest.raises(ValueError, match="know"):
        skp.FirstOrderBoundClassifier(voters=voters, **FAST).fit(X, np.where(y == 1, 7, 0))


# -------------------------------------------------------------------------------------------
# M: model selection
# -------------------------------------------------------------------------------------------
def test_bound_selection_rejects_invalid_input():
    X, y = data()
    with pytest.raises(ValueError, match="at least one"):
        BoundSelectionClassifier([]).fit(X, y)
    with pytest.raises(InvalidParameterError, match="delta"):
        BoundSelectionClassifier([make("FO-cat")], delta=0).fit(X, y)
    with pytest.raises(ValueError, match="Valid posteriors"):
        BoundSelectionClassifier([make("Margin-dir", posterior="categorical")]).fit(X, y)


def test_bound_selection_splits_delta_and_keeps_the_minimum():
    X, y = data()
    cands = [make("FO-cat"), make("Occam-cat"), make("Part-cat")]
    sel = BoundSelectionClassifier(cands, delta=0.09).fit(X, y)
    for est in sel.estimators_:
        assert est.delta == pytest.approx(0.03)
        assert est.certificate_.delta == pytest.approx(0.03)
    assert sel.bound_ == min(e.bound_ for e in sel.estimators_)
    np.testing.assert_array_equal(sel.predict(X), sel.best_estimator_.predict(X))
