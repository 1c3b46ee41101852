"""Candidate sets, splits of delta and selection rules, evaluated on fitted candidates.

Usage::

    python benchmarks/bench_selection.py [--candidates benchmarks/results/candidates.json]
        [--details "two folds + stumps" tightest_bound]

Reads the candidates of ``benchmarks/bench_candidates.py`` (held-out error count ``k`` of
``n`` rows and test error of every hold-out candidate, per data set and seed) and, for every
candidate set below and every selection rule, recomputes what a certified vote would deploy:
each candidate's test-set bound at its share of delta 0.05 (``binomial_inv_upper(k, n,
delta_c)``, exactly as ``CertifiedVoteClassifier`` computes it), the candidate the rule picks
and its test error. It prints the mean over the data sets (each the mean over its seeds) of
the bound and the test error against ``HoldOutBoundClassifier()``'s (``HO10``, ``HO20``,
``HO50`` at delta / 3 each, the tightest deployed), and on how many data sets each is worse.
``--details SET RULE`` also prints that pair per data set.
"""

import argparse
import json
from functools import cache
from pathlib import Path

import numpy as np

from skpacbayes.bounds import binomial_inv_upper
from skpacbayes.engine.protocols.candidates import select

DELTA = 0.05
STUMPS = {"S50a": 0.1, "S50b": 0.1}
#: candidate set -> {candidate label: weight in the split of delta}
DESIGNS = {
    "HoldOut()": {"HO10": 1, "HO20": 1, "HO50": 1},
    "previous default": {"HO20": 0.2, "H100a": 0.5, "H100b": 0.5, **STUMPS},
    "fold 0 + stumps": {"HO10": 1, "HO20": 1, "HO50": 1, **STUMPS},
    "fold 0 + other half + stumps": {"HO10": 1, "HO20": 1, "HO50": 1, "HO50b": 1, **STUMPS},
    "two folds": {"HO10": 1, "HO10b": 1, "HO20": 1, "HO20b": 1, "HO50": 1, "HO50b": 1},
    "two folds + stumps": {
        "HO10": 1,
        "HO10b": 1,
        "HO20": 1,
        "HO20b": 1,
        "HO50": 1,
        "HO50b": 1,
        **STUMPS,
    },
}
#: rule -> relative tolerance on the bound (select: the most accurate estimate within it)
RULES = {"tightest_bound": 0.0, "within 2 %": 0.02, "within 5 %": 0.05, "most_accurate": np.inf}


@cache
def _bound(k, n, delta):
    return binomial_inv_upper(k, n, delta)


def deploy(row, weights, tolerance):
    """(bound, test error, label) of the candidate deployed on one split."""
    cands = row["candidates"]
    labels = list(weights)
    w = np.array([weights[label] for label in labels], dtype=float)
    shares = DELTA * w / w.sum()
    bounds = [_bound(cands[a]["k"], cands[a]["n"], d) for a, d in zip(labels, shares, strict=True)]
    estimates = [cands[a]["k"] / cands[a]["n"] for a in labels]
    i = select(bounds, estimates, tolerance)
    return bounds[i], cands[labels[i]]["test_error"], labels[i]


def per_dataset(rows, weights, tolerance):
    """dataset -> (mean bound, mean test error, deployed labels), percent."""
    out = {}
    for name in dict.fromkeys(r["dataset"] for r in rows):
        picks = [deploy(r, weights, tolerance) for r in rows if r["dataset"] == name]
        b, t, labels = zip(*picks, strict=True)
        out[name] = (100 * np.mean(b), 100 * np.mean(t), labels)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", default="benchmarks/results/candidates.json")
    parser.add_argument("--details", nargs=2, action="append", default=[], metavar=("SET", "RULE"))
    args = parser.parse_args()
    rows = json.loads(Path(args.candidates).read_text())["rows"]
    base = per_dataset(rows, DESIGNS["HoldOut()"], 0.0)
    names = list(base)
    hb = np.mean([base[n][0] for n in names])
    ht = np.mean([base[n][1] for n in names])
    seeds = len(rows) // len(names)
    print(
        f"{len(names)} data sets x {seeds} seeds; mean over the data sets, percent; "
        f"HoldOut(): bound {hb:.3f}, test error {ht:.3f}\n"
    )
    print("| candidate set | rule | bound | - HoldOut | worse on | test | - HoldOut | worse on |")
    print("|---|---|---|---|---|---|---|---|")
    for design, weights in DESIGNS.items():
        for rule, tolerance in RULES.items():
            res = per_dataset(rows, weights, tolerance)
            db = np.array([res[n][0] - base[n][0] for n in names])
            dt = np.array([res[n][1] - base[n][1] for n in names])
            b = np.mean([res[n][0] for n in names])
            t = np.mean([res[n][1] for n in names])
            print(
                f"| {design} | {rule} | {b:.3f} | {db.mean():+.3f} | {int((db > 1e-9).sum())} | "
                f"{t:.3f} | {dt.mean():+.3f} | {int((dt > 1e-9).sum())} |"
            )
    for design, rule in args.details:
        res = per_dataset(rows, DESIGNS[design], RULES[rule])
        print(f"\n{design}, {rule}: bound / test error per data set (HoldOut() in brackets)\n")
        for n in names:
            b, t, labels = res[n]
            print(
                f"{n:14s} {b:6.2f} / {t:5.2f}  ({base[n][0]:6.2f} / {base[n][1]:5.2f})  "
                f"{b - base[n][0]:+.2f} / {t - base[n][1]:+.2f}  {' '.join(labels)}"
            )


if __name__ == "__main__":
    main()
