"""Certified brackets of the partition value ``cstar`` and of the imbalance ``pbar``.

:func:`certified_cstar` turns float weights into exact integers, runs the solver portfolio and
rounds the bracket on the safe side; :func:`certified_pbar` is the Gaussian form
``pbar = 2 cstar(|p|) - ||p||_1``; the ``scaled_*`` functions reuse a certificate for a
rescaled weight vector.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from skpacbayes._docstrings import fill_doc

from ._exact import _U, _as_vector, _check_bits, _exact_ints, _nearest, _round_down, _round_up
from ._solvers import _solve

__all__ = [
    "CstarCertificate",
    "PbarCertificate",
    "certified_cstar",
    "certified_pbar",
    "cstar_lower",
    "scaled_cstar_lower",
    "scaled_pbar_lower",
]


# ----------------------------------------------------------------------------------------
# public API: cstar
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CstarCertificate:
    """Certified bracket of the partition value ``cstar(a)`` (:ref:`theory-partition`).

    Attributes
    ----------
    lower : float
        Certified lower bound on ``cstar(a)``, rounded DOWN to float.
    upper : float
        Exact sum of ``a[subset]`` rounded UP to float (an upper bound on ``cstar(a)``).
    subset : ndarray of int
        Indices into ``a`` of a subset whose sum is ``>= threshold``; its exact sum is
        ``upper_exact``.
    exact : bool
        True when ``lower_exact == upper_exact``: the value is proven optimal. Never True
        otherwise.
    total : float
        ``sum(a)`` rounded to nearest (``total_exact`` is exact).
    lower_exact, upper_exact, total_exact : Fraction
        The same quantities in exact rational arithmetic.
    threshold : Fraction
        The constraint level ``(1/2 - relax) * total_exact`` (``total_exact / 2`` by default).
    n_nonzero : int
        Number of non-zero weights.
    min_nonzero : float
        Smallest non-zero weight (0.0 if none).
    method : str
        Which part of the portfolio settled it ("empty", "dominant", "kk", "mitm", "ckk";
        "+grid", "+dp", "+top" suffixes when the decimal-grid DP, the floor-scaled DP or
        the largest-items bound raised the lower side).

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar
    >>> cert = certified_cstar([3, 1, 1, 2, 2, 1])  # total 10: a subset summing to 5
    >>> cert.lower, cert.upper, cert.exact, cert.total
    (5.0, 5.0, True, 10.0)
    """

    lower: float
    upper: float
    subset: np.ndarray
    exact: bool
    total: float
    lower_exact: Fraction
    upper_exact: Fraction
    total_exact: Fraction
    threshold: Fraction
    n_nonzero: int
    min_nonzero: float
    method: str

    @property
    def gap(self):
        """``upper_exact - lower_exact`` (a Fraction, 0 when exact).

        Examples
        --------
        >>> from skpacbayes.partition import certified_cstar
        >>> certified_cstar([0.4, 0.35, 0.25]).gap
        Fraction(0, 1)
        """
        return self.upper_exact - self.lower_exact


def certified_cstar(a, bits=24, *, relax=0.0, max_exact_log2=None, rtol=1e-9, max_nodes=None):
    """Certified lower bound, feasible upper bound and subset for the partition value.

    ``cstar(a) = min{ sum_{i in I} a_i : sum_{i in I} a_i >= sum(a) / 2 }``
    (:ref:`theory-partition`), the larger side of the most balanced partition of the non-negative
    weights ``a``.

    Parameters
    ----------
    a : array-like of shape (n,)
        Non-negative finite weights, taken as float64 (exact for float16/32/64 input).
        Zeros are ignored. An empty vector or all zeros gives ``cstar = 0`` (the empty
        subset), reported exact.
    bits : int, default=24
        Resolution of the floor-scaled DP (the scaled total has ``bits`` bits), used only
        when the exact enumeration does not apply; 16 is fine inside heuristics, 24 for
        reported values. Both give valid lower bounds. Must lie in [4, 30].
    relax : float, default=0.0
        Certify ``min{sum_I a : sum_I a >= (1/2 - relax) sum(a)}`` instead (``relax`` is
        taken as the exact rational value of the float, ``0 <= relax < 1/2``). The family
        terms use ``relax = 4 (n' + 2) 2**-53`` so that ``c~`` stays valid when the
        deployed vote is evaluated in floating point.
    max_exact_log2 : int or None, default=None
        Exact meet-in-the-middle when the two halves hold at most
        ``2**(max_exact_log2 // 2)`` sums each (about ``max_exact_log2`` distinct non-zero
        weights). None: 40 when ``bits >= 24``, else ``max(0, 2 * bits - 8)`` (cheap
        settings for heuristics). 0 disables it.
    rtol : float, default=1e-9
        Stop improving once ``upper - lower <= rtol * sum(a)`` (the lower bound is then
        within ``rtol`` of the optimum, relative to the total).
    max_nodes : int or None, default=None
        Node budget of the complete Karmarkar-Karp search (upper side) on large supports.
        None: ``min(20000, 2_000_000 // n')`` when ``bits >= 24``, else
        ``min(1000, 100_000 // n')``; 0 disables it.

    Returns
    -------
    CstarCertificate
        ``lower <= cstar(a) <= upper`` with a subset attaining ``upper_exact``.

    Raises
    ------
    ValueError
        If ``a`` is not 1-D, contains NaN, inf or negative values, or an argument is out
        of range.

    Notes
    -----
    The non-zero weights are written exactly as integers times a common power-of-two unit
    (divided by their gcd); all bounds are exact integer computations, and the float
    fields are rounded on the safe side. The result only depends on the multiset of
    weights (permutation invariant) and scales exactly with powers of two.

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar
    >>> res = certified_cstar([0.35, 0.25, 0.2, 0.12, 0.08])
    >>> res.exact, round(res.lower, 12), sorted(res.subset.tolist())
    (True, 0.53, [1, 2, 4])
    >>> certified_cstar([10, 3, 2]).lower
    10.0
    >>> certified_cstar([]).upper
    0.0
    """
    bits = _check_bits(bits)
    arr = _as_vector(a, "a")
    relax_q = _check_relax(relax)
    if max_exact_log2 is None:
        max_exact_log2 = 40 if bits >= 24 else max(0, 2 * bits - 8)
    if not isinstance(max_exact_log2, (int, np.integer)) or max_exact_log2 < 0:
        raise ValueError("max_exact_log2 must be a non-negative integer")
    if not (isinstance(rtol, (int, float)) and math.isfinite(rtol) and rtol >= 0):
        raise ValueError("rtol must be a finite non-negative number")
    nz = np.flatnonzero(arr > 0)
    if nz.size == 0:
        zero = Fraction(0)
        return CstarCertificate(
            0.0,
            0.0,
            np.zeros(0, dtype=np.int64),
            True,
            0.0,
            zero,
            zero,
            zero,
            zero,
            0,
            0.0,
            "empty",
        )
    if max_nodes is None:
        budget = 2_000_000 if bits >= 24 else 100_000
        max_nodes = min(budget // 100, budget // int(nz.size))
    order = nz[np.argsort(-arr[nz], kind="stable")]
    w, e = _exact_ints(arr[order])
    g = math.gcd(*w)
    w = [x // g for x in w]
    total = sum(w)
    threshold = Fraction(total) * (Fraction(1, 2) - relax_q)
    target = math.ceil(threshold)
    lower, upper, chosen, method = _solve(
        w,
        target,
        bits=bits,
        max_exact_log2=int(max_exact_log2),
        rtol=Fraction(rtol),
        max_nodes=int(max_nodes),
        unit=(g, e),
    )
    unit = Fraction(g, 1 << e)
    lo_q, up_q, tot_q = lower * unit, upper * unit, total * unit
    subset = np.sort(order[np.asarray(chosen, dtype=np.int64)]) if chosen else np.zeros(0, int)
    return CstarCertificate(
        lower=_round_down(lo_q),
        upper=_round_up(up_q),
        subset=subset.astype(np.int64),
        exact=lower == upper,
        total=_nearest(tot_q),
        lower_exact=lo_q,
        upper_exact=up_q,
        total_exact=tot_q,
        threshold=threshold * unit,
        n_nonzero=int(nz.size),
        min_nonzero=float(arr[order[-1]]),
        method=method,
    )


def _check_relax(relax):
    try:
        q = Fraction(relax)
    except (TypeError, ValueError) as exc:
        raise ValueError("relax must be a number in [0, 1/2)") from exc
    if not 0 <= q < Fraction(1, 2):
        raise ValueError("relax must be a number in [0, 1/2)")
    return q


def cstar_lower(a, bits=24):
    """Certified lower bound on ``cstar(a)`` (:ref:`theory-partition`), rounded down.

    Parameters
    ----------
    a : array-like of shape (n,)
        Non-negative finite weights.
    bits : int, default=24
        DP resolution (see :func:`certified_cstar`).

    Returns
    -------
    float
        Certified lower bound on ``cstar(a)``: the ``lower`` field of
        :func:`certified_cstar` (rounded down to a float).

    Examples
    --------
    >>> from skpacbayes.partition import cstar_lower
    >>> cstar_lower([0.4, 0.35, 0.25]) <= 0.6
    True
    """
    return certified_cstar(a, bits).lower


#: the result of a scaled reuse of a certificate
_ROUNDED_DOWN = """\
Returns
-------
float
    Rounded down, clipped at 0."""


def _scaled_lower(low, t, total, n_nonzero, min_nonzero, rounded, width):
    """Shared rule of the scaled reuse: ``t L`` or its float-rounding-safe version."""
    q = _scale_factor(t)
    if q == 0 or low <= 0:
        return 0.0
    if not rounded or (_is_pow2(q) and _nearest(q * Fraction(min_nonzero)) >= 2.0**-1022):
        return max(0.0, _round_down(q * low))
    tiny = Fraction(1, 2**1074)
    if width == "cstar":
        val = q * (1 - _U) * (low - 2 * _U * total) - 4 * n_nonzero * tiny
    else:
        val = q * low - 2 * _U * q * total - 4 * n_nonzero * tiny
    return max(0.0, _round_down(val))


@fill_doc(rounded_down=_ROUNDED_DOWN)
def scaled_cstar_lower(certificate, t, *, rounded=True):
    """Lower bound on ``cstar(t * a)`` from a certificate of ``a`` (:ref:`theory-partition`).

    Parameters
    ----------
    certificate : CstarCertificate
        Result of :func:`certified_cstar` on ``a`` (with ``relax = 0``).
    t : float
        Scale factor, finite and ``>= 0``.
    rounded : bool, default=True
        If True, the bound also holds for the float vector ``fl(t * a)`` actually deployed
        (each product rounded to nearest, no overflow):
        ``t (1 - u) (L - 2 u S) - 4 n' 2**-1074`` with ``u = 2**-53`` and ``S = sum(a)``.
        A perturbation of the weights by ``u t a_i`` (plus ``2**-1075`` at underflow) can
        only make a subset feasible if its exact sum lies within ``2 u S`` below ``S/2``;
        then ``cstar(a) <= S/2 + u S``, so the loss is at most ``2 u S``. If False, the
        exact rule ``t * L`` for the exact product vector. When ``t`` is a power of two and
        nothing underflows both coincide (``t * L``).

    {rounded_down}

    Examples
    --------
    >>> from skpacbayes.partition import certified_cstar, scaled_cstar_lower
    >>> cert = certified_cstar([0.4, 0.35, 0.25])
    >>> scaled_cstar_lower(cert, 4.0) == 4 * cert.lower
    True
    >>> scaled_cstar_lower(cert, 3.0) <= 3 * cert.lower_exact
    True
    """
    if certificate.threshold * 2 != certificate.total_exact:
        raise ValueError("scaled_cstar_lower needs a certificate computed with relax=0")
    return _scaled_lower(
        certificate.lower_exact,
        t,
        certificate.total_exact,
        certificate.n_nonzero,
        certificate.min_nonzero,
        rounded,
        "cstar",
    )


def _scale_factor(t):
    if isinstance(t, bool):
        raise ValueError("t must be a finite number >= 0")
    try:
        q = Fraction(t)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError("t must be a finite number >= 0") from exc
    if q < 0:
        raise ValueError("t must be a finite number >= 0")
    return q


def _is_pow2(q):
    num, den = q.numerator, q.denominator
    return q > 0 and num & (num - 1) == 0 and den & (den - 1) == 0


# ----------------------------------------------------------------------------------------
# public API: Gaussian form
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class PbarCertificate:
    """Certified bracket of ``pbar = Dstar(|p|) = 2 cstar(|p|) - ||p||_1`` (theory page).

    Attributes
    ----------
    lower : float
        Certified lower bound on ``pbar`` (``>= 0``), rounded DOWN.
    upper : float
        Imbalance ``|sum p_I| - |sum p_rest|`` of the partition given by ``subset``,
        rounded UP.
    subset : ndarray of int
        One side (the heavier one) of a partition attaining ``upper_exact``.
    exact : bool
        True when the value is proven optimal.
    l1 : float
        ``||p||_1`` rounded UP (the safe side for ``b~``).
    lower_exact, upper_exact, l1_exact : Fraction
        Exact values.
    n_nonzero : int
        Number of non-zero weights.
    min_nonzero : float
        Smallest non-zero ``|p_i|`` (0.0 if none).

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar
    >>> cert = certified_pbar([2.0, -1.5, 1.0, 0.5, 0.3])  # 2 + 1 = 1.5 + 0.5 + 0.3 + 0.7
    >>> cert.exact, round(cert.lower, 12), cert.subset.tolist()
    (True, 0.3, [1, 2, 4])
    """

    lower: float
    upper: float
    subset: np.ndarray
    exact: bool
    l1: float
    lower_exact: Fraction
    upper_exact: Fraction
    l1_exact: Fraction
    n_nonzero: int
    min_nonzero: float


def certified_pbar(p, bits=24, **kwargs):
    """Certified lower bound on the minimum imbalance ``pbar = Dstar(|p|)`` (Gaussian form).

    Parameters
    ----------
    p : array-like of shape (n,)
        Finite weights of any sign (their absolute values are partitioned).
    bits : int, default=24
        DP resolution, see :func:`certified_cstar`.
    **kwargs
        Passed to :func:`certified_cstar` (``max_exact_log2``, ``rtol``, ``max_nodes``).

    Returns
    -------
    PbarCertificate
        ``lower <= pbar <= upper`` with a partition (``subset``) attaining ``upper_exact``.

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar
    >>> res = certified_pbar([2.0, -1.5, 1.0, 0.5, 0.3])
    >>> res.exact, round(res.lower, 12), round(res.l1, 12)
    (True, 0.3, 5.3)
    """
    arr = np.abs(_as_vector(p, "p", signed=True))
    cert = certified_cstar(arr, bits, **kwargs)
    tot = cert.total_exact
    lo = max(Fraction(0), 2 * cert.lower_exact - tot)
    up = 2 * cert.upper_exact - tot
    return PbarCertificate(
        lower=max(0.0, _round_down(lo)),
        upper=_round_up(up),
        subset=cert.subset,
        exact=cert.exact,
        l1=_round_up(tot),
        lower_exact=lo,
        upper_exact=up,
        l1_exact=tot,
        n_nonzero=cert.n_nonzero,
        min_nonzero=cert.min_nonzero,
    )


@fill_doc(rounded_down=_ROUNDED_DOWN)
def scaled_pbar_lower(certificate, t, *, rounded=True):
    """Lower bound on ``pbar(t * p)`` from a certificate of ``p`` (:ref:`theory-partition`).

    Parameters
    ----------
    certificate : PbarCertificate
        Result of :func:`certified_pbar` on ``p``.
    t : float
        Scale factor, finite and ``>= 0``.
    rounded : bool, default=True
        If True, also valid for the deployed float vector ``fl(t * p)``: ``pbar`` is the
        minimum of ``|sum_i s_i |p_i||`` over signs, and each product moves by at most
        ``u |t p_i|`` (plus ``2**-1075`` at underflow), so the bound is
        ``t L - 2 u t ||p||_1 - 4 n' 2**-1074``. If False, ``t * L`` (exact product).

    {rounded_down}

    Examples
    --------
    >>> from skpacbayes.partition import certified_pbar, scaled_pbar_lower
    >>> cert = certified_pbar([2.0, 1.5, 1.0, 0.5, 0.3])
    >>> scaled_pbar_lower(cert, 0.5) == 0.5 * cert.lower
    True
    """
    return _scaled_lower(
        certificate.lower_exact,
        t,
        certificate.l1_exact,
        certificate.n_nonzero,
        certificate.min_nonzero,
        rounded,
        "pbar",
    )
