"""The weight-only terms ``(b~, c~)`` of the partition bound, one function per family.

Categorical and Dirichlet posteriors take the certified partition value of their weights,
the Gaussian posterior the certified imbalance; the special functions (``betainc`` at one
half, ``ndtr``) are evaluated at safe-side arguments and lowered by their rounding allowance.
"""

import math
from fractions import Fraction

import numpy as np
from scipy import special

from ._certificates import certified_cstar, certified_pbar
from ._exact import _as_vector, _round_down, _round_up, _vote_slack

__all__ = [
    "categorical_partition_terms",
    "dirichlet_partition_terms",
    "dirichlet_ray_terms",
    "gaussian_partition_terms",
    "gaussian_ray_terms",
]

# Absolute allowance for the rounding of betainc / ndtr (theory page, 'Conservative numerics').
BETAINC_ALLOWANCE = 1e-12


def _relaxed_cstar(arr, bits):
    """Certificate of the vote-rounding relaxed partition value of a non-negative vector.

    Only the lower side matters for ``c~``: the upper-side search (complete KK) is skipped
    below 24 bits, where these terms are evaluated many times inside heuristics.
    """
    n_nz = int(np.count_nonzero(arr))
    nodes = None if bits >= 24 else 0
    return certified_cstar(arr, bits, relax=float(_vote_slack(n_nz)), max_nodes=nodes)


def categorical_partition_terms(p, bits=24):
    """``(b~, c~)`` of a Categorical posterior: ``(0, cstar(p / sum p))`` certified.

    See :ref:`theory-partition`.

    Parameters
    ----------
    p : array-like of shape (n,)
        The deployed (possibly unnormalised) non-negative vote weights, exactly as the
        classifier uses them. The certified value is computed on these exact floats and
        divided by their exact total.
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        0.0.
    c_tilde : float
        Certified lower bound on ``cstar(p) / sum(p)``, rounded down.

    Raises
    ------
    ValueError
        If ``p`` has NaN/inf/negative entries or sums to 0.

    Notes
    -----
    The partition problem is solved with the threshold ``(1/2 - eta) sum(p)``,
    ``eta = 4 (n' + 2) 2**-53`` (``n'`` non-zero weights): a pattern whose exact error mass
    lies a rounding error below one half may be counted as an error by the float vote, and
    then its loss is below ``cstar``. The relaxation changes ``c~`` only in that case (by
    at most ``2 eta``).

    Examples
    --------
    >>> from skpacbayes.partition import categorical_partition_terms
    >>> b, c = categorical_partition_terms([0.35, 0.25, 0.2, 0.12, 0.08])
    >>> b, round(c, 12)
    (0.0, 0.53)
    """
    arr = _as_vector(p, "p")
    if not np.any(arr > 0):
        raise ValueError("p must have a positive sum")
    cert = _relaxed_cstar(arr, bits)
    return 0.0, min(1.0, _round_down(cert.lower_exact / cert.total_exact))


def _betainc_lower(a_up, b_down):
    """``I_{1/2}(a, b)`` at safe-side arguments, with the limits at 0 of :ref:`theory-losses`.

    ``I_x(a, 0) = 0`` (point mass at 1) and ``I_x(0, b) = 1`` (point mass at 0).
    """
    a_b, b_b = np.broadcast_arrays(
        np.atleast_1d(np.asarray(a_up, dtype=np.float64)),
        np.atleast_1d(np.asarray(b_down, dtype=np.float64)),
    )
    out = np.zeros(a_b.shape)
    zero_b = b_b <= 0
    zero_a = (a_b <= 0) & ~zero_b
    mid = ~(zero_a | zero_b)
    out[zero_a] = 1.0
    if np.any(mid):
        out[mid] = special.betainc(a_b[mid], b_b[mid], 0.5)
    return out


def dirichlet_partition_terms(alpha, bits=24):
    """``(b~, c~)`` of a Dirichlet posterior: ``(0, I_{1/2}(A - cs, cs))``.

    See :ref:`theory-partition`.

    Parameters
    ----------
    alpha : array-like of shape (n,)
        Concentration parameters (finite, non-negative, positive sum; zeros are ignored).
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        0.0.
    c_tilde : float
        ``max(0, I_{1/2}(A - cs, cs) - 1e-12)`` with ``A = sum(alpha)`` and
        ``cs = min(cstar_lower(alpha), A)``; the arguments are rounded on the safe side
        (``A - cs`` up, ``cs`` down; the function decreases in its first and increases in
        its second argument) and ``1e-12`` covers the rounding of ``betainc``.

    Notes
    -----
    ``cstar`` is computed with the vote-rounding threshold of
    :func:`categorical_partition_terms`. ``cs = A`` (a single non-zero weight) gives 1.

    Examples
    --------
    >>> from skpacbayes.partition import dirichlet_partition_terms
    >>> b, c = dirichlet_partition_terms([3.5, 2.5, 2.0, 1.2, 0.8])
    >>> b, abs(c - 0.57845586414799297) < 1e-9, c <= 0.57845586414799297
    (0.0, True, True)
    """
    arr = _as_vector(alpha, "alpha")
    if not np.any(arr > 0):
        raise ValueError("alpha must have a positive sum")
    return dirichlet_ray_terms(arr, (1,), bits)[0]


def dirichlet_ray_terms(alpha, scales, bits):
    """:func:`dirichlet_partition_terms` of the exact multiples ``t alpha``, ``t`` in ``scales``.

    The partition value is homogeneous (``cstar(t alpha) = t cstar(alpha)``): one subset-sum
    certificate serves the whole ray, each scale then costs one ``betainc``. The terms are
    those of the real multiples ``t alpha``, not of their rounded floats: for searches (the
    partition tightening), whose values only steer them. ``alpha`` is a checked vector with
    a positive sum; ``t = 1`` gives :func:`dirichlet_partition_terms` itself.

    Parameters
    ----------
    alpha : ndarray of shape (n,)
        Concentration parameters (finite, non-negative, positive sum; not checked here).
    scales : sequence of float
        Positive scales ``t``.
    bits : int
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    terms : list of (float, float)
        ``(b~, c~)`` of ``t alpha`` for each ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.partition import dirichlet_partition_terms, dirichlet_ray_terms
    >>> alpha = np.array([3.5, 2.5, 2.0, 1.2, 0.8])
    >>> dirichlet_ray_terms(alpha, [1.0], 24)[0] == dirichlet_partition_terms(alpha)
    True
    """
    cert = _relaxed_cstar(alpha, bits)
    out, firsts, seconds = [], [], []
    for t in scales:
        big_a = cert.total_exact * Fraction(t)
        cs = min(cert.lower_exact * Fraction(t), big_a)
        firsts.append(_round_up(big_a - cs))
        seconds.append(_round_down(cs))
    values = _betainc_lower(firsts, seconds)
    for first, value in zip(firsts, values, strict=True):
        c = 1.0 if first == 0.0 else min(1.0, max(0.0, float(value) - BETAINC_ALLOWANCE))
        out.append((0.0, c))
    return out


def _phi_arg(x_q, n, direction):
    """``x / sqrt(n)`` rounded in ``direction`` (+1 up, -1 down); ``x_q`` a Fraction."""
    x = _round_up(x_q) if direction > 0 else _round_down(x_q)
    if x == 0.0:
        return 0.0
    q = x / math.sqrt(n)  # two correctly rounded operations: within 3 ulps of x / sqrt(n)
    target = math.inf if direction > 0 else -math.inf
    for _ in range(3):
        q = math.nextafter(q, target)
    return q


def gaussian_partition_terms(mean, n_voters, bits=24):
    """``(b~, c~)`` of a binary Gaussian posterior ``N(p, I)`` (:ref:`theory-partition`).

    Parameters
    ----------
    mean : array-like of shape (n,)
        Posterior mean ``p`` (any sign, zeros allowed).
    n_voters : int
        Number of voters of the Gaussian: ALL of them, zero weights included (using the
        number of non-zero weights is unsound, :ref:`theory-partition`). Must be ``>= len(mean)``.
    bits : int, default=24
        DP resolution (16 inside heuristics, 24 for reported values).

    Returns
    -------
    b_tilde : float
        Lower bound on ``Phi_sf(||p||_1 / sqrt(n))``.
    c_tilde : float
        Lower bound on ``Phi_cdf(pbar / sqrt(n))``, ``pbar = Dstar(|p|)``.

    Notes
    -----
    Safe-side evaluation: the arguments are bounded with exact rationals and directed
    rounding (``||p||_1`` up for ``b~``, ``pbar`` down for ``c~``, then at most 3 ulps for
    the division by ``sqrt(n)``); ``b~`` is then multiplied by ``1 - 1e-12`` (0 below
    ``1e-300``, where subnormals lose relative accuracy) and ``1e-12`` is subtracted from
    ``c~`` (rounding of ``ndtr``). At ``p = 0`` both are exactly 1/2. The deployed vote
    ``sign(p . f)`` is assumed evaluated in float64 with an error at most
    ``eta ||p||_1``, ``eta = 4 (n' + 2) 2**-53``: if ``pbar`` cannot be certified above
    that margin, ``c~ = Phi_cdf(-eta ||p||_1 / sqrt(n))`` (a hair below 1/2).

    Examples
    --------
    >>> from skpacbayes.partition import gaussian_partition_terms
    >>> b, c = gaussian_partition_terms([2.0, 1.5, 1.0, 0.5, 0.3], 5)
    >>> abs(b - 0.0088884619212144614) < 1e-9, abs(c - 0.55336358492889409) < 1e-9
    (True, True)
    >>> gaussian_partition_terms([0.0, 0.0], 2)
    (0.5, 0.5)
    """
    arr = _as_vector(mean, "mean", signed=True)
    if isinstance(n_voters, bool) or not isinstance(n_voters, (int, np.integer)):
        raise ValueError("n_voters must be an integer")
    n = int(n_voters)
    if n < max(1, arr.size):
        raise ValueError(
            f"n_voters must count ALL voters (>= len(mean) = {arr.size} and >= 1), got {n}"
        )
    return gaussian_ray_terms(arr, n, (1,), bits)[0]


def gaussian_ray_terms(mean, n_voters, scales, bits):
    """:func:`gaussian_partition_terms` of the exact multiples ``t mean``, ``t`` in ``scales``.

    The imbalance and the L1 norm are homogeneous: one certificate serves the whole ray (as
    :func:`dirichlet_ray_terms`, for searches). ``mean`` and ``n_voters`` are checked;
    ``t = 1`` gives :func:`gaussian_partition_terms` itself.

    Parameters
    ----------
    mean, n_voters
        As :func:`gaussian_partition_terms` (not checked here).
    scales, bits
        As :func:`dirichlet_ray_terms`.

    Returns
    -------
    terms : list of (float, float)
        ``(b~, c~)`` of ``t mean`` for each ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.partition import gaussian_partition_terms, gaussian_ray_terms
    >>> mean = np.array([2.0, 1.5, 1.0, 0.5, 0.3])
    >>> gaussian_ray_terms(mean, 5, [1.0], 24)[0] == gaussian_partition_terms(mean, 5)
    True
    """
    cert = certified_pbar(mean, bits, max_nodes=None if bits >= 24 else 0)
    eta = _vote_slack(int(np.count_nonzero(mean)))
    out = []
    for t in scales:
        l1, lower = cert.l1_exact * Fraction(t), cert.lower_exact * Fraction(t)
        margin = eta * l1
        x_c = lower if lower > margin else -margin
        arg_c = _phi_arg(x_c, n_voters, -1)
        arg_b = _phi_arg(l1, n_voters, +1)
        c = 0.5 if arg_c == 0.0 else max(0.0, float(special.ndtr(arg_c)) - BETAINC_ALLOWANCE)
        if arg_b == 0.0:
            b = 0.5
        else:
            v = float(special.ndtr(-arg_b))
            b = v * (1.0 - BETAINC_ALLOWANCE) if v > 1e-300 else 0.0
        out.append((b, min(1.0, c)))
    return out
