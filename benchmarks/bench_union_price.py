"""What the split of ``delta`` costs CertifiedVoteClassifier, and what any other split could win.

Usage::

    python benchmarks/bench_union_price.py [--json benchmarks/results/certified_vote.json]

Reads the candidates ``bench_certified_vote.py`` recorded (``candidates_`` of the default
``CertifiedVoteClassifier``: every hold-out, boosting and stump candidate's error on its
held-out rows, and its share of ``delta``) and recomputes, with the library's
test-set bound (:func:`skpacbayes.bounds.binomial_inv_upper`) and no refit, per data set
(mean over the seeds, percent):

* ``default``: the deployed bound at the recorded shares (every candidate's bound recomputed
  and checked against the recorded one to 1e-12, and the smallest against the deployed one);
* ``deployed@delta``: the same candidate at the whole ``delta`` (the union's price);
* ``hindsight``: the smallest bound of any candidate at the whole ``delta``, which no split
  of ``delta`` fixed before the data can beat on these candidates (every share is at most
  ``delta``);
* ``0 errors``: the largest held-out set with no error at all at the whole ``delta``, the
  floor of any hold-out certificate at these fractions;
* the deployed bound under other weights fixed before the data, ``w = min(1, (h / H) ** a)``
  for a forest or boosting candidate of fraction ``f`` (``h = ceil(f m)``), ``s`` for a stump
  (the default: ``H = 200``, ``a = 1``, ``s = 0.1``), and the leave-one-data-set-out choice
  among them (the weights that do best on the eleven other data sets, scored on the
  twelfth): what tuning
  the weights on these data sets would win on a data set it did not see; and the default
  weights on fold 0 of each fraction alone (no second fold: a smaller union, one draw).

Each column is reported as its mean minus the mean test error of ``RandomForestClassifier(200)``
on every training row, the gap of issue 58's target.
"""

import argparse
import itertools
import json
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from skpacbayes.bounds import binomial_inv_upper
from skpacbayes.engine.protocols.held_out import validation_rows

GRID = list(itertools.product((100, 200, 400, 800), (0.5, 1.0, 2.0), (0.02, 0.1, 0.3)))
DEFAULT = (200, 1.0, 0.1)


class HeldOut(NamedTuple):
    """A hold-out, boosting or stump candidate as recorded: ``k`` errors on its ``h`` held-out
    rows (None: it dropped out, bound 1) at the share ``delta``; ``ceil(f m)`` rows, what the
    default weights read (fold 1 of 0.5 holds the other ``m - ceil(m / 2)``)."""

    kind: str
    fold: int
    h: int
    k: int | None
    delta: float
    weight_rows: int

    def bound(self, delta):
        return 1.0 if self.k is None else binomial_inv_upper(self.k, self.h, delta)


def held_out(row):
    """The hold-out, boosting and stump candidates of a row, each bound recomputed at its
    recorded share and checked against the recorded bound."""
    n = row["n_train"]
    out = []
    for c in row["certified"]["candidates"]:
        if c["kind"] == "out_of_bag":
            continue
        f = c["validation_fraction"]
        h = validation_rows(n, f, 0, c["fold"])[1].size  # the size alone, whatever the seed
        err = c["estimated_error"]
        k = None if not np.isfinite(err) else round(err * h)
        cand = HeldOut(c["kind"], c["fold"], h, k, c["delta"], math.ceil(f * n))
        assert abs(cand.bound(cand.delta) - c["bound"]) < 1e-12, (row["dataset"], c)
        out.append(cand)
    return out


def deployed_bound(cands, weights, delta):
    """The smallest bound (the default rule) when the shares are ``delta w_c / sum w``."""
    total = sum(weights)
    return min(c.bound(delta * w / total) for c, w in zip(cands, weights, strict=True) if w > 0)


def weights_of(cands, H, a, s, folds=None):
    """The weights ``min(1, (h / H) ** a)``, ``s`` a stump; 0 outside ``folds`` (if given)."""
    return [
        0.0
        if folds is not None and c.fold not in folds
        else s
        if c.kind == "stump"
        else min(1.0, (c.weight_rows / H) ** a)
        for c in cands
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="benchmarks/results/certified_vote.json")
    parser.add_argument("--delta", type=float, default=0.05)
    args = parser.parse_args()
    rows = json.loads(Path(args.json).read_text())["rows"]
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    per = {}
    for name in names:
        sel = [r for r in rows if r["dataset"] == name]
        cols = {
            "rf": [],
            "default": [],
            "deployed@delta": [],
            "hindsight": [],
            "0 errors": [],
            "one fold": [],
        }
        grid = {g: [] for g in GRID}
        for r in sel:
            cands = held_out(r)
            recorded = [c.bound(c.delta) for c in cands]
            assert min(recorded) == r["certified"]["bound"], name  # the tightest is deployed
            at_delta = [c.bound(args.delta) for c in cands]
            cols["rf"].append(r["forest"]["test_error"])
            cols["default"].append(min(recorded))
            cols["deployed@delta"].append(at_delta[int(np.argmin(recorded))])
            cols["hindsight"].append(min(at_delta))
            cols["0 errors"].append(binomial_inv_upper(0, max(c.h for c in cands), args.delta))
            cols["one fold"].append(
                deployed_bound(cands, weights_of(cands, *DEFAULT, folds=(0,)), args.delta)
            )
            for g in GRID:
                grid[g].append(deployed_bound(cands, weights_of(cands, *g), args.delta))
        per[name] = {k: 100 * float(np.mean(v)) for k, v in cols.items()}
        per[name]["grid"] = {g: 100 * float(np.mean(v)) for g, v in grid.items()}

    def gap(name, value):
        return value - per[name]["rf"]

    # leave one data set out: the weights best on the others, scored on the one left out
    for name in names:
        others = [o for o in names if o != name]
        best = min(GRID, key=lambda g: np.mean([per[o]["grid"][g] - per[o]["rf"] for o in others]))
        per[name]["lodo"] = per[name]["grid"][best]
        per[name]["lodo_weights"] = best

    head = [
        "data set",
        "RF test",
        "default",
        "deployed@delta",
        "hindsight",
        "0 errors",
        "LODO weights",
        "(H, a, s) chosen",
    ]
    print(
        f"bench_union_price.py on {args.json} (delta {args.delta}); "
        "bound minus RF(200)'s test error, percent points"
    )
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in names:
        p = per[name]
        cells = (
            [name, f"{p['rf']:.2f}"]
            + [
                f"{gap(name, p[k]):.2f}"
                for k in ("default", "deployed@delta", "hindsight", "0 errors", "lodo")
            ]
            + [str(p["lodo_weights"])]
        )
        print("| " + " | ".join(cells) + " |")
    mean = {
        k: np.mean([gap(n, per[n][k]) for n in names])
        for k in ("default", "deployed@delta", "hindsight", "0 errors", "lodo", "one fold")
    }
    print(
        f"\nMean over {len(names)} data sets: default {mean['default']:.2f}, the deployed "
        f"candidate at the whole delta {mean['deployed@delta']:.2f}, hindsight (any candidate "
        f"at the whole delta, the floor of every split) {mean['hindsight']:.2f}, 0 errors on "
        f"the largest held-out set {mean['0 errors']:.2f}, weights chosen on the other data "
        f"sets {mean['lodo']:.2f}, the default weights on fold 0 of each fraction alone "
        f"{mean['one fold']:.2f}"
    )
    ranked = sorted(GRID, key=lambda g: np.mean([gap(n, per[n]["grid"][g]) for n in names]))
    print("Weights (H, a, s) by mean gap on all the data sets (in-sample):")
    for g in ranked[:5] + ([DEFAULT] if DEFAULT not in ranked[:5] else []):
        tag = " (default)" if g == DEFAULT else ""
        print(f"  {g}: {np.mean([gap(n, per[n]['grid'][g]) for n in names]):.2f}{tag}")


if __name__ == "__main__":
    main()
