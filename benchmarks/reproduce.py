"""Reproduce the reference comparison on the nine datasets we hold.

Usage::

    python benchmarks/reproduce.py --data-home ../shared/datasets [--seeds 5] [--n-jobs 2]
        [--datasets haberman svmguide1 ...] [--methods FO Partition Occam Vote]
        [--posteriors categorical gaussian] [--out benchmarks/results]

``--methods`` defaults to the reproduction page's grid: FO SO Bin CBound VC Partition Occam
Vote HoldOut, less the binary-only CBound and VC on the multi-class data sets. Each data set
runs the (method, posterior) pairs of the request that are valid on it; its table names the
others (``compare(..., skip_invalid=True)``).

Writes ``<out>/<dataset>.json`` (rows, summary, settings, wall time) and
``<out>/<dataset>.txt`` (the tables printed by ``skpacbayes compare``) per dataset,
then ``<out>/summary.txt``: per dataset, our certified partition bound (best family,
delta split) against the reference's, our tightest baseline, the "All" selection, and
the wall times with their total. ``--summary-only`` rebuilds it and the per-dataset tables
from the JSON files (results written with the legacy method names ``CBnd`` and ``Part`` are
read with the current ones).

``--merge`` re-runs only ``--methods`` and replaces their rows in the existing
``<out>/<dataset>.json`` (the other methods' rows are kept, the run's wall time is added to
the file's and the re-run is listed under ``settings["merged"]``). The "All" rows, a
selection over every method, cannot be rebuilt from rows and are dropped: merge only into
results whose All column is not used (the strategy study), and re-run the reproduction
itself whole.
"""

import argparse
import json
import time
from pathlib import Path

from legacy_results import upgrade_result

from skpacbayes.benchmark import (
    FAMILIES,
    CompareResult,
    check_request,
    compare,
    format_table,
)
from skpacbayes.benchmark._reference import TABLE2

BASELINES = ("FO", "SO", "Bin", "CBound", "VC")
#: the grid of the reproduction page (without --methods): the reference paper's methods and
#: our Occam, Vote and HoldOut rows; the strategy study adds the others
METHODS = (*BASELINES, "Partition", "Occam", "Vote", "HoldOut")

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
    parser.add_argument("--summary-only", action="store_true")
    parser.add_argument("--merge", action="store_true")
    parser.add_argument(
        "--total-seconds", type=float, default=None, help="with --summary-only: the run's wall time"
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.summary_only:
        write_summary(out, args.datasets, args.total_seconds)
        return
    if args.merge and not args.methods:
        parser.error("--merge needs --methods (the methods to re-run)")
    start = time.perf_counter()
    for name in args.datasets:
        result = compare(
            name,
            data_home=args.data_home,
            seeds=args.seeds,
            max_epochs=args.max_epochs,
            n_jobs=args.n_jobs,
            methods=args.methods or _methods_for(name),
            posteriors=args.posteriors,
            skip_invalid=True,  # a grid over data sets: each runs the pairs valid on it
        )
        if args.merge:
            result = merge_into(out / f"{name}.json", result)
        table = format_table(result)
        print(table, flush=True)
        (out / f"{name}.json").write_text(result.to_json())
        (out / f"{name}.txt").write_text(table + "\n")
    total = time.perf_counter() - start
    print(f"total wall time: {total:.0f} s")
    write_summary(out, args.datasets, total)


def _methods_for(dataset):
    """The reproduction's grid without the methods this task cannot run (binary-only
    bounds on a multi-class data set), which ``compare`` refuses when they are named."""
    not_run = check_request(dataset, list(METHODS), list(FAMILIES), explicit=False)
    return [m for m in METHODS if m not in not_run]


def merge_into(path, result):
    """``result``'s rows replacing those of its methods in the result file ``path``."""
    old = upgrade_result(json.loads(path.read_text()))
    methods = set(result.settings["methods"])
    if old["settings"]["seeds"] != result.settings["seeds"]:
        raise SystemExit(
            f"{path}: {old['settings']['seeds']} seeds there, {result.settings['seeds']} now"
        )
    kept = [r for r in old["rows"] if r["method"] not in methods | {"All"}]
    settings = dict(old["settings"])
    settings["methods"] = [m for m in settings["methods"] if m not in methods] + sorted(methods)
    settings["merged"] = [
        *settings.get("merged", []),
        {"methods": sorted(methods), "wall_time": result.wall_time},
    ]
    new = [r for r in result.rows if r["method"] != "All"]  # the All of the re-run alone
    return CompareResult(result.dataset, kept + new, settings, old["wall_time"] + result.wall_time)


def _cell(entry):
    if entry is None:
        return "n/a"
    return f"{100 * entry['bound_mean']:.1f} / {100 * entry['test_mean']:.1f}"


def summary_table(results, total=None):
    """Markdown table: partition bound against the reference, baselines, All, wall times."""
    lines = [
        "Certified bound / test error in percent, mean over the seeds, delta = 0.05. Partition: "
        "our partition bound (best family, delta split); Partition (ref): the reference's, "
        "uncertified; best baseline: the tightest of our FO, SO, Bin, CBound, VC rows; All: the "
        "tightest of "
        "every (method, family) pair, delta split over all of them.",
        "",
        "| dataset | seeds | Partition | Partition (ref) | Partition <= ref | best baseline | "
        "Partition < baseline "
        "| All | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    at_most = below = 0
    for result in results:
        name, summary = result["dataset"], result["summary"]
        part = summary.get("Partition/best")
        ref = TABLE2.get(name, {}).get("Partition")
        baselines = [summary[f"{m}/best"] for m in BASELINES if f"{m}/best" in summary]
        best = min(baselines, key=lambda e: e["bound_mean"]) if baselines else None
        ok_ref = part is not None and ref is not None and 100 * part["bound_mean"] <= ref[0]
        ok_base = part is not None and best is not None and part["bound_mean"] < best["bound_mean"]
        at_most += ok_ref
        below += ok_base
        ref_cell = "n/a" if ref is None else f"{ref[0]:.1f} / {ref[2]:.1f}"
        lines.append(
            f"| {name} | {result['settings']['seeds']} | {_cell(part)} | {ref_cell} | "
            f"{'yes' if ok_ref else 'no'} | {_cell(best)} | {'yes' if ok_base else 'no'} | "
            f"{_cell(summary.get('All/best'))} | {result['wall_time']:.0f} |"
        )
    lines.append("")
    lines.append(
        f"Partition at most the reference's on {at_most} of {len(results)} data sets; strictly "
        f"below our best baseline on {below} of {len(results)}."
    )
    wall = sum(r["wall_time"] for r in results)
    lines.append(f"sum of the per-dataset wall times: {wall:.0f} s ({wall / 60:.1f} min)")
    if total is not None:
        lines.append(f"total wall time of the run: {total:.0f} s ({total / 60:.1f} min)")
    return "\n".join(lines)


def write_summary(out, datasets, total):
    results = [
        upgrade_result(json.loads((out / f"{name}.json").read_text()))
        for name in datasets
        if (out / f"{name}.json").exists()
    ]
    for result in results:  # the per-dataset tables, rebuilt from the (upgraded) rows
        rows, settings = result["rows"], result["settings"]
        table = format_table(CompareResult(result["dataset"], rows, settings, result["wall_time"]))
        (out / f"{result['dataset']}.txt").write_text(table + "\n")
    text = summary_table(results, total)
    print(text)
    (out / "summary.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
