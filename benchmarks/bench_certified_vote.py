"""CertifiedVoteClassifier() against HoldOutBoundClassifier() and RF(200), CPU time side by side.

Usage::

    python benchmarks/bench_certified_vote.py [--datasets haberman ...] [--seeds 5]
        [--data-home ../shared/datasets] [--max-rows 10000] [--estimators certified ...]
        [--out benchmarks/results/certified_vote.json] [--before before.json]
        [--rst docs/certified_vote_table.txt]
    python benchmarks/bench_certified_vote.py --from-json after.json --before before.json

For every data set and seed: the data set capped at ``--max-rows`` rows by a stratified draw
seeded by the seed when it is larger (phishing, pendigits, adult, mnist and fashion_mnist
by default, of 11055, 10992, 32561, 70000 and 70000 rows: the full sizes would take hours on
two cores), then a stratified 80/20 split with
``random_state=seed``; on the training part, ``CertifiedVoteClassifier(random_state=seed)``
and ``HoldOutBoundClassifier(random_state=seed)`` with their defaults (delta 0.05), and
``RandomForestClassifier(200, random_state=seed)`` grown on the whole training part (no
certificate), each timed by ``time.process_time()`` (the CPU seconds of the process, all
threads). Printed: per data set, the mean ± standard deviation over the seeds of each
estimator's certified bound and test error (percent), the median CPU seconds and the median
ratio of CertifiedVote's CPU time to the forest's on the same rows; then the means over the
data sets. ``--before`` merges the rows of a second invocation (``--estimators certified
forest``, run with ``PYTHONPATH`` at an earlier commit, e.g. a ``git worktree``) as the
"before" columns. A run resumes where ``--out`` stops.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from reproduce import DATASETS as REFERENCE_DATASETS

#: the nine reference data sets we have, then three of scikit-learn's embedded ones
DATASETS = (*REFERENCE_DATASETS, "breast_cancer", "digits", "wine")


def load_split(name, data_home, seed, max_rows):
    """The capped data set's stratified 80/20 split, and whether it was capped."""
    from sklearn.model_selection import train_test_split

    from skpacbayes.datasets import load_dataset

    bunch = load_dataset(name, data_home=data_home)
    X, y = np.asarray(bunch.data), np.asarray(bunch.target)
    capped = bool(max_rows) and X.shape[0] > max_rows
    if capped:
        X, _, y, _ = train_test_split(X, y, train_size=max_rows, stratify=y, random_state=seed)
    return (*train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed), capped)


def _timed_fit(est, X, y):
    start = time.process_time()
    est.fit(X, y)
    return time.process_time() - start


ESTIMATORS = ("certified", "holdout", "forest")


def run_one(name, data_home, seed, max_rows, estimators=ESTIMATORS):
    """One data set and seed: the certified estimators and the uncertified forest."""
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
    from skpacbayes.engine.protocols.candidates import describe

    X_tr, X_te, y_tr, y_te, capped = load_split(name, data_home, seed, max_rows)
    made = {
        "certified": lambda: CertifiedVoteClassifier(random_state=seed),
        "holdout": lambda: HoldOutBoundClassifier(random_state=seed),
        "forest": lambda: RandomForestClassifier(n_estimators=200, random_state=seed),
    }
    row = {"dataset": name, "seed": seed, "capped": capped, "n_train": int(len(y_tr))}
    for key in estimators:
        est = made[key]()
        seconds = _timed_fit(est, X_tr, y_tr)
        row[key] = {
            "bound": float(getattr(est, "bound_", np.nan)),
            "test_error": float(np.mean(est.predict(X_te) != y_te)),
            "cpu_s": seconds,
        }
        if key == "certified":
            row[key]["deployed"] = describe(est.best_candidate_)
            row[key]["candidates"] = est.candidates_
        elif key == "holdout":
            row[key]["deployed"] = f"hold-out {est.validation_fraction_} fold 0"
    return row


def _stat(values):
    v = 100 * np.asarray(values)
    return f"{v.mean():.2f}±{v.std():.2f}"


HEADER = [
    "data set",
    "rows (train)",
    "Certified bound",
    "before",
    "HoldOut bound",
    "Certified test",
    "before",
    "HoldOut test",
    "RF(200) test",
    "CPU s RF(200)",
    "CPU Certified / RF",
    "before",
    "CPU HoldOut / RF",
    "Certified deployed",
]


def warm_up():
    """One fit of each estimator on a few rows: imports and first calls stay out of the timings."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier

    X, y = load_iris(return_X_y=True)
    for est in (CertifiedVoteClassifier, HoldOutBoundClassifier, RandomForestClassifier):
        est(random_state=0).fit(X, y).predict(X)


def _ratio(sel, key):
    """Median over the seeds of ``key``'s CPU seconds over the forest's on the same rows."""
    return float(np.median([r[key]["cpu_s"] / r["forest"]["cpu_s"] for r in sel]))


def table(rows, rst=None, before=()):
    """Markdown table per data set and the means over the data sets (percent; CPU ratios).

    ``before``: rows of an earlier commit (CertifiedVote and the forest), same splits.
    """
    earlier = {(r["dataset"], r["seed"]): r for r in before}
    cells_all, means = [], []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        keys = [(r["dataset"], r["seed"]) for r in sel]
        old = [earlier[k] for k in keys if k in earlier]
        col = {
            (k, m): [r[k][m] for r in sel]
            for k in ("certified", "holdout", "forest")
            for m in ("bound", "test_error")
        }
        ob = [r["certified"]["bound"] for r in old]
        ot = [r["certified"]["test_error"] for r in old]
        means.append(
            [
                100 * np.mean(col["certified", "bound"]),
                100 * np.mean(ob) if old else np.nan,
                100 * np.mean(col["holdout", "bound"]),
                100 * np.mean(col["certified", "test_error"]),
                100 * np.mean(ot) if old else np.nan,
                100 * np.mean(col["holdout", "test_error"]),
                100 * np.mean(col["forest", "test_error"]),
                _ratio(sel, "certified"),
                _ratio(old, "certified") if old else np.nan,
                _ratio(sel, "holdout"),
            ]
        )
        deployed = ", ".join(r["certified"]["deployed"].replace("hold-out ", "") for r in sel)
        rows_cell = f"{sel[0]['n_train']}" + (" (capped)" if sel[0]["capped"] else "")
        cells_all.append(
            [
                f"{name} ({len(sel)} seeds)",
                rows_cell,
                _stat(col["certified", "bound"]),
                _stat(ob) if old else "",
                _stat(col["holdout", "bound"]),
                _stat(col["certified", "test_error"]),
                _stat(ot) if old else "",
                _stat(col["holdout", "test_error"]),
                _stat(col["forest", "test_error"]),
                f"{np.median([r['forest']['cpu_s'] for r in sel]):.2f}",
                f"{means[-1][7]:.2f}",
                f"{means[-1][8]:.2f}" if old else "",
                f"{means[-1][9]:.2f}",
                deployed,
            ]
        )
    d = np.array(means)
    summary = (
        f"Mean over {len(d)} data sets: bound {d[:, 0].mean():.2f} (Certified) vs "
        f"{np.nanmean(d[:, 1]) if before else np.nan:.2f} (Certified before) vs "
        f"{d[:, 2].mean():.2f} (HoldOut); test error {d[:, 3].mean():.2f} vs "
        f"{np.nanmean(d[:, 4]) if before else np.nan:.2f} vs {d[:, 5].mean():.2f}; "
        f"RandomForestClassifier(200) on all the training rows: {d[:, 6].mean():.2f}. CPU time "
        f"over RF(200)'s (median over the data sets of the per-data-set medians): Certified "
        f"{np.median(d[:, 7]):.2f} (mean {d[:, 7].mean():.2f}, max {d[:, 7].max():.2f}), "
        f"before {np.nanmedian(d[:, 8]) if before else np.nan:.2f} (mean "
        f"{np.nanmean(d[:, 8]) if before else np.nan:.2f}), HoldOut {np.median(d[:, 9]):.2f}"
    )
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(c) + " |" for c in cells_all]
    lines += ["", summary]
    if rst:
        out = [
            ".. list-table:: Certified bound and test error in percent, mean ± std over the "
            "seeds, delta = 0.05 (same splits for every estimator); CPU time over "
            "RandomForestClassifier(200)'s, median over the seeds",
            "   :header-rows: 1",
            "",
        ]
        for row in [HEADER, *cells_all]:
            out.append(f"   * - {row[0]}")
            out += [f"     - {cell}" for cell in row[1:]]
        out += ["", summary + "."]
        Path(rst).write_text("\n".join(out) + "\n")
    return "\n".join(lines)


def split_arguments(parser):
    """The options that fix the splits: data sets, seeds, data folder and the row cap."""
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--max-rows", type=int, default=10000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    split_arguments(parser)
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS), choices=ESTIMATORS)
    parser.add_argument("--out", default=None, help="write (and resume from) the rows as JSON")
    parser.add_argument("--from-json", default=None, help="only print the table of a run")
    parser.add_argument("--before", default=None, help="JSON rows of an earlier commit")
    parser.add_argument("--rst", default=None, help="also write the table as an RST list-table")
    args = parser.parse_args()
    before = json.loads(Path(args.before).read_text())["rows"] if args.before else ()
    if args.from_json:
        print(table(json.loads(Path(args.from_json).read_text())["rows"], args.rst, before))
        return
    out = Path(args.out) if args.out else None
    rows = json.loads(out.read_text())["rows"] if out and out.exists() else []
    done = {(r["dataset"], r["seed"]) for r in rows}
    meta = {"command": "python " + " ".join(sys.argv), "max_rows": args.max_rows}
    warm_up()
    for name in args.datasets:
        for seed in range(args.seeds):
            if (name, seed) in done:
                continue
            rows.append(run_one(name, args.data_home, seed, args.max_rows, args.estimators))
            r = rows[-1]
            print(
                f"{name} seed {seed}: "
                + "; ".join(
                    f"{k} {100 * r[k]['bound']:.2f} / {100 * r[k]['test_error']:.2f} "
                    f"({r[k]['cpu_s']:.1f} CPU s)"
                    for k in args.estimators
                ),
                flush=True,
            )
            if out:
                out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    if rows and set(ESTIMATORS) <= set(rows[0]):
        print(table(rows, args.rst, before))


if __name__ == "__main__":
    main()
