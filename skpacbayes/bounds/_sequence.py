"""A time-uniform test-set bound: the upper end of a confidence sequence for a Bernoulli mean
(the streaming certificates of ``partial_fit``, :ref:`Proposition 5b <theory-streaming>`)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp

__all__ = ["ANYTIME_BETS", "binomial_anytime_upper"]

#: The bets of the mixture: 35 values from 8 down to 1e-5 (a geometric grid of ratio 1.5),
#: each of weight 1/35, fixed before any data. A bet ``lam`` suits about
#: ``2 ln(1/delta) / (lam^2 r (1 - r))`` rows at risk ``r``: the grid covers from a handful of
#: rows to beyond 10^10.
ANYTIME_BETS = 8.0 * 1.5 ** -np.arange(35.0)

_BISECTIONS = 200


def _log_mixture(r, n_errors, n, bets, log_weights):
    """ln M_n(r): the mixture of the exponential martingales ``exp(-lam S_n) / E[exp(-lam X)]^n``
    of a Bernoulli(r) sequence, at ``S_n = n_errors`` (increasing in ``r``)."""
    log_mgf = np.log1p(r * np.expm1(-bets))  # ln E[exp(-lam X)] = ln(1 - r + r e^-lam)
    return float(logsumexp(log_weights - bets * n_errors - n * log_mgf))


def binomial_anytime_upper(n_errors, n, delta):
    """Time-uniform test-set bound: an upper confidence sequence for a Bernoulli mean.

    For i.i.d. errors ``X_1, X_2, ...`` of mean ``R`` (a classifier fixed before the rows
    arrive), with ``S_n`` the errors among the first ``n``: with probability at least
    ``1 - delta``, ``R <= binomial_anytime_upper(S_n, n, delta)`` for EVERY ``n`` at once. A
    reader of a stream may therefore look at the bound after each batch and stop whenever
    they like (and keep the smallest value seen): the statement survives optional stopping,
    which the fixed-size bound :func:`binomial_inv_upper` does not.

    Parameters
    ----------
    n_errors : int
        Errors ``S_n`` among the first ``n`` rows, ``0 <= S_n <= n``.
    n : int
        Rows read so far, ``>= 0`` (0 gives the trivial bound 1).
    delta : float
        Confidence parameter in (0, 1].

    Returns
    -------
    float
        ``sup{r : M_n(r) < 1 / delta}`` (an upper end found by bisection, never below it),
        with ``M_n(r) = sum_i w_i exp(-lam_i S_n) / (1 - r + r exp(-lam_i))^n`` the mixture
        over the fixed bets ``lam_i`` of ``ANYTIME_BETS``, equal weights ``w_i``.

    Notes
    -----
    Under ``R = r`` each term is a non-negative martingale of mean 1, so the mixture is one
    too and Ville's inequality gives ``P(exists n: M_n(R) >= 1/delta) <= delta``; ``M_n(r)``
    is increasing in ``r``, so the set of risks not rejected is an interval ``[0, U_n)``.
    Proof on the theory page (:ref:`Proposition 5b <theory-streaming>`). At a fixed ``n``
    it is looser than the exact binomial bound, the price of holding at every ``n``: its excess over
    ``S_n / n`` is about twice the exact bound's at ``delta = 0.05`` from 10^3 to 10^6
    rows. The bisection keeps as its upper end only points where ``ln M_n`` exceeds
    ``ln(1/delta)`` by an allowance for rounding (``1e-9 (1 + n)`` nats), so the returned
    value is never below the exact upper end.

    Raises
    ------
    ValueError
        If ``n_errors > n``, or an argument is out of its range.

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_anytime_upper, binomial_inv_upper
    >>> round(binomial_inv_upper(1000, 10_000, 0.05), 4)  # at n = 10,000 only
    0.1051
    >>> round(binomial_anytime_upper(1000, 10_000, 0.05), 4)  # at every n at once
    0.1105
    """
    for name, value in (("n_errors", n_errors), ("n", n)):
        if not isinstance(value, Integral | np.integer) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {value!r}.")
    if not isinstance(delta, Real) or not 0.0 < float(delta) <= 1.0:
        raise ValueError(f"delta must be in (0, 1]; got {delta!r}.")
    n_errors, n = int(n_errors), int(n)
    if n_errors > n:
        raise ValueError(f"n_errors={n_errors} exceeds n={n}.")
    if n == 0 or n_errors == n:
        return 1.0
    bets = ANYTIME_BETS
    log_weights = np.full(bets.size, -math.log(bets.size))
    level = math.log(1.0 / float(delta)) + 1e-9 * (1 + n)  # rejected above this, surely
    if _log_mixture(1.0, n_errors, n, bets, log_weights) < level:
        return 1.0
    lo, hi = n_errors / n, 1.0
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _log_mixture(mid, n_errors, n, bets, log_weights) >= level:
            hi = mid
        else:
            lo = mid
    return hi
