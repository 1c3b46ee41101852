"""The regularized incomplete beta function at one half, ``I_{1/2}(a, b)``, with gradients.

Continued fraction for ``min(a, b) < 10``, quadrature in the logit variable above; cheaper
float32 training variants of both; the dispatch over the regions and the autograd function
behind :func:`betainc_half`.
"""

import math

import torch

from skpacbayes._sync import branch_free

from ._elementary import (
    _DIGAMMA_TAIL,
    _HALF_LOG_2PI,
    _STIRLING,
    _digamma_minus_log,
    _stirling_remainder,
    gauss_legendre,
)

__all__ = ["betainc_half", "betainc_half_with_grad"]

_LOG_HALF = -math.log(2.0)

# Regions of betainc_half (see its Notes).
_QUAD_MIN = 10.0  # quadrature when min(a, b) >= _QUAD_MIN, continued fraction below
_CF_MAX_STEPS = 4000
_CF_CHECK_EVERY = 8
# quadrature settings per compute dtype: (nodes, log-integrand drop at the window ends,
# degree of the Taylor polynomial of e^x - 1 - x used for |x| < 1/2)
_QUAD_SETTINGS = {torch.float64: (64, 42.0, 15), torch.float32: (16, 21.0, 8)}
_NEWTON_STEPS = 2
# training path (float32 arguments, float64 arithmetic; see _betainc_half_quad_train)
_TRAIN_QUAD_NODES = 12
_TRAIN_QUAD_DROP = 19.0
_TRAIN_QUAD_MAX_S = 1e8  # above: the float32 branch of _betainc_half_quad
_TRAIN_CHUNK = 4096  # elements per chunk on CPU (continued fraction: 54 temporaries each)
_TRAIN_QUAD_CHUNK = 16384  # elements per chunk on CPU (quadrature: 12 nodes each)
_TRAIN_CF_STEPS = 18
_QUAD_CHUNK = 2**16  # elements (rows x nodes) per temporary of the quadrature


def _expm1_minus_x(x, degree):
    """``e^x - 1 - x`` with full relative accuracy (Taylor polynomial for ``|x| < 1/2``)."""
    coeffs = [1.0 / math.factorial(j) for j in range(2, degree + 1)]
    acc = torch.mul(x, coeffs[-1])  # Horner's steps, each one rounded product and sum
    for c in reversed(coeffs[:-1]):
        acc.add_(c).mul_(x)
    small = acc.mul_(x)
    return torch.where(x.abs() < 0.5, small, torch.expm1(x).sub_(x))


# ---------------------------------------------------------------------------------------------
# I_{1/2}(a, b): continued fraction (min(a, b) < _QUAD_MIN)
# ---------------------------------------------------------------------------------------------
def _cf_terms(step, a, b):
    """Partial numerator d_step of the continued fraction of I_{1/2}(a, b) and its derivatives.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) / (1 + d_1 / (1 + d_2 / (1 + ...))) with
    d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)), d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)).
    """
    x = 0.5
    if step % 2 == 1:
        m = (step - 1) // 2
        if m == 0:  # a / a cancelled, so that a = 0 is not a 0/0
            d = -(a + b) * x / (a + 1.0)
            d_a = -x * (1.0 - b) / (a + 1.0) ** 2
            d_b = -x / (a + 1.0)
            return d, d_a, d_b
        den = (a + 2 * m) * (a + 2 * m + 1)
        d = -(a + m) * (a + b + m) * x / den
        d_a = d * (1.0 / (a + m) + 1.0 / (a + b + m) - 1.0 / (a + 2 * m) - 1.0 / (a + 2 * m + 1))
        d_b = -(a + m) * x / den
        return d, d_a, d_b
    m = step // 2
    den = (a + 2 * m - 1) * (a + 2 * m)
    d = m * (b - m) * x / den
    d_a = -d * (1.0 / (a + 2 * m - 1) + 1.0 / (a + 2 * m))
    d_b = m * x / den
    return d, d_a, d_b


def _betainc_half_cf(a, b):
    """I_{1/2}(a, b) and its partial derivatives for float64 1-D tensors with a >= b >= 0, a > 0.

    The continued fraction converges for x = 1/2 <= (a+1)/(a+b+2), i.e. for a >= b. Its
    convergents A_j / B_j follow the three-term recurrence A_{j+1} = A_j + d_j A_{j-1}
    (same for B); the derivatives of A_j and B_j with respect to a and b follow the
    differentiated recurrence, carried along. All quantities are rescaled by B_j at every
    step (this leaves the convergent and its derivative unchanged). Converged entries
    leave the active set, so the cost follows the slowest entry only for that entry.
    """
    n = a.numel()
    val = torch.empty_like(a)
    d_a_out = torch.empty_like(a)
    d_b_out = torch.empty_like(a)
    if n == 0:
        return val, d_a_out, d_b_out
    # prefactor x^a (1-x)^b Gamma(a+b) / (Gamma(a+1) Gamma(b)) = b * Q (smooth at b = 0)
    s = a + b
    log_q = s * _LOG_HALF + torch.lgamma(s) - torch.lgamma(a + 1.0) - torch.lgamma(b + 1.0)
    q = torch.exp(log_q)
    pref = b * q
    psi_s = torch.digamma(s)
    pref_a = pref * (_LOG_HALF + psi_s - torch.digamma(a + 1.0))
    pref_b = q * (1.0 + b * (_LOG_HALF + psi_s - torch.digamma(b + 1.0)))

    one = torch.ones_like(a)
    zero = torch.zeros_like(a)
    # state after the first convergent: A_0 = 0, A_1 = 1, B_0 = 1, B_1 = 1
    st = [zero, one, one, one] + [zero.clone() for _ in range(8)]
    # st = [A_prev, A, B_prev, B, then d/da of the four, then d/db of the four]
    idx = torch.arange(n, device=a.device)
    aa, bb = a, b
    k_old = one
    ka_old = zero
    kb_old = zero
    tol = 4.0 * torch.finfo(torch.float64).eps
    step = 0
    while idx.numel() > 0:
        for _ in range(_CF_CHECK_EVERY):
            step += 1
            d, d_a, d_b = _cf_terms(step, aa, bb)
            a_p, a_c, b_p, b_c, ap_a, ac_a, bp_a, bc_a, ap_b, ac_b, bp_b, bc_b = st
            a_n = a_c + d * a_p
            b_n = b_c + d * b_p
            an_a = ac_a + d * ap_a + d_a * a_p
            bn_a = bc_a + d * bp_a + d_a * b_p
            an_b = ac_b + d * ap_b + d_b * a_p
            bn_b = bc_b + d * bp_b + d_b * b_p
            scale = torch.where(b_n != 0, 1.0 / b_n, 1.0)
            st = [
                a_c * scale, a_n * scale, b_c * scale, b_n * scale,
                ac_a * scale, an_a * scale, bc_a * scale, bn_a * scale,
                ac_b * scale, an_b * scale, bc_b * scale, bn_b * scale,
            ]  # fmt: skip
        k = st[1] / st[3]
        k_a = (st[5] - k * st[7]) / st[3]
        k_b = (st[9] - k * st[11]) / st[3]
        done = (
            ((k - k_old).abs() <= tol * k.abs())
            & ((k_a - ka_old).abs() <= tol * (k_a.abs() + k.abs()))
            & ((k_b - kb_old).abs() <= tol * (k_b.abs() + k.abs()))
        )
        if step >= _CF_MAX_STEPS:  # pragma: no cover - not reached for min(a, b) < _QUAD_MIN
            done = torch.ones_like(done)
        if bool(done.any()):
            j = idx[done]
            val[j] = k[done]
            d_a_out[j] = k_a[done]
            d_b_out[j] = k_b[done]
            keep = ~done
            idx = idx[keep]
            aa, bb = aa[keep], bb[keep]
            st = [t[keep] for t in st]
            k, k_a, k_b = k[keep], k_a[keep], k_b[keep]
        k_old, ka_old, kb_old = k, k_a, k_b
    value = pref * val
    grad_a = pref_a * val + pref * d_a_out
    grad_b = pref_b * val + pref * d_b_out
    return value, grad_a, grad_b


# ---------------------------------------------------------------------------------------------
# I_{1/2}(a, b): quadrature in the logit variable (min(a, b) >= _QUAD_MIN)
# ---------------------------------------------------------------------------------------------
def _cgf(v, p, q, degree):
    """K(v) = ln(q e^{-p v} + p e^{q v}) >= 0 (cumulant function of a centred Bernoulli(p)),

    computed as log1p(q (e^{-pv} - 1 + pv) + p (e^{qv} - 1 - qv)), a sum of non-negative
    terms, hence with full relative accuracy even when s K(v) involves s ~ 1e8.
    """
    return torch.log1p(q * _expm1_minus_x(-p * v, degree) + p * _expm1_minus_x(q * v, degree))


def _cgf_prime(v, p, q):
    """K'(v) = p q (e^{q v} - e^{-p v}) / (q e^{-p v} + p e^{q v})."""
    e1 = torch.exp(-p * v)
    e2 = torch.exp(q * v)
    return p * q * (e2 - e1) / (q * e1 + p * e2)


def _betainc_half_quad(a, b, compute_dtype):
    """I_{1/2}(a, b) and its partial derivatives (float64) for 1-D tensors with min(a, b) >= 10.

    With t = sigmoid(u) the Beta(a, b) density of u is exp(a ln t + b ln(1 - t)) / B(a, b).
    Put s = a + b, p = a / s, q = b / s, kappa = a b / s, u* = ln(a / b) (the mode) and
    u = u* + v, v = z / sqrt(kappa). Then, exactly,

        density du = C exp(-s K(v)) dz,   C = exp(-(D(a) + D(b) - D(s))) / sqrt(2 pi),

    with K the cumulant function of :func:`_cgf` and D the Stirling remainder, and
    I_{1/2}(a, b) is the integral over u <= 0, i.e. z <= z0 = -u* sqrt(kappa). The side of
    z0 holding less mass is integrated (I = C J, or I = 1 - C J) with a Gauss-Legendre rule
    on [z0, z_end], where s K(z_end / sqrt(kappa)) >= drop (Newton on the convex K from the
    Gaussian guess; every Newton iterate after the first lies beyond the root). The
    derivatives are integrals of the same integrand times d/da ln(density) =
    q v - K(v) - (psi(a) - ln a) + (psi(s) - ln s) and d/db ln(density) =
    -p v - K(v) - (psi(b) - ln b) + (psi(s) - ln s) (differentiation under the integral
    sign; the limit u = 0 does not depend on a, b). Everything runs in ``compute_dtype``.
    """
    n_nodes, drop, degree = _QUAD_SETTINGS[compute_dtype]
    a = a.to(compute_dtype)
    b = b.to(compute_dtype)
    s = a + b
    p = a / s
    q = b / s
    kappa = a * q
    root_kappa = torch.sqrt(kappa)
    sigma = 1.0 / root_kappa
    # u* = ln(a / b) without cancellation when a ~ b (a - b is exact there)
    log_ratio = torch.where(a <= b, torch.log1p((b - a) / a), -torch.log1p((a - b) / b))
    z0 = log_ratio * root_kappa
    log_c = -(_stirling_remainder(a) + _stirling_remainder(b) - _stirling_remainder(s))
    c = torch.exp(log_c - _HALF_LOG_2PI)
    psi_s = _digamma_minus_log(s)
    da_const = -_digamma_minus_log(a) + psi_s
    db_const = -_digamma_minus_log(b) + psi_s
    right = z0 > 0  # more than half of the mass lies below u = 0: integrate the upper tail
    side = torch.where(right, 1.0, -1.0).to(a)

    # window end: s K(sigma z) = drop on the integrated side
    z = side * math.sqrt(2.0 * drop)
    for _ in range(_NEWTON_STEPS):
        v = sigma * z
        g = s * _cgf(v, p, q, degree) - drop
        gp = s * sigma * _cgf_prime(v, p, q)
        z = z - g / gp
    z_end = z
    lo = torch.where(right, z0, torch.minimum(z_end, z0))
    hi = torch.where(right, torch.maximum(z_end, z0), z0)
    mid = 0.5 * (lo + hi)
    half = 0.5 * (hi - lo)

    nodes, weights = gauss_legendre(n_nodes, compute_dtype, a.device)
    j0 = torch.empty_like(a)
    ja = torch.empty_like(a)
    jb = torch.empty_like(a)
    step = max(1, _QUAD_CHUNK // n_nodes)
    for i in range(0, a.shape[0], step):
        sl = slice(i, i + step)
        pc, qc = p[sl, None], q[sl, None]
        v = sigma[sl, None] * (mid[sl, None] + half[sl, None] * nodes)
        k_v = _cgf(v, pc, qc, degree)
        e = torch.exp(-s[sl, None] * k_v) * weights
        ek = (e * k_v).sum(dim=1)
        ev = (e * v).sum(dim=1)
        j0[sl] = e.sum(dim=1)
        ja[sl] = qc[:, 0] * ev - ek
        jb[sl] = -pc[:, 0] * ev - ek
    ja = ja + da_const * j0
    jb = jb + db_const * j0
    scale = c * half
    mass = scale * j0
    value = torch.where(right, 1.0 - mass, mass)
    grad_a = -side * scale * ja
    grad_b = -side * scale * jb
    return value.double(), grad_a.double(), grad_b.double()


# ---------------------------------------------------------------------------------------------
# I_{1/2}(a, b): training path (float32 arguments)
# ---------------------------------------------------------------------------------------------
def _train_chunk(a, cpu_chunk=_TRAIN_CHUNK):
    """Elements per chunk: small on CPU (temporaries stay in cache), large elsewhere."""
    return cpu_chunk if a.device.type == "cpu" else max(1, 2**24 // _TRAIN_QUAD_NODES)


def _betainc_half_quad_train(a, b, with_grad=True):
    """:func:`_betainc_half_quad` for the float32 training path (float64 in, float64 out).

    Same change of variables and derivative integrals, cheaper arithmetic (``min(a, b) >= 10``,
    ``a + b <= _TRAIN_QUAD_MAX_S``):

    * the integrated side of ``u = 0`` is written ``w = |z| >= |z0|``, so that
      ``v = w / sqrt(kappa) >= 0`` and ``K(v) = r v + ln(o + r e^(-v))`` with ``(r, o) = (q, p)``
      (upper tail) or ``(p, q)`` (lower tail), an exact rewriting of the cumulant function
      whose rounding (the logarithm of a number near 1) costs ``s K`` an absolute error of
      a few ``1e-16 s``, at most ``4e-8`` for ``s <= 1e8``: a relative error of the integrand;
    * Stirling and digamma series with 3 terms (omitted terms below ``1e-10`` relative at 10);
    * ``_TRAIN_QUAD_NODES`` Gauss-Legendre nodes on the window where ``s K <= _TRAIN_QUAD_DROP``.

    Measured over ``min(a, b) >= 10`` (``tests/test_special.py``): value within ``1e-8`` of
    the float64 evaluation, derivatives within ``1e-7`` of their scale
    ``0.4 sqrt(a + b) / a`` (resp. ``/ b``), far below the float32 rounding of the arguments.
    Elements are processed in chunks that stay in cache; no host synchronization.
    Without ``with_grad`` the derivatives are neither computed nor returned (``None``).
    """
    out = torch.empty((3 if with_grad else 1, a.shape[0]), dtype=a.dtype, device=a.device)
    nodes, weights = gauss_legendre(_TRAIN_QUAD_NODES, torch.float64, a.device)
    nodes, log_w = nodes[:, None], torch.log(weights)[:, None]
    chunk = _train_chunk(a, _TRAIN_QUAD_CHUNK)
    for i in range(0, a.shape[0], chunk):
        sl = slice(i, i + chunk)
        parts = _quad_train_chunk(a[sl], b[sl], nodes, log_w, with_grad)
        for row, part in zip(out, parts, strict=True):
            row[sl] = part
    return (out[0], out[1], out[2]) if with_grad else (out[0], None, None)


def _quad_train_chunk(a, b, nodes, log_w, with_grad):
    drop = _TRAIN_QUAD_DROP
    s = a + b
    inv_s = torch.reciprocal(s)
    p = a * inv_s
    q = b * inv_s
    r = torch.maximum(p, q)  # (r, o) = (q, p) on the upper tail (b >= a), (p, q) on the lower
    o = torch.minimum(p, q)
    root_kappa = (a * q).sqrt_()
    sigma = torch.reciprocal(root_kappa)
    d = b - a  # exact where a ~ b
    side = torch.copysign(torch.ones_like(d), d)  # +1: integrate the upper tail, -1: the lower
    w0 = torch.log1p(d.abs_().div_(torch.minimum(a, b))).mul_(root_kappa)  # |ln(b/a)| sqrt(kappa)

    x = torch.stack((a, b, s)).reciprocal_()
    y = x * x
    stir = (y * _STIRLING[2]).add_(_STIRLING[1]).mul_(y).add_(_STIRLING[0]).mul_(x)
    c = (stir[2] - stir[0]).sub_(stir[1]).sub_(_HALF_LOG_2PI).exp_()

    # window end: s K(sigma w) = drop, Newton on the convex K from the Gaussian guess (every
    # iterate after the first lies beyond the root: the window only gets wider)
    w = torch.full_like(a, math.sqrt(2.0 * drop))
    for _ in range(_NEWTON_STEPS):
        v = sigma * w
        e1 = torch.neg(v).exp_()
        t = torch.addcmul(o, r, e1)
        g = torch.log(t).addcmul_(r, v).mul_(s).sub_(drop)  # s K(v) - drop
        w = w - g.mul_(t).div_(e1.neg_().add_(1.0).mul_(root_kappa))  # / (s sigma K'(v))
    w1 = torch.maximum(w, w0)
    half = (w1 - w0).mul_(0.5)
    start = w1.add_(w0).mul_(sigma).mul_(-0.5)  # -v at the window's midpoint

    nv = torch.addcmul(start, half * sigma, nodes, value=-1.0)  # -v at the nodes
    k_v = torch.addcmul(o, r, torch.exp(nv)).log_().addcmul_(r, nv, value=-1.0)
    e = torch.addcmul(log_w, k_v, s, value=-1.0).exp_()
    j0 = e.sum(dim=0)
    scale = c.mul_(half)
    value = torch.addcmul((side + 1.0).mul_(0.5), side, scale * j0, value=-1.0)
    if not with_grad:
        return (value,)
    dig = (y * _DIGAMMA_TAIL[2]).add_(_DIGAMMA_TAIL[1]).mul_(y).add_(_DIGAMMA_TAIL[0]).mul_(y)
    dig.sub_(x, alpha=0.5)
    jk = k_v.mul_(e).sum(dim=0)
    jv = e.mul_(nv).sum(dim=0).mul_(side).neg_()  # integral of e times the signed v
    ja = torch.addcmul((dig[2] - dig[0]).mul_(j0), q, jv).sub_(jk)
    jb = torch.addcmul((dig[2] - dig[1]).mul_(j0), p, jv, value=-1.0).sub_(jk)
    scale.mul_(side).neg_()
    return value, ja.mul_(scale), jb.mul_(scale)


def _cf_train_terms(a, b, steps, with_grad):
    """``(d, d_a, d_b)`` of :func:`_cf_terms` for steps ``1 .. steps``, each ``(steps, n)``.

    Without ``with_grad`` only ``d``: shape ``(1, steps, n)``.
    """
    x = 0.5
    n_odd = (steps + 1) // 2  # steps 1, 3, ..., i.e. m = 0 .. n_odd - 1
    n_even = steps // 2  # steps 2, 4, ..., i.e. m = 1 .. n_even
    out = torch.empty((3 if with_grad else 1, steps, a.shape[0]), dtype=a.dtype, device=a.device)
    # step 1 (m = 0): a / a cancelled, so that tiny a is no 0/0
    inv = torch.reciprocal(a + 1.0)
    d_b = inv * -x
    out[0, 0] = d_b * (a + b)
    if with_grad:
        out[2, 0] = d_b
        out[1, 0] = (1.0 - b).mul_(inv).mul_(d_b)
    if n_odd > 1:
        m = torch.arange(1, n_odd, dtype=a.dtype, device=a.device)[:, None]
        am = a + m
        abm = am + b
        a2m = am + m
        a2m1 = a2m + 1.0
        inv_den = torch.reciprocal(a2m * a2m1)
        d_b = (am * inv_den).mul_(-x)
        d = d_b * abm
        out[0, 2::2] = d
        if with_grad:
            slope = torch.reciprocal(am).add_(torch.reciprocal(abm))
            slope.sub_(torch.reciprocal(a2m)).sub_(torch.reciprocal(a2m1))
            out[1, 2::2], out[2, 2::2] = slope.mul_(d), d_b
    if n_even:
        m = torch.arange(1, n_even + 1, dtype=a.dtype, device=a.device)[:, None]
        a2m = a + 2.0 * m
        a2m1 = a2m - 1.0
        inv_den = torch.reciprocal(a2m * a2m1)
        d_b = (m * x) * inv_den
        d = (b - m).mul_(d_b)
        out[0, 1::2] = d
        if with_grad:
            slope = torch.reciprocal(a2m).add_(torch.reciprocal(a2m1)).mul_(d).neg_()
            out[1, 1::2], out[2, 1::2] = slope, d_b
    return out


def _betainc_half_cf_train(a, b, with_grad=True):
    """:func:`_betainc_half_cf` with a fixed number of steps (``_TRAIN_CF_STEPS``).

    For ``a >= b``, ``b < 10``, the convergents at ``x = 1/2`` settle (value and both
    derivatives, relative to their scale) to ``4e-11`` within 16 steps and to ``2e-13``
    within 18 (measured for ``b`` from ``1e-8`` to 10 and ``a / b`` from 1 to ``1e9``,
    ``tests/test_special.py``); the training path runs ``_TRAIN_CF_STEPS`` of them for every
    element: no convergence tests (no host synchronization), all partial numerators
    computed at once, and the convergents with their derivatives stacked in ``(2, 3, n)``
    tensors (rows ``A``, ``B``; columns value, ``d/da``, ``d/db``), by chunks of elements.
    Without ``with_grad`` only the value column is iterated and the derivatives are ``None``.
    """
    s = a + b
    args = torch.stack((s, a + 1.0, b + 1.0))
    lg = torch.lgamma(args)
    q = torch.exp(s * _LOG_HALF + lg[0] - lg[1] - lg[2])
    pref = b * q
    k = torch.empty((3 if with_grad else 1, a.shape[0]), dtype=a.dtype, device=a.device)
    chunk = _train_chunk(a)
    for i in range(0, a.shape[0], chunk):
        sl = slice(i, i + chunk)
        k[:, sl] = _cf_train_chunk(a[sl], b[sl], with_grad)
    value = pref * k[0]
    if not with_grad:
        return value, None, None
    psi = torch.digamma(args)
    pref_a = pref * (_LOG_HALF + psi[0] - psi[1])
    pref_b = q * (1.0 + b * (_LOG_HALF + psi[0] - psi[2]))
    grad_a = pref_a * k[0] + pref * k[1]
    grad_b = pref_b * k[0] + pref * k[2]
    return value, grad_a, grad_b


def _cf_train_chunk(a, b, with_grad):
    """Continued fraction value and derivatives ``(3, n)`` (value only: ``(1, n)``)."""
    terms = _cf_train_terms(a, b, _TRAIN_CF_STEPS, with_grad)
    n = a.shape[0]
    prev = torch.zeros((2, terms.shape[0], n), dtype=a.dtype, device=a.device)  # A_0 = 0, B_0 = 1
    prev[1, 0] = 1.0
    cur = torch.zeros_like(prev)  # A_1 = B_1 = 1
    cur[:, 0] = 1.0
    for step in range(_TRAIN_CF_STEPS):
        d = terms[0, step]
        new = torch.addcmul(cur, prev, d)
        new[:, 1:].addcmul_(terms[1:, step], prev[:, :1])
        # B_j / B_{j-1} = 1 + d_j B_{j-2} / B_{j-1} > 0: at least 1 - (a + b) / (2 a + 2) > 0
        # at the first step (b <= a), at least 0.09 at every step over the measured grid
        scale = torch.reciprocal(new[1, 0])
        prev = cur.mul_(scale)
        cur = new.mul_(scale)
    k = cur[0, 0] / cur[1, 0]
    k_ab = (cur[0, 1:] - k * cur[1, 1:]) / cur[1, 0]
    return torch.cat((k[None], k_ab))


# ---------------------------------------------------------------------------------------------
# I_{1/2}(a, b): dispatch and autograd
# ---------------------------------------------------------------------------------------------
def betainc_half_with_grad(a, b, with_grad=True):
    """``(I, dI/da, dI/db)`` for broadcast, same-dtype float tensors ``a`` and ``b``.

    The derivatives are returned, not attached to an autograd graph (:func:`betainc_half`
    propagates them). Without ``with_grad`` the float32 (training) paths skip the
    derivatives and both are returned as ``None``.
    """
    out_dtype = a.dtype
    compute_dtype = torch.float64 if out_dtype == torch.float64 else torch.float32
    a64 = a.detach().to(torch.float64).reshape(-1)
    b64 = b.detach().to(torch.float64).reshape(-1)
    shape = a.shape
    if compute_dtype == torch.float32 and branch_free(a64):
        parts = _betainc_half_train_branch_free(a64, b64, with_grad)
        return tuple(None if t is None else t.reshape(shape).to(out_dtype) for t in parts)
    if compute_dtype == torch.float32 and a64.numel():
        # the common training case: every element on the training quadrature (no masks)
        s = a64 + b64
        if bool(((torch.minimum(a64, b64) >= _QUAD_MIN) & (s <= _TRAIN_QUAD_MAX_S)).all()):
            parts = _betainc_half_quad_train(a64, b64, with_grad)
            parts = (parts[0].clamp(0.0, 1.0),) + parts[1:]
            return tuple(None if t is None else t.reshape(shape).to(out_dtype) for t in parts)
    val = torch.full_like(a64, math.nan)
    grad_a = torch.full_like(a64, math.nan)
    grad_b = torch.full_like(a64, math.nan)

    valid = (a64 >= 0) & (b64 >= 0) & ~((a64 == 0) & (b64 == 0))
    valid &= ~(torch.isinf(a64) & torch.isinf(b64))
    inf_a = valid & torch.isinf(a64)  # Beta(inf, b): point mass at 1
    inf_b = valid & torch.isinf(b64) & ~inf_a  # point mass at 0
    val[inf_a] = 0.0
    val[inf_b] = 1.0
    grad_a[inf_a | inf_b] = 0.0
    grad_b[inf_a | inf_b] = 0.0
    finite = valid & ~inf_a & ~inf_b
    small = torch.minimum(a64, b64)
    quad = finite & (small >= _QUAD_MIN)
    cf = finite & ~quad

    train = compute_dtype == torch.float32
    if train:
        fast = quad & (a64 + b64 <= _TRAIN_QUAD_MAX_S)
        j = torch.nonzero(fast).reshape(-1)
        if j.numel():
            v, ga, gb = _betainc_half_quad_train(a64[j], b64[j], with_grad)
            val[j] = v
            if with_grad:
                grad_a[j], grad_b[j] = ga, gb
        quad = quad & ~fast
    j = torch.nonzero(quad).reshape(-1)
    if j.numel():
        v, ga, gb = _betainc_half_quad(a64[j], b64[j], compute_dtype)
        val[j], grad_a[j], grad_b[j] = v, ga, gb

    j = torch.nonzero(cf).reshape(-1)
    if j.numel():
        aj, bj = a64[j], b64[j]
        swap = aj < bj  # I(a, b) = 1 - I(b, a): evaluate with the larger parameter first
        big = torch.where(swap, bj, aj)
        sml = torch.where(swap, aj, bj)
        if train:
            v, g_big, g_sml = _betainc_half_cf_train(big, sml, with_grad)
        else:
            v, g_big, g_sml = _betainc_half_cf(big, sml)
        val[j] = torch.where(swap, 1.0 - v, v)
        if with_grad:
            grad_a[j] = torch.where(swap, -g_sml, g_big)
            grad_b[j] = torch.where(swap, -g_big, g_sml)

    val = val.clamp(0.0, 1.0)  # NaN stays NaN
    if not with_grad:
        return val.reshape(shape).to(out_dtype), None, None
    return (
        val.reshape(shape).to(out_dtype),
        grad_a.reshape(shape).to(out_dtype),
        grad_b.reshape(shape).to(out_dtype),
    )


def _betainc_half_train_branch_free(a, b, with_grad):
    """The float32 (training) dispatch of :func:`betainc_half_with_grad` without branches.

    On an accelerator, choosing a method per element (boolean masks, ``nonzero``) would make
    the host wait for the device at every step. Here every method of the training path runs
    on every element (the elements outside its region on a harmless substitute argument) and
    ``torch.where`` picks each element's value: the same numbers as the masked dispatch
    (``tests/test_no_sync.py``), at the cost of evaluating all three rules. Float64 in and out.
    """
    valid = (a >= 0) & (b >= 0) & ~((a == 0) & (b == 0)) & ~(torch.isinf(a) & torch.isinf(b))
    inf_a = valid & torch.isinf(a)  # Beta(inf, b): point mass at 1
    inf_b = valid & torch.isinf(b) & ~inf_a  # point mass at 0
    finite = valid & ~inf_a & ~inf_b
    quad = finite & (torch.minimum(a, b) >= _QUAD_MIN)
    fast = quad & (a + b <= _TRAIN_QUAD_MAX_S)
    careful = quad & ~fast
    cf = finite & ~quad
    ten = torch.full_like(a, _QUAD_MIN)
    fast_parts = _betainc_half_quad_train(
        torch.where(fast, a, ten), torch.where(fast, b, ten), with_grad
    )
    careful_parts = _betainc_half_quad(
        torch.where(careful, a, ten), torch.where(careful, b, ten), torch.float32
    )
    swap = a < b  # I(a, b) = 1 - I(b, a): the larger parameter first
    one = torch.ones_like(a)
    big = torch.where(cf, torch.where(swap, b, a), one)
    sml = torch.where(cf, torch.where(swap, a, b), one)
    v, g_big, g_sml = _betainc_half_cf_train(big, sml, with_grad)
    nan = torch.full_like(a, math.nan)
    edge = torch.where(inf_a, 0.0, torch.where(inf_b, 1.0, nan))
    cf_value = torch.where(swap, 1.0 - v, v)
    value = torch.where(
        fast, fast_parts[0], torch.where(careful, careful_parts[0], torch.where(cf, cf_value, edge))
    ).clamp(0.0, 1.0)
    if not with_grad:
        return value, None, None
    edge = torch.where(inf_a | inf_b, 0.0, nan)
    grads = []
    for fast_g, careful_g, cf_g in (
        (fast_parts[1], careful_parts[1], torch.where(swap, -g_sml, g_big)),
        (fast_parts[2], careful_parts[2], torch.where(swap, -g_big, g_sml)),
    ):
        grads.append(
            torch.where(fast, fast_g, torch.where(careful, careful_g, torch.where(cf, cf_g, edge)))
        )
    return value, grads[0], grads[1]


class _BetaincHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, a_residual, b_residual):
        a_b, b_b = torch.broadcast_tensors(a, b)
        value, grad_a, grad_b = betainc_half_with_grad(a_b, b_b)
        if a_residual is not None or b_residual is not None:
            # first-order correction for arguments known as (rounded value + residual)
            correction = torch.zeros_like(value)
            for res, grad in ((a_residual, grad_a), (b_residual, grad_b)):
                if res is not None:
                    res = res.to(value.dtype).expand_as(value)
                    correction = correction + torch.where(res != 0, grad * res, 0.0)
            value = (value + correction).clamp(0.0, 1.0)
        ctx.save_for_backward(grad_a, grad_b)
        ctx.shapes = (a.shape, b.shape)
        return value

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_out):
        grad_a, grad_b = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = (grad_out * grad_a).sum_to_size(shape_a)
        if ctx.needs_input_grad[1]:
            gb = (grad_out * grad_b).sum_to_size(shape_b)
        return ga, gb, None, None


def _as_float_pair(a, b):
    ta, tb = torch.is_tensor(a), torch.is_tensor(b)
    if ta and a.is_floating_point():
        dtype, device = a.dtype, a.device
    elif tb and b.is_floating_point():
        dtype, device = b.dtype, b.device
    else:
        dtype = torch.float64
        device = a.device if ta else (b.device if tb else torch.device("cpu"))
    if ta and tb and a.is_floating_point() and b.is_floating_point():
        dtype = torch.promote_types(a.dtype, b.dtype)
    if dtype not in (torch.float32, torch.float64):
        dtype = torch.float32 if dtype in (torch.float16, torch.bfloat16) else torch.float64
    a = a.to(dtype) if ta else torch.as_tensor(a, dtype=dtype, device=device)
    b = b.to(dtype) if tb else torch.as_tensor(b, dtype=dtype, device=device)
    return a, b


def betainc_half(a, b, *, a_residual=None, b_residual=None):
    r"""Regularized incomplete beta function at one half, ``I_{1/2}(a, b) = P(Beta(a, b) <= 1/2)``.

    Differentiable in both arguments (custom autograd function; first order only).

    Parameters
    ----------
    a, b : torch.Tensor or float
        Non-negative shape parameters (broadcast together). ``float32`` or ``float64``;
        Python numbers give ``float64``.
    a_residual, b_residual : torch.Tensor, optional
        For arguments known more accurately than one float, as ``a + a_residual`` (e.g.
        the rounding error of a sum, from an error-free transformation): the first-order
        correction ``dI/da a_residual + dI/db b_residual`` is added to the value (not
        differentiated). Large parameters make ``I`` sensitive to the last bits of its
        arguments (``|a dI/da| ~ 0.2 sqrt(a + b)``); the correction removes that
        sensitivity.

    Returns
    -------
    torch.Tensor
        ``I_{1/2}(a, b)`` in ``[0, 1]``, with the limits of :ref:`theory-losses`:
        ``I(a, 0) = 0`` for ``a > 0`` (Beta(a, 0) is a point mass at 1) and ``I(0, b) = 1`` for
        ``b > 0``; also
        ``I(inf, b) = 0`` and ``I(a, inf) = 1``. NaN for negative or NaN input and for
        ``a = b = 0`` or ``a = b = inf``.

    Notes
    -----
    Two methods, both carrying the partial derivatives along with the value:

    * ``min(a, b) < 10``: the classical continued fraction of ``I_x(a, b)`` evaluated for
      the larger parameter first (``I(a, b) = 1 - I(b, a)``), where it converges for
      ``x = 1/2`` (at most 32 steps here); its convergents and their derivatives follow
      a linear three-term recurrence, iterated to relative convergence ``4 eps``. The
      prefactor is written ``b x^a (1-x)^b Gamma(a+b) / (Gamma(a+1) Gamma(b+1))`` so that
      it is smooth down to ``a, b = 0``. Always in float64.
    * ``min(a, b) >= 10``: an exact change of variables (logit, centred at the mode and
      scaled by the curvature) turns the Beta density into ``C exp(-s K(v))`` with ``K``
      a cumulant function evaluated without cancellation and ``C`` from Stirling series;
      the smaller tail is integrated with a 64-point Gauss-Legendre rule on the window
      where ``s K <= 42``. This stays uniformly accurate up to ``a, b ~ 1e12`` and beyond,
      where ``lgamma`` differences would lose 7 digits or more.

    ``float32`` arguments (training) take a cheaper path, still in float64 arithmetic:
    the continued fraction runs a fixed 18 steps for every element (no convergence tests,
    no host synchronization), and for ``min(a, b) >= 10`` and ``a + b <= 1e8`` the
    quadrature uses 12 nodes, a window where ``s K <= 19`` and a shorter form of ``K``
    (above ``1e8``, a 16-point float32 variant of the careful rule). Measured error of
    that path against the float64 one at the same arguments: below ``1e-8`` for the value
    and ``1e-7`` of the scale of the derivatives, under the float32 rounding of the result.

    Measured against mpmath (50 digits) and ``scipy.special.betainc`` on ``a, b``
    log-uniform in ``[1e-8, 1e8]`` and near the diagonal: absolute error below ``1e-14``
    in ``float64`` (scipy itself is off by up to ``7e-14`` at ``a = b = 1e8``); the
    derivatives agree with mpmath to ``1e-15`` relative (``tests/test_special.py``).
    ``float32`` inputs: absolute error about ``1e-7`` (the float32 rounding).

    Examples
    --------
    >>> import torch
    >>> from skpacbayes._special import betainc_half
    >>> round(float(betainc_half(3.0, 2.0)), 14)  # P(Beta(3, 2) <= 1/2) = 5/16
    0.3125
    >>> float(betainc_half(5.0, 0.0)), float(betainc_half(0.0, 5.0))
    (0.0, 1.0)
    >>> a = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    >>> betainc_half(a, 2.5).sum().backward()
    >>> bool((a.grad < 0).all())  # more mass on the first parameter pushes Beta to 1
    True
    """
    a, b = _as_float_pair(a, b)
    differentiable = torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)
    if not differentiable and a_residual is None and b_residual is None:
        # no derivatives wanted (e.g. under torch.no_grad): the cheaper value-only path
        a_b, b_b = torch.broadcast_tensors(a, b)
        return betainc_half_with_grad(a_b, b_b, with_grad=False)[0]
    return _BetaincHalf.apply(a, b, a_residual, b_residual)
