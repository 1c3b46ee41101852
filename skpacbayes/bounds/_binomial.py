"""Binomial tails: psi_N(r) = P(Bin(N, r) >= ceil(N/2)) (binomial bound, :ref:`theory-classical`)
and the inversion of the lower tail P(Bin(n, r) <= k) (test-set bound, :ref:`theory-holdout`)."""

from __future__ import annotations

import math

import torch

from ._kl import kl_inv_upper
from ._validation import dual

__all__ = ["binomial_inv_upper", "binomial_tail"]

_CHUNK_ELEMENTS = 1 << 22  # rows x terms evaluated at once (bounded memory for N ~ 1000)


def _log_binom(n: int, ks) -> torch.Tensor:
    """ln C(n, k) for each k, correctly rounded from exact integers (float64)."""
    return torch.tensor([math.log(math.comb(n, k)) for k in ks], dtype=torch.float64)


def _log_terms(r64: torch.Tensor, n: int, ks: torch.Tensor, log_c: torch.Tensor):
    """ln[C(n,k) r^k (1-r)^(n-k)] for every r (rows) and k (columns); 0 ln 0 = 0."""
    r = r64.unsqueeze(-1)
    return log_c + torch.xlogy(ks, r) + torch.special.xlog1py(n - ks, -r)


class _BinomialTail(torch.autograd.Function):
    """Forward: log-space sum of the pmf (float64); backward: the Beta density closed form."""

    @staticmethod
    def forward(ctx, r, n):
        k = (n + 1) // 2  # ceil(n / 2)
        device = r.device
        ks = torch.arange(k, n + 1, dtype=torch.float64, device=device)
        log_c = _log_binom(n, range(k, n + 1)).to(device)
        flat = r.detach().reshape(-1).to(torch.float64)
        rows = max(1, _CHUNK_ELEMENTS // ks.numel())
        out = (
            torch.cat(
                [
                    torch.logsumexp(_log_terms(chunk, n, ks, log_c), dim=-1).exp()
                    for chunk in flat.split(rows)
                ]
            )
            if flat.numel()
            else flat
        )
        ctx.save_for_backward(r)
        ctx.n = n
        return out.clamp(0, 1).reshape(r.shape).to(r.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (r,) = ctx.saved_tensors
        n = ctx.n
        k = (n + 1) // 2
        # d/dr I_r(k, n-k+1) = n C(n-1, k-1) r^(k-1) (1-r)^(n-k)
        r64 = r.to(torch.float64)
        log_coef = math.log(n) + math.log(math.comb(n - 1, k - 1))
        log_density = log_coef + torch.xlogy(torch.tensor(k - 1.0, dtype=torch.float64), r64)
        log_density = log_density + torch.special.xlog1py(
            torch.tensor(float(n - k), dtype=torch.float64), -r64
        )
        return grad_out * log_density.exp().to(r.dtype), None


@dual(r="stat", n_draws="int>=1")
def binomial_tail(r, n_draws):
    """Probability that at least half of ``N`` independent draws err: ``P(Bin(N, r) >= ceil(N/2))``.

    Parameters
    ----------
    r : float, array-like or torch.Tensor
        Per-example stochastic losses in [0, 1] (elementwise).
    n_draws : int
        ``N >= 1``, the number of voters drawn (fixed before seeing the sample).

    Returns
    -------
    float, ndarray or torch.Tensor
        ``I_r(ceil(N/2), N - ceil(N/2) + 1)``, same shape as ``r``; differentiable in ``r``
        when ``r`` is a tensor.

    Notes
    -----
    :ref:`theory-classical` (binomial bound, corrected "at least half" threshold,
    :ref:`theory-departures`). The sum of the binomial
    pmf is evaluated in log space in float64 whatever the input dtype (accurate for N up to a
    few thousand and for ``r`` near 0 or 1), in chunks of bounded memory; the derivative is the
    Beta density ``N C(N-1, k-1) r^(k-1) (1-r)^(N-k)``, ``k = ceil(N/2)``. ``N = 1`` gives ``r``.

    Examples
    --------
    >>> from skpacbayes.bounds import binomial_tail
    >>> round(binomial_tail(0.5, 4), 12)
    0.6875
    >>> round(binomial_tail(0.3, 3), 6)
    0.216
    """
    return _BinomialTail.apply(r, n_draws)


def _lower_tail(k: int, n: int):
    """``r -> (ln P(Bin(n, r) <= k), allowance)`` in float64 for ``0 < r < 1``.

    The ``k + 1`` log-pmf terms ``ln C(n, j) + j ln r + (n - j) ln(1 - r)`` are summed in log
    space (the ``ln C(n, j)`` computed once). Each term is a sum of a few float64 operations
    on values of magnitude at most ``G = 3 lgamma(n + 1) + k |ln r| + n |ln(1 - r)|``, so its
    absolute error is a few units of ``G eps``; the log-sum-exp of ``k + 1`` terms adds at most
    ``(k + 2) eps`` to the log. The allowance, ``64 eps (G + k + 2)``, covers both with a wide
    margin (a few ``1e-7`` for n = 10^6).
    """
    j = torch.arange(k + 1, dtype=torch.float64)
    lg_n = math.lgamma(n + 1.0)
    log_c = lg_n - torch.lgamma(j + 1.0) - torch.lgamma(n - j + 1.0)
    eps = torch.finfo(torch.float64).eps

    def log_tail(r):
        log_r, log_1mr = math.log(r), math.log1p(-r)
        value = float(torch.logsumexp(log_c + j * log_r + (n - j) * log_1mr, dim=0))
        size = 3.0 * lg_n + k * abs(log_r) + n * abs(log_1mr)
        return value, 64.0 * eps * (size + k + 2.0)

    return log_tail


@dual(n_errors="int>=0", n="int>=1", delta="delta")
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
    delta : float
        Confidence parameter in (0, 1].

    Returns
    -------
    float
        The upper limit, in ``[0, 1]`` (at least ``k / n`` when ``delta <= 1/2``); 1 when
        ``k = n``.

    Notes
    -----
    See :ref:`theory-holdout` (Proposition 5). Chernoff's test-set bound
    ``kl_inv_upper(k / n, ln(1/delta) / n)`` is never below the exact limit and starts the
    search (for ``k = 0`` the two coincide, and the start is raised by ``1e-12`` if rounding
    left it short). The tail ``P(Bin(n, r) <= k)`` is computed in float64 with an allowance
    for its rounding error, and a bisection keeps as its upper end only points ``r`` where the
    computed tail PLUS that allowance is below ``delta``: the exact tail there is below
    ``delta``, so the returned upper end is never below the exact limit (and within about
    ``1e-12`` relative of it). Sums over ``k + 1`` terms: fast up to millions of errors.

    Raises
    ------
    ValueError
        If ``n_errors > n``, or an argument is out of its range.

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
    if n_errors > n:
        raise ValueError(f"n_errors must be at most n, got n_errors={n_errors} > n={n}")
    if n_errors == n:  # the tail is 1 for every r
        return torch.ones_like(delta)
    log_delta = math.log(float(delta))
    chernoff = float(kl_inv_upper(n_errors / n, -log_delta / n))
    if log_delta == 0.0:  # delta = 1 certifies nothing: Chernoff's value, k / n
        return torch.full_like(delta, chernoff)
    log_tail = _lower_tail(n_errors, n)

    def below_delta(r):  # the EXACT tail at r is below delta (computed value + allowance)
        if r >= 1.0:
            return True  # P(Bin(n, 1) <= k) = 0 for k < n
        value, allowance = log_tail(r)
        return value + allowance < log_delta

    # Chernoff's value has an exact tail below delta (equal to it for k = 0); its rounding
    # may fall short, so the search starts at the first of a few raised points it confirms
    hi = next(r for r in (chernoff, chernoff + 1e-12, chernoff + 1e-9, 1.0) if below_delta(r))
    hi = min(hi, 1.0)
    lo = 0.0  # the tail at 0 is 1 >= delta
    for _ in range(1100):  # a float64 bisection ends in about 60 halvings; 1100 is a hard cap
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if below_delta(mid):
            hi = mid
        else:
            lo = mid
    return torch.full_like(delta, hi)
