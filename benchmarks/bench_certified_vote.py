"""CertifiedVoteClassifier() against HoldOutBoundClassifier(), RF(200) and gradient boosting, CPU
time side by side.

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
``random_state=seed``; on the training part, ``CertifiedVoteClassifier(random_state=seed)``,
``CertifiedVoteClassifier(selection="most_accurate", random_state=seed)`` and
``HoldOutBoundClassifier(random_state=seed)`` with their defaults (delta 0.05), and
``RandomForestClassifier(200, random_state=seed)`` and
``HistGradientBoostingClassifier(random_state=seed)`` grown on the whole training part (no
certificate: test error only), each timed by ``time.process_time()`` (the CPU seconds of the
process, all threads). Printed: per data set, the mean ± standard deviation over the seeds of
each estimator's certified bound and test error (percent), the median CPU seconds and the
median ratio of each estimator's CPU time to the forest's on the same rows; then the means
over the data sets, with the mean bound minus the forest's test error. ``--before`` merges
the rows of a second invocation (``--estimators certified forest``, run at an earlier commit,
e.g. a ``git worktree`` on the import path) as the "before" columns. A run resumes where
``--out`` stops.
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


ESTIMATORS = ("certified", "accurate", "holdout", "forest", "boosting")


def run_one(name, data_home, seed, max_rows, estimators=ESTIMATORS):
    """One data set and seed: the certified estimators and the uncertified forest."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
    from skpacbayes.engine.protocols.candidates import describe

    X_tr, X_te, y_tr, y_te, capped = load_split(name, data_home, seed, max_rows)
    made = {
        "certified": lambda: CertifiedVoteClassifier(random_state=seed),
        "accurate": lambda: CertifiedVoteClassifier(selection="most_accurate", random_state=seed),
        "holdout": lambda: HoldOutBoundClassifier(random_state=seed),
        "forest": lambda: RandomForestClassifier(n_estimators=200, random_state=seed),
        "boosting": lambda: HistGradientBoostingClassifier(random_state=seed),
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
        if key in ("certified", "accurate"):
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
    "most_accurate bound",
    "HoldOut bound",
    "Certified test",
    "before",
    "most_accurate test",
    "HoldOut test",
    "RF(200) test",
    "HGB test",
    "CPU s RF(200)",
    "CPU Certified / RF",
    "before",
    "CPU HGB / RF",
    "Certified deployed",
]


def warm_up():
    """One fit of each estimator on a few rows: imports and first calls stay out of the timings."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier

    X, y = load_iris(return_X_y=True)
    for est in (
        CertifiedVoteClassifier,
        HoldOutBoundClassifier,
        RandomForestClassifier,
        HistGradientBoostingClassifier,
    ):
        est(random_state=0).fit(X, y).predict(X)


def _ratio(sel, key):
    """Median over the seeds of ``key``'s CPU seconds over the forest's on the same rows."""
    return float(np.median([r[key]["cpu_s"] / r["forest"]["cpu_s"] for r in sel]))


#: the columns of the means over the data sets: (estimator, measure), "before" for the
#: earlier commit's CertifiedVote
_MEANS = (
    ("certified", "bound"),
    ("before", "bound"),
    ("accurate", "bound"),
    ("holdout", "bound"),
    ("certified", "test_error"),
    ("before", "test_error"),
    ("accurate", "test_error"),
    ("holdout", "test_error"),
    ("forest", "test_error"),
    ("boosting", "test_error"),
)


def table(rows, rst=None, before=()):
    """Markdown table per data set and the means over the data sets (percent; CPU ratios).

    ``before``: rows of an earlier commit (CertifiedVote and the forest), same splits.
    """
    earlier = {(r["dataset"], r["seed"]): r for r in before}
    cells_all, means = [], []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        old = [earlier[k] for k in ((r["dataset"], r["seed"]) for r in sel) if k in earlier]
        col = {}
        for key, measure in _MEANS:
            source = [r["certified"] for r in old] if key == "before" else [r[key] for r in sel]
            col[key, measure] = [c[measure] for c in source]
        ratios = [
            _ratio(sel, "certified"),
            _ratio(old, "certified") if old else np.nan,
            _ratio(sel, "boosting"),
        ]
        means.append([100 * np.mean(v) if v else np.nan for v in col.values()] + ratios)
        deployed = ", ".join(r["certified"]["deployed"].replace("hold-out ", "") for r in sel)
        rows_cell = f"{sel[0]['n_train']}" + (" (capped)" if sel[0]["capped"] else "")
        cells_all.append(
            [
                f"{name} ({len(sel)} seeds)",
                rows_cell,
                *(_stat(v) if v else "" for v in col.values()),
                f"{np.median([r['forest']['cpu_s'] for r in sel]):.2f}",
                *(f"{x:.2f}" if np.isfinite(x) else "" for x in ratios),
                deployed,
            ]
        )
    d = np.array(means)
    m = np.nanmean(d, axis=0)
    summary = (
        f"Mean over {len(d)} data sets: bound {m[0]:.2f} (Certified) vs {m[1]:.2f} (before) vs "
        f"{m[2]:.2f} (most_accurate) vs {m[3]:.2f} (HoldOut); test error {m[4]:.2f} vs "
        f"{m[5]:.2f} vs {m[6]:.2f} vs {m[7]:.2f}; on all the training rows "
        f"RandomForestClassifier(200) {m[8]:.2f}, HistGradientBoostingClassifier {m[9]:.2f}. "
        f"Bound minus RF(200)'s test error: {m[0] - m[8]:.2f} (before {m[1] - m[8]:.2f}, "
        f"most_accurate {m[2] - m[8]:.2f}); test minus RF's: {m[4] - m[8]:+.2f} (before "
        f"{m[5] - m[8]:+.2f}, most_accurate {m[6] - m[8]:+.2f}). CPU time over RF(200)'s "
        f"(median over the data sets of the per-data-set medians): Certified "
        f"{np.median(d[:, 10]):.2f} (mean {d[:, 10].mean():.2f}, max {d[:, 10].max():.2f}), "
        f"before {np.nanmedian(d[:, 11]) if before else np.nan:.2f}, "
        f"HGB {np.median(d[:, 12]):.2f}"
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
