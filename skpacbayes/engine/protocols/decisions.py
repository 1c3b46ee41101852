"""The decision protocols: an operating point of a fitted model, chosen on rows it never saw.

Two decisions, each a threshold on a score of a model fixed before the rows are read, chosen
by a fixed-sequence test over a grid fixed before the rows are read (Learn-then-Test, with
exact binomial tests), and certified with the risks of the vocabulary
(:mod:`skpacbayes.engine.risks`) at the chosen threshold:

* :func:`choose_threshold`: predict the positive class when its score reaches the threshold,
  with its miss rate (or its false-positive rate) controlled; the test walks the grid from the
  safe end (every row positive, or none) and deploys the last threshold it certifies, the best
  on the other error. Proposition D2 of :ref:`theory-decisions`.
* :func:`choose_abstention`: answer only when the model's confidence reaches the threshold,
  with the error rate among the answered rows (the selective risk) controlled; the test walks
  down from the most confident end, passes over the thresholds that answer too few rows to be
  deployed, and deploys the last one it certifies, the one that answers most. Proposition D4.

Each returns a :class:`DecisionChoice` whose statement goes through the certify door
(:func:`~skpacbayes.engine.certify.certify`). The shares of ``delta``: the choice takes half
(all of it when nothing else is reported), the reports the other half, evenly; a report that
reads rows the choice read is certified at every grid threshold at once (its share split over
the grid), one that does not is exact at its share.
"""

import math
from dataclasses import dataclass

import numpy as np

from skpacbayes.engine.certificate import equal_share, shares_within
from skpacbayes.engine.certify import DecisionStatement
from skpacbayes.engine.risks import (
    certified_upper,
    confusion_counts,
    risk_statements,
)

__all__ = [
    "DecisionChoice",
    "choose_abstention",
    "choose_threshold",
    "probability_grid",
    "skip_coverage",
]

#: Share of the choice's part of ``delta`` that pays for passing over the thresholds that
#: answer too few rows (:func:`choose_abstention` with ``min_coverage > 0``).
SKIP_SHARE = 0.1


def probability_grid():
    """The default grid on [0, 1]: fixed before any row is read.

    Every multiple of 0.001 from 0 to 1, and ``10^-x`` and ``1 - 10^-x`` for ``x`` from
    3.125 to 10 by steps of 0.125 (models put many rows within 0.001 of 0 or 1): 1113 values,
    among them every threshold of ``numpy.linspace(0, 0.99, 100)``.

    Returns
    -------
    grid : ndarray of float64
        Increasing, from 0 to 1.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.decisions import probability_grid
    >>> grid = probability_grid()
    >>> grid.size, float(grid[0]), float(grid[-1]), bool((grid == 0.5).any())
    (1113, 0.0, 1.0, True)
    """
    tails = 10.0 ** -np.arange(3.125, 10.0 + 1e-9, 0.125)
    return np.unique(np.concatenate([np.linspace(0.0, 1.0, 1001), tails, 1.0 - tails]))


@dataclass(frozen=True)
class DecisionChoice:
    """The threshold a protocol chose and the statement that certifies it.

    Attributes
    ----------
    threshold : float
        The deployed grid value.
    certified : ndarray of float
        Every grid value the test certified, increasing.
    statement : DecisionStatement
        For the certify door.
    """

    threshold: float
    certified: np.ndarray
    statement: DecisionStatement


def _shares(delta, choice_share, n_reports):
    """``(choice, each report)`` shares of ``delta``: all to the choice without reports."""
    if n_reports == 0:
        return float(delta), 0.0
    choice = float(delta) * choice_share
    return choice, equal_share(float(delta) - choice, n_reports)


def _report(statement, confusion, level, kind, cap=1.0):
    """The record of one report of the vocabulary (a dict of :class:`DecisionStatement`)."""
    errors, rows = statement.counts(confusion)
    return {
        "names": statement.names,
        "side": "upper",
        "errors": errors,
        "rows": rows,
        "certified_errors": None,
        "level": level,
        "cap": cap,
        "kind": kind,
    }


def _not_certified(max_risk, smallest, why):
    return ValueError(
        f"No threshold of the grid is certified at max_risk={max_risk!r}: {why}. "
        f"These rows certify max_risk >= {math.ceil(smallest * 1e4) / 1e4:.4f} at best; raise "
        "max_risk (or delta), or give more rows."
    )


def choose_threshold(scores, y_idx, below, pos, n_classes, *, risk, max_risk, delta, risks, grid):
    """Certify "predict ``pos`` when its score reaches ``t``" by a fixed-sequence test over ``t``.

    Parameters
    ----------
    scores : ndarray of float, shape (n_rows,)
        The score of class ``pos`` on each row (a model fixed before the rows are read).
    y_idx : ndarray of int, shape (n_rows,)
        True class indices.
    below : ndarray of int, shape (n_rows,)
        The class predicted on each row when its score is below the threshold.
    pos : int
        The class index of the positive class.
    n_classes : int
        ``K``.
    risk : {"miss_rate", "false_positive_rate"}
        The controlled risk of class ``pos``.
    max_risk : float
        Its target.
    delta : float
        The confidence parameter of every statement together.
    risks : tuple of str
        The risks of the vocabulary reported at the chosen threshold (the controlled
        statement is the test's, whether ``risk`` is among them or not).
    grid : ndarray of float
        Candidate thresholds, fixed before the rows are read.

    Returns
    -------
    choice : DecisionChoice

    Raises
    ------
    ValueError
        When no grid threshold is certified: the message names the smallest ``max_risk``
        these rows could certify.
    """
    grid = np.unique(np.asarray(grid, dtype=np.float64))
    controlled = next(s for s in risk_statements((risk,), n_classes) if (risk, pos) in s.names)
    statements = risk_statements(risks, n_classes)
    for s in statements:  # the reports with the controlled statement's cells are the test's
        if np.array_equal(s.rows, controlled.rows) and np.array_equal(s.errors, controlled.errors):
            controlled = s
    reports = [s for s in statements if s is not controlled]
    level, share = _shares(delta, 0.5, len(reports))
    # the rows the test reads (by true class), in the order of the test from the safe end
    read = {pos} if risk == "miss_rate" else set(range(n_classes)) - {pos}
    tested = np.isin(y_idx, sorted(read))
    tested_scores = np.sort(scores[tested])
    n = int(tested_scores.size)
    if risk == "miss_rate":  # from the lowest threshold (every row positive): misses grow
        order = grid
        errors = np.searchsorted(tested_scores, order, side="left")
    else:  # from the highest (no row positive): false positives grow
        order = grid[::-1]
        errors = n - np.searchsorted(tested_scores, order, side="left")
    if n == 0:
        whose = "the positive class" if risk == "miss_rate" else "another class"
        raise _not_certified(max_risk, 1.0, f"no row of {whose} certifies its {risk}")
    from skpacbayes.bounds import binomial_critical_count

    k_star = binomial_critical_count(n, max_risk, level)
    n_certified = int(np.searchsorted(errors, k_star, side="right"))  # the leading run
    if n_certified == 0:
        smallest = certified_upper(int(errors[0]), n, level)
        raise _not_certified(
            max_risk,
            smallest,
            f"the {risk} at the safe end of the test ({int(errors[0])} of {n} rows) is "
            f"not below it at delta={level!r}",
        )
    threshold = float(order[n_certified - 1])
    predicted = np.where(scores >= threshold, pos, below)
    confusion = confusion_counts(y_idx, predicted, n_classes)
    test = _report(controlled, confusion, level, "test", cap=float(max_risk))
    test["certified_errors"] = int(k_star)
    records = [test]
    for s in reports:
        exact = not (s.true_classes() & read)  # rows the test never read: exact at its share
        records.append(
            _report(s, confusion, share, "exact")
            if exact
            else _report(s, confusion, equal_share(share, grid.size), "grid")
        )
    statement = DecisionStatement(
        decision="threshold",
        delta=float(delta),
        statements=tuple(records),
        value=0,
        coverage=None,
        n_classes=int(n_classes),
        n_rows=int(y_idx.size),
        details={
            "threshold": threshold,
            "risk": risk,
            "max_risk": float(max_risk),
            "positive_class": int(pos),
            "n_thresholds": int(grid.size),
            "test_level": level,
            "test_rows": n,
            "critical_errors": int(k_star),
        },
    )
    return DecisionChoice(threshold, np.sort(order[:n_certified]), statement)


class _AbstentionTest:
    """The fixed-sequence test of :func:`choose_abstention` at a target, on fixed counts."""

    def __init__(self, answered, errors, n_rows, level, skip, cover_level, min_coverage):
        self.answered, self.errors, self.n_rows = answered, errors, n_rows
        self.level, self.skip, self.cover_level = level, skip, cover_level
        self.user_coverage = float(min_coverage)

    def min_coverage(self, max_risk):
        """The coverage a deployed threshold must certify (the user's, or the test's need)."""
        need = skip_coverage(self.n_rows, max_risk, self.level, self.skip)
        return max(self.user_coverage, need)

    def skip_rows(self, max_risk):
        """Fewer answered rows: the coverage is below :meth:`min_coverage` (but for ``skip``)."""
        from skpacbayes.bounds import binomial_critical_count

        return binomial_critical_count(self.n_rows, self.min_coverage(max_risk), self.skip) + 1

    def coverage_lower(self, j):
        from skpacbayes.bounds import binomial_inv_lower

        return binomial_inv_lower(int(self.answered[j]), self.n_rows, self.cover_level)

    def run(self, max_risk, first=False):
        """``(certified, deployable)``: the indices the test certifies along the order, and
        whether the last one certifies :meth:`min_coverage` (``first``: stop there)."""
        from skpacbayes.bounds import binomial_p_value, fixed_sequence

        need, n_skip = self.min_coverage(max_risk), self.skip_rows(max_risk)
        tested = np.flatnonzero(self.answered >= n_skip)  # those before: passed over

        def p_values():
            for j in tested:
                yield binomial_p_value(int(self.errors[j]), int(self.answered[j]), max_risk)
                if first and self.coverage_lower(j) >= need:
                    return

        certified = [int(j) for j in tested[: fixed_sequence(p_values(), self.level)]]
        return certified, bool(certified) and self.coverage_lower(certified[-1]) >= need


def skip_coverage(n_rows, max_risk, level, skip):
    """The coverage below which a threshold answers too few rows for the test to pass.

    The fewest answered rows at which the exact test of a selective risk above ``max_risk``
    at ``level`` rejects with one error, ``n_1``; the coverage ``phi`` at which fewer than
    ``n_1`` of ``n_rows`` rows are answered with probability at most ``skip``.

    Parameters
    ----------
    n_rows : int
        Rows that certify the rule.
    max_risk, level : float
        The target and the test's level.
    skip : float
        The chance the pass-over may err.

    Returns
    -------
    coverage : float
        ``binomial_inv_upper(n_1 - 1, n_rows, skip)`` (1 when ``n_rows < n_1``).

    Examples
    --------
    >>> from skpacbayes.engine.protocols.decisions import skip_coverage
    >>> round(skip_coverage(10_000, 0.05, 0.0225, 0.0025), 4)  # 112 rows needed of 10,000
    0.0144
    """
    from skpacbayes.bounds import binomial_critical_count, binomial_inv_upper

    lo, hi = 1, n_rows + 1  # the test passes with one error at hi rows (or none can)
    while lo < hi:
        mid = (lo + hi) // 2
        if binomial_critical_count(mid, max_risk, level) >= 1:
            hi = mid
        else:
            lo = mid + 1
    if lo > n_rows:
        return 1.0
    return float(binomial_inv_upper(lo - 1, n_rows, skip))


def choose_abstention(
    confidence, y_idx, predicted, n_classes, *, max_risk, delta, risks, grid, min_coverage
):
    """Certify "answer when the confidence reaches ``t``" by a fixed-sequence test over ``t``.

    Parameters
    ----------
    confidence : ndarray of float, shape (n_rows,)
        The model's confidence on each row (fixed before the rows are read).
    y_idx : ndarray of int, shape (n_rows,)
        True class indices.
    predicted : ndarray of int, shape (n_rows,)
        The class the model predicts on each row.
    n_classes : int
        ``K``.
    max_risk : float
        The target of the error rate among the answered rows.
    delta : float
        The confidence parameter of every statement together.
    risks : tuple of str
        The risks of the vocabulary reported among the answered rows, beside the error.
    grid : ndarray of float
        Candidate thresholds, fixed before the rows are read.
    min_coverage : float in [0, 1)
        A threshold is deployed only if its certified coverage reaches the larger of this
        and the coverage the test needs (:func:`skip_coverage`); the test passes over the
        thresholds that answer fewer rows than that coverage would (but for a chance of
        ``SKIP_SHARE`` of the choice's share).

    Returns
    -------
    choice : DecisionChoice

    Raises
    ------
    ValueError
        When no grid threshold is certified with a coverage of at least ``min_coverage``:
        the message names the smallest ``max_risk`` these rows could certify.
    """
    grid = np.unique(np.asarray(grid, dtype=np.float64))
    order = grid[::-1]  # from the most confident end: no row answered
    n_rows = int(y_idx.size)
    wrong = predicted != y_idx
    ranked = np.argsort(confidence, kind="stable")
    below = np.searchsorted(confidence[ranked], order, side="left")
    wrong_below = np.concatenate([[0], np.cumsum(wrong[ranked])])
    answered = n_rows - below  # rows with confidence >= t, growing along the order
    errors = wrong_below[-1] - wrong_below[below]
    statements = risk_statements(tuple(dict.fromkeys(("error", *risks))), n_classes)
    choice, share = _shares(delta, 0.5, len(statements) + 1)  # + the coverage
    skip, level = shares_within(choice, [choice * SKIP_SHARE, choice * (1 - SKIP_SHARE)])
    grid_level = equal_share(share, grid.size)  # every report holds at every grid threshold
    walk = _AbstentionTest(answered, errors, n_rows, level, skip, grid_level, min_coverage)
    certified, deployable = walk.run(max_risk)
    if not deployable:
        lo, hi = float(max_risk), 1.0 - 1e-4  # the smallest target certified, by bisection
        if not walk.run(hi, first=True)[1]:
            why = (
                f"no threshold certifies answering {walk.min_coverage(hi):.4f} of the rows "
                "(min_coverage, or the rows the test needs), at any target below 1"
            )
            raise _not_certified(max_risk, 1.0, why)
        while hi - lo > 1e-5:
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if walk.run(mid, first=True)[1] else (mid, hi)
        why = (
            f"the error among the answered rows is not certified below it at delta={level!r} "
            "down to a threshold that answers enough rows"
        )
        raise _not_certified(max_risk, hi, why)
    min_coverage, n_skip = walk.min_coverage(max_risk), walk.skip_rows(max_risk)
    j_hat = certified[-1]
    threshold = float(order[j_hat])
    answer = np.where(confidence >= threshold, predicted, -1)
    confusion = confusion_counts(y_idx, answer, n_classes)
    records = [
        _report(s, confusion, grid_level, "grid", cap=float(max_risk) if i == 0 else 1.0)
        for i, s in enumerate(statements)
    ]
    records.append(
        {
            "names": (("coverage", None),),
            "side": "lower",
            "errors": int(answered[j_hat]),
            "rows": n_rows,
            "certified_errors": None,
            "level": grid_level,
            "cap": 1.0,
            "kind": "grid",
        }
    )
    statement = DecisionStatement(
        decision="selective",
        delta=float(delta),
        statements=tuple(records),
        value=0,
        coverage=len(records) - 1,
        n_classes=int(n_classes),
        n_rows=n_rows,
        details={
            "threshold": threshold,
            "risk": "error",
            "max_risk": float(max_risk),
            "min_coverage": min_coverage,
            "n_thresholds": int(grid.size),
            "test_level": level,
            "skip_level": skip,
            "skip_rows": int(n_skip),
        },
    )
    return DecisionChoice(threshold, np.sort(order[certified]), statement)
