"""Fit times with one thread and with ``n_jobs`` threads, before and after, side by side.

Usage::

    python benchmarks/bench_threads.py --before-commit 5b6e4b1 [--n-jobs 2] [--repeats 3]
        [--data-home ../shared/datasets]

For the first-order Dirichlet and Gaussian fits of adult (a stratified 80/20 split,
``random_state=0``, default stumps) and of 200,000 rows of the synthetic task of
``bench_speed.py`` (``max_epochs=30``), and for the first-order and tandem Categorical fits of
those 200,000 rows (ten thresholds per feature, on the counts): the fit time with
``n_jobs=None`` (one thread) and with ``n_jobs`` threads, of the code at ``--before-commit``
(run from a git worktree of that commit, created next to the repository if absent) and of
the working tree, and the bounds. Each side runs in its own process, which imports torch
and fits once on a tiny task before timing; times are medians over the repeats.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_speed import _data as training_split
from bench_speed import synthetic

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
FITS = [
    ("adult", "FirstOrderBoundClassifier", "dirichlet"),
    ("adult", "FirstOrderBoundClassifier", "gaussian"),
    ("synthetic", "FirstOrderBoundClassifier", "dirichlet"),
    ("synthetic", "FirstOrderBoundClassifier", "gaussian"),
    ("synthetic", "FirstOrderBoundClassifier", "categorical"),
    ("synthetic", "SecondOrderBoundClassifier", "categorical"),
]


def _data(name, data_home):
    if name == "synthetic":
        return synthetic(200_000)
    X_train, _, y_train, _ = training_split(name, data_home)
    return X_train, y_train


def _worker(args):
    import skpacbayes
    from skpacbayes.voters import StumpBank

    n_jobs = None if args.n_jobs == 0 else args.n_jobs
    X, y = _data("synthetic", None)
    skpacbayes.FirstOrderBoundClassifier(posterior="gaussian", n_jobs=n_jobs).fit(X[:300], y[:300])
    out = {}
    for name, estimator, posterior in FITS:
        X, y = _data(name, args.data_home)
        params = {"posterior": posterior, "random_state": 0, "n_jobs": n_jobs}
        if name == "synthetic":
            if posterior == "categorical":
                params["voters"] = StumpBank(n_thresholds=10)
            else:
                params["max_epochs"] = 30
        times = []
        for _ in range(args.repeats):
            est = getattr(skpacbayes, estimator)(**params)
            start = time.perf_counter()
            est.fit(X, y)
            times.append(time.perf_counter() - start)
        out[f"{name} {estimator} {posterior}"] = (statistics.median(times), float(est.bound_))
    print(json.dumps(out))


def _side(code_root, n_jobs, args):
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    command = [sys.executable, str(HERE), "--worker", "--n-jobs", str(n_jobs)]
    command += ["--repeats", str(args.repeats), "--data-home", str(args.data_home)]
    done = subprocess.run(command, env=env, cwd=code_root, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-commit", required=False)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-home", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--worker", action="store_true")
    args = parser.parse_args()
    if args.worker:
        return _worker(args)
    sides = {"after": ROOT}
    if args.before_commit:
        tree = ROOT.parent / f"skpacbayes-before-{args.before_commit}"
        if not tree.exists():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", str(tree), args.before_commit],
                check=True,
            )
        sides = {"before": tree, "after": ROOT}
    results = {
        (side, jobs): _side(root, jobs, args)
        for side, root in sides.items()
        for jobs in (0, args.n_jobs)
    }
    load = os.getloadavg()[0]
    print(
        f"# python benchmarks/bench_threads.py --before-commit {args.before_commit} "
        f"--n-jobs {args.n_jobs} --repeats {args.repeats}"
    )
    print(f"# medians of {args.repeats} fits; {os.cpu_count()} cores, load average {load:.2f}")
    head = ["fit"]
    for side in sides:
        head += [f"{side} 1 thread s", f"{side} n_jobs={args.n_jobs} s"]
    head += ["bounds equal"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in results[("after", 0)]:
        cells = [key]
        bounds = set()
        for side in sides:
            for jobs in (0, args.n_jobs):
                seconds, bound = results[(side, jobs)][key]
                cells.append(f"{seconds:.2f}")
                bounds.add(round(bound, 6))
        cells.append("yes" if len(bounds) == 1 else " / ".join(f"{b:.6f}" for b in sorted(bounds)))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
