"""Certifying the model the user deploys: its own ``predict``, any classifier.

Parts (``--part``):

``forest``
    A ``RandomForestClassifier(n_estimators=50, max_depth=8)`` fitted on 50,000 rows of a
    20-feature ``make_classification`` task, certified by
    ``HoldOutBoundClassifier(voters=PrefitVoters(rf))`` on ``--held-out`` other rows
    (default 1,000,000), compared with its error on ``--fresh`` fresh rows (default 500,000):
    whether ``predict`` is identical to ``rf.predict`` there, and how far the bound is above
    the fresh error (delta = 0.05).
``models``
    For each model kind (random forest, gradient boosting, hist-gradient boosting, MLP, SVC
    without ``predict_proba``, a scaler + logistic regression pipeline), fitted on 4,000 rows
    of a 3-class task with string labels and certified on 20,000 others: bound, error on
    20,000 fresh rows, and the agreement of ``predict`` with ``model.predict`` there.

``stream``
    A logistic regression fitted on 5,000 rows, certified by ``partial_fit`` on a stream of
    1,000,000 rows (batches of 1,000, ``delta = 0.05``): at 10^3, 10^4, 10^5 and 10^6 rows,
    the time-uniform bound (at that point, and the running minimum ``bound_``) against the
    fixed-size exact binomial bound on the same rows, and the ratio of their excesses over
    the empirical error.
``coverage``
    At ``delta = 0.5``, where a violation would show: 60 hold-outs of 2,000 rows certified
    with ``per_class=True`` (violated when ``bound_`` or any class bound is below the truth),
    and 100 streams of 40 batches of 100 rows certified by ``partial_fit`` (violated when any
    bound reported along the stream is below the truth; overall only, and with
    ``per_class=True``). The truth: the model's error rates on 1,000,000 other rows. A
    statement at ``delta = 0.5`` may be violated in up to half of the runs.

Usage::

    python benchmarks/bench_deployed.py [--part forest models stream coverage]
        [--held-out 1000000] [--fresh 500000]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from skpacbayes import HoldOutBoundClassifier
from skpacbayes.voters import PrefitVoters


def _task(n_rows, n_classes, seed=0):
    return make_classification(
        n_samples=n_rows,
        n_features=20,
        n_informative=10,
        n_classes=n_classes,
        flip_y=0.05,
        random_state=seed,
    )


def forest(held_out, fresh, delta=0.05):
    """The forest target: predict identical to rf.predict, bound close to the fresh error."""
    n_fit = 50_000
    X, y = _task(n_fit + held_out + fresh, 2)
    X_fit, y_fit = X[:n_fit], y[:n_fit]
    X_bound, y_bound = X[n_fit : n_fit + held_out], y[n_fit : n_fit + held_out]
    X_fresh, y_fresh = X[n_fit + held_out :], y[n_fit + held_out :]
    start = time.perf_counter()
    rf = RandomForestClassifier(n_estimators=50, max_depth=8, random_state=0, n_jobs=-1)
    rf.fit(X_fit, y_fit)
    clf = HoldOutBoundClassifier(voters=PrefitVoters(rf), delta=delta, n_jobs=-1)
    clf.fit(X_bound, y_bound)
    pred = clf.predict(X_fresh)
    same = bool(np.array_equal(pred, rf.predict(X_fresh)))
    fresh_error = float(np.mean(pred != y_fresh))
    held_error = clf.certificate_.train_error
    print(f"forest: {held_out} held-out rows, {fresh} fresh rows, delta {delta}")
    print(f"  predict identical to rf.predict on the fresh rows: {same}")
    print(f"  held-out error {held_error:.5f}, bound {clf.bound_:.5f}", end="")
    print(f", fresh error {fresh_error:.5f}")
    print(
        f"  bound - fresh error = {100 * (clf.bound_ - fresh_error):.3f} point "
        f"({time.perf_counter() - start:.0f} s)"
    )


MODELS = {
    "random forest": lambda: RandomForestClassifier(n_estimators=100, random_state=0),
    "gradient boosting": lambda: GradientBoostingClassifier(n_estimators=50, random_state=0),
    "hist-gradient boosting": lambda: HistGradientBoostingClassifier(random_state=0),
    "MLP": lambda: MLPClassifier(hidden_layer_sizes=(64,), max_iter=300, random_state=0),
    "SVC (no predict_proba)": lambda: SVC(),
    "scaler + logistic": lambda: make_pipeline(StandardScaler(), LogisticRegression()),
}


def models(n_fit=4_000, n_bound=20_000, n_fresh=20_000, delta=0.05):
    """Bound, fresh error and agreement with model.predict, per model kind."""
    X, y = _task(n_fit + n_bound + n_fresh, 3, seed=1)
    y = np.array(["bird", "cat", "dog"])[y]
    parts = np.split(np.arange(len(y)), [n_fit, n_fit + n_bound])
    (X_fit, y_fit), (X_bound, y_bound), (X_fresh, y_fresh) = [(X[i], y[i]) for i in parts]
    print(f"\nmodels: 3 classes, string labels; fit {n_fit}, bound {n_bound}, fresh {n_fresh}")
    print(f"{'model':<24}{'bound':>8}{'fresh error':>13}{'agreement':>11}{'seconds':>9}")
    for name, make in MODELS.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence warnings of the MLP
            model = make().fit(X_fit, y_fit)
        clf = HoldOutBoundClassifier(voters=PrefitVoters(model), delta=delta).fit(X_bound, y_bound)
        pred = clf.predict(X_fresh)
        agreement = float(np.mean(pred == model.predict(X_fresh)))
        error = float(np.mean(pred != y_fresh))
        seconds = time.perf_counter() - start
        print(f"{name:<24}{clf.bound_:>8.4f}{error:>13.4f}{agreement:>11.4f}{seconds:>9.1f}")


def _stream_task(n_rows):
    """A 2-class task, a logistic regression fitted on its first 5,000 rows, the other rows."""
    X, y = make_classification(
        n_samples=5_000 + n_rows, n_features=10, n_informative=4, flip_y=0.1, random_state=2
    )
    model = LogisticRegression().fit(X[:5_000], y[:5_000])
    return model, X[5_000:], y[5_000:]


def stream(n_rows=1_000_000, batch=1_000, delta=0.05):
    """The streaming bound against the fixed-size exact bound at 1e3 .. 1e6 rows."""
    from skpacbayes.bounds import binomial_inv_upper

    model, X, y = _stream_task(n_rows)
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model), delta=delta)
    print(f"\nstream: logistic regression, batches of {batch} rows, delta {delta}")
    print(
        f"{'rows':>9}{'error':>9}{'fixed-size':>12}{'anytime now':>13}{'bound_':>9}"
        f"{'excess ratio':>14}"
    )
    checkpoints = {1_000, 10_000, 100_000, 1_000_000}
    for start in range(0, n_rows, batch):
        clf.partial_fit(X[start : start + batch], y[start : start + batch])
        n = clf.n_samples_seen_
        if n in checkpoints:
            errors = clf.certificate_.statistics["errors"][0]
            fixed = binomial_inv_upper(errors, n, delta)
            now = clf.certificate_.details["bound_now"]
            ratio = (now - errors / n) / (fixed - errors / n)
            print(
                f"{n:>9}{errors / n:>9.5f}{fixed:>12.5f}{now:>13.5f}{clf.bound_:>9.5f}"
                f"{ratio:>14.2f}"
            )


def coverage(delta=0.5, n_holdouts=60, holdout_rows=2_000, n_streams=100, n_batches=40, batch=100):
    """Coverage of the per-class and streaming statements at delta = 0.5."""
    n_truth = 1_000_000
    n_rows = n_truth + n_holdouts * holdout_rows + n_streams * n_batches * batch
    model, X, y = _stream_task(n_rows)
    wrong_truth = model.predict(X[:n_truth]) != y[:n_truth]
    truth = float(wrong_truth.mean())
    class_truth = np.array([wrong_truth[y[:n_truth] == k].mean() for k in (0, 1)])
    print(f"\ncoverage at delta {delta}: true error {truth:.4f}, per class {class_truth.round(4)}")
    X, y = X[n_truth:], y[n_truth:]
    violated = 0
    for i in range(n_holdouts):
        rows = slice(i * holdout_rows, (i + 1) * holdout_rows)
        clf = HoldOutBoundClassifier(voters=PrefitVoters(model), delta=delta, per_class=True)
        clf.fit(X[rows], y[rows])
        violated += bool(clf.bound_ < truth or np.any(clf.class_bounds_ < class_truth))
    print(
        f"  per class: {violated} of {n_holdouts} hold-outs of {holdout_rows} rows with a bound "
        f"below the truth (allowed: about {delta * n_holdouts:.0f})"
    )
    X, y = X[n_holdouts * holdout_rows :], y[n_holdouts * holdout_rows :]
    for per_class in (False, True):
        violated = 0
        for i in range(n_streams):
            clf = HoldOutBoundClassifier(
                voters=PrefitVoters(model), delta=delta, per_class=per_class
            )
            ever = False
            for b in range(n_batches):
                start = (i * n_batches + b) * batch
                clf.partial_fit(X[start : start + batch], y[start : start + batch])
                ever |= clf.bound_ < truth
                if per_class:
                    ever |= bool(np.any(clf.class_bounds_ < class_truth))
            violated += ever
        what = "overall and per class" if per_class else "overall"
        print(
            f"  streaming ({what}): {violated} of {n_streams} streams of {n_batches} batches "
            f"of {batch} rows ever reported a bound below the truth (allowed: about "
            f"{delta * n_streams:.0f})"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", default=["forest", "models", "stream", "coverage"])
    parser.add_argument("--held-out", type=int, default=1_000_000)
    parser.add_argument("--fresh", type=int, default=500_000)
    args = parser.parse_args()
    if "forest" in args.part:
        forest(args.held_out, args.fresh)
    if "models" in args.part:
        models()
    if "stream" in args.part:
        stream()
    if "coverage" in args.part:
        coverage()


if __name__ == "__main__":
    main()
