"""P(class c is the strict winner) for the Gaussian posterior N(p, I) with hard votes.

See :ref:`theory-losses`.

With ``s_j = sum_{v_i = j} w_i`` (independent ``N(P_j, n_j)``; ``s_j = 0`` if ``n_j = 0``)
and ``n_c > 0``, the probability that ``c`` is the strict winner is

    P = int_{z_lo}^{inf} phi(z) prod_{j != c, n_j > 0} Phi(lam_j (z - z_j)) dz,
    z_j = (P_j - P_c) / sqrt(n_c),  lam_j = sqrt(n_c / n_j),

with ``z_lo = -P_c / sqrt(n_c)`` if some ``j != c`` has no vote (``s_j = 0`` must be
beaten: a tie is an error) and ``-inf`` otherwise. Two evaluations of this 1-D integral:

* :func:`fixed_rule` (training, float32): one Gauss-Legendre rule on the window where
  the integrand is not negligible, ``[max(z_lo, -L, max_j (z_j - L / lam_j), t_Q), L]``
  (``t_Q`` from the joint Gaussian decay of the factors, :func:`_left_end`). A steep
  factor (``lam_j > 1``) can only have its transition within ``L / lam_j`` of the left
  end (else it is ~0 or ~1 on the whole window), where Gauss-Legendre nodes cluster; the
  number of nodes follows the steepest factor still active on the window (28 to 48).
* :func:`certified_rule` (certificates, float64): adaptive composite Gauss-Legendre with
  a RIGOROUS error bound per panel (Trefethen's bound for analytic integrands, with a
  closed-form bound of ``|Phi|`` and ``|phi|`` on a Bernstein ellipse), refined by
  bisection until the bounds add up to at most ``tol``.
"""

import math

import torch

from .._docstrings import fill_doc
from .._special import gauss_legendre, gaussian_cdf

__all__ = ["certified_rule", "fixed_rule", "p_strict_winner"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
BIG = 1.0e6  # z_j of a class without votes (its factor is exactly 1)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LN2 = math.log(2.0)
_ZERO = torch.zeros(())

# fixed rule (training): (largest active lam_j, nodes) tiers, window half-width, left-end depth
FIXED_TIERS = {
    torch.float32: ((1.5, 28), (3.0, 36), (math.inf, 48)),
    torch.float64: ((math.inf, 64),),
}
FIXED_L = {torch.float32: 6.0, torch.float64: 8.5}
FIXED_DEPTH = {torch.float32: 20.0, torch.float64: 40.0}
_LEFT_STEPS = 2
_T_MAX = 9.0  # erfc(9) = 4e-37 stays a normal float32
_T_MIN = -6.0  # erfc(-6) = 2 - 2e-17 rounds to 2; exp(-36) = 2.3e-16
_WF_FLOOR = 1e-22  # smallest node weight kept in the derivative (products stay normal)
_FIXED_ELEMENTS = 2**19  # elements per temporary of the fixed rule (classes x nodes x rows)
# certified rule
CERT_L = 8.5  # 2 Phi_sf(8.5) = 1.9e-17 of truncation
CERT_TOL = 1e-11  # sum of the panel error bounds, per integral
CERT_NODES = 24
CERT_INITIAL_PANELS = 3
CERT_MAX_ROUNDS = 60
_RATIOS = torch.tensor([0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.5])
_ELEMENTS = 2**20  # budget of elements per temporary (rows x nodes x classes)


def _integrand(nodes, z, lam, with_grad):
    """``f(nodes)`` (P, G) and, for the derivatives, ``phi(x_j) / Phi(x_j)`` (K, P, G).

    ``x_j = lam_j (node - z_j)``; computed as ``t_j = -x_j / sqrt 2`` with one fused
    multiply-add and ``Phi(x_j) = erfc(t_j) / 2``, class-major so that the product over
    classes runs over contiguous slabs. Classes without votes are encoded as
    ``z_j = -BIG``, ``lam_j = 1`` (factor exactly 1, derivative exactly 0).
    """
    k = z.shape[1]
    slope = (lam * -_SQRT_HALF).T.contiguous()  # (K, P)
    shift = (lam * z * _SQRT_HALF).T.contiguous()
    t = torch.addcmul(shift[:, :, None], slope[:, :, None], nodes[None])  # (K, P, G)
    ec = torch.special.erfc(t)  # 2 Phi(x_j)
    if k > 100:
        ec.mul_(0.5)
        scale = _INV_SQRT_2PI
    else:
        scale = _INV_SQRT_2PI * 0.5**k
    f = torch.exp(-0.5 * nodes * nodes) * ec.prod(dim=0) * scale
    if not with_grad:
        return f, None
    # phi(x)/Phi(x) = sqrt(2/pi) exp(-t^2) / erfc(t); where erfc(t) underflows, f = 0 and the
    # true derivative is below the underflow too.
    tiny = torch.finfo(t.dtype).tiny
    ratio = torch.square(t).neg_().exp_().div_(ec.clamp_min_(tiny))
    if k > 100:
        ratio.mul_(0.5)
    return f, ratio


def _grad_from_mills(wf, ratio, lam):
    """``sum_i w_i df/dz_j (node_i) = -lam_j sqrt(2/pi) sum_i (w_i f_i) ratio_ji``."""
    return -lam * _SQRT_2_OVER_PI * ratio.mul_(wf[None]).sum(dim=-1).T


def _window(z, lam, z_lo, half_width):
    starts = z - half_width / lam
    left = torch.maximum(starts.max(dim=1).values, z_lo).clamp_min(-half_width)
    right = torch.full_like(left, half_width)
    binding_lo = torch.isfinite(z_lo) & (z_lo >= starts.max(dim=1).values) & (z_lo >= -half_width)
    return left, right, binding_lo


def _boundary_value(z_lo, z, lam):
    """Integrand at ``z_lo`` (right limit), for the derivative in ``z_lo``."""
    f, _ = _integrand(torch.where(torch.isfinite(z_lo), z_lo, 0.0)[:, None], z, lam, False)
    return f[:, 0]


def _left_end(z, lam, start, depth):
    """A point ``t >= start`` left of which the integrand is below ``exp(-depth) / sqrt(2 pi)``.

    ``z``, ``lam`` are class-major ``(K, B)``. For ``x <= 0``, ``Phi(x) <= exp(-x^2 / 2) / 2``,
    so the integrand is at most ``exp(-Q(t)) / sqrt(2 pi)`` with ``Q(t) = t^2 / 2 +
    sum_{j: t < z_j} (lam_j^2 (z_j - t)^2 / 2 + ln 2)``, decreasing left of its minimum. For
    ``t <= 0``, ``Q(t) >= (1 + sum_{j: z_j >= 0} lam_j^2) t^2 / 2``, which gives a first point;
    Newton steps on ``Q(t) = depth`` follow, and an iterate is kept only if ``Q(t) >= depth``
    holds there, hence (``Q`` decreasing) at every point on its left: the mass cut off is at
    most ``exp(-depth) / (sqrt(2 pi) |Q'(t)|)``.
    """
    lam2 = lam * lam
    # sum of lam_j^2 over z_j > 0 (half of it at z_j = 0: still a lower bound)
    curv = (torch.sign(z).add_(1.0).mul_(lam2)).sum(dim=0).mul_(0.5).add_(1.0)
    t = torch.maximum(start, torch.sqrt(curv.reciprocal_().mul_(2.0 * depth)).neg_())
    safe = t
    for step in range(_LEFT_STEPS + 1):
        gap = (z - t).clamp_min_(0.0)
        slope = lam2 * gap
        q = 0.5 * (t * t + (slope * gap).sum(dim=0)) + _LN2 * torch.sign(gap).sum(dim=0)
        ok = q >= depth
        safe = torch.where(ok, t, safe)
        if step == _LEFT_STEPS:
            break
        dq = t - slope.sum(dim=0)
        t = torch.where(ok & (dq < 0), t - (q - depth) / dq, t)
    return safe


def _rule_kernel(nodes01, weights, left, half, slope, shift, lam, with_grad):
    """One Gauss-Legendre rule on ``[left, left + 2 half]`` for rows ``(P,)``, classes ``(K, P)``.

    ``slope = -lam / sqrt 2`` and ``shift = lam z / sqrt 2`` (class-major ``(K, P)``) give
    ``t_j = -x_j / sqrt 2 = shift_j + slope_j node``. Layout ``(K, G, P)`` (rows innermost:
    every broadcast runs along outer dimensions). Returns ``(value (P,), d value / d z (K, P)
    or None)``.
    """
    k = slope.shape[0]
    nodes = torch.addr(left[None], nodes01, half)  # (G, P): left + half (1 + x)
    # _T_MIN <= t <= _T_MAX keeps erfc(t) and exp(-t^2) (below) normal floats (subnormal
    # operands run the elementwise ops many times slower); erfc(_T_MIN) is 2 in floating point.
    t = torch.addcmul(shift[:, None, :], slope[:, None, :], nodes[None])
    t = t.clamp_(min=_T_MIN, max=_T_MAX)
    ec = torch.special.erfc(t)  # 2 Phi(x_j)
    if k > 100:  # keep the product of the factors in range
        ec.mul_(0.5)
        scale = _INV_SQRT_2PI
    else:
        scale = _INV_SQRT_2PI * 0.5**k
    wf = nodes.square_().mul_(-0.5).exp_().mul_(ec.prod(dim=0))  # phi(node) prod_j 2 Phi(x_j)
    wf.mul_(torch.outer(weights * scale, half))
    value = wf.sum(dim=0)
    if not with_grad:
        return value, None
    # phi(x) / Phi(x) = sqrt(2 / pi) exp(-t^2) / erfc(t), at least exp(-_T_MIN^2) / 2 = 1e-16;
    # node weights below _WF_FLOOR are dropped from the derivative (at most 1e-19 of it in
    # all) so that no product below is subnormal.
    wf = torch.nn.functional.threshold_(wf, _WF_FLOOR, 0.0)
    ratio = torch.addcmul(_ZERO.to(t), t, t, value=-1.0).exp_().div_(ec)
    ratio = ratio.mul_(wf[None]).sum(dim=1)  # (K, P)
    if k > 100:
        ratio.mul_(0.5)
    return value, ratio.mul_(lam).mul_(-_SQRT_2_OVER_PI)


def _run_rule(n_nodes, value, dzt, left, half, zt, lt, rows):
    """:func:`_rule_kernel` with ``n_nodes`` nodes on ``rows`` (a slice or indices), by chunks.

    ``zt``, ``lt`` (and ``dzt``) are class-major ``(K, B)``; ``K = 0`` is allowed (the
    integral of ``phi`` alone).
    """
    k = zt.shape[0]
    x, w = gauss_legendre(n_nodes, zt.dtype, zt.device)
    x = x + 1.0
    every = isinstance(rows, slice)
    left, half, zt, lt = left[rows], half[rows], zt[:, rows], lt[:, rows]
    slope = lt * -_SQRT_HALF
    shift = (lt * zt).mul_(_SQRT_HALF)
    budget = _FIXED_ELEMENTS if zt.device.type == "cpu" else 2**26  # cache vs launch counts
    step = max(1, budget // (n_nodes * max(k, 1)))
    for s in range(0, left.shape[0], step):
        j = slice(s, s + step)
        v, d = _rule_kernel(
            x, w, left[j], half[j], slope[:, j], shift[:, j], lt[:, j], dzt is not None
        )
        dest = j if every else rows[j]
        value[dest] = v
        if dzt is not None:
            dzt[:, dest] = d


# the arguments and results both rules take and give (filled into their docstrings)
_RULE_DOC = {
    "rule_parameters": """\
Parameters
----------
z : torch.Tensor of shape (B, K)
    Transition points ``z_j`` of the factors ``Phi(lam_j (z - z_j))`` (classes without
    votes encoded as ``z_j = -BIG``, ``lam_j = 1``: factor exactly 1).
lam : torch.Tensor of shape (B, K)
    Slopes ``lam_j = sqrt(n_c / n_j)``.
z_lo : torch.Tensor of shape (B,)
    Lower limit of each integral (``-inf`` when every other class has votes).
with_grad : bool
    Also return the derivatives in ``z`` and ``z_lo``.""",
    "rule_returns": """\
Returns
-------
value : torch.Tensor of shape (B,)
    The integrals.
dz : torch.Tensor of shape (B, K) or None
    ``d value / d z`` (``None`` unless ``with_grad``).
dlo : torch.Tensor of shape (B,) or None
    ``d value / d z_lo`` (``None`` unless ``with_grad``).""",
}


@fill_doc(**_RULE_DOC)
def fixed_rule(z, lam, z_lo, with_grad):
    """Gauss-Legendre rule per integral on its window (see module docstring).

    Nodes do not move with the parameters: the derivative is the same rule applied to
    the derivative of the integrand, plus the boundary term of a true lower limit
    ``z_lo`` (the artificial window ends only cut a negligible integrand).

    The window ``[left, L]`` (``L = FIXED_L``) starts at the largest of ``z_lo``, ``-L``,
    ``max_j (z_j - L / lam_j)`` and the bound of :func:`_left_end` (depth ``FIXED_DEPTH``:
    at most ``1e-9`` of mass cut off in float32). The number of nodes depends on the
    steepest class that is still active on the window (``lam_j (left - z_j) < L``; the
    other factors are within ``Phi_sf(L)`` of 1 there), by the tiers ``FIXED_TIERS``.
    Those inactive factors (classes without votes included) are left out of the rule: rows
    are grouped by (tier, number of active classes rounded up to 0, 1, 2, 4 or K) and each
    group runs on that many classes, active ones first, which makes the cost follow the
    classes that matter (forest votes leave most classes without a vote); classes left out
    get a zero derivative, those that only fill a group's width a negligible one.
    Measured error against :func:`certified_rule` (float64 arithmetic, 9 classes, 4000
    random problems per set): at most ``1.4e-9`` with 28 nodes (``lam <= 1.5``; also the
    benchmark's random votes) and ``3e-9`` with 36 nodes (``lam <= 3``), derivatives within
    ``6e-8`` of the largest; with 48 nodes ``4.5e-7`` on the steep set of
    ``tests/test_posteriors.py`` (1-30 votes against ``n_c`` of 40-190, transitions over
    [-3, 3]; the former single 48-node rule: ``7e-7``); the median is the
    ``Phi_sf(6) = 1e-9`` truncation. float32 arithmetic adds about ``1e-7``
    (``tests/test_posteriors.py`` checks ``3e-7``).

    {rule_parameters}

    {rule_returns}
    """
    with torch.no_grad():  # explicit derivatives: no autograd graph through the rule
        return _fixed_rule(z.detach(), lam.detach(), z_lo.detach(), with_grad)


def _fixed_rule(z, lam, z_lo, with_grad):
    dtype = z.dtype
    half_width = FIXED_L.get(dtype, 8.5)
    tiers = FIXED_TIERS.get(dtype, FIXED_TIERS[torch.float64])
    b, k = z.shape
    zt = z.T.contiguous()  # class-major (K, B): reductions over classes run over slabs
    lt = lam.T.contiguous()
    left = torch.add(zt, lt.reciprocal(), alpha=-half_width).amax(dim=0)
    left = torch.maximum(left, z_lo).clamp_min_(-half_width)
    left = _left_end(zt, lt, left, FIXED_DEPTH.get(dtype, 40.0))
    half = (half_width - left).mul_(0.5).clamp_min_(0.0)
    # A class is active when its factor is not within Phi_sf(L) of 1 on the whole window
    # (lam_j (left - z_j) < L); inactive factors (classes without votes included) need not
    # enter the rule.
    active = torch.sign(torch.add(lt * (zt - left), half_width)).clamp_min_(0.0)  # 1.0 / 0.0
    n_active = active.sum(dim=0).long()
    steepest = (lt * active).amax(dim=0)
    tier = torch.zeros(b, dtype=torch.int64, device=z.device)
    for cap, _ in tiers[:-1]:
        tier += steepest > cap
    # rows are grouped by (tier, number of active classes rounded up to 0, 1, 2, 4 or K);
    # each group runs its own rule on that many classes, the active ones first in each column
    # (the few inactive ones that fill a group's width change nothing but the cost)
    sizes = torch.tensor([s for s in (0, 1, 2, 4) if s < k] + [k], device=z.device)
    group = tier * (k + 1) + sizes[torch.bucketize(n_active, sizes)]
    keys, counts = torch.unique(group, return_counts=True)
    keys, counts = keys.tolist(), counts.tolist()
    value = torch.empty(b, dtype=dtype, device=z.device)
    ranked = any(key % (k + 1) < k for key in keys)
    zs, ls, rank = zt, lt, None
    if ranked:  # rank of each class in its column: active ones first, each part in order
        before = active.cumsum(dim=0)
        position = torch.arange(1, k + 1, dtype=dtype, device=z.device)[:, None]
        rank = torch.where(active > 0, before, n_active + position - before).sub_(1).long()
        zs = torch.empty_like(zt).scatter_(0, rank, zt)
        ls = torch.empty_like(lt).scatter_(0, rank, lt)
    dzs = torch.zeros_like(zs) if with_grad else None
    # a group with at least 90 % of the rows runs on every row (slices, no gathers); the
    # rows of the other groups are then recomputed (derivatives cleared first)
    main = max(range(len(keys)), key=counts.__getitem__)
    everywhere = counts[main] >= 0.9 * b
    for g, key in sorted(enumerate(keys), key=lambda item: item[0] != main):
        i, width = divmod(key, k + 1)
        if everywhere and g == main:
            rows = slice(None)
        else:
            rows = torch.nonzero(group == key).reshape(-1)
            if everywhere and dzs is not None:
                dzs.index_fill_(1, rows, 0.0)
        dest = None if dzs is None else dzs[:width]
        _run_rule(tiers[i][1], value, dest, left, half, zs[:width], ls[:width], rows)
    dzt = dzs.gather(0, rank) if ranked and with_grad else dzs
    dz = dlo = None
    if with_grad:  # a true lower limit is binding when the window starts there
        dz = dzt.T
        binding = torch.nonzero(torch.isfinite(z_lo) & (left <= z_lo)).reshape(-1)
        dlo = torch.zeros_like(value)
        if binding.numel():
            dlo[binding] = -_boundary_value(z_lo[binding], z[binding], lam[binding])
    return value, dz, dlo


def _log_error_bounds(a, b, z, lam, n_nodes):
    """log of a rigorous bound of the ``n_nodes``-point Gauss-Legendre error on [a, b].

    Trefethen (Approximation Theory and Approximation Practice, Thm 19.3): for f
    analytic in the open Bernstein ellipse E_rho of [a, b] with ``|f| <= M`` there,
    ``|I - I_n| <= h (64/15) M rho^(-2n) / (rho^2 - 1)``, ``h = (b - a)/2``. ``E_rho`` lies
    in the box ``|Re z - m| <= h sqrt(1 + r^2)``, ``|Im z| <= h r`` (``rho = r + sqrt(1 + r^2)``,
    ``m`` the midpoint), where ``|phi(z)| <= exp((Im^2 - Re^2)/2) / sqrt(2 pi)`` and
    ``|Phi(w)| <= 1{Re w > 0} + exp((Im^2 - Re^2)/2) / 2`` (from
    ``|erfc(t)| <= exp(-Re t^2)`` for ``Re t >= 0`` and ``Phi(w) = 1 - Phi(-w)``). The
    integrand is entire, so every ``r`` is allowed; the bound is minimized over a grid.
    """
    h = 0.5 * (b - a)
    m = 0.5 * (a + b)
    r = _RATIOS.to(dtype=a.dtype, device=a.device)
    rho = r + torch.sqrt(1.0 + r * r)
    semi_major = h[:, None] * torch.sqrt(1.0 + r * r)  # (P, C)
    beta2 = (h[:, None] * r) ** 2
    d0 = torch.clamp(m.abs()[:, None] - semi_major, min=0.0)
    log_m = 0.5 * (beta2 - d0 * d0) - _LOG_SQRT_2PI
    dj = torch.clamp((m[:, None] - z).abs()[:, None, :] - semi_major[:, :, None], min=0.0)
    t = 0.5 * (lam * lam)[:, None, :] * (beta2[:, :, None] - dj * dj) - _LN2
    right = (m[:, None] + semi_major)[:, :, None] > z[:, None, :]
    log_fac = torch.where(right, torch.nn.functional.softplus(t), t)
    log_m = log_m + log_fac.sum(dim=-1)
    log_e = (
        torch.log(h.clamp_min(1e-300))[:, None]
        + math.log(64.0 / 15.0)
        + log_m
        - 2 * n_nodes * torch.log(rho)
        - torch.log(rho * rho - 1.0)
    )
    return log_e.min(dim=1).values


@fill_doc(**_RULE_DOC)
def certified_rule(z, lam, z_lo, with_grad, tol=CERT_TOL):
    """Adaptive composite Gauss-Legendre with rigorous per-panel error bounds (float64).

    The window (truncation error at most ``2 Phi_sf(8.5) = 1.9e-17``) is cut into 3
    panels; a panel whose error bound (:func:`_log_error_bounds`, 24 nodes) is at most
    ``tol`` times its share of the window length is accepted, otherwise it is bisected.
    Hence every integral is within ``tol + 1.9e-17`` of the exact value, plus float64
    rounding (below ``1e-13``: about 100 nodes with relative errors of a few ulps).

    {rule_parameters}
    tol : float, default=1e-11
        Bound on the sum of the panel error bounds of each integral.

    {rule_returns}
    """
    dtype = torch.float64
    z, lam, z_lo = z.to(dtype), lam.to(dtype), z_lo.to(dtype)
    b, k = z.shape
    device = z.device
    x, w = gauss_legendre(CERT_NODES, dtype, device)
    left, right, binding = _window(z, lam, z_lo, CERT_L)
    length = torch.clamp(right - left, min=0.0)
    value = torch.zeros(b, dtype=dtype, device=device)
    dz = torch.zeros_like(z) if with_grad else None
    live = torch.nonzero(length > 0).reshape(-1)
    frac = torch.arange(CERT_INITIAL_PANELS + 1, dtype=dtype, device=device) / CERT_INITIAL_PANELS
    edges = left[live, None] + length[live, None] * frac
    pid = live.repeat_interleave(CERT_INITIAL_PANELS)
    pa = edges[:, :-1].reshape(-1)
    pb = edges[:, 1:].reshape(-1)
    step = max(1, _ELEMENTS // max(1, max(CERT_NODES, _RATIOS.numel()) * k))
    for _ in range(CERT_MAX_ROUNDS):
        if pid.numel() == 0:
            break
        next_a, next_b, next_id = [], [], []
        for s in range(0, pid.numel(), step):
            i, a, bb = pid[s : s + step], pa[s : s + step], pb[s : s + step]
            zc, lc = z[i], lam[i]
            log_e = _log_error_bounds(a, bb, zc, lc, CERT_NODES)
            ok = log_e <= torch.log(tol * (bb - a) / length[i])
            if bool(ok.any()):
                j = torch.nonzero(ok).reshape(-1)
                h = 0.5 * (bb[j] - a[j])
                nodes = 0.5 * (a[j] + bb[j])[:, None] + h[:, None] * x
                f, mills = _integrand(nodes, zc[j], lc[j], with_grad)
                wf = f * (w * h[:, None])
                value.index_add_(0, i[j], wf.sum(dim=1))
                if with_grad:
                    dz.index_add_(0, i[j], _grad_from_mills(wf, mills, lc[j]))
            bad = torch.nonzero(~ok).reshape(-1)
            if bad.numel():
                mid = 0.5 * (a[bad] + bb[bad])
                next_a += [a[bad], mid]
                next_b += [mid, bb[bad]]
                next_id += [i[bad], i[bad]]
        if next_id:
            pid, pa, pb = torch.cat(next_id), torch.cat(next_a), torch.cat(next_b)
        else:
            pid = pid[:0]
    if pid.numel():  # pragma: no cover - the bound shrinks geometrically under bisection
        raise RuntimeError("certified Gaussian integral did not reach its error bound.")
    dlo = None
    if with_grad:
        dlo = torch.where(binding, -_boundary_value(z_lo, z, lam), 0.0)
    return value, dz, dlo


def _integral(z, z_lo, lam, valid, certified, with_grad):
    """The rule on the classes with votes; the others get the factor 1 (``z_j = -BIG``).

    ``valid`` is 1.0 for classes with votes, 0.0 for the others (float masks: exact selects
    that cost less than boolean ones).
    """
    invalid = 1.0 - valid
    z_in = torch.add(z * valid, invalid, alpha=-BIG)
    lam_in = torch.add(lam * valid, invalid)
    rule = certified_rule if certified else fixed_rule
    return rule(z_in, lam_in, z_lo, with_grad)


class _Integral(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, z_lo, lam, valid, certified):
        need = ctx.needs_input_grad[0] or ctx.needs_input_grad[1]
        value, dz, dlo = _integral(z, z_lo, lam, valid, certified, need)
        value = value.to(z.dtype)
        if need:
            ctx.save_for_backward(dz.to(z.dtype) * valid, dlo.to(z.dtype))
        return value

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        dz, dlo = ctx.saved_tensors
        return grad[:, None] * dz, grad * dlo, None, None, None


def p_strict_winner(hi, lo, counts, target, certified):
    """P(class ``target`` is the strict winner of ``w . votes``) for ``w ~ N(p, I)``.

    Parameters
    ----------
    hi : torch.Tensor of shape (L, B, k)
        Exactly summed levels of the class sums (no gradient; ``L = 0`` allowed).
    lo : torch.Tensor of shape (B, k)
        Rounded remainder of the class sums (differentiable):
        ``P_j = hi[:, :, j].sum(0) + lo[:, j]``. Differences ``P_j - P_c`` are formed
        level by level (exactly), so they carry no cancellation error.
    counts : torch.Tensor of shape (B, k)
        Vote counts ``n_j`` (floats).
    target : torch.Tensor of shape (B,)
        Class ``c`` (integer).
    certified : bool
        Use :func:`certified_rule` (float64) instead of :func:`fixed_rule`.

    Returns
    -------
    torch.Tensor of shape (B,)
        The probability, in [0, 1], differentiable in ``lo``.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors._gauss_multi import p_strict_winner
    >>> sums = torch.tensor([[1.5, 0.0, 0.0]], dtype=torch.float64)  # 3 voters for class 0
    >>> counts = torch.tensor([[3.0, 0.0, 0.0]], dtype=torch.float64)
    >>> p = p_strict_winner(torch.zeros(0, 1, 3), sums, counts, torch.tensor([0]), True)
    >>> round(float(p), 12)  # P(N(1.5, 3) > 0) = Phi(1.5 / sqrt 3)
    0.806761884614
    """
    b, k = counts.shape
    device = counts.device
    dtype = lo.dtype
    tl = target.long()
    classes = torch.arange(k, device=device)
    others = torch.stack([torch.cat([classes[:c], classes[c + 1 :]]) for c in range(k)])
    o = others[tl]  # (B, k-1)
    rows = torch.arange(b, device=device)
    n_c = counts[rows, tl]
    n_o = counts.gather(1, o)
    levels = hi.shape[0]
    hi_c, lo_c = hi[:, rows, tl], lo[rows, tl]  # (L, B), (B,)
    hi_o = hi.gather(2, o.expand(levels, -1, -1))  # (L, B, k-1)
    lo_o = lo.gather(1, o)
    p_c = hi_c.sum(0) + lo_c
    p_o = hi_o.sum(0) + lo_o
    diff = (hi_o - hi_c[:, :, None]).sum(0) + (lo_o - lo_c[:, None])  # P_j - P_c
    valid = torch.sign(n_o)  # 1.0 where n_j > 0, 0.0 where n_j = 0 (float mask)
    invalid = 1.0 - valid
    zero_other = (valid @ torch.ones(k - 1, dtype=valid.dtype, device=device)) < k - 1
    has_c = n_c > 0
    nc_safe = torch.where(has_c, n_c, 1.0)
    no_safe = n_o + invalid
    # n_c = 0: s_c = 0 must strictly beat every s_j (a class without votes ties: error)
    closed = torch.zeros_like(p_c)
    j = torch.nonzero(~has_c).reshape(-1)
    if j.numel():
        cdf = gaussian_cdf(-p_o[j] / torch.sqrt(no_safe[j]))
        closed = closed.index_put((j,), (cdf * valid[j] + invalid[j]).prod(dim=1))
        closed = torch.where(zero_other, 0.0, closed)
    # n_c > 0: the 1-D integral
    root_nc = torch.sqrt(nc_safe)
    z = diff / root_nc[:, None]
    lam = torch.sqrt(nc_safe[:, None] / no_safe)
    z_lo = torch.where(zero_other, -p_c / root_nc, -math.inf)
    if torch.is_grad_enabled() and (z.requires_grad or z_lo.requires_grad):
        integral = _Integral.apply(z, z_lo, lam.detach(), valid, certified)
    else:  # no derivatives wanted (e.g. under torch.no_grad): the rule's value only
        integral = _integral(z, z_lo, lam, valid, certified, False)[0].to(z.dtype)
    return torch.where(has_c, integral, closed).clamp(0.0, 1.0).to(dtype)
