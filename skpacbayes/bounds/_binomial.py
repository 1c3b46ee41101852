"""The binomial tail psi_N(r) = P(Bin(N, r) >= ceil(N/2)) of the binomial bound
(:ref:`theory-classical`); the test-set bound, which inverts the lower tail, is in
:mod:`skpacbayes.bounds._test_set` (no torch)."""

from __future__ import annotations

import math

import torch

from ._validation import dual

__all__ = ["binomial_tail"]

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
