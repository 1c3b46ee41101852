"""Reproduce the reference comparison on the nine datasets we hold.

Usage::

    python benchmarks/reproduce.py --data-home ../shared/datasets [--seeds 5] [--n-jobs 2]
        [--datasets haberman svmguide1 ...] [--methods FO Part Occam Vote]
        [--posteriors categorical gaussian] [--out benchmarks/results]

Writes ``<out>/<dataset>.json`` (rows, summary, settings, wall time) and
``<out>/<dataset>.txt`` (the tables printed by ``skpacbayes compare``) per dataset,
then prints the total wall time.
"""

import argparse
import time
from pathlib import Path

from skpacbayes.benchmark import compare, format_table

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-epochs", type=int, default=100)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--posteriors", nargs="+", default=None)
    parser.add_argument("--out", default="benchmarks/results")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for name in args.datasets:
        result = compare(
            name,
            data_home=args.data_home,
            seeds=args.seeds,
            max_epochs=args.max_epochs,
            n_jobs=args.n_jobs,
            methods=args.methods,
            posteriors=args.posteriors,
        )
        table = format_table(result)
        print(table, flush=True)
        (out / f"{name}.json").write_text(result.to_json())
        (out / f"{name}.txt").write_text(table + "\n")
    print(f"total wall time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
