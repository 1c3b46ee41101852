"""Fit time and peak memory per estimator (issue: the estimators).

Usage::

    python benchmarks/bench_fit.py --data-home ../shared/datasets [--large] [--methods FO Part]

Prints, for the adult dataset (80/20 stratified split, 2460 stumps), the fit time,
peak resident memory growth, bound and test error of each (method, posterior) pair;
with ``--large`` also a 1,000,000 x 20 synthetic binary task (400 stumps).
"""

import argparse
import resource
import time

import numpy as np
from sklearn.model_selection import train_test_split

from skpacbayes.benchmark import METHODS
from skpacbayes.datasets import load_dataset


def _peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(name, X, y, pairs, max_epochs):
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    print(f"\n{name}: {X_tr.shape[0]} x {X_tr.shape[1]} training rows")
    print(
        f"{'method':8s} {'posterior':12s} {'fit s':>8s} {'peak MiB':>9s} {'bound':>7s} {'test':>7s}"
    )
    for method, posterior in pairs:
        est = METHODS[method](posterior=posterior, max_epochs=max_epochs, random_state=0)
        start = time.perf_counter()
        est.fit(X_tr, y_tr)
        elapsed = time.perf_counter() - start
        test = np.mean(est.predict(X_te) != y_te)
        print(
            f"{method:8s} {posterior:12s} {elapsed:8.1f} {_peak_mib():9.0f} "
            f"{est.bound_:7.4f} {test:7.4f}",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--max-epochs", type=int, default=100)
    parser.add_argument("--methods", nargs="+", default=["FO"])
    parser.add_argument("--posteriors", nargs="+", default=["categorical"])
    args = parser.parse_args()
    pairs = [(m, p) for m in args.methods for p in args.posteriors]
    X, y = load_dataset("adult", data_home=args.data_home, return_X_y=True)
    run("adult", X, y, pairs, args.max_epochs)
    if args.large:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(1_250_000, 20)).astype(np.float32)
        y = (X[:, :5].sum(axis=1) + 0.5 * rng.normal(size=X.shape[0]) > 0).astype(int)
        run("synthetic 1e6 x 20", X, y, pairs, args.max_epochs)


if __name__ == "__main__":
    main()
