"""check_estimator CPU time: CertifiedVoteClassifier() against FirstOrderBoundClassifier().

Usage::

    python benchmarks/bench_check_estimator.py [--repeats 3] [--before /tmp/before]

CPU seconds (``time.process_time()``, every thread of the process) of
``sklearn.utils.estimator_checks.check_estimator`` on each estimator with its defaults, after
one warm-up run, ``--repeats`` times; printed: the median of each and the ratio of the medians
(CertifiedVote over FirstOrder). ``--before`` runs the same measurement in a subprocess with
``PYTHONPATH`` at an earlier checkout (e.g. a ``git worktree`` of the previous commit) and
prints it side by side.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np


def measure(repeats):
    """Median CPU seconds of check_estimator on each estimator, and their ratio."""
    from sklearn.utils.estimator_checks import check_estimator

    from skpacbayes import CertifiedVoteClassifier, FirstOrderBoundClassifier

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls in (
            ("FirstOrder", FirstOrderBoundClassifier),
            ("CertifiedVote", CertifiedVoteClassifier),
        ):
            check_estimator(cls())  # warm-up: imports and first calls
            times = []
            for _ in range(repeats):
                start = time.process_time()
                check_estimator(cls())
                times.append(time.process_time() - start)
            out[name] = float(np.median(times))
    out["ratio"] = out["CertifiedVote"] / out["FirstOrder"]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", default=None, help="checkout to measure as 'before'")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.repeats)))
        return
    columns = {}
    if args.before:
        env = {**os.environ, "PYTHONPATH": args.before}
        command = [sys.executable, __file__, "--json", "--repeats", str(args.repeats)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        columns["before"] = json.loads(done.stdout.strip().splitlines()[-1])
    columns["after"] = measure(args.repeats)
    print(f"check_estimator CPU seconds, median of {args.repeats}")
    print("| | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for key in ("FirstOrder", "CertifiedVote", "ratio"):
        print(f"| {key} | " + " | ".join(f"{c[key]:.2f}" for c in columns.values()) + " |")


if __name__ == "__main__":
    main()
