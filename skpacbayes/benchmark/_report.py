"""The report of a comparison: its text tables and its plot of bound against test error."""

from skpacbayes.benchmark._methods import FAMILIES, OVERALL, REGISTRY
from skpacbayes.benchmark._reference import MEASURED, TABLE2, TABLE3
from skpacbayes.benchmark._result import summarize

#: what each column of the tables is (``format_table`` prints the lines of the columns shown)
COLUMNS = {
    **{name: method.description for name, method in REGISTRY.items()},
    OVERALL: "the tightest of every (method, posterior) row, delta split over all of them",
}


def _cell(stats):
    """``bound / test`` in percent, with the spread over seeds when there are several."""
    if stats["n_seeds"] < 2:
        return f"{100 * stats['bound_mean']:.1f} / {100 * stats['test_mean']:.1f}"
    return (
        f"{100 * stats['bound_mean']:.1f}±{100 * stats['bound_std']:.1f} / "
        f"{100 * stats['test_mean']:.1f}±{100 * stats['test_std']:.1f}"
    )


def _legend(methods, not_run, skipped):
    """The lines that say what each column shown is, and which methods and pairs were left
    out."""
    lines = ["Columns:"]
    lines += [f"  {m}: {COLUMNS[m]}" for m in methods if m in COLUMNS]
    if not_run:
        left = "; ".join(
            f"{m} (needs {' or '.join(v)})" if v else f"{m} (binary tasks only)"
            for m, v in not_run.items()
        )
        lines.append(f"Not run with the posteriors asked: {left}.")
    if skipped:
        left = "; ".join(f"{pair} ({why})" for pair, why in skipped.items())
        lines.append(f"Skipped as asked (--skip-invalid), not valid here: {left}.")
    return lines


def _reference_cell(dataset, method):
    """The published (or, for ``MEASURED``, our measured) figures of a method's best family."""
    if dataset in MEASURED.get(method, {}):
        b, t = MEASURED[method][dataset]
        return f"{b:.1f} / {t:.1f}"
    if method in TABLE2.get(dataset, {}):
        return _published(TABLE2[dataset][method])
    return "n/a"


def _published(figures):
    """``bound±std / test±std`` of the reference's ``(bound, std, test, std)``."""
    return "{:.1f}±{:.1f} / {:.1f}±{:.1f}".format(*figures)


def format_table(result):
    """Text tables (percent): best of families per method with the reference, and per family.

    Parameters
    ----------
    result : CompareResult
        Output of :func:`compare`.

    Returns
    -------
    str
        Markdown tables: the best family per method (with the reference values of the
        paper where known), then every family run per method (a family no method ran has
        no column), a legend naming what each column is, and the wall time. Cells are
        ``bound / test error`` in percent, with the standard deviation over the seeds
        (``±``) when there are several.

    Examples
    --------
    >>> from skpacbayes.benchmark import CompareResult, format_table
    >>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
    ...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
    >>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
    ...                     settings={"seeds": 1, "delta": 0.05})
    >>> print(format_table(res).splitlines()[4])
    | ours (best family) | 30.0 / 10.0 |
    """
    summary = summarize(result.rows)
    methods = [m for m in (*REGISTRY, OVERALL) if f"{m}/best" in summary]
    name = result.dataset
    seeds = result.settings.get("seeds")
    spread = (
        "one split (seed 0), no spread"
        if seeds == 1
        else f"mean±std over {seeds} seeds (random stratified splits)"
    )
    lines = [
        f"{name}: certified bound / test error in percent, {spread}, delta = "
        f"{result.settings.get('delta')} (best of families: delta split over the valid "
        "families; All: the tightest of every (method, family) pair, delta split over all "
        "of them)",
        "",
        "| row | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
        "| ours (best family) | " + " | ".join(_cell(summary[f"{m}/best"]) for m in methods) + " |",
    ]
    cells = [_reference_cell(name, m) for m in methods]
    referenced = any(cell != "n/a" for cell in cells)
    if referenced:
        lines.append("| reference | " + " | ".join(cells) + " |")
    # the families run: a family no method ran would be a column of n/a
    families = [f for f in FAMILIES if any(f"{m}/{f}" in summary for m in methods)]
    lines += ["", "Per posterior family (each at the full delta):", ""]
    lines.append("| method | " + " | ".join(families) + " |")
    lines.append("|---|" + "---|" * len(families))
    for m in (m for m in methods if m != OVERALL):
        cells = [_cell(summary[f"{m}/{f}"]) if f"{m}/{f}" in summary else "n/a" for f in families]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    for m in methods:  # the reference's figures per family, where it gives them
        ref3 = TABLE3.get(m, {}).get(name, {})
        if set(families) & set(ref3):
            cells = [_published(ref3[f]) if f in ref3 else "n/a" for f in families]
            lines.append(f"| {m} (reference) | " + " | ".join(cells) + " |")
            referenced = True
    lines.append("")
    if referenced:
        lines.append(
            "reference: the reference paper's figures (mean±std over its 5 seeds; Occam: "
            "measured on our copies of the data); n/a: not reported, or not valid here."
        )
    lines += _legend(methods, result.settings.get("not_run"), result.settings.get("skipped"))
    lines.append("")
    lines.append(f"wall time: {result.wall_time:.1f} s")
    return "\n".join(lines)


def plot_results(result, path):
    """Scatter of certified bound against test error per method (matplotlib, lazy import).

    Parameters
    ----------
    result : CompareResult
    path : str or path
        Image file to write.
    """
    from skpacbayes.plotting import BoundDisplay

    display = BoundDisplay.from_results(result.rows, title=result.dataset)
    display.figure_.savefig(path, bbox_inches="tight", dpi=120)
    return display
