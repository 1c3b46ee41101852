"""Every number a grid of fits reports, to compare two commits bit for bit.

Usage::

    python benchmarks/fingerprint.py write OUT.json [--pickles DIR] [--only NAME ...]
    python benchmarks/fingerprint.py compare BEFORE.json AFTER.json
    python benchmarks/fingerprint.py unpickle DIR

``write`` fits a fixed grid of estimators (every bound and posterior family on stumps, split
and out-of-bag voters, the Adam and sampled row paths, the hold-out protocols, a stream,
CertifiedVote, BoundSelection, dask arrays) and records, per fit, the bound, every field of
the certificate, the fitted attributes and hashes of ``predict``, ``predict_proba`` and
``decision_function`` on held-out rows, each float as its ``repr`` (exact). ``--pickles``
also writes each fitted estimator and its predictions there, which ``unpickle`` (run by a
later commit) loads and checks. ``compare`` prints every entry that differs; run the
"before" side from a git worktree of the previous commit (``PYTHONPATH`` set to it).
"""

import argparse
import hashlib
import json
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np


def _digest(array):
    array = np.ascontiguousarray(np.asarray(array))
    if array.dtype == object:
        return hashlib.sha256(repr(array.tolist()).encode()).hexdigest()[:16]
    return hashlib.sha256(array.tobytes() + str(array.dtype).encode()).hexdigest()[:16]


def _plain(value):
    """JSON-able exact form of a fitted value."""
    if isinstance(value, float | np.floating):
        return repr(float(value))
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        if len(value) > 50:
            return "digest:" + _digest(np.asarray(value, dtype=object))
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.size <= 20 and value.dtype != object:
            return [_plain(v) for v in value.ravel().tolist()] + [str(value.shape)]
        return "digest:" + _digest(value)
    return type(value).__name__


def _certificate(cert):
    from dataclasses import fields

    return {f.name: _plain(getattr(cert, f.name)) for f in fields(cert)}


def _record(est, X_test):
    out = {"bound_": _plain(est.bound_), "certificate_": _certificate(est.certificate_)}
    for name in (
        "weights_",
        "posterior_params_",
        "mixture_weights_",
        "deployed_",
        "n_iter_",
        "solver_",
        "class_bounds_",
        "validation_fraction_",
        "validation_indices_",
        "half_",
        "best_index_",
        "n_samples_seen_",
        "classes_",
        "history_",
    ):
        if hasattr(est, name):
            out[name] = _plain(getattr(est, name))
    if hasattr(est, "candidates_"):
        out["candidates_"] = [
            {k: _plain(v) for k, v in c.items() if k != "fit_time"} for c in est.candidates_
        ]
    X_eval = X_test.compute() if hasattr(X_test, "compute") else X_test
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(est, method):
            try:
                result = getattr(est, method)(X_eval)
            except Exception as exc:  # noqa: BLE001 - the fingerprint records the failure
                out[method] = f"raises {type(exc).__name__}"
            else:
                result = result.compute() if hasattr(result, "compute") else result
                out[method] = _digest(result)
    try:
        out["recompute_bound"] = _plain(est.recompute_bound(est.delta / 2))
    except Exception as exc:  # noqa: BLE001
        out["recompute_bound"] = f"raises {type(exc).__name__}"
    return out


def _data():
    from sklearn.datasets import load_breast_cancer, load_wine, make_classification
    from sklearn.model_selection import train_test_split

    out = {}
    X, y = load_breast_cancer(return_X_y=True)
    out["cancer"] = train_test_split(X, y, test_size=0.3, random_state=0)
    X, y = load_wine(return_X_y=True)
    out["wine"] = train_test_split(X, y, test_size=0.3, random_state=0)
    X, y = make_classification(
        n_samples=3000, n_features=12, n_informative=6, n_classes=2, flip_y=0.1, random_state=3
    )
    out["synth"] = train_test_split(X, y, test_size=0.3, random_state=0)
    X, y = make_classification(
        n_samples=1200, n_features=10, n_informative=6, n_classes=3, random_state=4
    )
    out["synth3"] = train_test_split(X, y, test_size=0.3, random_state=0)
    return out


def _cases():
    """(name, data set, estimator factory, fit kind) of the grid."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    import skpacbayes as sk
    from skpacbayes.model_selection import BoundSelectionClassifier
    from skpacbayes.voters import OutOfBagVoters, PrefitVoters, SplitForest, StumpBank

    cases = []
    binary = {
        "FO": sk.FirstOrderBoundClassifier,
        "SO": sk.SecondOrderBoundClassifier,
        "Bin": sk.BinomialBoundClassifier,
        "CBound": sk.CBoundClassifier,
        "VC": sk.VCDimBoundClassifier,
        "Partition": sk.PartitionBoundClassifier,
        "Occam": sk.OccamBoundClassifier,
    }
    families = ("categorical", "dirichlet", "gaussian")
    for name, cls in binary.items():
        for fam in families:
            if name == "Occam" and fam != "categorical":
                continue
            cases.append(
                (
                    f"{name}-{fam}-stumps",
                    "cancer",
                    lambda cls=cls, fam=fam: cls(
                        posterior=fam, voters=StumpBank(random_state=0), random_state=0,
                        max_epochs=30,
                    ),
                    "fit",
                )
            )  # fmt: skip
    cases.append(
        (
            "Margin-dirichlet-stumps",
            "cancer",
            lambda: sk.MarginBoundClassifier(
                voters=StumpBank(random_state=0), random_state=0, max_epochs=30
            ),
            "fit",
        )
    )
    for name in ("FO", "SO", "Bin", "Partition"):
        for fam in families:
            cls = binary[name]
            cases.append(
                (
                    f"{name}-{fam}-split",
                    "wine",
                    lambda cls=cls, fam=fam: cls(
                        posterior=fam, voters=SplitForest(n_estimators=20, random_state=0),
                        random_state=0, max_epochs=30,
                    ),
                    "fit",
                )
            )  # fmt: skip
    cases.append(
        (
            "VC-categorical-single",
            "wine",
            lambda: sk.VCDimBoundClassifier(
                voters=SplitForest(n_estimators=20, split="single", random_state=0),
                random_state=0, max_epochs=30,
            ),
            "fit",
        )
    )  # fmt: skip
    for name in ("FO", "SO"):
        cases.append(
            (
                f"{name}-oob",
                "synth3",
                lambda cls=binary[name]: cls(
                    voters=OutOfBagVoters(n_estimators=20, random_state=0), random_state=0
                ),
                "fit",
            )
        )
    cases.append(
        (
            "FO-dirichlet-adam",
            "synth",
            lambda: sk.FirstOrderBoundClassifier(
                posterior="dirichlet", solver="adam", max_epochs=5, random_state=0
            ),
            "fit",
        )
    )
    cases.append(
        (
            "FO-gaussian-sampled",
            "synth",
            lambda: sk.FirstOrderBoundClassifier(
                posterior="gaussian", max_train_rows=500, max_epochs=30, random_state=0
            ),
            "fit",
        )
    )
    cases.append(
        (
            "SO-dirichlet-prior",
            "synth",
            lambda: sk.SecondOrderBoundClassifier(
                posterior="dirichlet", prior=2.0, max_epochs=30, random_state=0
            ),
            "fit",
        )
    )
    cases.append(
        (
            "Partition-gaussian-solver-none",
            "synth",
            lambda: sk.PartitionBoundClassifier(posterior="gaussian", solver="none",
                                                random_state=0),
            "fit",
        )
    )  # fmt: skip
    # the hold-out line
    forest = RandomForestClassifier(n_estimators=15)
    cases += [
        ("HoldOut-default", "synth", lambda: sk.HoldOutBoundClassifier(random_state=0), "fit"),
        (
            "HoldOut-fractions-perclass",
            "synth3",
            lambda: sk.HoldOutBoundClassifier(
                voters=forest, validation_fraction=(0.2, 0.4), per_class=True, random_state=1
            ),
            "fit",
        ),
        (
            "HoldOut-halves",
            "wine",
            lambda: sk.HoldOutBoundClassifier(
                voters=SplitForest(n_estimators=20), validation_fraction=None, random_state=0
            ),
            "fit",
        ),
        (
            "HoldOut-stumps-every-row",
            "cancer",
            lambda: sk.HoldOutBoundClassifier(voters=StumpBank(random_state=0), random_state=0),
            "fit",
        ),
        (
            "HoldOut-train-size",
            "synth",
            lambda: sk.HoldOutBoundClassifier(voters=forest, train_size=800, random_state=2),
            "fit",
        ),
        ("HoldOut-prefit", "synth", "prefit", "fit"),
        ("HoldOut-prefit-perclass", "synth3", "prefit-perclass", "fit"),
        ("HoldOut-prefit-list", "synth", "prefit-list", "fit"),
        ("HoldOut-stream", "synth", "prefit", "stream"),
        ("HoldOut-stream-perclass", "synth3", "prefit-perclass", "stream"),
        (
            "CertifiedVote-default",
            "cancer",
            lambda: sk.CertifiedVoteClassifier(random_state=0),
            "fit",
        ),
        (
            "CertifiedVote-forest-accurate",
            "synth",
            lambda: sk.CertifiedVoteClassifier(
                voters=RandomForestClassifier(n_estimators=10),
                selection="most_accurate",
                random_state=0,
            ),
            "fit",
        ),
        (
            "CertifiedVote-perclass-tolerance",
            "synth3",
            lambda: sk.CertifiedVoteClassifier(
                voters=RandomForestClassifier(n_estimators=10),
                per_class=True,
                selection=0.1,
                random_state=np.random.RandomState(5),
            ),
            "fit",
        ),
        (
            "CertifiedVote-train-size",
            "synth",
            lambda: sk.CertifiedVoteClassifier(
                voters=RandomForestClassifier(n_estimators=10), train_size=900, random_state=0
            ),
            "fit",
        ),
        (
            "CertifiedVote-small",
            "wine",
            lambda: sk.CertifiedVoteClassifier(random_state=3),
            "fit",
        ),
        (
            "BoundSelection",
            "cancer",
            lambda: BoundSelectionClassifier(
                [
                    sk.FirstOrderBoundClassifier(posterior=f, random_state=0, max_epochs=20)
                    for f in ("categorical", "gaussian")
                ]
                + [sk.OccamBoundClassifier(random_state=0)]
            ),
            "fit",
        ),
    ]
    # dask arrays (the synchronous scheduler: the same numbers as a cluster)
    cases += [
        (
            "dask-FO-categorical",
            "synth",
            lambda: sk.FirstOrderBoundClassifier(voters=StumpBank(random_state=0),
                                                 random_state=0),
            "dask",
        ),
        (
            "dask-FO-dirichlet",
            "synth",
            lambda: sk.FirstOrderBoundClassifier(
                voters=StumpBank(random_state=0), posterior="dirichlet", max_train_rows=700,
                max_epochs=20, random_state=0,
            ),
            "dask",
        ),
        ("dask-HoldOut-prefit", "synth", "prefit", "dask"),
        (
            "dask-HoldOut-train-size",
            "synth",
            lambda: sk.HoldOutBoundClassifier(voters=forest, train_size=700, random_state=0),
            "dask",
        ),
        (
            "dask-CertifiedVote",
            "synth",
            lambda: sk.CertifiedVoteClassifier(
                voters=RandomForestClassifier(n_estimators=8), random_state=0
            ),
            "dask",
        ),
        ("dask-HoldOut-stream", "synth3", "prefit-perclass", "dask-stream"),
    ]  # fmt: skip

    def prefit(kind, X, y):
        half = X.shape[0] // 3
        model = LogisticRegression(max_iter=500).fit(X[:half], y[:half])
        if kind == "prefit-list":
            other = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[:half], y[:half])
            return sk.HoldOutBoundClassifier(voters=PrefitVoters([model, other, model])), half
        return sk.HoldOutBoundClassifier(
            voters=PrefitVoters(model), per_class=kind.endswith("perclass")
        ), half

    return cases, prefit


def write(out, pickles=None, only=None):
    import dask
    import dask.array as da

    data = _data()
    cases, prefit = _cases()
    results = {}
    if pickles is not None:
        Path(pickles).mkdir(parents=True, exist_ok=True)
    for name, dataset, factory, kind in cases:
        if only and name not in only:
            continue
        X_train, X_test, y_train, y_test = data[dataset]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with dask.config.set(scheduler="synchronous"):
                if isinstance(factory, str):
                    est, used = prefit(factory, X_train, y_train)
                    X_fit, y_fit = X_train[used:], y_train[used:]
                else:
                    est, X_fit, y_fit = factory(), X_train, y_train
                if kind in ("dask", "dask-stream"):
                    X_fit = da.from_array(X_fit, chunks=(300, X_fit.shape[1]))
                    y_fit = da.from_array(y_fit, chunks=300)
                if kind in ("stream", "dask-stream"):
                    bounds = []
                    for start in range(0, X_fit.shape[0], 250):
                        est.partial_fit(X_fit[start : start + 250], y_fit[start : start + 250])
                        bounds.append(est.bound_)
                    record = _record(est, X_test)
                    record["stream_bounds"] = _plain(bounds)
                else:
                    try:
                        est.fit(X_fit, y_fit)
                    except ValueError as exc:  # a refused combination: its message
                        results[name] = {"refused": str(exc)}
                        print(f"{name}: refused", flush=True)
                        continue
                    record = _record(est, X_test)
        results[name] = record
        print(f"{name}: bound {est.bound_!r}", flush=True)
        if pickles is not None:
            with open(Path(pickles) / f"{name}.pkl", "wb") as f:
                pickle.dump({"estimator": est, "X": X_test, "record": record}, f)
    Path(out).write_text(json.dumps(results, indent=1, sort_keys=True))


def _diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only {'after' if k not in a else 'before'}")
            else:
                _diff(a[k], b[k], f"{path}.{k}", out)
    elif a != b:
        out.append(f"{path}: {a!r} -> {b!r}")


def compare(before, after):
    a = json.loads(Path(before).read_text())
    b = json.loads(Path(after).read_text())
    out = []
    _diff(a, b, "", out)
    for line in out:
        print(line)
    print(f"{len(a)} fits before, {len(b)} after; {len(out)} differences")
    return 1 if out else 0


def unpickle(directory):
    """Load every pickled fit of ``directory`` and check its predictions and bound."""
    failures = 0
    for path in sorted(Path(directory).glob("*.pkl")):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with open(path, "rb") as f:
                    saved = pickle.load(f)
                record = _record(saved["estimator"], saved["X"])
        except Exception as exc:  # noqa: BLE001 - reported
            print(f"{path.stem}: {type(exc).__name__}: {exc}")
            failures += 1
            continue
        diffs = []
        expected = {k: v for k, v in saved["record"].items() if k != "stream_bounds"}
        _diff(expected, record, "", diffs)
        print(f"{path.stem}: {'same' if not diffs else '; '.join(diffs)}")
        failures += bool(diffs)
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("out")
    w.add_argument("--pickles", default=None)
    w.add_argument("--only", nargs="+", default=None)
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    u = sub.add_parser("unpickle")
    u.add_argument("directory")
    args = parser.parse_args()
    if args.command == "write":
        write(args.out, args.pickles, args.only)
        return 0
    if args.command == "compare":
        return compare(args.before, args.after)
    return unpickle(args.directory)


if __name__ == "__main__":
    sys.exit(main())
