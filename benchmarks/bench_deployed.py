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

Usage::

    python benchmarks/bench_deployed.py [--part forest models] [--held-out 1000000]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", default=["forest", "models"])
    parser.add_argument("--held-out", type=int, default=1_000_000)
    parser.add_argument("--fresh", type=int, default=500_000)
    args = parser.parse_args()
    if "forest" in args.part:
        forest(args.held_out, args.fresh)
    if "models" in args.part:
        models()


if __name__ == "__main__":
    main()
