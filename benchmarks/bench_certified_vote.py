"""CertifiedVoteClassifier() against HoldOutBoundClassifier(), same splits, side by side.

Usage::

    python benchmarks/bench_certified_vote.py [--datasets haberman ...] [--seeds 5]
        [--data-home ../shared/datasets] [--max-rows 10000]
        [--out benchmarks/results/certified_vote.json] [--rst docs/certified_vote_table.txt]
    python benchmarks/bench_certified_vote.py --from-json benchmarks/results/certified_vote.json

For every data set and seed: the data set capped at ``--max-rows`` rows by a stratified draw
seeded by the seed when it is larger (phishing, pendigits, adult, mnist and fashion_mnist
by default, of 11055, 10992, 32561, 70000 and 70000 rows: the full sizes would take hours on
two cores), then a stratified 80/20 split with
``random_state=seed``; on the training part, ``CertifiedVoteClassifier(random_state=seed)``
and ``HoldOutBoundClassifier(random_state=seed)`` with their defaults (delta 0.05), and, for
reference, ``RandomForestClassifier(200, random_state=seed)`` grown on the whole training
part (no certificate). Printed: per data set, the mean ± standard deviation over the seeds of
each estimator's certified bound and test error (percent), their differences, the candidate
each fit deployed, and the fit seconds; then the means over the data sets. A run resumes
where ``--out`` stops.
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
    start = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - start


def run_one(name, data_home, seed, max_rows):
    """One data set and seed: both certified estimators and the uncertified forest."""
    from sklearn.ensemble import RandomForestClassifier

    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier
    from skpacbayes.classifiers._certified_vote import describe

    X_tr, X_te, y_tr, y_te, capped = load_split(name, data_home, seed, max_rows)
    cv = CertifiedVoteClassifier(random_state=seed)
    ho = HoldOutBoundClassifier(random_state=seed)
    rf = RandomForestClassifier(n_estimators=200, random_state=seed)
    row = {"dataset": name, "seed": seed, "capped": capped, "n_train": int(len(y_tr))}
    for key, est in (("certified", cv), ("holdout", ho), ("forest", rf)):
        seconds = _timed_fit(est, X_tr, y_tr)
        row[key] = {
            "bound": float(getattr(est, "bound_", np.nan)),
            "test_error": float(np.mean(est.predict(X_te) != y_te)),
            "fit_s": seconds,
        }
    row["certified"]["deployed"] = describe(cv.best_candidate_)
    row["certified"]["candidates"] = cv.candidates_
    row["holdout"]["deployed"] = f"hold-out {ho.validation_fraction_} fold 0"
    return row


def _stat(values):
    v = 100 * np.asarray(values)
    return f"{v.mean():.2f}±{v.std():.2f}"


HEADER = [
    "data set",
    "rows (train)",
    "Certified bound",
    "HoldOut bound",
    "bound diff.",
    "Certified test",
    "HoldOut test",
    "test diff.",
    "RF(200) test",
    "Certified deployed",
    "fit s Certified / HoldOut",
]


def table(rows, rst=None):
    """Markdown table per data set and the means over the data sets (percent)."""
    cells_all, diffs = [], []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        col = {
            (k, m): [r[k][m] for r in sel]
            for k in ("certified", "holdout", "forest")
            for m in ("bound", "test_error", "fit_s")
        }
        db = 100 * (np.mean(col["certified", "bound"]) - np.mean(col["holdout", "bound"]))
        dt = 100 * (np.mean(col["certified", "test_error"]) - np.mean(col["holdout", "test_error"]))
        means = [
            100 * np.mean(col[k, m])
            for k in ("certified", "holdout")
            for m in ("bound", "test_error")
        ]
        diffs.append((db, dt, *means, 100 * np.mean(col["forest", "test_error"])))
        deployed = ", ".join(r["certified"]["deployed"].replace("hold-out ", "") for r in sel)
        rows_cell = f"{sel[0]['n_train']}" + (" (capped)" if sel[0]["capped"] else "")
        cells_all.append(
            [
                f"{name} ({len(sel)} seeds)",
                rows_cell,
                _stat(col["certified", "bound"]),
                _stat(col["holdout", "bound"]),
                f"{db:+.2f}",
                _stat(col["certified", "test_error"]),
                _stat(col["holdout", "test_error"]),
                f"{dt:+.2f}",
                _stat(col["forest", "test_error"]),
                deployed,
                f"{np.median(col['certified', 'fit_s']):.0f} / "
                f"{np.median(col['holdout', 'fit_s']):.0f}",
            ]
        )
    d = np.array(diffs)
    summary = (
        f"Mean over {len(d)} data sets: bound {d[:, 2].mean():.2f} (Certified) vs "
        f"{d[:, 4].mean():.2f} (HoldOut), difference {d[:, 0].mean():+.2f} points (median "
        f"{np.median(d[:, 0]):+.2f}; Certified lower on {int((d[:, 0] < 0).sum())}, higher on "
        f"{int((d[:, 0] > 0).sum())}); test error {d[:, 3].mean():.2f} vs {d[:, 5].mean():.2f}, "
        f"difference {d[:, 1].mean():+.2f} points (median {np.median(d[:, 1]):+.2f}; lower on "
        f"{int((d[:, 1] < 0).sum())}, higher on {int((d[:, 1] > 0).sum())}); "
        f"RandomForestClassifier(200) on all the training rows: {d[:, 6].mean():.2f}"
    )
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(c) + " |" for c in cells_all]
    lines += ["", summary]
    if rst:
        out = [
            ".. list-table:: Certified bound and test error in percent, mean ± std over the "
            "seeds, delta = 0.05 (same splits for both estimators)",
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
    parser.add_argument("--out", default=None, help="write (and resume from) the rows as JSON")
    parser.add_argument("--from-json", default=None, help="only print the table of a run")
    parser.add_argument("--rst", default=None, help="also write the table as an RST list-table")
    args = parser.parse_args()
    if args.from_json:
        print(table(json.loads(Path(args.from_json).read_text())["rows"], args.rst))
        return
    out = Path(args.out) if args.out else None
    rows = json.loads(out.read_text())["rows"] if out and out.exists() else []
    done = {(r["dataset"], r["seed"]) for r in rows}
    meta = {"command": "python " + " ".join(sys.argv), "max_rows": args.max_rows}
    for name in args.datasets:
        for seed in range(args.seeds):
            if (name, seed) in done:
                continue
            rows.append(run_one(name, args.data_home, seed, args.max_rows))
            r = rows[-1]
            print(
                f"{name} seed {seed}: Certified {100 * r['certified']['bound']:.2f} / "
                f"{100 * r['certified']['test_error']:.2f} ({r['certified']['deployed']}, "
                f"{r['certified']['fit_s']:.0f} s); HoldOut {100 * r['holdout']['bound']:.2f} / "
                f"{100 * r['holdout']['test_error']:.2f} ({r['holdout']['fit_s']:.0f} s); "
                f"RF {100 * r['forest']['test_error']:.2f}",
                flush=True,
            )
            if out:
                out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    if rows:
        print(table(rows, args.rst))


if __name__ == "__main__":
    main()
