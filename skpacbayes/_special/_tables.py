"""Training-only tables: a per-row loss that is a smooth function of one per-row number.

The float32 training evaluates, at every step, a loss of every row that depends on the row
through one number only: the binomial tail ``psi_N(r)`` of a Categorical loss ``r``, the
Dirichlet loss ``I_{1/2}(A - a_F, a_F)`` of the wrong mass ``a_F`` (the total ``A`` is
shared by the rows). Evaluating the special function at every row costs far more than the
matrix product that forms the numbers; here it is evaluated on about 500 knots and the rows
are read off a cubic Hermite interpolant (values and exact slopes at the knots; measured
error below ``2e-5`` on float32 inputs, totals up to ``1e6``: the float32 resolution of
these losses near their steep part). Only
the training objective uses these tables: every certificate evaluates the functions
themselves, in float64.
"""

import functools
import math

import torch

from ._betainc import betainc_half_with_grad

__all__ = ["binomial_tail_table", "dirichlet_loss_table", "dirichlet_ray_losses"]

_UNIFORM_KNOTS = 257
_WINDOW_KNOTS = 257
_WINDOW_WIDTHS = 10.0  # half-width of the dense window around 1/2, in standard deviations
_CPU_ROWS = 2**15  # rows per chunk of the interpolation on the CPU


def _knots(half, dtype, device):
    """The sorted knots: a uniform grid of ``_UNIFORM_KNOTS`` on [0, 1] and a window of
    ``_WINDOW_KNOTS`` on ``[1/2 - half, 1/2 + half]`` (a knot of both grids appears twice:
    the interval between the two is never read). ``half`` of shape ``(s, 1)`` gives ``s``
    sets of knots, one per row."""
    uniform = torch.linspace(0.0, 1.0, _UNIFORM_KNOTS, dtype=dtype, device=device)
    unit = torch.linspace(-1.0, 1.0, _WINDOW_KNOTS, dtype=dtype, device=device)
    window = 0.5 + half * unit
    uniform = uniform.expand(*window.shape[:-1], _UNIFORM_KNOTS)
    return torch.sort(torch.cat([uniform, window], dim=-1), dim=-1).values


def _interval(x, knots, half, pairs=None):
    """``searchsorted(knots, x, right=True) - 1`` for the knots of :func:`_knots`, clipped to
    the intervals ``[0, len(knots) - 2]``, by arithmetic (torch's search costs as much as
    the rest of the interpolation).

    The index of the last knot at most ``x`` is the number of knots of each grid at most
    ``x``, less one: exact for the uniform grid (its spacing a power of two), within one for
    the window (rounded knots), which one comparison on each side corrects. ``pairs``: the
    ends of the intervals stacked (``knots[:-1]`` over ``knots[1:]``), when already formed.
    """
    last = knots.numel() - 2
    n_uniform = torch.floor(x * (_UNIFORM_KNOTS - 1)).clamp_(-1, _UNIFORM_KNOTS - 1)
    scaled = torch.sub(x, 0.5).div_(half).add_(1.0).mul_(0.5 * (_WINDOW_KNOTS - 1))
    n_window = scaled.floor_().clamp_(-1, _WINDOW_KNOTS - 1)
    k = n_uniform.add_(n_window).add_(1.0).long().clamp_(0, last)
    if pairs is None:
        pairs = torch.stack([knots[:-1], knots[1:]])
    ends = pairs.index_select(1, k.reshape(-1)).reshape(2, *k.shape)
    k += ends[1] <= x
    k -= (ends[0] > x).long()
    return k.clamp_(0, last)


def _hermite_rows(x, knots, half, stacked, n, y, dy_dx, dy_dp):
    """The interpolant of :class:`_Hermite` at the 1-D ``x``, written into ``y``, its slope
    in ``x`` into ``dy_dx`` and in the parameter into ``dy_dp`` (where not ``None``).

    ``stacked`` holds the ``n`` tables (knots, values, slopes, derivatives of the values)
    at the left ends of the intervals, then at their right ends. Every step is one rounded
    operation written in place, in the order of the formulas of :class:`_Hermite`.
    """
    k = _interval(x, knots, half, stacked[[0, n]])
    ends = stacked.index_select(1, k)
    x0, v0, m0, m1 = ends[0], ends[1], ends[2], ends[n + 2]
    # a zero width is the last interval between a knot of both grids and itself, read at
    # x = 1 only: s = 0 there, the knot's value
    h = ends[n].sub_(x0).clamp_min_(torch.finfo(x.dtype).tiny)
    s = torch.sub(x, x0).div_(h)
    rest = torch.neg(s).add_(1.0)  # 1 - s
    dv = ends[n + 1].sub_(v0)  # v1 - v0
    w = torch.mul(s, s).mul_(torch.mul(s, 2.0).neg_().add_(3.0))  # s^2 (3 - 2 s): h01
    if dy_dp is not None:  # d/dp of the values, interpolated linearly (weight w)
        torch.add(ends[3], ends[n + 3].sub_(ends[3]).mul_(w), out=dy_dp)
    curve = torch.mul(rest, m0).sub_(torch.mul(s, m1))  # (1 - s) m0 - s m1
    curve.mul_(torch.mul(h, s).mul_(rest))
    torch.add(w.mul_(dv).add_(v0), curve, out=y)
    if dy_dx is None:
        return
    three_s = torch.mul(s, 3.0)
    slope = torch.mul(s, 6.0).mul_(rest).mul_(dv).div_(h)  # 6 s (1 - s) (v1 - v0) / h
    slope.add_(torch.neg(three_s).add_(1.0).mul_(rest).mul_(m0))  # + (1 - s)(1 - 3 s) m0
    torch.add(slope, three_s.sub_(2.0).mul_(s).mul_(m1), out=dy_dx)  # + s (3 s - 2) m1


class _Hermite(torch.autograd.Function):
    """Cubic Hermite interpolant of knot values and slopes on the knots of :func:`_knots`,
    in one pass over the rows (on the CPU, in chunks of ``_CPU_ROWS`` whose temporaries stay
    in cache).

    ``values`` may depend on a scalar parameter ``param`` to first order: ``d_values`` is
    their derivative, and the interpolant's derivative in ``param`` is that of its values.
    """

    @staticmethod
    def forward(ctx, x, param, knots, half, values, slopes, d_values):
        wants_grad = any(ctx.needs_input_grad[:2])
        tables = [knots, values, slopes]
        if wants_grad and d_values is not None:
            tables.append(d_values)
        n = len(tables)
        stacked = torch.stack([t[:-1] for t in tables] + [t[1:] for t in tables])
        flat = x.reshape(-1)
        y = torch.empty_like(flat)
        dy_dx = torch.empty_like(flat) if wants_grad else None
        dy_dp = torch.empty_like(flat) if wants_grad and d_values is not None else None
        step = _CPU_ROWS if flat.device.type == "cpu" else max(1, flat.numel())
        for i in range(0, flat.numel(), step):
            rows = slice(i, i + step)
            _hermite_rows(
                flat[rows],
                knots,
                half,
                stacked,
                n,
                y[rows],
                None if dy_dx is None else dy_dx[rows],
                None if dy_dp is None else dy_dp[rows],
            )
        if not wants_grad:  # values only (a search's scans): no slopes
            return y.reshape(x.shape)
        ctx.save_for_backward(
            dy_dx.reshape(x.shape), None if dy_dp is None else dy_dp.reshape(x.shape)
        )
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        dy_dx, dy_dp = ctx.saved_tensors
        grad_param = None if dy_dp is None else (grad * dy_dp).sum()
        return grad * dy_dx, grad_param, None, None, None, None, None


@functools.lru_cache(maxsize=16)
def binomial_tail_table(n_draws, dtype, device):
    """``r -> psi_N(r) = P(Bin(N, r) >= ceil(N / 2))`` by interpolation (training only).

    Parameters
    ----------
    n_draws : int
        ``N``.
    dtype : torch.dtype
    device : torch.device

    Returns
    -------
    callable
        ``psi(r)`` for a tensor ``r`` of losses in [0, 1], differentiable in ``r``.
    """
    from skpacbayes.bounds import binomial_tail

    n = int(n_draws)
    k = (n + 1) // 2
    half = min(0.5, _WINDOW_WIDTHS * 0.5 / math.sqrt(n))
    knots = _knots(half, torch.float64, "cpu")
    values = torch.as_tensor(binomial_tail(knots.numpy(), n), dtype=torch.float64)
    # the slope is the Beta(k, N - k + 1) density
    log_coef = math.log(n) + math.log(math.comb(n - 1, k - 1))
    slopes = torch.exp(
        log_coef
        + torch.xlogy(torch.tensor(k - 1.0, dtype=torch.float64), knots)
        + torch.special.xlog1py(torch.tensor(float(n - k), dtype=torch.float64), -knots)
    )
    knots, values, slopes = (t.to(device=device, dtype=dtype) for t in (knots, values, slopes))
    dummy = torch.zeros((), dtype=dtype, device=device)

    def psi(r):
        y = _Hermite.apply(r.clamp(0.0, 1.0), dummy, knots, half, values, slopes, None)
        return y.clamp(0.0, 1.0)

    return psi


def _dirichlet_tables(total):
    """Knots, half-widths, values, slopes and derivatives in the total of the Dirichlet
    loss tables of :func:`dirichlet_loss_table`, one per entry of ``total`` (a scalar gives
    one table; a vector of ``s`` totals, ``(s, K)`` arrays: one special-function call for
    all of them)."""
    dtype, device = total.dtype, total.device
    fixed = total.detach()[..., None]
    half = torch.clamp(_WINDOW_WIDTHS * 0.5 / torch.sqrt(fixed + 1.0), max=0.5)
    knots = _knots(half, dtype, device)
    inner = knots[..., 1:-1]
    # the values with both derivatives from one call (no autograd graph to build and walk)
    r, d_a, d_b = betainc_half_with_grad(fixed * (1.0 - inner), fixed * inner)
    zero, one = torch.zeros_like(inner[..., :1]), torch.ones_like(inner[..., :1])
    values = torch.cat([zero, r, one], dim=-1)
    slopes = torch.cat([zero, fixed * (d_b - d_a), zero], dim=-1)
    # the end slopes (a_f -> 0 or a_f -> total): one-sided differences of the values (0
    # where the window reaches the end, whose knot then appears twice)
    tiny = torch.finfo(dtype).tiny
    first_gap = (knots[..., 1] - knots[..., 0]).clamp_min(tiny)
    last_gap = (knots[..., -1] - knots[..., -2]).clamp_min(tiny)
    slopes[..., 0] = (values[..., 1] - values[..., 0]) / first_gap
    slopes[..., -1] = (values[..., -1] - values[..., -2]) / last_gap
    # derivative of each knot value in the total, at a fixed fraction
    d_values = torch.cat([zero, (1.0 - inner) * d_a + inner * d_b, zero], dim=-1)
    return knots, half[..., 0], values, slopes, d_values


def dirichlet_loss_table(a_f, total):
    """``I_{1/2}(total - a_f, a_f)`` for the rows' wrong masses ``a_f`` (training only).

    The knots are fractions ``t = a_f / total``: a uniform grid on [0, 1] and a dense window
    of 10 standard deviations of ``Beta(total / 2, total / 2)`` on each side of 1/2, where
    the loss turns from 0 to 1 (built on the device from ``total``, without reading it).

    Parameters
    ----------
    a_f : torch.Tensor of shape (b,)
        Wrong mass of each row (differentiable).
    total : torch.Tensor
        The total mass ``A`` (scalar, differentiable).

    Returns
    -------
    torch.Tensor of shape (b,)
        The interpolated losses, differentiable in ``a_f`` and in ``total`` (the derivative
        in ``total`` holds the knot slopes fixed: an error of the order of the interpolation
        error).
    """
    knots, half, values, slopes, d_values = _dirichlet_tables(total)
    t = torch.clamp(a_f / total, 0.0, 1.0)
    return _Hermite.apply(t, total, knots, half, values, slopes, d_values).clamp(0.0, 1.0)


def dirichlet_ray_losses(a_f, total, scales):
    """The losses of :func:`dirichlet_loss_table` at ``(t a_f, t total)`` for every ``t``.

    The rows' fractions ``a_f / total`` do not change along the ray; the tables of all the
    totals ``t total`` are built in one special-function call. No gradient.

    Parameters
    ----------
    a_f : torch.Tensor of shape (b,)
        Wrong mass of each row at the scale 1.
    total : torch.Tensor
        The total mass at the scale 1 (scalar).
    scales : list of float
        The scales ``t``.

    Returns
    -------
    torch.Tensor of shape (len(scales), b)
    """
    with torch.no_grad():
        totals = total * torch.tensor(scales, dtype=total.dtype, device=total.device)
        knots, half, values, slopes, _ = _dirichlet_tables(totals)
        t = torch.clamp(a_f / total, 0.0, 1.0)
        return torch.stack(
            [
                _Hermite.apply(t, totals[i], knots[i], half[i], values[i], slopes[i], None)
                for i in range(len(scales))
            ]
        ).clamp(0.0, 1.0)
