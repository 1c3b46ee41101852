"""In memory: training the per-row families on every row against a sample of them.

The task of ``bench_device.py`` (``N_ROWS`` x 20 Gaussian features, 400 stumps, 80/20
stratified split, ``random_state=0``), fitted by ``FirstOrderBoundClassifier`` with each
posterior, side by side: ``max_train_rows=None`` (every training row: the fit before
``max_train_rows`` existed) and ``max_train_rows=SIZE`` for each ``--sizes`` (the posterior
trained on that many rows, certified on every row in float64). Prints the fit seconds, the
bound, its difference from the every-row fit's, and the error on the test rows.

Usage::

    python benchmarks/bench_train_sample.py [N_ROWS] [--posteriors dirichlet gaussian]
        [--sizes 131072 262144] [--repeats 1] [--out FILE]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
from sklearn.model_selection import train_test_split

from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.voters import StumpBank

sys.path.insert(0, os.path.dirname(__file__))
from bench_device import _synthetic  # noqa: E402
from provenance import head_commit  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="?", type=float, default=1e6)
    parser.add_argument("--posteriors", nargs="+", default=["dirichlet", "gaussian"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[131072, 262144])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    X, y = _synthetic(int(args.rows))
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    lines = [
        f"# command: python benchmarks/bench_train_sample.py {' '.join(sys.argv[1:])}   "
        f"(commit {head_commit()})",
        f"synthetic {int(args.rows)}x20, {X_tr.shape[0]} training rows, 400 stumps, "
        f"FirstOrderBoundClassifier(random_state=0); median of {args.repeats} fit(s); "
        f"load average before: {os.getloadavg()[0]:.2f}",
        "| posterior | max_train_rows | fit s | bound | bound - every-row bound | "
        "test error | certified rows |",
        "|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for posterior in args.posteriors:
        reference = None
        for size in [None, *args.sizes]:
            times = []
            for _ in range(args.repeats):
                est = FirstOrderBoundClassifier(
                    voters=StumpBank(n_thresholds=10),
                    posterior=posterior,
                    random_state=0,
                    max_train_rows=size,
                )
                start = time.perf_counter()
                est.fit(X_tr, y_tr)
                times.append(time.perf_counter() - start)
            reference = est.bound_ if size is None else reference
            error = float(np.mean(est.predict(X_te) != y_te))
            line = (
                f"| {posterior} | {size} | {statistics.median(times):.1f} | {est.bound_:.6f} | "
                f"{est.bound_ - reference:+.6f} | {error:.4f} | {est.certificate_.m[0]} |"
            )
            lines.append(line)
            print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
