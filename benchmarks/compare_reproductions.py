"""Two runs of ``reproduce.py`` side by side: bounds, test errors and fit times per row.

Usage::

    python benchmarks/compare_reproductions.py BEFORE_DIR AFTER_DIR [--datasets ...]
        [--methods ...]

Reads ``<dir>/<dataset>.json`` of both runs (written by ``reproduce.py``; run the "before"
one from a git worktree of the previous commit with ``PYTHONPATH`` set to it) and prints, for
every (dataset, method, posterior) that both hold (the "best"-of-families rows left out),
the mean bound, test error and summed fit seconds over the seeds, before and after. Then the
count of (seed) rows whose bound is lower, equal or higher after (to ``1e-12``), the largest
increase, and the total fit seconds of both runs with their ratio.
"""

import argparse
import json
import statistics
from pathlib import Path


def _rows(directory, dataset):
    """The rows of ``<directory>/<dataset>.json`` by (seed, method, posterior), or ``None``
    when that file is missing or is not a ``reproduce.py`` output."""
    path = Path(directory) / f"{dataset}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all("posterior" in r for r in rows):
        return None
    return {(r["seed"], r["method"], r["posterior"]): r for r in rows if r["posterior"] != "best"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--methods", nargs="+", default=None)
    args = parser.parse_args()
    datasets = args.datasets or sorted(p.stem for p in Path(args.after).glob("*.json"))
    head = ("dataset", "method", "posterior", "bound before", "bound after", "test before")
    head += ("test after", "fit s before", "fit s after")
    print(" | ".join(head))
    counts = {"lower": 0, "equal": 0, "higher": 0}
    worst, seconds = 0.0, [0.0, 0.0]
    for dataset in datasets:
        before, after = _rows(args.before, dataset), _rows(args.after, dataset)
        if before is None or after is None:
            continue
        shared = [k for k in after if k in before]
        if args.methods:
            shared = [k for k in shared if k[1] in args.methods]
        for method, family in sorted({k[1:] for k in shared}):
            keys = [k for k in shared if k[1:] == (method, family)]
            pair = (before, after)
            bound = [statistics.mean(run[k]["bound"] for k in keys) for run in pair]
            test = [statistics.mean(run[k]["test_error"] for k in keys) for run in pair]
            fit = [sum(run[k]["fit_time"] for k in keys) for run in pair]
            seconds = [s + f for s, f in zip(seconds, fit, strict=True)]
            for k in keys:
                change = after[k]["bound"] - before[k]["bound"]
                worst = max(worst, change)
                side = "higher" if change > 1e-12 else "lower" if change < -1e-12 else "equal"
                counts[side] += 1
            print(
                f"{dataset} | {method} | {family} | {bound[0]:.4f} | {bound[1]:.4f} | "
                f"{test[0]:.4f} | {test[1]:.4f} | {fit[0]:.1f} | {fit[1]:.1f}"
            )
    ratio = seconds[0] / seconds[1] if seconds[1] > 0 else float("nan")
    print(
        f"rows: {counts['lower']} lower, {counts['equal']} equal, {counts['higher']} higher "
        f"(largest increase {worst:.2e}); fit seconds: before {seconds[0]:.1f}, after "
        f"{seconds[1]:.1f} ({ratio:.2f}x)"
    )


if __name__ == "__main__":
    main()
