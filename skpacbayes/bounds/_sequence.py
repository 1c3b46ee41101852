"""Time-uniform test-set bounds: the two ends of a confidence sequence for a Bernoulli mean
(the streaming certificates of ``partial_fit`` and the drift monitor,
:ref:`Proposition 5b <theory-streaming>`).

The statement is a mixture of exact likelihood ratios. For a candidate mean ``r`` and a bet
``lam >= 0``, ``Z_lam(r) = exp(-lam S_n) / (1 - r + r exp(-lam))^n`` is the likelihood ratio of
the alternative ``r e^-lam / (1 - r + r e^-lam) <= r`` against ``r``: a martingale of mean 1
under ``r``, increasing in ``r``. The mixture weights over a fixed grid of bets discretise a
weighted sum of one-sided beta-binomial (conjugate) mixtures of Howard et al. (2021), tuned at
``ANYTIME_TUNINGS`` rows with the weights ``ANYTIME_TUNING_WEIGHTS``. They depend on ``r``
through the bin of ``r`` only (``_LOGIT_EDGES``): inside a bin the mixture is increasing in
``r``, so the upper end of the confidence sequence is found exactly, bin by bin.
"""

from __future__ import annotations

import math
from functools import cache
from numbers import Integral, Real

import numpy as np

from skpacbayes._docstrings import fill_doc

from ._test_set import RAISES_COUNTS

__all__ = [
    "ANYTIME_TUNINGS",
    "ANYTIME_TUNING_WEIGHTS",
    "anytime_lower_log_evidence",
    "binomial_anytime_lower",
    "binomial_anytime_upper",
]

#: Rows at which the mixed beta-binomial mixtures are tuned: a geometric grid of quarter
#: decades from 10^2 to 10^7 rows.
ANYTIME_TUNINGS = 10.0 ** np.arange(2.0, 7.0 + 1e-9, 0.25)

#: Their weights, fixed before any data: a normal density in ``log10`` of the tuning,
#: centred at 10^3.5 rows with a standard deviation of 1.25 decades (most of the mass on
#: 10^2.25 to 10^4.75 rows, the span where the excess over the error rate is largest).
ANYTIME_TUNING_WEIGHTS = np.exp(-0.5 * ((np.log10(ANYTIME_TUNINGS) - 3.5) / 1.25) ** 2)
ANYTIME_TUNING_WEIGHTS /= ANYTIME_TUNING_WEIGHTS.sum()

#: The level ``alpha_opt`` each tuning is optimised for (Howard et al.'s one-sided rule).
_TUNING_LEVEL = 0.05

#: The bets: a geometric grid of ratio e^0.1 from 1e-5 to 40 (a bet of 40 is the alternative
#: "no error" up to e^-40).
_BETS = np.exp(np.arange(math.log(1e-5), math.log(40.0) + 1e-9, 0.1))
_NEG_EXPM1 = -np.expm1(-_BETS)  # 1 - e^-lam, in (0, 1)
_EXP = np.exp(-_BETS)

#: Bin edges of the candidate mean, uniform in logit: ``[0, e_0), [e_0, e_1), ..., [e_K, 1]``;
#: the weights of a bin are those tuned at its logit midpoint.
_LOGIT_EDGES = np.arange(-14.0, 14.0 + 1e-9, 0.5)
_EDGES = 1.0 / (1.0 + np.exp(-_LOGIT_EDGES))
_LEFT = np.concatenate(([0.0], _EDGES))  # left end of each bin
_RIGHT = np.concatenate((_EDGES, [1.0]))  # right end of each bin (the last one closed)

#: Weights below e^-46 of a bin's largest are dropped (a smaller mixture is still a
#: supermartingale: dropping only ever loosens the bound).
_PRUNE = 46.0


def _log_conjugate_densities(r, concentrations):
    """ln of the one-sided beta-binomial mixing densities in ``ln lam`` at the bets, each
    normalised to sum to 1 over the grid: ``lam exp(-c psi_r(lam))`` for each concentration
    ``c`` (rows), with ``psi_r(lam) = r lam + ln(1 - r + r e^-lam)`` (the prior Beta(c r,
    c (1 - r)) on the alternative, truncated below ``r``, seen through the bet)."""
    psi = r * _BETS + np.log1p(-r * _NEG_EXPM1)
    log_density = np.log(_BETS)[None, :] - concentrations[:, None] * psi[None, :]
    top = log_density.max(axis=1, keepdims=True)
    return log_density - top - np.log(np.exp(log_density - top).sum(axis=1, keepdims=True))


@cache
def _table():
    """Per bin: the first bet of its window and the log weights of the window's bets."""
    level = math.log(1.0 / (2.0 * _TUNING_LEVEL))
    # rho = v_opt / (2 ln(1/(2 alpha)) + ln(1 + 2 ln(1/(2 alpha)))), r_HRMS = rho - g h:
    # the prior is Beta(c r, c (1 - r)) with c = r_HRMS / (r (1 - r)) (floored as they do).
    concentrations = np.maximum(
        ANYTIME_TUNINGS / (2.0 * level + math.log1p(2.0 * level)) - 1.0, 1e-3
    )
    log_tuning = np.log(ANYTIME_TUNING_WEIGHTS)[:, None]
    centres = np.concatenate(
        ([_EDGES[0]], 1.0 / (1.0 + np.exp(-(_LOGIT_EDGES[:-1] + 0.25))), [_EDGES[-1]])
    )
    rows = []
    for r in centres:
        mixed = np.logaddexp.reduce(log_tuning + _log_conjugate_densities(r, concentrations))
        mixed -= np.logaddexp.reduce(mixed)
        kept = np.flatnonzero(mixed >= mixed.max() - _PRUNE)
        rows.append((int(kept[0]), mixed[kept[0] : kept[-1] + 1]))
    width = max(len(w) for _, w in rows)
    start = np.array([min(s, _BETS.size - width) for s, _ in rows])
    log_weights = np.full((len(rows), width), -np.inf)
    for b, ((s, w), first) in enumerate(zip(rows, start, strict=True)):
        log_weights[b, s - first : s - first + w.size] = w
    return start, log_weights


def _allowance(n):
    """Nats added to ``ln(1/delta)`` so that a computed ``ln M`` above the level is a true one:
    every term is a sum of at most four rounded products of size ``<= 40 + 80 n``
    (``|ln w| <= 46 + ln(#bets)``, ``lam <= 40``), so its rounding is below ``1e-13 (1 + n)``;
    the weights' sum exceeds 1 by rounding by less than ``1e-13``."""
    return 1e-12 * (1.0 + n) + 1e-9


def _log_mixture(b, r, n_errors, n):
    """``ln M_n(r)`` with the weights of bin ``b`` (vectorised over ``n_errors`` and ``n`` if
    they are arrays of the same shape); also returns the derivative in ``r``."""
    start, log_weights = _table()
    width = log_weights.shape[1]
    window = slice(start[b], start[b] + width)
    bets = _BETS[window]
    gap = _NEG_EXPM1[window]  # ln(1 - r (1 - e^-lam)): log1p below 1/2, log of the sum above
    if r < 0.5:
        log_mgf = np.log1p(-r * gap)
    else:
        log_mgf = np.log((1.0 - r) + r * _EXP[window])
    n_errors, n = np.asarray(n_errors, dtype=np.float64), np.asarray(n, dtype=np.float64)
    terms = log_weights[b] - bets * n_errors[..., None] - n[..., None] * log_mgf
    top = terms.max(axis=-1)
    shares = np.exp(terms - top[..., None])
    total = shares.sum(axis=-1)
    slope = n * (shares @ (gap / np.exp(log_mgf))) / total  # d ln M / dr
    return top + np.log(total), slope


def _left_ends(first, k, n):
    """``ln M_n`` of every bin above ``first`` at its own left end (one array operation)."""
    start, log_weights = _table()
    bins = np.arange(first + 1, log_weights.shape[0])
    window = start[bins, None] + np.arange(log_weights.shape[1])
    r = _LEFT[bins, None]
    log_mgf = np.where(
        r < 0.5,
        np.log1p(-np.minimum(r, 0.5) * _NEG_EXPM1[window]),
        np.log((1.0 - r) + r * _EXP[window]),
    )
    terms = log_weights[bins] - _BETS[window] * k - n * log_mgf
    top = terms.max(axis=1)
    return top + np.log(np.exp(terms - top[:, None]).sum(axis=1))


def _bin_of(r):
    return int(np.searchsorted(_EDGES, r, side="right"))


def _check(n_errors, n, delta):
    for name, value in (("n_errors", n_errors), ("n", n)):
        if not isinstance(value, Integral | np.integer) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer; got {value!r}.")
    if not isinstance(delta, Real) or not 0.0 < float(delta) <= 1.0:
        raise ValueError(f"delta must be in (0, 1]; got {delta!r}.")
    if n_errors > n:
        raise ValueError(f"n_errors={n_errors} exceeds n={n}.")
    return int(n_errors), int(n), float(delta)


def _upper(k, n, delta):
    """The upper end: ``sup{r : ln M_n(r) < ln(1/delta)}``, each ``r`` with its bin's
    weights, never below it."""
    if n == 0 or k == n:
        return 1.0
    level = math.log(1.0 / delta) + _allowance(n)
    start, log_weights = _table()
    r_hat = k / n
    first = _bin_of(r_hat)
    # bins above that of r_hat hold non-rejected candidates iff their left end is not
    # rejected (the mixture increases inside a bin): the last such bin holds the sup
    chosen, low = first, r_hat
    above = np.flatnonzero(_left_ends(first, k, n) < level)
    if above.size:
        chosen = first + 1 + int(above[-1])
        low = _LEFT[chosen]
    high = _RIGHT[chosen]
    if _log_mixture(chosen, high, k, n)[0] < level:
        return float(high)  # not rejected up to the bin's end: the next bin rejects
    return _root(chosen, low, high, k, n, level)


def _root(b, low, high, k, n, level):
    """The crossing of ``ln M = level`` in ``[low, high]`` (``low`` not rejected, ``high``
    rejected): safeguarded Newton steps, and the returned end always a rejected point."""
    sd = math.sqrt(max(low * (1.0 - low), 1.0 / n) * 2.0 * (level + 1.0) / n)
    x = min(low + sd, 0.5 * (low + high))
    for _ in range(200):
        value, slope = _log_mixture(b, x, k, n)
        if value >= level:
            high = x
        else:
            low = x
        tol = 1e-13 * high + 1e-300
        if high - low <= 4.0 * tol:
            break
        step = (level - value) / slope if slope > 0 else math.inf
        nxt = x + step
        if value < level and step <= tol:
            nxt = x + 2.0 * tol  # converged from below: probe just above
        elif value >= level and -step <= tol:
            nxt = x - 2.0 * tol  # converged from above: probe just below
        if not low < nxt < high:
            nxt = 0.5 * (low + high)
        x = nxt
    return float(high)


def _stream_counts(trivial):
    """The parameters of a bound of a stream's count, whose bound at no row is ``trivial``."""
    return f"""\
Parameters
----------
n_errors : int
    Errors ``S_n`` among the first ``n`` rows, ``0 <= S_n <= n``.
n : int
    Rows read so far, ``>= 0`` (0 gives the trivial bound {trivial}).
delta : float
    Confidence parameter in (0, 1]."""


@fill_doc(raises_counts=RAISES_COUNTS, stream_counts=_stream_counts(trivial="1"))
def binomial_anytime_upper(n_errors, n, delta):
    """Time-uniform test-set bound: an upper confidence sequence for a Bernoulli mean.

    For i.i.d. errors ``X_1, X_2, ...`` of mean ``R`` (a classifier fixed before the rows
    arrive), with ``S_n`` the errors among the first ``n``: with probability at least
    ``1 - delta``, ``R <= binomial_anytime_upper(S_n, n, delta)`` for EVERY ``n`` at once. A
    reader of a stream may therefore look at the bound after each batch and stop whenever
    they like (and keep the smallest value seen): the statement survives optional stopping,
    which the fixed-size bound :func:`binomial_inv_upper` does not.

    {stream_counts}

    Returns
    -------
    float
        ``sup{r : M_n(r) < 1 / delta}`` (never below it), with ``M_n(r) = sum_l w_l(r)
        exp(-lam_l S_n) / (1 - r + r exp(-lam_l))^n`` a mixture of the exact likelihood
        ratios of alternatives below ``r``: fixed bets ``lam_l``, and weights that
        discretise a weighted sum of one-sided beta-binomial mixtures tuned at 10^2 to 10^7
        rows (``ANYTIME_TUNINGS``, ``ANYTIME_TUNING_WEIGHTS``), constant on bins of ``r``.

    Notes
    -----
    Under ``R = r`` each term is a non-negative martingale of mean 1 and the weights sum to
    at most 1, so Ville's inequality gives ``P(exists n: M_n(R) >= 1/delta) <= delta``. The
    mixture is increasing in ``r`` inside each bin, so the set of risks not rejected is
    found exactly bin by bin (:ref:`Proposition 5b <theory-streaming>`
    on the theory page). At ``delta = 0.05`` its excess over the error rate is 1.01 to
    1.15 times that of the best of the beta-binomial mixtures tuned at 10^3, 10^4 or 10^5
    rows, from 10^3 to 10^5 rows and error rates from 2 % to 30 %
    (``benchmarks/bench_stream.py``). The root is found by safeguarded Newton steps; the
    returned value is always a point where ``ln M_n`` exceeds ``ln(1/delta)`` by more than
    the rounding error (``1e-12 (1 + n) + 1e-9`` nats), so it is never below the exact
    upper end.

    {raises_counts}

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_anytime_upper, binomial_inv_upper
    >>> round(binomial_inv_upper(1000, 10_000, 0.05), 4)  # at n = 10,000 only
    0.1051
    >>> round(binomial_anytime_upper(1000, 10_000, 0.05), 4)  # at every n at once
    0.1092
    """
    return _upper(*_check(n_errors, n, delta))


@fill_doc(raises_counts=RAISES_COUNTS, stream_counts=_stream_counts(trivial="0"))
def binomial_anytime_lower(n_errors, n, delta):
    """Time-uniform lower bound: a lower confidence sequence for a Bernoulli mean.

    The mirror image of :func:`binomial_anytime_upper` (the same statement on the
    non-errors): with probability at least ``1 - delta``, ``R >=
    binomial_anytime_lower(S_n, n, delta)`` for every ``n`` at once. It also holds when the
    rows are not identically distributed, as long as each row's conditional error
    probability given the past is at least the tested rate (the false-alarm guarantee of
    :class:`~skpacbayes.monitoring.RiskMonitor`).

    {stream_counts}

    Returns
    -------
    float
        ``1 - binomial_anytime_upper(n - S_n, n, delta)``, rounded down.

    Notes
    -----
    The non-errors ``1 - X_i`` have mean ``1 - R``: the upper sequence on them is the lower
    one on the errors (:ref:`Proposition 5b <theory-streaming>`). With conditional error
    probabilities ``p_i >= R``, each likelihood ratio of the mixture is a non-negative
    supermartingale instead of a martingale, and Ville's inequality still applies.

    {raises_counts}

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_anytime_lower, binomial_anytime_upper
    >>> low = binomial_anytime_lower(1000, 10_000, 0.05)
    >>> high = binomial_anytime_upper(1000, 10_000, 0.05)
    >>> bool(low < 0.1 < high), round(low, 4)
    (True, 0.0913)
    """
    k, n, delta = _check(n_errors, n, delta)
    upper = _upper(n - k, n, delta)
    lower = 1.0 - upper
    if upper < 0.5:  # 1 - upper rounded: step down one float
        lower = math.nextafter(lower, 0.0)
    return max(lower, 0.0)


def anytime_lower_log_evidence(n_errors, n, r):
    """``ln M`` of the lower sequence at the rate ``r``, for many counts at once.

    The evidence against "the error rate is at most ``r``": ``binomial_anytime_lower(S, n,
    delta) > r`` implies ``anytime_lower_log_evidence(S, n, r) >= ln(1 / delta)``. The drift
    monitor tests its threshold on every window with it before inverting any.

    Parameters
    ----------
    n_errors, n : array-like of int
        Errors and rows of each count (same shape).
    r : float
        The rate tested, in (0, 1).

    Returns
    -------
    ndarray of float
        ``ln M_n(1 - r)`` of the mirrored upper sequence on the non-errors, less the rounding
        allowance (a value reaching ``ln(1 / delta)`` is a true rejection).

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.bounds._sequence import anytime_lower_log_evidence
    >>> evidence = anytime_lower_log_evidence(np.array([100, 200]), np.array([1000, 1000]), 0.1)
    >>> bool(evidence[0] < np.log(20) < evidence[1])
    True
    """
    n_errors, n = np.asarray(n_errors, dtype=np.int64), np.asarray(n, dtype=np.int64)
    mirrored = 1.0 - float(r)
    value, _ = _log_mixture(_bin_of(mirrored), mirrored, n - n_errors, n)
    return value - _allowance(n.astype(np.float64))
