"""Cost or gain of the data-independent default StumpBank (build rows held out of the bound).

The old default (``feature_range=None`` before this change) spread the thresholds evenly between
the minimum and the maximum of each feature over ALL training rows, which breaks assumption (A2)
of the theory page. It is reproduced here exactly by passing those ranges as ``feature_range``.
The new default draws ``build_size="auto"`` rows from the seed and the sample size alone, builds
the thresholds on them (quantiles by default, or an even grid between their min and max) and
certifies on the other rows only.

For each binary reference data set and seed: a stratified 80/20 split; FO (Categorical), Occam
and Partition (Categorical) fitted with each bank (default settings otherwise); certified bound
and test error in percent, median over the seeds. ``--max-train-rows`` caps the training split
(a seeded subsample of it, for the large adult set).

Usage::

    python benchmarks/bench_stump_bank.py [--data-home /work/shared/datasets] [--seeds 3]
        [--datasets haberman ...] [--methods FO Occam Partition] [--banks old quantile uniform]
        [--max-train-rows N]
"""

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split

from skpacbayes import (
    FirstOrderBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
)
from skpacbayes.datasets import load_dataset
from skpacbayes.voters import StumpBank

DATASETS = ("haberman", "tictactoe", "svmguide1", "mushroom", "phishing", "adult")

BANKS = {
    "old": lambda X: StumpBank(feature_range=np.column_stack([X.min(axis=0), X.max(axis=0)])),
    "quantile": lambda X: StumpBank(),
    "uniform": lambda X: StumpBank(spacing="uniform"),
}
BANK_NAMES = {
    "old": "old default (all-row range, breaks A2)",
    "quantile": "new default (quantiles of build rows)",
    "uniform": "new, even grid on build rows",
}

METHODS = {
    "FO": lambda bank, seed: FirstOrderBoundClassifier(
        voters=bank, posterior="categorical", random_state=seed
    ),
    "Occam": lambda bank, seed: OccamBoundClassifier(voters=bank, random_state=seed),
    "Partition": lambda bank, seed: PartitionBoundClassifier(
        voters=bank, posterior="categorical", random_state=seed
    ),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--methods", nargs="*", default=list(METHODS), choices=list(METHODS))
    parser.add_argument("--banks", nargs="*", default=list(BANKS), choices=list(BANKS))
    parser.add_argument("--max-train-rows", type=int, default=None)
    parser.add_argument("--no-header", action="store_true")
    args = parser.parse_args()
    methods = {k: METHODS[k] for k in args.methods}

    t_start = time.perf_counter()
    if not args.no_header:
        print(
            "bound / test error in %, median over seeds; "
            "m = rows the bound uses (of the train split)"
        )
        header = "| data | seeds | bank | m used | n voters | FO | Occam | Partition |"
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
    for name in args.datasets:
        X, y = load_dataset(name, data_home=args.data_home, return_X_y=True)
        X = np.asarray(X, dtype=np.float64)
        n_seeds = args.seeds
        rows = {bank: {meth: [] for meth in methods} for bank in args.banks}
        info = {bank: [] for bank in args.banks}
        for seed in range(n_seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.2, stratify=y, random_state=seed
            )
            if args.max_train_rows is not None and len(y_tr) > args.max_train_rows:
                keep = np.random.RandomState(seed).permutation(len(y_tr))[: args.max_train_rows]
                X_tr, y_tr = X_tr[keep], y_tr[keep]
            for bank_name in args.banks:
                make_bank = BANKS[bank_name]
                for meth, make in methods.items():
                    clf = make(make_bank(X_tr), seed).fit(X_tr, y_tr)
                    test_error = float(np.mean(clf.predict(X_te) != y_te))
                    rows[bank_name][meth].append((clf.bound_, test_error))
                    if not info[bank_name] or len(info[bank_name]) <= seed:
                        info[bank_name].append((sum(clf.certificate_.m), clf.voters_.n_voters_))
        for bank_name in args.banks:
            m_used = int(np.median([a for a, _ in info[bank_name]]))
            n_vot = int(np.median([b for _, b in info[bank_name]]))
            cells = []
            for meth in METHODS:
                if meth not in methods:
                    cells.append("-")
                    continue
                vals = np.array(rows[bank_name][meth])
                b, e = 100 * np.median(vals, axis=0)
                cells.append(f"{b:.1f} / {e:.1f}")
            print(
                f"| {name} | {n_seeds} | {BANK_NAMES[bank_name]} | "
                f"{m_used} of {len(y_tr)} | {n_vot} | " + " | ".join(cells) + " |",
                flush=True,
            )
    print(f"wall time ({' '.join(args.datasets)}): {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
