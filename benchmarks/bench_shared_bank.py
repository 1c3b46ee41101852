"""A selection whose candidates grow the same bank: this checkout against another, side by side.

Usage::

    python benchmarks/bench_shared_bank.py --compare-with PATH [--dataset mnist]
        [--n-estimators 200] [--data-home ../shared/datasets]

The selection is the reproduction's Gaussian vote (``skpacbayes.benchmark``): eight
``FirstOrderBoundClassifier(posterior="gaussian")`` candidates (prior scale 1, 2, 4, 8;
untrained and 20 L-BFGS iterations) in a ``BoundSelectionClassifier``, each given the same
UNFITTED ``SplitForest(n_estimators=...)`` and ``random_state=0``, fitted on an 80/20
stratified split (``random_state=0``) of the data set. Prints the fit seconds, the bound, the
test error and how many distinct fitted banks the candidates hold, for this checkout and
for the ``skpacbayes`` package under ``PATH`` (``--compare-with``: this script run in a
subprocess with ``PYTHONPATH=PATH``, e.g. a git worktree of the previous commit), one after
the other on the same machine.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _run(args):
    from sklearn.model_selection import train_test_split

    from skpacbayes.benchmark._methods import _gaussian_vote
    from skpacbayes.datasets import load_dataset
    from skpacbayes.voters import SplitForest

    X, y = load_dataset(args.dataset, data_home=args.data_home, return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    selection = _gaussian_vote(SplitForest(n_estimators=args.n_estimators), 0.05, 20, 0)
    start = time.perf_counter()
    selection.fit(X_tr, y_tr)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "bound": float(selection.bound_),
        "test": float(np.mean(selection.predict(X_te) != y_te)),
        "banks": len({id(est.voters_) for est in selection.estimators_}),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare-with", default=None)
    parser.add_argument("--dataset", default="mnist")
    parser.add_argument("--n-estimators", type=int, default=200)
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_run(args)))
        return
    rows = {}
    if args.compare_with:
        command = [sys.executable, os.path.abspath(__file__), "--worker"]
        command += ["--dataset", args.dataset, "--n-estimators", str(args.n_estimators)]
        command += ["--data-home", args.data_home]
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.compare_with)}
        out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        rows["before"] = json.loads(out.stdout.strip().splitlines()[-1])
    rows["after"] = _run(args)
    print(
        f"{args.dataset}: BoundSelectionClassifier of 8 Gaussian candidates on one unfitted "
        f"SplitForest(n_estimators={args.n_estimators}), random_state=0"
    )
    if args.compare_with:
        print(f"before: skpacbayes from {os.path.abspath(args.compare_with)}")
    print("| run | fit s | bound | test | fitted banks |")
    print("|---|---|---|---|---|")
    for name, row in rows.items():
        print(
            f"| {name} | {row['seconds']:.1f} | {row['bound']:.10f} | {row['test']:.4f} "
            f"| {row['banks']} |"
        )


if __name__ == "__main__":
    main()
