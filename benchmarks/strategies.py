"""Summarise the strategy study from ``compare`` results: one table, one figure.

Usage::

    python benchmarks/reproduce.py --datasets ... --methods Occam Vote HoldOut HO10 HO20 HO50 \\
        OOB-FO OOB-SO Certified --posteriors categorical gaussian \\
        --out benchmarks/results/strategies
    python benchmarks/strategies.py
        [--results benchmarks/results/strategies benchmarks/results/strategies_new]
        [--certified benchmarks/results/certified_vote.json]
        [--plot docs/_static/strategies.png] [--rst docs/strategies_table.txt]

Prints one Markdown row per dataset with every strategy row found in the results (see
``skpacbayes.benchmark.STRATEGIES``, plus the Occam line): the best single voter (Occam),
the Gaussian PAC-Bayes vote (Vote), the hold-out votes (HoldOut: the halves of a split
forest; HO10/HO20/HO50: a forest grown on 90/80/50 % of the rows, certified on the rest),
the out-of-bag bounds of a forest grown on every row (OOB-FO, OOB-SO),
:class:`skpacbayes.CertifiedVoteClassifier` with its defaults (Certified; from
``--certified``, the rows of ``benchmarks/bench_certified_vote.py``, which replace the
compare results' Certified rows) and the reference paper's best bound. Percent, mean ± std
over the seeds of each run (the "seeds" column gives the largest count).

``--plot`` draws one panel per dataset: certified bound against test error, one marker per
strategy, with the line bound = test error; each panel names the strategies it lacks.
"""

import argparse
import json
from pathlib import Path

import numpy as np
from legacy_results import upgrade_result

from skpacbayes.benchmark import _reference

#: strategy rows, in table order: (method, posterior) -> label
ROWS = {
    ("Occam", "categorical"): "Occam",
    ("Vote", "gaussian"): "Vote",
    ("HoldOut", "categorical"): "HoldOut",
    ("HO10", "categorical"): "HO10",
    ("HO20", "categorical"): "HO20",
    ("HO50", "categorical"): "HO50",
    ("OOB-FO", "categorical"): "OOB-FO",
    ("OOB-SO", "categorical"): "OOB-SO",
    ("Certified", "categorical"): "Certified",
}
MARKERS = "sovD<>^*Pxh"


def _stats(values):
    b = 100 * np.array([v[0] for v in values])
    t = 100 * np.array([v[1] for v in values])
    return b.mean(), b.std(), t.mean(), t.std(), len(values)


def _cell(s):
    return "n/a" if s is None else f"{s[0]:.1f}±{s[1]:.1f} / {s[2]:.1f}±{s[3]:.1f}"


def _reference_best(name):
    table = _reference.TABLE2.get(name, {})
    if not table:
        return None
    method = min(table, key=lambda m: table[m][0])
    b, _, t, _ = table[method]
    return method, b, t


def collect(results, certified=None):
    """Per dataset: label -> (bound mean, bound std, test mean, test std, seeds), wall time.

    ``results`` is a list of folders of ``compare`` JSON files; a strategy row found in
    several is taken from the last one. ``certified`` (the rows of
    ``bench_certified_vote.py``) gives the Certified row of every data set it holds at full
    size, replacing the compare results' (the dedicated run is the one made with the current
    defaults); its capped data sets (subsampled) are left out, not comparable with the
    full-size rows.
    """
    out = {}
    for folder in results:
        for path in sorted(Path(folder).glob("*.json")):
            result = upgrade_result(json.loads(path.read_text()))
            per, wall = out.get(result["dataset"], ({}, 0.0))
            for (method, posterior), label in ROWS.items():
                sel = [
                    (r["bound"], r["test_error"])
                    for r in result["rows"]
                    if r["method"] == method and r["posterior"] == posterior
                ]
                if sel:
                    per[label] = _stats(sel)
            out[result["dataset"]] = (per, wall + result["wall_time"])
    if certified:
        rows = json.loads(Path(certified).read_text())["rows"]
        for name in dict.fromkeys(r["dataset"] for r in rows):
            if name not in out or any(r.get("capped") for r in rows if r["dataset"] == name):
                continue  # another data set, or a subsample of it: not comparable here
            per, wall = out[name]
            # bench_certified_vote.py rows: {"certified": {"bound", "test_error"}, ...}
            sel = [
                (r["certified"]["bound"], r["certified"]["test_error"])
                for r in rows
                if r["dataset"] == name
            ]
            per["Certified"] = _stats(sel)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--results", nargs="+", default=["benchmarks/results/strategies"], help="folders"
    )
    parser.add_argument("--certified", default=None)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--rst", default=None, help="also write the table as an RST list-table")
    args = parser.parse_args()
    data = collect(args.results, args.certified)
    labels = [lab for lab in ROWS.values() if any(lab in per for per, _ in data.values())]
    header = ["dataset", "seeds", *labels, "reference best bound", "wall s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    table = [header]
    for name, (per, wall) in data.items():
        ref = _reference_best(name)
        ref_cell = "n/a" if ref is None else f"{ref[1]:.1f} / {ref[2]:.1f} ({ref[0]})"
        seeds = max(s[4] for s in per.values())
        cells = [name, str(seeds), *(_cell(per.get(lab)) for lab in labels), ref_cell]
        cells.append("n/a" if np.isnan(wall) else f"{wall:.0f}")
        print("| " + " | ".join(cells) + " |")
        table.append(cells)
    if args.plot:
        _plot(data, labels, args.plot)
    if args.rst:
        Path(args.rst).write_text(_list_table(table))


def _list_table(table):
    lines = [
        ".. list-table:: Certified bound / test error in percent (mean ± std over the seeds), "
        "delta = 0.05",
        "   :header-rows: 1",
        "",
    ]
    for row in table:
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines) + "\n"


def _plot(data, labels, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FormatStrFormatter

    names = list(data)
    cols = 3
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 2.9 * rows), squeeze=False)
    # plain percent ticks on a scale linear up to 1 % and logarithmic above: the hold-out
    # bounds below 1 % (mushroom) stay apart from the others, and every tick reads as a number
    ticks = [0, 0.5, 1, 2, 5, 10, 20, 50, 100]
    for i, (ax, name) in enumerate(zip(axes.ravel(), names, strict=False)):
        per, _ = data[name]
        top = 0.0
        for k, label in enumerate(labels):
            if label not in per:
                continue
            b, _, t, _, _ = per[label]
            ax.scatter([t], [b], marker=MARKERS[k % len(MARKERS)], label=label, s=30)
            top = max(top, b, t)
        ref = _reference_best(name)
        if ref is not None:
            ax.scatter([ref[2]], [ref[1]], marker="^", color="black", label="reference best", s=30)
            top = max(top, ref[1], ref[2])
        ax.plot([0, top], [0, top], color="grey", lw=0.8, ls="--")
        for axis, scale in ((ax.xaxis, ax.set_xscale), (ax.yaxis, ax.set_yscale)):
            scale("symlog", linthresh=1.0)
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FormatStrFormatter("%g"))
            axis.set_minor_locator(FixedLocator([]))
        ax.grid(True, color="0.9", lw=0.6)
        ax.set_xlim(-0.1, 1.3 * top)
        ax.set_ylim(-0.1, 1.3 * top)
        missing = [label for label in labels if label not in per]
        if missing:  # say which strategies this panel lacks, rather than leave it to the eye
            ax.text(
                0.98,
                0.03,
                "not measured here:\n"
                + ",\n".join(", ".join(missing[j : j + 3]) for j in range(0, len(missing), 3)),
                transform=ax.transAxes,
                ha="right",
                va="bottom",
                fontsize=7.5,
                color="0.3",
            )
        ax.set_title(name, fontsize=10)
        if i >= len(names) - cols:  # axis names once per row and column, ticks on every panel
            ax.set_xlabel("test error (%)", fontsize=9)
        if i % cols == 0:
            ax.set_ylabel("certified bound (%)", fontsize=9)
        ax.tick_params(labelsize=8)
    for ax in axes.ravel()[len(names) :]:
        ax.axis("off")
    handles = {}
    for ax in axes.ravel():
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=6, fontsize=9)
    fig.suptitle(
        "mean over the seeds; both axes linear up to 1 %, logarithmic above; dashed: bound = "
        "test error",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, bbox_inches="tight", dpi=110)


if __name__ == "__main__":
    main()
