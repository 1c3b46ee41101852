"""Error-free sums of float64 weights: the certificates' sums of weights over vote patterns
are exact (:mod:`skpacbayes.posteriors._vote_sums`), their totals carry their rounding error.
"""

import math

import torch

__all__ = ["exact_total", "split_weights", "two_sum"]

_SPLIT_BITS = 31  # bits per level of the error-free split of the weights
_SPLIT_LEVELS = 3


def split_weights(w, levels=_SPLIT_LEVELS, bits=_SPLIT_BITS):
    """Error-free split ``w = w_0 + w_1 + ... + w_{L-1}`` (float64) for exact-ish sums.

    Level ``l`` holds integer multiples of ``2^(e - bits (l + 1))`` of magnitude below
    ``2^bits`` units, where ``2^e > max |w|``. Any sum of at most ``2^(52 - bits)`` such
    numbers (any order, any subset, any signs) is EXACT in float64. The last level
    holds the remainder ``|w_{L-1}| <= 2^(e - bits (L - 1) - 1)``, whose sums err by at
    most ``gamma_n * n * 2^(e - bits (L - 1) - 1)``: with three 31-bit levels and
    ``n = 200`` this is ``1e-30 max |w|``, far below one rounding of the result.

    Parameters
    ----------
    w : torch.Tensor
        float64 vector.
    levels : int, default=3
    bits : int, default=31

    Returns
    -------
    list of torch.Tensor
        ``levels`` tensors whose exact sum is ``w``.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors._exact_sums import split_weights
    >>> w = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    >>> parts = split_weights(w)
    >>> bool((sum(parts) == w).all())
    True
    """
    m = float(w.abs().max()) if w.numel() else 0.0
    if not math.isfinite(m):
        raise ValueError("weights must be finite.")
    if m == 0.0 or m < 2.0**-900:
        return [w.clone()] + [torch.zeros_like(w) for _ in range(levels - 1)]
    _, e = math.frexp(m)  # m < 2^e
    parts = []
    rest = w
    for level in range(levels - 1):
        scale = 2.0 ** (e - bits * (level + 1))
        hi = torch.round(rest / scale) * scale
        parts.append(hi)
        rest = rest - hi  # exact
    parts.append(rest)
    return parts


def two_sum(a, b):
    """Knuth's error-free transformation: ``s = fl(a + b)`` and ``e`` with ``s + e = a + b``."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def exact_total(hi, lo):
    """``(total, residual)`` of ``hi.sum(0) + lo`` (levels of :func:`vote_sums`).

    ``total`` is the rounded sum and ``residual`` its rounding error (computed with
    :func:`two_sum`), so that ``total + residual`` equals the sum of the levels up to
    ``u |residual|``; ``residual`` is ``None`` without exact levels (float32). Gradients
    flow through ``lo`` into ``total``.
    """
    if hi.shape[0] == 0:
        return lo, None
    acc, res = hi[0], torch.zeros_like(lo)
    for level in list(hi[1:]) + [lo.detach()]:
        acc, err = two_sum(acc, level)
        res = res + err
    return acc.detach() + (lo - lo.detach()), res
