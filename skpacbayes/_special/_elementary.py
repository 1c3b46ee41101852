"""Standard normal tails, Gauss-Legendre rules and the large-argument series of Gamma.

The small special functions that the posterior families use directly and that the
incomplete beta function (:mod:`._betainc`) is built on.
"""

import math
from functools import lru_cache

import numpy as np
import torch

from skpacbayes._docstrings import fill_doc

__all__ = [
    "digamma_minus_log",
    "gauss_legendre",
    "gaussian_cdf",
    "gaussian_sf",
    "stirling_remainder",
]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)

#: the parameter of the Gaussian tails
_ANY_T = """\
Parameters
----------
t : torch.Tensor
    Floating point tensor of any shape."""
#: the example of both tails
_TAILS_EXAMPLE = """\
>>> import torch
>>> from skpacbayes._special import gaussian_cdf, gaussian_sf
>>> t = torch.tensor([0.0, 1.0], dtype=torch.float64)
>>> gaussian_cdf(t), gaussian_sf(t)
(tensor([0.5000, 0.8413], dtype=torch.float64), tensor([0.5000, 0.1587], dtype=torch.float64))"""
#: the parameter and the result of the large-argument series
_POSITIVE_X = """\
Parameters
----------
x : torch.Tensor
    Positive floating point tensor.

Returns
-------
torch.Tensor
    Same shape and dtype as ``x``."""


# ---------------------------------------------------------------------------------------------
# Gaussian tails
# ---------------------------------------------------------------------------------------------
@fill_doc(any_t=_ANY_T, tails_example=_TAILS_EXAMPLE)
def gaussian_cdf(t):
    """Standard normal distribution function ``Phi_cdf(t) = P(N(0, 1) <= t)``.

    Computed as ``erfc(-t / sqrt 2) / 2``: relatively accurate in the lower tail
    (``gaussian_cdf(-30)`` is about ``4.9e-198``, where ``torch.special.ndtr`` returns 0).
    Differentiable.

    {any_t}

    Returns
    -------
    torch.Tensor
        ``P(N(0, 1) <= t)``, same shape, dtype and device as ``t``.

    Examples
    --------
    {tails_example}
    """
    return 0.5 * torch.special.erfc(-t * _SQRT_HALF)


@fill_doc(any_t=_ANY_T, tails_example=_TAILS_EXAMPLE)
def gaussian_sf(t):
    """Standard normal survival function ``Phi_sf(t) = P(N(0, 1) > t) = erfc(t / sqrt 2) / 2``.

    Relatively accurate in the upper tail. This is the function the paper calls
    ``Phi`` (:ref:`theory-departures`). Differentiable.

    {any_t}

    Returns
    -------
    torch.Tensor
        ``P(N(0, 1) > t)``, same shape, dtype and device as ``t``.

    Examples
    --------
    {tails_example}
    >>> float(gaussian_sf(torch.tensor(30.0, dtype=torch.float64))) > 0
    True
    """
    return 0.5 * torch.special.erfc(t * _SQRT_HALF)


# ---------------------------------------------------------------------------------------------
# Gauss-Legendre rules
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _gauss_legendre_np(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return x, w


def gauss_legendre(n, dtype=torch.float64, device="cpu"):
    """Nodes and weights of the ``n``-point Gauss-Legendre rule on ``[-1, 1]``.

    Parameters
    ----------
    n : int
        Number of nodes.
    dtype : torch.dtype, default=torch.float64
        Floating dtype of the returned tensors.
    device : str or torch.device, default="cpu"
        Device of the returned tensors.

    Returns
    -------
    nodes, weights : torch.Tensor
        Two tensors of shape ``(n,)``; ``sum(weights * f(nodes))`` integrates
        polynomials of degree ``2 n - 1`` exactly.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes._special import gauss_legendre
    >>> x, w = gauss_legendre(3)
    >>> round(float((w * x**4).sum()), 12)  # int_{-1}^{1} x^4 dx = 2/5
    0.4
    """
    device = torch.device(device)
    if device.type != "cpu":  # a copy to the device waits for it: once per (n, dtype, device)
        return _gauss_legendre_on(int(n), dtype, device)
    x, w = _gauss_legendre_np(int(n))
    return (
        torch.as_tensor(x, dtype=dtype, device=device),
        torch.as_tensor(w, dtype=dtype, device=device),
    )


@lru_cache(maxsize=64)
def _gauss_legendre_on(n, dtype, device):
    """:func:`gauss_legendre` on an accelerator, cached (the callers never write to it)."""
    x, w = _gauss_legendre_np(n)
    return (
        torch.as_tensor(x, dtype=dtype, device=device),
        torch.as_tensor(w, dtype=dtype, device=device),
    )


# ---------------------------------------------------------------------------------------------
# Series helpers
# ---------------------------------------------------------------------------------------------
# Stirling remainder lgamma(x) - (x - 1/2) ln x + x - ln(2 pi)/2 = sum_k B_2k / (2k (2k-1) x^(2k-1))
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
    -3617.0 / 122400.0,
)
# psi(x) - ln x = -1/(2x) - sum_k B_2k / (2k x^(2k))
_DIGAMMA_TAIL = (
    -1.0 / 12.0,
    1.0 / 120.0,
    -1.0 / 252.0,
    1.0 / 240.0,
    -1.0 / 132.0,
    691.0 / 32760.0,
    -1.0 / 12.0,
    3617.0 / 8160.0,
)


def _series_in_inverse_square(x, coefficients):
    """``sum_k coefficients[k] y^k`` with ``y = 1 / x^2`` (Horner's rule), and ``y``."""
    y = 1.0 / (x * x)
    acc = torch.full_like(x, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = acc * y + c
    return acc, y


def _series_above_ten(x, series, direct):
    """``series(x)`` where ``x >= 10`` and ``direct(x)`` below, each evaluated in its range only.

    The arguments are clamped to each side of 10 first, so neither function sees (or
    differentiates at) an argument outside its range.
    """
    big = torch.clamp(x, min=10.0)
    small = torch.clamp(x, max=10.0)
    return torch.where(x >= 10.0, series(big), direct(small))


def _stirling_remainder(x):
    """``lgamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2)`` for ``x >= 10``.

    The asymptotic series truncated after 8 terms; at ``x = 10`` the first omitted
    term is ``1.8e-18`` (``B_18 / (18 * 17 * x^17)``) and bounds the error.
    """
    acc, _ = _series_in_inverse_square(x, _STIRLING)
    return acc / x


def _digamma_minus_log(x):
    """``digamma(x) - ln x`` for ``x >= 10`` (asymptotic series, error below ``3.1e-18``)."""
    acc, y = _series_in_inverse_square(x, _DIGAMMA_TAIL)
    return acc * y - 0.5 / x


@fill_doc(positive_x=_POSITIVE_X)
def stirling_remainder(x):
    r"""Remainder of Stirling's formula, ``lgamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2)``.

    Differentiable, for any ``x > 0`` (asymptotic series for ``x >= 10``, ``lgamma``
    below). Used to write Gamma-function ratios of large arguments without the
    cancellation of ``lgamma`` differences.

    {positive_x}

    Examples
    --------
    >>> import math, torch
    >>> from skpacbayes._special import stirling_remainder
    >>> x = torch.tensor([0.5, 20.0], dtype=torch.float64)
    >>> direct = torch.lgamma(x) - ((x - 0.5) * torch.log(x) - x + 0.5 * math.log(2 * math.pi))
    >>> bool(torch.allclose(stirling_remainder(x), direct, rtol=1e-12, atol=1e-14))
    True
    """
    return _series_above_ten(
        x,
        _stirling_remainder,
        lambda small: (
            torch.lgamma(small) - ((small - 0.5) * torch.log(small) - small + _HALF_LOG_2PI)
        ),
    )


@fill_doc(positive_x=_POSITIVE_X)
def digamma_minus_log(x):
    r"""``digamma(x) - ln x``, differentiable, for any ``x > 0``.

    Asymptotic series for ``x >= 10`` (no cancellation for large ``x``), direct below.

    {positive_x}

    Examples
    --------
    >>> import torch
    >>> from skpacbayes._special import digamma_minus_log
    >>> x = torch.tensor([0.5, 1e6], dtype=torch.float64)
    >>> digamma_minus_log(x)  # ~ -1/(2x) for large x
    tensor([-1.2704e+00, -5.0000e-07], dtype=torch.float64)
    """
    return _series_above_ten(
        x, _digamma_minus_log, lambda small: torch.digamma(small) - torch.log(small)
    )
