"""Binary kl divergence and its two inverses, with implicit-function gradients.

See :ref:`theory-kl`.
"""

from __future__ import annotations

import numpy as np
import torch

from skpacbayes._docstrings import fill_doc
from skpacbayes._sync import branch_free

from ._validation import dual

# the certified functions (re-exported by the package), then the roots that only steer a search
# (its values rank candidates: the exact searches, the partition tightening)
__all__ = [
    "kl",
    "kl_inv_upper",
    "kl_inv_lower",
    "kl_shifted",
    "newton_kl_inv_upper",
    "newton_kl_root",
]

_MAX_ITER = 200


def _namespace(x):
    """``numpy`` for NumPy arrays, ``torch`` for tensors: the functions below are written once
    for both (the float64 Newton root that only steers runs on NumPy, where a call on a few
    numbers costs a tenth of torch's)."""
    return torch if isinstance(x, torch.Tensor) else np


def _kl(q, p):
    """Binary kl(q || p) on tensors or NumPy arrays, no checks; 0 ln 0 = 0, clamped at >= 0,
    differentiable (tensors).

    Each of the two terms is evaluated in the form that is accurate where it is used: near
    ``p = q`` as ``-q log1p((p-q)/q)`` and ``(1-q) log1p((p-q)/(1-p))`` (exact arguments, so
    the first-order cancellation costs a relative error ~ u / |p - q|, which matters in
    float32), and otherwise as differences of logarithms, which keep full relative accuracy
    when ``p`` is far below ``q`` (lower inverses) or near 1.
    """
    xp = _namespace(q)
    q, p = (torch.broadcast_tensors if xp is torch else np.broadcast_arrays)(q, p)
    x = p - q
    one, zero = xp.ones_like(q), xp.zeros_like(q)

    def pick(mask, value, fill):  # safe substitute where a branch is discarded (NaN-free grads)
        return xp.where(mask, value, fill)

    # q ln(q / p)
    pos = q > 0
    near = pos & (abs(x) <= 0.5 * q)
    far = pos & ~near
    qn, xn = pick(near, q, one), pick(near, x, zero)
    qf, pf = pick(far, q, one), pick(far, p, one)
    first = xp.where(
        near, -qn * xp.log1p(xn / qn), xp.where(far, qf * (xp.log(qf) - xp.log(pf)), zero)
    )
    # (1 - q) ln((1 - q) / (1 - p))
    below = q < 1
    near = below & (abs(x) <= 0.5 * (1 - p))
    far = below & ~near
    qn, pn, xn = pick(near, q, zero), pick(near, p, zero), pick(near, x, zero)
    qf, pf = pick(far, q, zero), pick(far, p, zero)
    second = xp.where(
        near,
        (1 - qn) * xp.log1p(xn / (1 - pn)),
        xp.where(far, (1 - qf) * (xp.log1p(-qf) - xp.log1p(-pf)), zero),
    )
    total = first + second
    return xp.where(total < 0, zero, total)  # clamped at 0 (a NaN stays NaN)


_SECTIONS = 64
# Fixed-count form (accelerators, no host synchronisation): _FIXED_STEPS steps shrink the
# bracket to at most 64^-9 = 2^-54, or to where it stops shrinking; see _bisect.
_FIXED_STEPS = 9


_NEWTON_STEPS = 8
_NEWTON_WIDTH = 2.0**-44  # relative half-width of the bracket tried around Newton's root


def _newton_start(q, eps, upper):
    """A point on the far side of the root of ``kl(q || p) = eps`` (above it for the upper
    inverse, below for the lower), where Newton's iterates then move monotonically to the
    root (``kl(q || .)`` is convex and monotone on each side of ``q``).

    Two such points, the closer kept: Pinsker's ``q +- sqrt(eps / 2)`` (``kl(q || p) >= 2 (p -
    q)^2``), and, for a root near the end of ``[0, 1]``, the point whose second (first) term
    of kl, plus the least value of the other, reaches ``eps``: upper, ``1 - p = (1 - q)
    exp(-(eps - q ln q) / (1 - q))`` (as ``q ln(q/p) >= q ln q``); lower, ``p = q
    exp(-(eps - (1 - q) ln(1 - q)) / q)`` (``0 ln 0 = 0``).
    """
    xp = _namespace(q)
    tiny = xp.finfo(q.dtype).tiny
    if upper:
        pinsker = q + xp.sqrt(eps / 2)
        qc = xp.clip(q, tiny, None)
        least = xp.where(q > 0, q * xp.log(qc), xp.zeros_like(q))  # q ln q
        near_end = 1.0 - (1.0 - q) * xp.exp(-(eps - least) / xp.clip(1.0 - q, tiny, None))
        p = xp.minimum(pinsker, near_end)
    else:
        pinsker = q - xp.sqrt(eps / 2)
        qc = xp.clip(1.0 - q, tiny, None)
        least = xp.where(q < 1, (1.0 - q) * xp.log(qc), xp.zeros_like(q))
        near_end = q * xp.exp(-(eps - least) / xp.clip(q, tiny, None))
        p = xp.maximum(pinsker, near_end)
    return xp.where(xp.isnan(p), pinsker, p)


def kl_shifted(q, u):
    """``kl(q || p_u)`` at ``p_u = expit(logit q + u)``, for ``0 < q < 1``: ``ln(1 - q + q e^u)
    - q u`` (the cumulant generating function of a Bernoulli(q) at ``u``, less ``q u``).

    Convex in ``u``, with derivative ``p_u - q``: increasing for ``u > 0`` (the upper
    inverse's side), decreasing for ``u < 0``. Its rounding error grows like ``u q`` against
    ``kl``, so it only steers (Newton's iterates, the first-order search's slope); a result
    is checked with :func:`kl`.

    Parameters
    ----------
    q : ndarray or torch.Tensor
        Means in (0, 1); no argument checks.
    u : ndarray or torch.Tensor
        Shifts of the logit, broadcast with ``q``.

    Returns
    -------
    ndarray or torch.Tensor
        ``kl(q || p_u)``, in the namespace of ``q``.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.bounds import kl
    >>> from skpacbayes.bounds._kl import kl_shifted
    >>> q, u = np.array([0.3]), np.array([0.5])
    >>> p = 1 / (1 + np.exp(-(np.log(q / (1 - q)) + u)))
    >>> bool(np.isclose(kl_shifted(q, u)[0], kl(0.3, float(p[0]))))
    True
    """
    xp = _namespace(q)
    return xp.log1p(q * xp.expm1(u)) - q * u


def _logit(p):
    xp = _namespace(p)
    return xp.log(p) - xp.log1p(-p)


def _expit(x):
    xp = _namespace(x)
    return 1.0 / (1.0 + xp.exp(-x))


def newton_kl_root(q, eps, u, steps):
    """``steps`` Newton iterates on :func:`kl_shifted` ``(q, u) = eps`` from ``u`` (a step
    that is not finite leaves ``u``); returns the last ``p = expit(logit q + u)``, the kl root
    they approach. From the far side of the root (or, for the upper inverse, from any ``u >
    0``: a first step from below lands beyond it) the iterates move monotonically to it.

    A root that only steers (a search's values): it is not certified to lie on the safe side.

    Parameters
    ----------
    q : ndarray or torch.Tensor
        Means in (0, 1); no argument checks.
    eps : ndarray or torch.Tensor
        Right-hand sides ``kl(q || p) = eps``.
    u : ndarray or torch.Tensor
        The starting shifts of the logit.
    steps : int
        Number of Newton iterates.

    Returns
    -------
    ndarray or torch.Tensor
        The last iterate ``p``.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.bounds import kl_inv_upper
    >>> from skpacbayes.bounds._kl import newton_kl_root
    >>> p = newton_kl_root(np.array([0.1]), np.array([0.05]), np.array([1.0]), 8)
    >>> bool(abs(p[0] - kl_inv_upper(0.1, 0.05)) < 1e-12)
    True
    """
    xp = _namespace(q)
    base = _logit(q)  # infinite at q = 0 or 1, where the callers decide otherwise
    for _ in range(steps):
        step = (kl_shifted(q, u) - eps) / (_expit(base + u) - q)
        u = xp.where(xp.isfinite(step), u - step, u)
    return _expit(base + u)


def _newton_bracket(q, eps, upper, lo, hi):
    """A narrow bracket of the root (float64), else ``[lo, hi]``, for :func:`_bisect` to finish.

    Newton's method on ``kl(q || p) = eps`` from a point on the far side of the root
    (:func:`_newton_start`), run on ``u = logit p - logit q`` where the equation reads
    :func:`kl_shifted` ``(q, u) = eps`` (convex in ``u`` and monotone on each side of 0, so
    the iterates move monotonically to the root, and without the logarithmic singularity
    that slows them in ``p`` near 1), and a last step in ``p`` on :func:`_kl`; then the
    bracket ``p (1 +- 2^-44)``, kept for an element
    only when both ends pass the very test the multi-section search applies (an end inside
    the kl ball, ``kl <= eps`` by :func:`_kl`, and one outside). The search then runs to the
    end from it, in two or three steps instead of about ten; where the test fails (Newton did
    not converge) it starts from ``[lo, hi]``. Either way the result is the conservative end
    of a bracket that contains the root. Tensors or NumPy arrays; returns ``(lo, hi, root,
    verified)``.
    """
    xp = _namespace(q)
    tiny = xp.finfo(q.dtype).tiny
    start = xp.clip(_newton_start(q, eps, upper), tiny, 1.0 - 2.0**-53)
    # at q = 0 or 1 the test below fails or _solve decides
    p = newton_kl_root(q, eps, _logit(start) - _logit(q), _NEWTON_STEPS)
    p = xp.clip(p, tiny, 1.0 - 2.0**-53)
    # ``logit q + u`` carries an absolute error of about ``|logit q|`` ulps: a last step in ``p``
    # with the accurate kl restores full relative precision where ``q`` or ``p`` is tiny
    step = (_kl(q, p) - eps) * (p * (1.0 - p)) / (p - q)
    p = xp.clip(xp.where(xp.isfinite(step), p - step, p), tiny, 1.0 - 2.0**-53)
    near_lo, near_hi = p * (1.0 - _NEWTON_WIDTH), p * (1.0 + _NEWTON_WIDTH)
    inside_lo, inside_hi = _kl(q, near_lo) <= eps, _kl(q, near_hi) <= eps
    # upper: [lo inside, hi outside]; lower: [lo outside, hi inside]
    ok = (inside_lo & ~inside_hi) if upper else (~inside_lo & inside_hi)
    ok = ok & (near_lo >= lo) & (near_hi <= hi) & xp.isfinite(eps)
    return xp.where(ok, near_lo, lo), xp.where(ok, near_hi, hi), p, ok


def _newton(q, eps, upper):
    """Newton's root alone (float64 training objectives and searches: a value that only
    steers); a root beyond the last float before 1 (after the first float above 0) is 1 (0).
    Where Newton's root fails the bracket test of :func:`_newton_bracket` (it did not
    converge), the bisection's root replaces it. Tensors or NumPy arrays (the same kind back);
    float64 tensors on the CPU are viewed as arrays, without a copy: the same operations on
    NumPy take a tenth of the time on the few numbers of a training objective; other CPU
    tensors (the float32 training) get the float64 root rounded to their dtype.
    """
    if isinstance(q, torch.Tensor) and q.device.type == "cpu" and eps.device.type == "cpu":
        p = _newton_root(q.detach().double().numpy(), eps.detach().double().numpy(), upper)
        return torch.from_numpy(np.asarray(p)).to(q.dtype)
    return _newton_root(q, eps, upper)


def _newton_root(q, eps, upper):
    """:func:`_newton` in the namespace of its arguments."""
    xp = _namespace(q)
    lo, hi = (q, xp.ones_like(q)) if upper else (xp.zeros_like(q), q)
    with np.errstate(all="ignore"):
        _, _, p, ok = _newton_bracket(q, eps, upper, lo, hi)
        p = xp.clip(p, lo, hi)
        beyond = _kl(q, p) < eps
    if upper:
        p = xp.where(beyond & (p >= 1.0 - 2.0**-53), xp.ones_like(p), p)
    else:
        p = xp.where(beyond & (p <= xp.finfo(p.dtype).tiny), xp.zeros_like(p), p)
    # saturated roots, and the exact edge cases that _solve sets, pass as they are
    ok = ok | (p >= 1.0) | (p <= 0.0) | (q <= 0) | (q >= 1) | (eps == 0) | xp.isinf(eps)
    if not bool(ok.all()):
        if xp is torch:
            p = torch.where(ok, p, _bisect(q, eps, upper))
        else:  # copies: the arrays may be read-only broadcast views
            bisected = _bisect(torch.tensor(q), torch.tensor(eps), upper)
            p = np.where(ok, p, bisected.numpy())
    return p


def _bisect(q: torch.Tensor, eps: torch.Tensor, upper: bool) -> torch.Tensor:
    """Multi-section search for kl(q || p) = eps on [q, 1] (upper) or [0, q] (lower).

    Each step evaluates kl at ``_SECTIONS - 1`` interior points of the current bracket in one
    vectorised call and keeps the sub-interval containing the root (kl(q || .) is monotone on
    each side of q), so the bracket shrinks 64-fold per step instead of 2-fold: about 10 steps
    reach float64 resolution. The bracket only ever moves to grid points with the root
    inside, and a step where no grid point lies strictly inside any bracket changes nothing.
    The CONSERVATIVE end (upper: hi, lower: lo) is returned, exactly as a bisection would.

    float64 (the certificate) and the CPU: steps until no grid point lies strictly inside
    any bracket (at most ``_MAX_ITER``); in float64 from the narrow bracket of
    :func:`_newton_bracket` where it is verified. Other dtypes on an accelerator (the float32
    training, see :func:`skpacbayes._sync.branch_free`): ``_FIXED_STEPS`` steps with no
    stopping test, so that no step reads a value (no host synchronisation). These are the
    adaptive search's first steps: the result is the same number wherever that search stops
    within them (measured: every float32 root above ``2^-24``), and otherwise within
    ``2^-48`` of it, on the same conservative side (``tests/test_no_sync.py``).
    """
    adaptive = q.dtype == torch.float64 or not branch_free(q)
    with torch.no_grad():
        if upper:
            lo, hi = q.clone(), torch.ones_like(q)
        else:
            lo, hi = torch.zeros_like(q), q.clone()
        if q.dtype == torch.float64:
            lo, hi, _, _ = _newton_bracket(q, eps, upper, lo, hi)
        frac = torch.arange(1, _SECTIONS, dtype=q.dtype, device=q.device) / _SECTIONS
        qg, eg = q.unsqueeze(-1), eps.unsqueeze(-1)
        for _ in range(_MAX_ITER if adaptive else _FIXED_STEPS):
            grid = lo.unsqueeze(-1) + (hi - lo).unsqueeze(-1) * frac  # monotone in frac
            if adaptive:
                strictly = (grid > lo.unsqueeze(-1)) & (grid < hi.unsqueeze(-1))
                if not bool(strictly.any()):
                    break  # the bracket stopped shrinking everywhere
            inside = _kl(qg, grid) <= eg  # a prefix (upper) / a suffix (lower) of the grid
            count = inside.sum(-1, keepdim=True)
            if upper:  # inside <=> p <= root: lo = last inside point, hi = first outside point
                new_lo = torch.where(
                    count > 0, grid.gather(-1, (count - 1).clamp_min(0)), lo.unsqueeze(-1)
                )
                new_hi = torch.where(
                    count < _SECTIONS - 1,
                    grid.gather(-1, count.clamp_max(_SECTIONS - 2)),
                    hi.unsqueeze(-1),
                )
            else:  # inside <=> p >= root: outside points come first
                first = (_SECTIONS - 1) - count  # index of the first inside point
                new_hi = torch.where(
                    count > 0, grid.gather(-1, first.clamp_max(_SECTIONS - 2)), hi.unsqueeze(-1)
                )
                new_lo = torch.where(
                    first > 0, grid.gather(-1, (first - 1).clamp_min(0)), lo.unsqueeze(-1)
                )
            lo, hi = new_lo.squeeze(-1), new_hi.squeeze(-1)
        p = hi if upper else lo
        if not adaptive:  # a NaN input leaves the bracket alone: let it show in the result
            p = torch.where(torch.isnan(q) | torch.isnan(eps), torch.nan, p)
        return p


def _solve(q, eps, upper: bool, steer=False):
    """Exact edge cases (theory page, 'The kl inverses') around the bisection.

    ``steer``: a training objective (its inputs require gradients) or a search on NumPy
    arrays, whose value only steers an optimiser: Newton's root without the bracketed
    search that certifies the conservative end (every certificate calls with tensors that do
    not require gradients), in float64; a float32 objective on the CPU gets that root
    rounded to float32 (on an accelerator it keeps the bisection's fixed steps, which read
    no value back). NumPy arrays are only accepted with ``steer``.
    """
    xp = _namespace(q)
    with torch.no_grad():
        on_cpu = xp is np or (q.device.type == "cpu" and eps.device.type == "cpu")
        if steer and (q.dtype == xp.float64 or on_cpu):
            p = _newton(q, eps, upper)
        else:
            p = _bisect(q, eps, upper)
        one, zero = xp.ones_like(p), xp.zeros_like(p)
        if upper:
            p = xp.where(q >= 1, one, p)
            p = xp.where(q <= 0, -xp.expm1(-eps), p)
            p = xp.where(xp.isinf(eps), one, p)
        else:
            p = xp.where(q <= 0, zero, p)
            p = xp.where(q >= 1, xp.exp(-eps), p)
            p = xp.where(xp.isinf(eps), zero, p)
        return xp.where(eps == 0, q, p)


def newton_kl_inv_upper(q, eps):
    """Upper kl inverse by Newton's root alone, on float64 arrays (broadcast together).

    For searches whose objective values only rank candidates
    (:mod:`skpacbayes.engine.exact_search`, the partition tightening): the root is accurate to
    a few ulps but not certified to lie on the safe side, so it is never a certificate. Edge
    cases as :func:`kl_inv_upper`; no argument checks.

    Parameters
    ----------
    q : float or array-like
        Empirical means in [0, 1].
    eps : float or array-like
        Right-hand sides ``kl(q || p) <= eps``.

    Returns
    -------
    ndarray
        ``sup{p : kl(q || p) <= eps}`` within a few ulps (float64).

    Examples
    --------
    >>> from skpacbayes.bounds import kl_inv_upper
    >>> from skpacbayes.bounds._kl import newton_kl_inv_upper
    >>> bool(abs(newton_kl_inv_upper(0.1, 0.05) - kl_inv_upper(0.1, 0.05)) < 1e-12)
    True
    """
    q, eps = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(eps, dtype=np.float64))
    with np.errstate(all="ignore"):
        return np.asarray(_solve(q, eps, True, steer=True))


class _KLInverse(torch.autograd.Function):
    """p(q, eps) solving kl(q || p) = eps; gradient from the implicit function theorem."""

    @staticmethod
    def forward(ctx, q, eps, upper, steer=False):
        p = _solve(q, eps, upper, steer)
        ctx.save_for_backward(q, eps, p)
        return p

    @staticmethod
    def backward(ctx, grad_p):
        q, eps, p = ctx.saved_tensors
        tiny = torch.finfo(p.dtype).tiny
        # Interior: 0 < p < 1 and p != q, where both partial derivatives of kl are finite.
        interior = (p > 0) & (p < 1) & (p != q)
        half = torch.full_like(p, 0.5)
        p_s = torch.where(interior, p, half)
        q_s = torch.where(interior, q, torch.full_like(q, 0.25))
        # d kl / d p = (p - q) / (p (1 - p));  d kl / d q = ln(q (1-p) / (p (1-q))).
        # q = 0 (upper) and q = 1 (lower) have an infinite d kl / d q: ln(0) is replaced by
        # ln(tiny), which gives a large but finite gradient with the right sign.
        log_q = torch.log(q_s.clamp_min(tiny))
        log_1mq = torch.log((1 - q_s).clamp_min(tiny))
        dkl_dq = (log_q - log_1mq) - (torch.log(p_s) - torch.log1p(-p_s))
        dp_deps = p_s * (1 - p_s) / (p_s - q_s)
        dp_dq = -dkl_dq * dp_deps
        zero = torch.zeros_like(p)
        # Elsewhere: eps = 0 gives p = q (dp/dq = 1; dp/deps is +inf there, we return 0);
        # p saturated at 0 or 1 (q = 1 upper, q = 0 lower, huge eps): both derivatives 0.
        dp_deps = torch.where(interior, dp_deps, zero)
        dp_dq = torch.where(interior, dp_dq, torch.where(eps == 0, torch.ones_like(p), zero))
        grad_q = grad_p * dp_dq if ctx.needs_input_grad[0] else None
        grad_eps = grad_p * dp_deps if ctx.needs_input_grad[1] else None
        return grad_q, grad_eps, None, None


def _kl_inv(q: torch.Tensor, eps: torch.Tensor, upper: bool) -> torch.Tensor:
    """kl inverse on tensors without checks (inputs broadcast together)."""
    q, eps = torch.broadcast_tensors(q, eps)
    return _KLInverse.apply(q, eps, upper, q.requires_grad or eps.requires_grad)


#: the parameters and the type of the result of both inverses (its description follows)
_KL_INVERSE = """\
Parameters
----------
q : float, array-like or torch.Tensor
    Empirical value in [0, 1].
eps : float, array-like or torch.Tensor
    Budget ``>= 0`` (``+inf`` allowed).

Returns
-------
float, ndarray or torch.Tensor"""
#: the example of the kl and both its inverses
_KL_EXAMPLE = """\
>>> from skpacbayes.bounds import kl, kl_inv_lower, kl_inv_upper
>>> round(kl(0.1, 0.2), 10)
0.036690014
>>> kl(0.0, 0.0), kl(0.5, 0.0)
(0.0, inf)
>>> round(kl_inv_upper(0.1, 0.05), 12), round(kl_inv_lower(0.5, 0.01), 12)
(0.220078601107, 0.429641406543)
>>> kl_inv_upper(1.0, 0.3), kl_inv_upper(0.3, 0.0), round(kl_inv_lower(1.0, 0.3), 12)
(1.0, 0.3, 0.740818220682)"""


@dual(q="stat", p="stat")
@fill_doc(kl_example=_KL_EXAMPLE)
def kl(q, p):
    """Binary KL divergence ``kl(q || p)`` between Bernoulli distributions.

    Parameters
    ----------
    q, p : float, array-like or torch.Tensor
        Bernoulli parameters in [0, 1] (broadcast together).

    Returns
    -------
    float, ndarray or torch.Tensor
        ``q ln(q/p) + (1-q) ln((1-q)/(1-p))`` with ``0 ln 0 = 0``; ``+inf`` when ``p = 0 < q``
        or ``q < 1 = p``; clamped at >= 0. A tensor (differentiable) if an input is a tensor.

    Notes
    -----
    See :ref:`theory-notation`. Computed with ``log1p`` for accuracy near 0 and 1.

    Examples
    --------
    {kl_example}
    """
    return _kl(q, p)


@dual(q="stat", eps="nonneg")
@fill_doc(kl_inverse=_KL_INVERSE, kl_example=_KL_EXAMPLE)
def kl_inv_upper(q, eps):
    """Upper inverse of the binary kl: ``sup{p in [q, 1] : kl(q || p) <= eps}``.

    {kl_inverse}
        The upper end ``p``. A tensor input gives a tensor of the same dtype and device,
        differentiable with respect to ``q`` and ``eps`` (implicit-function gradient).

    Notes
    -----
    See :ref:`theory-kl`. Vectorised bisection in the input dtype, run until the bracket stops
    shrinking (at most 200 steps); the UPPER end of the final bracket is returned. The bracket
    test rounds ``kl``, so the result may be below the exact inverse by that rounding over
    the slope of ``kl(q || .)`` at the root (tested against ``8 u (1 + eps)``, ``u = 2**-53``;
    a few ulps in practice); certificates raise ``q`` by ``1e-12`` first, which covers it
    (:ref:`theory-numerics`). Exact edge cases:
    ``eps = 0 -> q``, ``eps = inf -> 1``, ``q = 1 -> 1``, ``q = 0 -> 1 - exp(-eps)``.
    Gradients: ``dp/deps = 1 / (dkl/dp)``, ``dp/dq = -(dkl/dq) / (dkl/dp)``; at ``q = 0`` the
    infinite ``dp/dq`` is replaced by a large finite value, at ``p = 1`` both are 0, at
    ``eps = 0`` ``dp/dq = 1`` and ``dp/deps = 0``.

    Examples
    --------
    {kl_example}
    """
    return _kl_inv(q, eps, True)


@dual(q="stat", eps="nonneg")
@fill_doc(kl_inverse=_KL_INVERSE, kl_example=_KL_EXAMPLE)
def kl_inv_lower(q, eps):
    """Lower inverse of the binary kl: ``inf{p in [0, q] : kl(q || p) <= eps}``.

    {kl_inverse}
        The lower end ``p`` (``= 1 - kl_inv_upper(1 - q, eps)`` in exact arithmetic).

    Notes
    -----
    See :ref:`theory-kl`. Bisection on [0, q] returning the LOWER end of the final bracket: above
    the exact inverse by at most the rounding of ``kl``, as for :func:`kl_inv_upper`, which
    certificates cover by lowering ``q`` by ``1e-12`` first. Exact edge cases: ``eps = 0 -> q``,
    ``eps = inf -> 0``, ``q = 0 -> 0``, ``q = 1 -> exp(-eps)``. Gradients as for
    :func:`kl_inv_upper`.

    Examples
    --------
    {kl_example}
    """
    return _kl_inv(q, eps, False)
