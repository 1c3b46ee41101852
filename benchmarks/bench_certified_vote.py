"""CertifiedVoteClassifier with its defaults against RandomForestClassifier(200) and HoldOut.

Usage::

    python benchmarks/bench_certified_vote.py [--datasets haberman ...] [--seeds 3]
        [--data-home /work/shared/datasets] [--out benchmarks/results/certified_vote.json]
        [--timing-dataset mnist --old-src /path/to/old/checkout]

For every dataset and seed, the split of ``skpacbayes compare`` (stratified 80/20,
``random_state=seed``): ``CertifiedVoteClassifier(random_state=seed)`` (its bound, test
error, the candidate it deployed, fit wall and CPU seconds) and
``RandomForestClassifier(200, random_state=seed)`` grown on the whole training split
(test error). The HoldOut column is read from the committed strategy study
(``benchmarks/results/strategies/<dataset>.json``: the halves of a 200-tree split forest,
mean over its seeds). Percent; the last rows are the means over the datasets.

Targets (issue 15): mean test error within 0.5 point of the forest; mean bound no higher
than HoldOut's. ``--timing-dataset`` fits the default estimator of an older checkout
(``--old-src``, its ``skpacbayes`` package on ``PYTHONPATH``) and of this one on seed 0 of
that dataset, each in its own process, one after the other, and prints wall and CPU
seconds (CPU: ``time.process_time`` of the process, all threads; on a shared machine the
wall time mostly measures the load).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DATASETS = (
    "haberman",
    "tictactoe",
    "svmguide1",
    "mushroom",
    "phishing",
    "adult",
    "pendigits",
    "mnist",
    "fashion_mnist",
)

_ONE_FIT = """
import json, sys, time
import numpy as np
from sklearn.model_selection import train_test_split
import skpacbayes
from skpacbayes import CertifiedVoteClassifier
from skpacbayes.datasets import load_dataset
bunch = load_dataset(sys.argv[1], data_home=sys.argv[2])
X, y = np.asarray(bunch.data), np.asarray(bunch.target)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
wall, cpu = time.perf_counter(), time.process_time()
clf = CertifiedVoteClassifier(random_state=0).fit(X_tr, y_tr)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"src": skpacbayes.__file__, "wall_s": wall, "cpu_s": cpu,
                  "bound": clf.bound_, "test_error": float(np.mean(clf.predict(X_te) != y_te))}))
"""


def _split(name, data_home, seed):
    from sklearn.model_selection import train_test_split

    from skpacbayes.datasets import load_dataset

    bunch = load_dataset(name, data_home=data_home)
    X, y = np.asarray(bunch.data), np.asarray(bunch.target)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)


def _describe(candidate):
    """``0.2``, ``0.5 (half 1)``, ``stump (half 0)`` or ``FO``: which candidate was deployed."""
    if candidate["kind"] == "out_of_bag":
        return candidate["out_of_bag_bound"]
    half = candidate.get("half")
    if candidate["kind"] == "stump":
        return f"stump (half {half})"
    return candidate["validation_fraction"] if half is None else f"0.5 (half {half})"


def run_one(name, data_home, seed):
    """One dataset and seed: the certified vote and the forest on the whole training split."""
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier

    X_tr, X_te, y_tr, y_te = _split(name, data_home, seed)
    wall, cpu = time.perf_counter(), time.process_time()
    clf = CertifiedVoteClassifier(random_state=seed).fit(X_tr, y_tr)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rf = RandomForestClassifier(n_estimators=200, random_state=seed).fit(X_tr, y_tr)
    chosen = clf.best_candidate_
    return {
        "dataset": name,
        "seed": seed,
        "bound": clf.bound_,
        "test_error": float(np.mean(clf.predict(X_te) != y_te)),
        "rf_test_error": float(np.mean(rf.predict(X_te) != y_te)),
        "chosen": _describe(chosen),
        "candidates": clf.candidates_,
        "fit_wall_s": wall,
        "fit_cpu_s": cpu,
    }


def _holdout_today(name, results):
    path = Path(results) / f"{name}.json"
    if not path.exists():
        return None
    stats = json.loads(path.read_text())["summary"].get("HoldOut/categorical")
    return None if stats is None else (stats["bound_mean"], stats["test_mean"])


HEADER = [
    "dataset",
    "seeds",
    "Certified bound / test",
    "RF(200) test",
    "test - RF",
    "HoldOut (committed) bound / test",
    "bound - HoldOut",
    "deployed fraction per seed",
    "fit s, wall (CPU)",
]


def table(rows, results, rst=None):
    """Markdown table (percent) per dataset and the means over the datasets.

    With ``rst`` (a path), the same table is also written there as an RST list-table.
    """
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    cells_all = []
    d_test, d_bound = [], []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        b = 100 * np.mean([r["bound"] for r in sel])
        t = 100 * np.mean([r["test_error"] for r in sel])
        rf = 100 * np.mean([r["rf_test_error"] for r in sel])
        d_test.append(t - rf)
        today = _holdout_today(name, results)
        if today is None:
            ho_cell, diff_cell = "n/a", "n/a"
        else:
            ho_cell = f"{100 * today[0]:.2f} / {100 * today[1]:.2f}"
            d_bound.append(b - 100 * today[0])
            diff_cell = f"{d_bound[-1]:+.2f}"
        chosen = ", ".join(str(r["chosen"]) for r in sel)
        fit = np.median([r["fit_wall_s"] for r in sel])
        cpu = np.median([r["fit_cpu_s"] for r in sel])
        cells = [name, str(len(sel)), f"{b:.2f} / {t:.2f}", f"{rf:.2f}", f"{t - rf:+.2f}"]
        cells += [ho_cell, diff_cell, chosen, f"{fit:.0f} ({cpu:.0f})"]
        cells_all.append(cells)
        lines.append("| " + " | ".join(cells) + " |")
    summary = (
        f"mean over {len(d_test)} datasets: test - RF = {np.mean(d_test):+.2f} points "
        f"(target <= +0.5); bound - HoldOut = {np.mean(d_bound):+.2f} points over "
        f"{len(d_bound)} datasets (target <= 0)"
    )
    lines += ["", summary]
    if rst:
        out = [
            ".. list-table:: Bound / test error in percent, mean over the seeds, delta = 0.05",
            "   :header-rows: 1",
            "",
        ]
        for row in [HEADER, *cells_all]:
            out.append(f"   * - {row[0]}")
            out += [f"     - {cell}" for cell in row[1:]]
        out += ["", summary[0].upper() + summary[1:] + "."]
        Path(rst).write_text("\n".join(out) + "\n")
    return "\n".join(lines)


def timing(name, data_home, old_src):
    """Old and new default fits on seed 0 of ``name``, each in its own process."""
    out = {}
    here = str(Path(__file__).resolve().parents[1])
    for label, src in (("old", old_src), ("new", here)):
        env = {**os.environ, "PYTHONPATH": src}
        # run from src: ``python -c`` puts the working directory first on sys.path, where a
        # checkout's own package would shadow PYTHONPATH
        proc = subprocess.run(
            [sys.executable, "-c", _ONE_FIT, name, data_home],
            env=env,
            cwd=src,
            capture_output=True,
            text=True,
            check=True,
        )
        out[label] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{label}: {out[label]}", flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0, help="first seed of the range")
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--results", default="benchmarks/results/strategies")
    parser.add_argument("--out", default=None, help="write the rows (and timing) as JSON")
    parser.add_argument("--timing-dataset", default=None)
    parser.add_argument("--from-json", nargs="+", default=None, help="only print the table")
    parser.add_argument("--rst", default=None, help="also write the table as an RST list-table")
    parser.add_argument("--old-src", default=None)
    args = parser.parse_args()
    if args.from_json:
        rows = [r for path in args.from_json for r in json.loads(Path(path).read_text())["rows"]]
        print(table(rows, args.results, args.rst))
        return
    rows = []
    for name in args.datasets:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            rows.append(run_one(name, args.data_home, seed))
            r = rows[-1]
            print(
                f"{name} seed {seed}: bound {100 * r['bound']:.2f} test {100 * r['test_error']:.2f}"
                f" RF {100 * r['rf_test_error']:.2f} chosen {r['chosen']} "
                f"fit {r['fit_wall_s']:.1f} s (CPU {r['fit_cpu_s']:.1f} s)",
                flush=True,
            )
            if args.out:
                Path(args.out).write_text(json.dumps({"rows": rows}, indent=1))
    if rows:
        print(table(rows, args.results, args.rst))
    result = {"rows": rows}
    if args.timing_dataset:
        if args.old_src is None:
            parser.error("--timing-dataset needs --old-src")
        result["timing"] = timing(args.timing_dataset, args.data_home, args.old_src)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
