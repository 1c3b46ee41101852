"""Exact binomial tests: the p-value of "risk above a level", the critical error count, the
Clopper-Pearson lower end and the fixed-sequence test over an ordered family (the certified
decisions, :ref:`theory-decisions`).

The tail ``P(Bin(n, r) <= k)`` is the one of :func:`binomial_inv_upper` (``_lower_tail``: a
log-sum-exp of the ``k + 1`` log-pmf terms with an allowance for its rounding), read on the
safe side: a p-value is never below the exact tail, so a test never rejects where the exact
test would not.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

from skpacbayes._docstrings import fill_doc

from ._test_set import RAISES_COUNTS, _lower_tail, binomial_inv_upper

__all__ = [
    "binomial_critical_count",
    "binomial_inv_lower",
    "binomial_p_value",
    "fixed_sequence",
]


def _count(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}.")
    return int(value)


def _level(name, value, low_open=True):
    ok = isinstance(value, Real) and not isinstance(value, bool) and not math.isnan(value)
    if not ok or not (0.0 < float(value) <= 1.0 if low_open else 0.0 <= float(value) <= 1.0):
        bounds = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must be in {bounds}; got {value!r}.")
    return float(value)


@fill_doc(raises_counts=RAISES_COUNTS)
def binomial_p_value(n_errors, n, risk):
    """Exact p-value of the hypothesis "the risk exceeds ``risk``": ``P(Bin(n, risk) <= k)``.

    ``k`` errors of a classifier fixed before ``n`` i.i.d. rows are read are ``Bin(n, R)``,
    ``R`` its true risk. Under ``R > risk`` the chance of ``k`` errors or fewer is at most
    ``P(Bin(n, risk) <= k)`` (the tail falls as ``R`` grows), so rejecting ``R > risk`` when
    this value is at most ``level`` errs with probability at most ``level``.

    Parameters
    ----------
    n_errors : int
        Errors ``k`` on the rows, ``0 <= k <= n``.
    n : int
        Rows, ``>= 0`` (no row: the p-value is 1, nothing can be rejected).
    risk : float in [0, 1]
        The level of the hypothesis.

    Returns
    -------
    p_value : float
        An upper bound on the exact tail, within a relative ``1e-7`` of it for a million
        rows (the allowance of :func:`binomial_inv_upper` for the tail's rounding); 1 when
        ``k = n`` or ``risk = 0``, 0 when ``risk = 1`` and ``k < n``.

    {raises_counts}

    See Also
    --------
    binomial_critical_count : the largest count whose p-value passes a level.

    Notes
    -----
    The tail is the log-sum-exp of the ``k + 1`` log-pmf terms of
    :func:`binomial_inv_upper`, raised by its rounding allowance and rounded up: never below
    the exact tail, so the test never rejects where the exact test would not. The test at
    level ``gamma`` rejects exactly when ``binomial_inv_upper(k, n, gamma) <= risk``
    (:ref:`theory-decisions`).

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_p_value
    >>> round(binomial_p_value(0, 59, 0.05), 4)  # 0.95 ** 59
    0.0485
    >>> round(binomial_p_value(2, 100, 0.05), 4)
    0.1183
    """
    k, n = _count("n_errors", n_errors), _count("n", n)
    risk = _level("risk", risk, low_open=False)
    if k > n:
        raise ValueError(f"n_errors must be at most n, got n_errors={k} > n={n}")
    if k == n or risk == 0.0:
        return 1.0
    if risk == 1.0:
        return 0.0
    value, allowance = _lower_tail(k, n)(risk)
    return min(1.0, math.nextafter(math.exp(value + allowance), 2.0))


def binomial_critical_count(n, risk, level):
    """The largest error count on ``n`` rows at which the exact test rejects "risk > ``risk``".

    Parameters
    ----------
    n : int
        Rows, ``>= 0``.
    risk : float in [0, 1]
        The level of the hypothesis.
    level : float in (0, 1]
        The test's level.

    Returns
    -------
    k_star : int
        ``max{k : binomial_p_value(k, n, risk) <= level}``, or ``-1`` when even ``k = 0``
        is not enough (the p-value grows with ``k``, so the test rejects exactly at the
        counts ``k <= k_star``).

    Notes
    -----
    A bisection on :func:`binomial_p_value`, below ``ceil(n risk)`` when ``level < 1/2``
    (the test never rejects at a median). A count at most ``k_star`` is rejected by the exact
    test too: the exact tail grows with the count. The certified threshold certifies the grid
    thresholds whose count is at most it (:ref:`Proposition D2 <theory-decisions>`).

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_critical_count
    >>> binomial_critical_count(59, 0.05, 0.05), binomial_critical_count(58, 0.05, 0.05)
    (0, -1)
    >>> binomial_critical_count(1000, 0.05, 0.05)
    38
    """
    n = _count("n", n)
    risk, level = _level("risk", risk, low_open=False), _level("level", level)
    if binomial_p_value(0, n, risk) > level:
        return -1
    # below 1/2 the test never rejects at a median of Bin(n, risk) (floor or ceil of n risk)
    lo, hi = 0, min(n, math.ceil(n * risk)) if level < 0.5 else n
    while lo < hi:  # bisection on the monotone p-value
        mid = (lo + hi + 1) // 2
        if binomial_p_value(mid, n, risk) <= level:
            lo = mid
        else:
            hi = mid - 1
    return lo


def binomial_inv_lower(n_errors, n, delta):
    """Clopper-Pearson lower end: the smallest ``r`` with ``P(Bin(n, r) >= k) >= delta``.

    With probability at least ``1 - delta`` over ``n`` i.i.d. rows, a rate ``R`` whose count
    is ``k ~ Bin(n, R)`` is at least this value (the mirror of :func:`binomial_inv_upper`:
    the rows that do not count are ``Bin(n, 1 - R)``).

    Parameters
    ----------
    n_errors : int
        The count ``k``, ``0 <= k <= n``.
    n : int
        Rows, ``>= 0`` (no row: 0).
    delta : float in (0, 1]
        Confidence parameter.

    Returns
    -------
    lower : float
        ``1 - binomial_inv_upper(n - k, n, delta)``, rounded down; 0 when ``k = 0``.

    Notes
    -----
    ``P(Bin(n, r) >= k) = P(Bin(n, 1 - r) <= n - k)``, so the lower end at ``delta`` is one
    minus the upper end of the complementary count; :func:`binomial_inv_upper` never returns
    less than the exact upper end, and the subtraction is rounded down, so this never exceeds
    the exact lower end. The coverage of a reject option (:ref:`theory-decisions`).

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_inv_lower, binomial_inv_upper
    >>> round(binomial_inv_lower(46, 62, 0.05), 4)  # 16 of 62 rows do not count
    0.6348
    >>> round(1 - binomial_inv_upper(16, 62, 0.05), 4)
    0.6348
    """
    k, n = _count("n_errors", n_errors), _count("n", n)
    delta = _level("delta", delta)
    if k > n:
        raise ValueError(f"n_errors must be at most n, got n_errors={k} > n={n}")
    if k == 0:
        return 0.0
    return max(0.0, math.nextafter(1.0 - binomial_inv_upper(n - k, n, delta), -1.0))


def fixed_sequence(p_values, level):
    """The fixed-sequence test: how many hypotheses of an ordered family it rejects.

    The hypotheses are tested in their given order, each at the full ``level``, and the test
    stops at the first one it cannot reject. Whatever the number of hypotheses, the chance of
    rejecting one that holds is at most ``level`` (:ref:`theory-decisions`): to reject any
    true hypothesis the test must first reject the first true one, an event of probability at
    most ``level``. The order must be fixed before the data are read.

    Parameters
    ----------
    p_values : iterable of float
        The p-value of each hypothesis, in the order of the test (read lazily: the test
        stops reading at the first value above ``level``).
    level : float in (0, 1]
        The family-wise level.

    Returns
    -------
    n_rejected : int
        The length of the leading run of p-values at most ``level``.

    Notes
    -----
    Proposition D0 of :ref:`theory-decisions`. The reject option's test runs it over the
    thresholds that answer enough rows, those before passed over (Proposition D4); the
    certified threshold's, whose p-values grow along the order, is the run of counts at most
    the critical count (:func:`binomial_critical_count`, Proposition D2).

    Examples
    --------
    >>> from skpacbayes.bounds import fixed_sequence
    >>> fixed_sequence([0.001, 0.01, 0.2, 0.001], 0.05)
    2
    """
    level = _level("level", level)
    n_rejected = 0
    for p in p_values:
        if not p <= level:
            break
        n_rejected += 1
    return n_rejected
