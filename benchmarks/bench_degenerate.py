"""Does every estimator deploy a useful classifier? (no degenerate fits)

Usage::

    python benchmarks/bench_degenerate.py --data-home /work/shared/datasets \
        [--datasets breast_cancer digits haberman ...] [--seeds 1] \
        [--max-rows 10000] [--capped adult mnist fashion_mnist] [--out FILE]

For each data set and seed: the split of ``benchmarks/reproduce.py`` (stratified 80/20,
``random_state=seed``), then every valid (bound, posterior) pair with its DEFAULT voters
(``StumpBank()`` on two classes, ``SplitForest()`` on more, ``SplitForest(split="single")``
for the VC bound on more) and ``random_state=seed``, so that pairs sharing a kind of bank
share the very same bank. The reference is ``OccamBoundClassifier`` (the best single voter)
on the same bank. A row passes when its test error is at most Occam's plus one point.

Columns: test error (%), certified bound (%), epochs run, effective voters
(``certificate_.n_effective_voters``), Occam's test error on the same bank, pass/fail.

``--capped`` data sets (default: adult, mnist, fashion_mnist) are first reduced to
``--max-rows`` rows by a stratified draw with ``random_state=seed`` (0: no cap) and run with
the first seed only; the header says so.
"""

import argparse
import time

import numpy as np
from sklearn.model_selection import train_test_split

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.datasets import load_dataset

ESTIMATORS = {
    "FO": FirstOrderBoundClassifier,
    "SO": SecondOrderBoundClassifier,
    "Bin": BinomialBoundClassifier,
    "CBnd": CBoundClassifier,
    "VC": VCDimBoundClassifier,
    "Part": PartitionBoundClassifier,
    "Margin": MarginBoundClassifier,
}
FAMILIES = ("categorical", "dirichlet", "gaussian")
DATASETS = (
    "breast_cancer",
    "digits",
    "haberman",
    "tictactoe",
    "svmguide1",
    "mushroom",
    "phishing",
    "pendigits",
    "adult",
    "mnist",
    "fashion_mnist",
)
TOLERANCE = 0.01


def valid_pairs(n_classes):
    """(name, family, split voters) for every valid pair with the default voters."""
    pairs = []
    for name, cls in ESTIMATORS.items():
        if getattr(cls, "_binary_only", False) and n_classes > 2:
            continue
        split = n_classes > 2 and name != "VC"
        for family in cls()._valid_posteriors(n_classes, split):
            pairs.append((name, family, split))
    return pairs


def load(name, data_home, max_rows, seed):
    bunch = load_dataset(name, data_home=data_home)
    X, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target)
    capped = bool(max_rows) and X.shape[0] > max_rows
    if capped:
        X, _, y, _ = train_test_split(X, y, train_size=max_rows, stratify=y, random_state=seed)
    return X, y, capped


def run_dataset(name, data_home, seeds, max_rows, log):
    rows = []
    for seed in seeds:
        X, y, capped = load(name, data_home, max_rows, seed)
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=seed
        )
        n_classes = np.unique(y).size
        occam = {}
        for split in (False, True) if n_classes > 2 else (False,):
            voters = None
            if n_classes > 2 and not split:
                from skpacbayes.voters import SplitForest

                voters = SplitForest(split="single")
            est = OccamBoundClassifier(voters=voters, random_state=seed).fit(X_tr, y_tr)
            occam[split] = float(np.mean(est.predict(X_te) != y_te))
        for method, family, split in valid_pairs(n_classes):
            start = time.perf_counter()
            est = ESTIMATORS[method](posterior=family, random_state=seed).fit(X_tr, y_tr)
            seconds = time.perf_counter() - start
            test = float(np.mean(est.predict(X_te) != y_te))
            row = {
                "dataset": name + (f" ({X.shape[0]} rows)" if capped else ""),
                "seed": seed,
                "method": method,
                "family": family,
                "test": test,
                "bound": float(est.bound_),
                "epochs": int(est.n_iter_),
                "n_eff": getattr(est.certificate_, "n_effective_voters", None),
                "n_voters": int(est.certificate_.n_voters),
                "occam": occam[split],
                "ok": test <= occam[split] + TOLERANCE,
                "seconds": seconds,
            }
            rows.append(row)
            log(format_row(row))
    return rows


HEADER = (
    f"{'dataset':<26} {'seed':>4} {'method':<7} {'family':<12} {'test %':>7} {'bound %':>8} "
    f"{'epochs':>6} {'n_eff':>11} {'Occam %':>8} {'pass':>5} {'fit s':>6}"
)


def format_row(r):
    n_eff = "-" if r["n_eff"] is None else f"{r['n_eff']}/{r['n_voters']}"
    return (
        f"{r['dataset']:<26} {r['seed']:>4} {r['method']:<7} {r['family']:<12} "
        f"{100 * r['test']:7.2f} {100 * r['bound']:8.2f} {r['epochs']:6d} {n_eff:>11} "
        f"{100 * r['occam']:8.2f} {'ok' if r['ok'] else 'FAIL':>5} {r['seconds']:6.1f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--max-rows", type=int, default=10000)
    parser.add_argument("--capped", nargs="*", default=["adult", "mnist", "fashion_mnist"])
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args()
    lines = []

    def log(line):
        print(line, flush=True)
        lines.append(line)

    log(
        f"bench_degenerate: seeds 0..{args.seeds - 1}; capped data sets "
        f"{args.capped or 'none'} run seed 0 only on {args.max_rows or 'all'} rows "
        f"(stratified draw); pass = test error <= Occam's (same bank) + {100 * TOLERANCE:g} pt"
    )
    log(HEADER)
    start = time.perf_counter()
    rows = []
    for name in args.datasets:
        capped = name in args.capped
        seeds = [0] if capped else list(range(args.seeds))
        rows += run_dataset(name, args.data_home, seeds, args.max_rows if capped else 0, log)
    failed = [r for r in rows if not r["ok"]]
    log(
        f"{len(rows)} fits, {len(rows) - len(failed)} pass, {len(failed)} fail; "
        f"wall time {time.perf_counter() - start:.0f} s"
    )
    for r in failed:
        log("FAIL " + format_row(r))
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
