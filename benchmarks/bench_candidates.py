"""Every hold-out candidate a certified vote could choose from, fitted once per split.

Usage::

    python benchmarks/bench_candidates.py [--datasets haberman ...] [--seeds 5]
        [--data-home ../shared/datasets] [--max-rows 10000]
        [--out benchmarks/results/candidates.json]

For every data set and seed, the split of ``benchmarks/bench_certified_vote.py`` (data sets
of more than ``--max-rows`` rows capped by a stratified draw seeded by the seed: phishing,
pendigits, adult, mnist and fashion_mnist at the default 10000, then a
stratified 80/20 split with ``random_state=seed``) and, on its training part, with
``random_state=seed`` (the seed ``HoldOutBoundClassifier(random_state=seed)`` uses):

- ``HO10``, ``HO20``, ``HO30``, ``HO50``: ``RandomForestClassifier(200)`` grown on 90, 80,
  70, 50 % of the rows, its plain vote certified on the rest (fold 0: ``HO10``, ``HO20``
  and ``HO50`` are exactly the candidates of ``HoldOutBoundClassifier()``);
- ``HO10b``, ``HO20b``, ``HO50b``: the same forests grown around fold 1, the next disjoint
  held-out set of the same permutation (``HO50b``: the other half);
- ``H100a``, ``H100b``: 100 trees on each half (the halves of the previous default);
- ``S50a``, ``S50b``: a decision stump grown on each half, certified on the other.

Each candidate's held-out error count ``k`` and size ``n`` (from which its test-set bound at
any share of delta follows) and its error on the test split are written to ``--out``; a run
resumes where the file stops. ``benchmarks/bench_selection.py`` evaluates candidate sets,
splits of delta and selection rules on them without refitting.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from bench_certified_vote import load_split, split_arguments


def candidates():
    """label -> unfitted certified estimator (``random_state`` set by the caller)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    from skpacbayes.classifiers._held_out_vote import _FoldHoldOut

    rf100 = RandomForestClassifier(n_estimators=100)
    stump = DecisionTreeClassifier(max_depth=1)
    out = {}
    for f in (0.1, 0.2, 0.3, 0.5):
        out[f"HO{round(100 * f)}"] = _FoldHoldOut(validation_fraction=f, fold=0)
    for f in (0.1, 0.2, 0.5):
        out[f"HO{round(100 * f)}b"] = _FoldHoldOut(validation_fraction=f, fold=1)
    out["H100a"] = _FoldHoldOut(voters=rf100, validation_fraction=0.5, fold=0)
    out["H100b"] = _FoldHoldOut(voters=rf100, validation_fraction=0.5, fold=1)
    out["S50a"] = _FoldHoldOut(voters=stump, validation_fraction=0.5, fold=0)
    out["S50b"] = _FoldHoldOut(voters=stump, validation_fraction=0.5, fold=1)
    return out


def run_one(name, data_home, seed, max_rows, row=None):
    X_tr, X_te, y_tr, y_te, capped = load_split(name, data_home, seed, max_rows)
    if row is None:
        row = {"dataset": name, "seed": seed, "capped": capped, "n_train": int(len(y_tr))}
        row["candidates"] = {}
    for label, est in candidates().items():
        if label in row["candidates"]:
            continue
        start = time.perf_counter()
        est.set_params(random_state=seed, n_jobs=1).fit(X_tr, y_tr)
        cert = est.certificate_
        row["candidates"][label] = {
            "k": int(cert.statistics["errors"][0]),
            "n": int(cert.m[0]),
            "test_error": float(np.mean(est.predict(X_te) != y_te)),
            "seconds": time.perf_counter() - start,
        }
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    split_arguments(parser)
    parser.add_argument("--out", default="benchmarks/results/candidates.json")
    args = parser.parse_args()
    path = Path(args.out)
    rows = json.loads(path.read_text())["rows"] if path.exists() else []
    done = {(r["dataset"], r["seed"]): r for r in rows}
    labels = set(candidates())
    for name in args.datasets:
        for seed in range(args.seeds):
            old = done.get((name, seed))
            if old is not None and labels <= set(old["candidates"]):
                continue
            start = time.perf_counter()
            row = run_one(name, args.data_home, seed, args.max_rows, old)
            if old is None:
                rows.append(row)
            cands = row["candidates"]
            print(
                f"{name} seed {seed} ({time.perf_counter() - start:.0f} s): "
                + ", ".join(
                    f"{k} {c['k']}/{c['n']} test {c['test_error']:.3f}" for k, c in cands.items()
                ),
                flush=True,
            )
            meta = {"max_rows": args.max_rows, "command": "python " + " ".join(sys.argv)}
            path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
