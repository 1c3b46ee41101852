"""The test-set bound: the exact inversion of the binomial lower tail ``P(Bin(n, r) <= k)``
(:ref:`theory-holdout`), in NumPy and SciPy alone, so that a hold-out certificate never
imports torch."""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy.special import gammaln, logsumexp

from skpacbayes._docstrings import fill_doc

from ._scalar_checks import check_delta, check_int, is_tensor

__all__ = ["binomial_inv_upper"]

#: the Raises section of the functions of an error count ``n_errors`` among ``n`` rows
RAISES_COUNTS = """\
Raises
------
ValueError
    If ``n_errors > n``, or an argument is out of its range."""

_EPS = float(np.finfo(np.float64).eps)


def _lower_tail(k: int, n: int):
    """``r -> (ln P(Bin(n, r) <= k), allowance)`` in float64 for ``0 < r < 1``.

    The ``k + 1`` log-pmf terms ``ln C(n, j) + j ln r + (n - j) ln(1 - r)`` are summed in log
    space (the ``ln C(n, j)`` computed once). Each term is a sum of a few float64 operations
    on values of magnitude at most ``G = 3 lgamma(n + 1) + k |ln r| + n |ln(1 - r)|``, each
    (``lgamma``, ``log``, products) within a few ulps, so its absolute error is a few units of
    ``G eps``; the log-sum-exp of ``k + 1`` terms adds at most ``(k + 2) eps`` to the log. The
    allowance, ``64 eps (G + k + 2)``, covers both with a wide margin (a few ``1e-7`` for
    n = 10^6).
    """
    j = np.arange(k + 1, dtype=np.float64)
    lg_n = math.lgamma(n + 1.0)
    log_c = lg_n - gammaln(j + 1.0) - gammaln(n - j + 1.0)

    def log_tail(r):
        log_r, log_1mr = math.log(r), math.log1p(-r)
        value = float(logsumexp(log_c + j * log_r + (n - j) * log_1mr))
        size = 3.0 * lg_n + k * abs(log_r) + n * abs(log_1mr)
        return value, 64.0 * _EPS * (size + k + 2.0)

    return log_tail


@fill_doc(raises_counts=RAISES_COUNTS)
def binomial_inv_upper(n_errors, n, delta):
    """Test-set bound: the largest risk ``r`` with ``P(Bin(n, r) <= n_errors) >= delta``.

    A classifier fixed before ``n`` i.i.d. test rows are read makes ``Bin(n, R)`` errors on
    them, ``R`` its true risk; with probability at least ``1 - delta`` over the rows, ``R`` is
    at most this value (the exact binomial tail inversion, or Clopper-Pearson upper limit).

    Parameters
    ----------
    n_errors : int
        Errors ``k`` on the test rows, ``0 <= k <= n``.
    n : int
        Number of test rows, ``>= 1``.
    delta : float or torch.Tensor
        Confidence parameter in (0, 1]; a one-element tensor gives a tensor of its dtype back
        (the calling convention of :mod:`skpacbayes.bounds`).

    Returns
    -------
    float
        The upper limit, in ``[0, 1]`` (at least ``k / n`` when ``delta <= 1/2``); 1 when
        ``k = n``, ``k / n`` when ``delta = 1``.

    Notes
    -----
    See :ref:`theory-holdout` (Proposition 5). The tail ``P(Bin(n, r) <= k)`` is computed in
    float64 with an allowance for its rounding error, and a bisection of ``[0, 1]`` keeps as
    its upper end only points ``r`` where the computed tail PLUS that allowance is below
    ``delta``: the exact tail there is below ``delta``, so the returned upper end is never
    below the exact limit (and within about ``1e-12`` relative of it, hence never above
    Chernoff's test-set bound ``kl_inv_upper(k / n, ln(1/delta) / n)`` by more than that).
    Sums over ``k + 1`` terms: fast up to millions of errors. NumPy and SciPy only: a hold-out
    certificate imports no torch.

    {raises_counts}

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_inv_upper, kl_inv_upper
    >>> import math
    >>> round(binomial_inv_upper(16, 62, 0.05), 4)
    0.3652
    >>> round(kl_inv_upper(16 / 62, math.log(1 / 0.05) / 62), 4)  # Chernoff's, looser
    0.4064
    >>> binomial_inv_upper(62, 62, 0.05)
    1.0
    """
    k = check_int("n_errors", n_errors, 0)
    n = check_int("n", n, 1)
    level = check_delta("delta", delta)
    if k > n:
        raise ValueError(f"n_errors must be at most n, got n_errors={k} > n={n}")
    if k == n:  # the tail is 1 for every r
        limit = 1.0
    elif level == 1.0:  # delta = 1 certifies nothing: k / n
        limit = k / n
    else:
        limit = _bisect(k, n, math.log(level))
    if is_tensor(delta):
        return sys.modules["torch"].full_like(delta, limit)
    return limit


def _bisect(k: int, n: int, log_delta: float) -> float:
    """The least float ``r`` a bisection of ``[0, 1]`` finds where the exact lower tail of
    ``k`` errors in ``n`` is certified below ``exp(log_delta)``."""
    log_tail = _lower_tail(k, n)

    def below_delta(r):  # the EXACT tail at r is below delta (computed value + allowance)
        value, allowance = log_tail(r)
        return value + allowance < log_delta

    lo, hi = 0.0, 1.0  # the tail at 0 is 1 >= delta, at 1 it is 0 < delta (k < n)
    for _ in range(1100):  # a float64 bisection ends in about 60 halvings; 1100 is a hard cap
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if below_delta(mid):
            hi = mid
        else:
            lo = mid
    return hi
