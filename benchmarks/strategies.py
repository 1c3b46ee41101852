"""Summarise the strategy study (issue: below the Occam line) from ``compare`` results.

Usage::

    python benchmarks/reproduce.py --datasets ... --methods Occam Vote \\
        --posteriors categorical gaussian --out benchmarks/results/strategies
    python benchmarks/strategies.py [--results benchmarks/results/strategies] [--plot out.png]
        [--rst docs/strategies_table.txt]

Prints one Markdown row per dataset: the best single voter (Occam, the protocol's voters),
the PAC-Bayes certified vote ("Vote": :class:`skpacbayes.CertifiedVoteClassifier` with
``holdout=False``: split forest, Gaussian posterior with prior ``t 1`` on a fixed grid, delta
split over every candidate), the hold-out line (:class:`skpacbayes.HoldOutBoundClassifier`),
the tightest of all three with delta split once more ("All"), and the reference paper's best
bound of any kind with its test error. Percent, mean ± std over the seeds of the run.
"""

import argparse
import json
from pathlib import Path

import numpy as np

from skpacbayes import _reference
from skpacbayes.benchmark import upgrade_result


def _stats(rows, method, posterior):
    sel = [r for r in rows if r["method"] == method and r["posterior"] == posterior]
    if not sel:
        return None
    b = 100 * np.array([r["bound"] for r in sel])
    t = 100 * np.array([r["test_error"] for r in sel])
    return b.mean(), b.std(), t.mean(), t.std(), len(sel)


def _cell(s):
    return "n/a" if s is None else f"{s[0]:.1f}±{s[1]:.1f} / {s[2]:.1f}±{s[3]:.1f}"


def _reference_best(name):
    table = _reference.TABLE2.get(name, {})
    if not table:
        return None
    method = min(table, key=lambda m: table[m][0])
    b, _, t, _ = table[method]
    return method, b, t


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="benchmarks/results/strategies")
    parser.add_argument("--plot", default=None)
    parser.add_argument("--rst", default=None, help="also write the table as an RST list-table")
    args = parser.parse_args()
    files = sorted(Path(args.results).glob("*.json"))
    header = [
        "dataset",
        "seeds",
        "Occam",
        "Vote (PAC-Bayes vote)",
        "HoldOut",
        "All (delta split)",
        "reference best bound",
        "Vote below Occam",
        "wall s",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    points, table = [], [header]
    for path in files:
        result = upgrade_result(json.loads(path.read_text()))
        rows, name = result["rows"], result["dataset"]
        occam = _stats(rows, "Occam", "categorical")
        vote = _stats(rows, "Vote", "gaussian")
        holdout = _stats(rows, "HoldOut", "categorical")
        best = _stats(rows, "All", "best")
        ref = _reference_best(name)
        ref_cell = "n/a" if ref is None else f"{ref[1]:.1f} / {ref[2]:.1f} ({ref[0]})"
        below = "n/a" if occam is None or vote is None else ("yes" if vote[0] < occam[0] else "no")
        n = vote[4] if vote else (occam[4] if occam else 0)
        cells = [name, str(n), _cell(occam), _cell(vote), _cell(holdout), _cell(best), ref_cell]
        cells.append(below)
        cells.append(f"{result['wall_time']:.0f}")
        print("| " + " | ".join(cells) + " |")
        table.append(cells)
        points.append((name, occam, vote, holdout, ref))
    if args.plot:
        _plot(points, args.plot)
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


def _plot(points, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    styles = {
        "Occam (best single voter)": "s",
        "Vote (PAC-Bayes vote)": "o",
        "HoldOut (half forest, test-set bound)": "D",
        "reference best": "^",
    }
    for k, (label, marker) in enumerate(styles.items()):
        xs, ys = [], []
        for name, *stats in points:
            s = stats[k]
            if s is None:
                continue
            x, y = (s[2], s[1]) if label.startswith("reference") else (s[2], s[0])
            xs.append(x)
            ys.append(y)
            ax.annotate(name, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.scatter(xs, ys, marker=marker, label=label)
    lim = max(ax.get_xlim()[1], ax.get_ylim()[1])
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.plot([0, lim], [0, lim], color="grey", lw=0.8, ls="--", label="bound = test error")
    ax.set_xlabel("test error (%)")
    ax.set_ylabel("certified bound (%)")
    ax.legend()
    fig.savefig(path, bbox_inches="tight", dpi=120)


if __name__ == "__main__":
    main()
