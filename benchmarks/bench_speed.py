"""Fit time against the physical floor (one pass over the votes), before and after, side by side.

Usage::

    python benchmarks/bench_speed.py --before-commit 7d9f53c [--datasets breast_cancer adult]
        [--large] [--repeats 3] [--repeats-before 1] [--data-home ../shared/datasets]

For each data set (a stratified 80/20 split, ``random_state=0``) and every valid pair of bound
and posterior of a binary task, with the default voters (``StumpBank()``) and defaults
otherwise: the time to build the default stump bank and compute its vote matrix on the
training rows (the floor: every fit computes it once), the fit time of the code at
``--before-commit`` (run from a git worktree of that commit, created next to the repository
if absent) and of the working tree's code, the fit time over the vote-matrix time, and both
certified bounds and test errors, and whether the deployed vote predicts one class on every
test row (the constant, majority-class vote). ``--seeds k`` repeats every data set on the
splits (and ``random_state``) 0 to k - 1. ``--large`` adds the 1,000,000 x 20 synthetic task
(400 stumps) with the first-order and tandem bounds of the Categorical posterior;
``--grid-search`` times ``GridSearchCV`` over the three families of the first-order bound on
adult (5 folds), after and before.

Each side runs in its own process (``python bench_speed.py --worker``) that imports torch
and fits once on a tiny task before timing, so a one-time ``import torch`` is excluded; times
are medians over the repeats.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from provenance import head_commit

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]

#: bound name -> estimator class name, in the order printed
ESTIMATORS = {
    "FO": "FirstOrderBoundClassifier",
    "SO": "SecondOrderBoundClassifier",
    "CBound": "CBoundClassifier",
    "Partition": "PartitionBoundClassifier",
    "Occam": "OccamBoundClassifier",
    "Bin": "BinomialBoundClassifier",
    "VC": "VCDimBoundClassifier",
    "Margin": "MarginBoundClassifier",
}
POSTERIORS = ("categorical", "dirichlet", "gaussian")


def synthetic(n_rows):
    """The synthetic task: 20 standard normal features, the label the sign of the first five's
    sum plus noise (seed 0)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 20)).astype(np.float32)
    y = (X[:, :5].sum(axis=1) + 0.5 * rng.normal(size=X.shape[0]) > 0).astype(int)
    return X, y


def _data(name, data_home, seed=0):
    from sklearn.model_selection import train_test_split

    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
    elif name == "synthetic_1e6":
        X, y = synthetic(1_250_000)
    else:
        from skpacbayes.datasets import load_dataset

        X, y = load_dataset(name, data_home=data_home, return_X_y=True)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)


def _pairs(large):
    import skpacbayes

    if large:
        return [("FO", "categorical"), ("SO", "categorical")]
    pairs = []
    for bound, name in ESTIMATORS.items():
        proto = getattr(skpacbayes, name)()
        for posterior in POSTERIORS:
            if posterior in proto._valid_posteriors(2, False):
                pairs.append((bound, posterior))
    return pairs


def _worker(args):
    """Time the fits of this process's skpacbayes; print one JSON line per pair."""
    import torch  # noqa: F401  (imported before any timing)
    from sklearn.datasets import make_classification

    import skpacbayes
    from skpacbayes.voters import StumpBank

    X_tr, X_te, y_tr, y_te = _data(args.dataset, args.data_home, args.seed)
    Xs, ys = make_classification(200, 5, random_state=0)
    skpacbayes.FirstOrderBoundClassifier(posterior="dirichlet", random_state=0).fit(Xs, ys)
    if args.vote_time:
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            StumpBank(random_state=0).fit(X_tr, y_tr).votes(X_tr)
            times.append(time.perf_counter() - start)
        print(json.dumps({"vote_s": statistics.median(times)}), flush=True)
    for bound, posterior in _pairs(args.dataset == "synthetic_1e6"):
        cls = getattr(skpacbayes, ESTIMATORS[bound])
        times = []
        for _ in range(args.repeats):
            est = cls(posterior=posterior, random_state=args.seed)
            start = time.perf_counter()
            est.fit(X_tr, y_tr)
            times.append(time.perf_counter() - start)
        predictions = est.predict(X_te)
        test = float(np.mean(predictions != y_te))
        row = {"pair": [bound, posterior], "fit_s": statistics.median(times)}
        row.update(bound=float(est.bound_), test=test, solver=getattr(est, "solver_", "adam"))
        row.update(constant=bool(np.unique(predictions).size == 1))
        print(json.dumps(row), flush=True)


def _grid_worker(args):
    """Time ``GridSearchCV`` over the three posterior families of the first-order bound."""
    import torch  # noqa: F401  (imported before any timing)
    from sklearn.model_selection import GridSearchCV

    from skpacbayes import FirstOrderBoundClassifier

    X_tr, _, y_tr, _ = _data(args.dataset, args.data_home, args.seed)
    grid = {"posterior": list(POSTERIORS)}
    search = GridSearchCV(FirstOrderBoundClassifier(random_state=0), grid, cv=5)
    start = time.perf_counter()
    search.fit(X_tr, y_tr)
    seconds = time.perf_counter() - start
    print(json.dumps({"grid_s": seconds, "best": search.best_params_["posterior"]}), flush=True)


def _run_side(src, dataset, data_home, repeats, vote_time, seed):
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, str(HERE), "--worker", "--dataset", dataset, "--seed", str(seed)]
    command += ["--data-home", str(data_home), "--repeats", str(repeats)]
    if vote_time:
        command.append("--vote-time")
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    vote = next((r["vote_s"] for r in rows if "vote_s" in r), None)
    return vote, {tuple(r["pair"]): r for r in rows if "pair" in r}


def _worktree(commit):
    path = ROOT.parent / f"skpacbayes-before-{commit}"
    if not path.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit],
            check=True,
            capture_output=True,
        )
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--vote-time", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dataset", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seeds", type=int, default=1, help="splits 0 .. seeds - 1")
    parser.add_argument("--before-commit", default="7d9f53c")
    parser.add_argument("--datasets", nargs="+", default=["breast_cancer", "adult"])
    parser.add_argument("--large", action="store_true")
    parser.add_argument(
        "--grid-search",
        action="store_true",
        help="also time GridSearchCV(FirstOrderBoundClassifier(), the three families, cv=5)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeats-before", type=int, default=1)
    parser.add_argument("--data-home", default=str(ROOT.parent / "shared" / "datasets"))
    args = parser.parse_args()
    if args.worker:
        return _grid_worker(args) if args.grid_search else _worker(args)
    before = _worktree(args.before_commit)
    head = head_commit(ROOT)
    print(f"# python benchmarks/bench_speed.py {' '.join(sys.argv[1:])}")
    print(
        f"# before: {args.before_commit} ({args.repeats_before} fit per pair), after: "
        f"working tree at {head} (median of {args.repeats}); {os.cpu_count()} cores, load "
        f"average at the start {os.getloadavg()[0]:.2f}"
    )
    datasets = list(args.datasets) + (["synthetic_1e6"] if args.large else [])
    for name in datasets:
        for seed in range(args.seeds if name != "synthetic_1e6" else 1):
            vote, after = _run_side(ROOT, name, args.data_home, args.repeats, True, seed)
            _, old = _run_side(before, name, args.data_home, args.repeats_before, False, seed)
            print(
                f"\n{name}, split and random_state {seed}: vote matrix (default StumpBank, "
                f"training rows) {vote:.3f} s"
            )
            print(
                "| pair | solver | fit s before | fit s after | speed-up | after / votes "
                "| bound before | bound after | after - before | test before | test after "
                "| constant vote before / after |"
            )
            print("|---|---|---|---|---|---|---|---|---|---|---|---|")
            for pair, row in after.items():
                b = old.get(pair)
                cells = [f"{pair[0]} {pair[1]}", row["solver"]]
                constant = "yes" if row["constant"] else "no"
                if b is None:
                    cells += ["-", f"{row['fit_s']:.2f}", "-", f"{row['fit_s'] / vote:.0f}x", "-"]
                    cells += [f"{row['bound']:.4f}", "-", "-", f"{row['test']:.4f}", constant]
                else:
                    cells += [f"{b['fit_s']:.2f}", f"{row['fit_s']:.2f}"]
                    cells += [f"{b['fit_s'] / row['fit_s']:.1f}x", f"{row['fit_s'] / vote:.0f}x"]
                    cells += [f"{b['bound']:.4f}", f"{row['bound']:.4f}"]
                    cells += [f"{row['bound'] - b['bound']:+.4f}", f"{b['test']:.4f}"]
                    cells += [
                        f"{row['test']:.4f}",
                        ("yes" if b["constant"] else "no") + " / " + constant,
                    ]
                print("| " + " | ".join(cells) + " |", flush=True)
    if args.grid_search:
        for label, src in (("after", ROOT), ("before", before)):
            env = {**os.environ, "PYTHONPATH": str(src)}
            command = [sys.executable, str(HERE), "--worker", "--grid-search"]
            command += ["--dataset", "adult", "--data-home", str(args.data_home)]
            out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"\nGridSearchCV(FirstOrderBoundClassifier(), posterior in {list(POSTERIORS)}, "
                f"cv=5) on adult ({label}): {row['grid_s']:.1f} s, best {row['best']}"
            )
    return None


if __name__ == "__main__":
    main()
