"""Common interface of the posterior families and the shared vote arithmetic.

Data convention (all families): ``votes`` is an integer tensor of shape ``(b, n)``
holding CLASS INDICES ``0 .. k-1`` (binary tasks: ``0``/``1``; a voter output
``s = +-1`` is index ``(s + 1) / 2``), ``y`` an integer tensor of shape ``(b,)`` of
class indices. Any integer dtype works; ``int8`` is the cheapest.

Floating point policy. ``float32`` is the training precision: sums are plain
matrix-vector products. ``float64`` is the certificate precision: every sum of
weights is computed with an error-free split of the weights (see
:func:`split_weights`), so that sums are correct to a relative ``2^-52`` and
differences of sums (margins) have no cancellation error; the deterministic
losses are exact in every precision (:func:`margin_is_nonpositive`,
:func:`not_strict_winner`).
"""

import math
from numbers import Integral
from typing import ClassVar

import numpy as np
import torch

__all__ = ["Posterior"]

_ROW_CHUNK = 8192
_SPLIT_BITS = 31  # bits per level of the error-free split of the weights
_SPLIT_LEVELS = 3
_U = 2.0**-53  # unit roundoff of float64


# ---------------------------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------------------------
def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def _as_float_tensor(x, name, dtype=None, device=None):
    if not torch.is_tensor(x):
        x = torch.as_tensor(np.asarray(x, dtype=np.float64))
    if not x.is_floating_point():
        x = x.to(torch.float64)
    if dtype is not None or device is not None:
        x = x.to(dtype=dtype or x.dtype, device=device or x.device)
    return x


def _check_integer_tensor(x, name, device):
    if not torch.is_tensor(x):
        x = torch.as_tensor(np.asarray(x))
    if x.dtype == torch.bool:
        x = x.to(torch.int8)
    if x.is_floating_point() or x.is_complex():
        raise TypeError(f"{name} must hold integer class indices, got dtype {x.dtype}.")
    return x.to(device)


class ErrorMask:
    """Precomputed errors ``1{v_i != y}`` of a batch, as floats (the training fast path).

    Passing ``ErrorMask(e)`` as ``votes`` (with ``y=None``) to a posterior's
    ``stochastic_loss`` skips forming the error mask from class indices and
    converting it to floats at every call: the training loop computes it once
    per sample. Only the losses built on sums of wrong / right weights accept
    it (every family except the multi-class Gaussian, which needs the votes).

    Parameters
    ----------
    values : torch.Tensor of shape (b, n_voters)
        0/1 floats, in the dtype and on the device of the posterior parameters.
    complement : torch.Tensor of shape (b, n_voters), optional
        ``1 - values``, when the caller keeps it too: the sums of right weights (Dirichlet)
        then skip forming it at every call.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Categorical
    >>> from skpacbayes.posteriors._base import ErrorMask
    >>> votes, y = torch.tensor([[0, 1, 1]]), torch.tensor([1])
    >>> mask = ErrorMask((votes != y[:, None]).to(torch.float32))
    >>> p = torch.tensor([0.5, 0.25, 0.25])
    >>> post = Categorical(3)
    >>> bool(post.stochastic_loss(p, mask, None) == post.stochastic_loss(p, votes, y))
    True
    """

    __slots__ = ("values", "complement")

    def __init__(self, values, complement=None):
        if not (torch.is_tensor(values) and values.is_floating_point() and values.dim() == 2):
            raise TypeError("ErrorMask expects a 2-D floating tensor of 0/1 errors.")
        if complement is not None and not (
            torch.is_tensor(complement)
            and complement.shape == values.shape
            and complement.dtype == values.dtype
        ):
            raise TypeError("the complement of an ErrorMask must match its values.")
        self.values = values
        self.complement = complement

    @property
    def shape(self):
        """Shape ``(b, n_voters)`` of the mask."""
        return self.values.shape

    @property
    def dtype(self):
        """Floating dtype of the mask."""
        return self.values.dtype

    @property
    def device(self):
        """Device of the mask."""
        return self.values.device


# ---------------------------------------------------------------------------------------------
# Sums of weights over vote patterns
# ---------------------------------------------------------------------------------------------
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
    >>> from skpacbayes.posteriors._base import split_weights
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


def _error_mask_into(v, t, n_classes, out):
    """``out <- 1{v != t}`` (0/1, integer dtype of ``v``) with integer arithmetic.

    (Cheaper than ``!=``, whose boolean output converts slowly to floats.)
    """
    if n_classes == 2:
        return torch.bitwise_xor(v, t[:, None], out=out)
    torch.sub(v, t[:, None], out=out)
    return out.abs_().clamp_(max=1)


def _chunks(n_rows):
    return range(0, n_rows, _ROW_CHUNK)


def _chunk_errors(votes, y, n_classes, start, mask, buf):
    """Float 0/1 errors of the rows ``start : start + _ROW_CHUNK`` and their integer mask.

    From an :class:`ErrorMask`, a view of its values (integer mask ``None``); otherwise
    formed from the votes into the reused buffers ``mask`` (integer) and ``buf`` (float).
    """
    if isinstance(votes, ErrorMask):
        return votes.values[start : start + _ROW_CHUNK], None
    v, t = votes[start : start + _ROW_CHUNK], y[start : start + _ROW_CHUNK]
    r = v.shape[0]
    e8 = _error_mask_into(v, t, n_classes, mask[:r])
    fb = buf[:r]
    fb.copy_(e8)
    return fb, e8


class _VoteSums(torch.autograd.Function):
    """Sums of the weights ``w`` over vote patterns, differentiable in ``w``.

    ``mode``:
    * ``"err"``: ``(b,)``, ``sum_{v_i != y} w_i``;
    * ``"err_ok"``: ``(b, 2)``, ``[:, 0] = sum_{v_i != y} w_i`` and ``[:, 1] = sum_{v_i = y} w_i``
      (each computed directly, no ``total - part`` cancellation);
    * ``"margin"``: ``(b,)``, ``sum_i w_i (1{v_i = y} - 1{v_i != y})``.

    Returns ``(exact_levels, rounded_part)``: ``exact_levels`` stacks the sums of the
    split levels that are summed EXACTLY (shape ``(L, b)`` or ``(L, b, 2)``, ``L = 2`` with
    ``exact=True``, ``L = 0`` otherwise; no gradient; margins are formed level by level,
    exactly) and ``rounded_part`` is the sum of the remainder level (or the plain sum),
    differentiable in ``w``. The total is ``exact_levels.sum(0) + rounded_part``; see
    :func:`exact_total` for it with its rounding residual. Rows are processed in chunks
    through two reused buffers (an integer mask and its float copy); the backward pass
    recomputes the masks.
    """

    @staticmethod
    def forward(ctx, w, votes, y, mode, n_classes, exact):
        parts = split_weights(w) if exact else [w]
        b, n = votes.shape
        rows = min(b, _ROW_CHUNK)
        precomputed = isinstance(votes, ErrorMask)
        mask = None
        if not precomputed:
            mask = torch.empty((rows, n), dtype=votes.dtype, device=votes.device)
        buf = torch.empty((rows, n), dtype=w.dtype, device=w.device)
        width = 2 if mode == "err_ok" else 1
        totals = [part.sum() for part in parts]
        hi = torch.zeros((len(parts) - 1, b, width), dtype=w.dtype, device=w.device)
        lo = torch.zeros((b, width), dtype=w.dtype, device=w.device)
        for s in _chunks(b):
            fb, e8 = _chunk_errors(votes, y, n_classes, s, mask, buf)
            r = fb.shape[0]
            sums = [fb @ part for part in parts]
            if mode == "margin":  # (1 - 2 e) . w, level by level (exact for the exact levels)
                sums = [total - 2.0 * x for total, x in zip(totals, sums, strict=True)]
            lo[s : s + r, 0] = sums[-1]
            for level, part_sum in enumerate(sums[:-1]):
                hi[level, s : s + r, 0] = part_sum
            if mode == "err_ok":
                if precomputed and votes.complement is not None:
                    fb = votes.complement[s : s + _ROW_CHUNK]
                elif precomputed:
                    fb = torch.sub(1.0, fb, out=buf[:r])
                else:
                    torch.bitwise_xor(e8, 1, out=e8)
                    fb.copy_(e8)
                sums = [fb @ part for part in parts]
                lo[s : s + r, 1] = sums[-1]
                for level, part_sum in enumerate(sums[:-1]):
                    hi[level, s : s + r, 1] = part_sum
        if width == 1:
            hi, lo = hi[..., 0], lo[:, 0]
        ctx.mode = mode
        ctx.n_classes = n_classes
        ctx.votes, ctx.y = votes, y
        ctx.mark_non_differentiable(hi)
        return hi, lo

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g_hi, g_lo):
        votes, y = ctx.votes, ctx.y
        b, n = votes.shape
        rows = min(b, _ROW_CHUNK)
        mask = buf = None
        if not isinstance(votes, ErrorMask):
            mask = torch.empty((rows, n), dtype=votes.dtype, device=votes.device)
            buf = torch.empty((rows, n), dtype=g_lo.dtype, device=g_lo.device)
        grad = torch.zeros(n, dtype=g_lo.dtype, device=g_lo.device)
        for s in _chunks(b):
            fb, _ = _chunk_errors(votes, y, ctx.n_classes, s, mask, buf)
            g = g_lo[s : s + fb.shape[0]]
            if ctx.mode == "err_ok":  # d/dw of [e . w, (1 - e) . w]
                grad += fb.T @ (g[:, 0] - g[:, 1]) + g[:, 1].sum()
            elif ctx.mode == "err":
                grad += fb.T @ g
            else:  # margin = (1 - 2 e) . w
                grad += g.sum() - 2.0 * (fb.T @ g)
        return grad, None, None, None, None, None


class _ClassSums(torch.autograd.Function):
    """Class sums ``P_j = sum_{v_i = j} w_i`` and vote counts ``n_j``.

    Returns ``(exact_levels, rounded_part, counts)``: ``exact_levels`` has shape
    ``(L, b, k)`` (the exactly summed split levels, ``L = 2`` with ``exact=True``, ``L = 0``
    otherwise; no gradient), ``rounded_part`` ``(b, k)`` (differentiable in ``w``) and
    ``counts`` ``(b, k)``. ``P = exact_levels.sum(0) + rounded_part``; a difference of two
    class sums must be formed level by level (exactly), then summed.
    """

    @staticmethod
    def forward(ctx, w, votes, n_classes, exact):
        parts = split_weights(w) if exact else [w]
        k = n_classes
        b, n = votes.shape
        idx_buf = torch.empty((min(b, _ROW_CHUNK), n), dtype=torch.int64, device=votes.device)
        hi = torch.zeros((len(parts) - 1, b, k), dtype=w.dtype, device=w.device)
        lo = torch.zeros((b, k), dtype=w.dtype, device=w.device)
        counts = torch.zeros((b, k), dtype=w.dtype, device=w.device)
        one = torch.ones((), dtype=w.dtype, device=w.device)
        for s in _chunks(b):
            v = votes[s : s + _ROW_CHUNK]
            r = v.shape[0]
            idx = idx_buf[:r]
            idx.copy_(v)
            sums = [
                torch.zeros(r, k, dtype=w.dtype, device=w.device).scatter_add_(
                    1, idx, part.expand(r, -1)
                )
                for part in parts
            ]
            lo[s : s + r] = sums[-1]
            for level, part_sum in enumerate(sums[:-1]):
                hi[level, s : s + r] = part_sum
            counts[s : s + r].scatter_add_(1, idx, one.expand(r, n))
        ctx.votes = votes
        ctx.mark_non_differentiable(hi, counts)
        return hi, lo, counts

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g_hi, g_lo, g_cnt):
        votes = ctx.votes
        b, n = votes.shape
        idx_buf = torch.empty((min(b, _ROW_CHUNK), n), dtype=torch.int64, device=votes.device)
        grad = torch.zeros(n, dtype=g_lo.dtype, device=g_lo.device)
        for s in _chunks(b):
            v = votes[s : s + _ROW_CHUNK]
            idx = idx_buf[: v.shape[0]]
            idx.copy_(v)
            grad += g_lo[s : s + v.shape[0]].gather(1, idx).sum(dim=0)
        return grad, None, None, None


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


def vote_sums(w, votes, y, mode, n_classes, exact):
    """``(exact_part, rounded_part)`` of the sums of :class:`_VoteSums` (see there).

    ``mode="class"`` returns ``(exact_levels, rounded_part, counts)`` of the class sums
    (see :class:`_ClassSums`); ``y`` is ignored then.
    """
    if mode == "class":
        if isinstance(votes, ErrorMask):
            raise TypeError("the class sums need the votes themselves, not an ErrorMask.")
        return _ClassSums.apply(w, votes, n_classes, exact)
    return _VoteSums.apply(w, votes, y, mode, n_classes, exact)


# ---------------------------------------------------------------------------------------------
# Exact deterministic losses
# ---------------------------------------------------------------------------------------------
def _gamma(n):
    return n * _U / (1.0 - n * _U)


def margin_is_nonpositive(w, votes, y, n_classes):
    """Exact ``1{ sum_{v_i = y} w_i - sum_{v_i != y} w_i <= 0 }`` per row (ties are errors).

    A float64 pass computes the margin as ``sum_i w_i - 2 sum_{v_i != y} w_i``, whose
    rounding error is at most ``3 gamma_{n-1} S + 3.01 u S`` with ``S = sum |w_i|``
    (``gamma_m = m u / (1 - m u)``, any summation order), below the ``4 gamma_{n+1} S``
    used here (plus the underflow allowance ``n 2^-1074``). Rows whose computed margin
    exceeds it are decided; the others (ties and near-ties) are decided with
    ``math.fsum``, whose correctly rounded result has the sign of the exact sum.
    """
    w64 = w.detach().to(torch.float64)
    n = w64.shape[0]
    _, margin = vote_sums(w64, votes, y, "margin", n_classes, False)
    bound = 4.0 * _gamma(n + 1) * float(w64.abs().sum()) + n * 2.0**-1074
    out = margin <= 0
    unsure = torch.nonzero(margin.abs() <= bound).reshape(-1)
    if unsure.numel():
        wn = w64.cpu().numpy()
        vv = votes[unsure].cpu().numpy()
        yy = y[unsure].cpu().numpy()
        exact = [
            math.fsum(np.where(vv[j] == yy[j], wn, -wn).tolist()) <= 0 for j in range(vv.shape[0])
        ]
        out[unsure] = torch.as_tensor(exact, device=out.device)
    return out


def not_strict_winner(w, votes, y, n_classes):
    """Exact ``1{ not (P_y > P_j for all j != y) }`` with ``P_j = sum_{v_i = j} w_i``.

    Same two-pass scheme as :func:`margin_is_nonpositive` on every difference
    ``P_y - P_j`` (rounding error at most ``(gamma_n + 1.01 u) sum |w_i|``; ``2 gamma_{n+1}``
    is used).
    """
    w64 = w.detach().to(torch.float64)
    n = w64.shape[0]
    _, sums, _ = vote_sums(w64, votes, None, "class", n_classes, False)
    b = sums.shape[0]
    rows = torch.arange(b, device=sums.device)
    yl = y.long()
    diff = sums[rows, yl][:, None] - sums  # P_y - P_j
    diff[rows, yl] = math.inf
    bound = 2.0 * _gamma(n + 1) * float(w64.abs().sum()) + n * 2.0**-1074
    lose = (diff < -bound).any(dim=1)
    win = (diff > bound).all(dim=1)
    out = ~win
    unsure = torch.nonzero(~lose & ~win).reshape(-1)
    if unsure.numel():
        wn = w64.cpu().numpy()
        vv = votes[unsure].cpu().numpy()
        yy = y[unsure].cpu().numpy()
        dd = diff[unsure].cpu().numpy()
        exact = []
        for j in range(vv.shape[0]):
            c = yy[j]
            mine = wn[vv[j] == c].tolist()
            err = False
            for cls in np.nonzero(np.abs(dd[j]) <= bound)[0]:
                if math.fsum(mine + (-wn[vv[j] == cls]).tolist()) <= 0:
                    err = True
                    break
            exact.append(err)
        out[unsure] = torch.as_tensor(exact, device=out.device)
    return out


# ---------------------------------------------------------------------------------------------
# Random numbers (explicit generator only: the global RNG is never used)
# ---------------------------------------------------------------------------------------------
def _local_generator(generator):
    """``generator``, or a fresh CPU generator with seed 0 when it is ``None``."""
    return torch.Generator().manual_seed(0) if generator is None else generator


def _randn(shape, generator, dtype, device):
    generator = _local_generator(generator)
    x = torch.randn(shape, generator=generator, dtype=dtype, device=generator.device)
    return x.to(device)


def _rand(shape, generator, dtype, device):
    generator = _local_generator(generator)
    x = torch.rand(shape, generator=generator, dtype=dtype, device=generator.device)
    return x.to(device)


def init_noise(n, generator):
    """Start-up noise ``0.01 N(0, I)`` (float64, CPU) from ``generator``; zeros without one."""
    if generator is None:
        return torch.zeros(n, dtype=torch.float64)
    return 0.01 * _randn(n, generator, torch.float64, "cpu")


def log_gamma_variates(alpha, n_samples, generator):
    """``log G`` with ``G ~ Gamma(alpha_i, 1)`` independent, shape ``(n_samples, n)``.

    Marsaglia-Tsang squeeze/rejection (vectorized, float64) driven by ``generator``;
    for ``alpha < 1`` the boost ``G(alpha) = G(alpha + 1) U^(1/alpha)``, applied in log
    space so that tiny shapes do not underflow.
    """
    generator = _local_generator(generator)
    a = alpha.detach().to(torch.float64).expand(n_samples, -1).clone()
    device = a.device
    boost = a < 1.0
    shape = torch.where(boost, a + 1.0, a)
    d = shape - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    log_g = torch.empty_like(a)
    todo = torch.ones_like(a, dtype=torch.bool)
    while bool(todo.any()):
        idx = torch.nonzero(todo.reshape(-1)).reshape(-1)
        dd, cc = d.reshape(-1)[idx], c.reshape(-1)[idx]
        x = _randn(idx.shape, generator, torch.float64, device)
        u = _rand(idx.shape, generator, torch.float64, device)
        v = (1.0 + cc * x) ** 3
        ok = (v > 0) & (
            torch.log(u) < 0.5 * x * x + dd - dd * v + dd * torch.log(v.clamp_min(1e-300))
        )
        acc = idx[ok]
        log_g.reshape(-1)[acc] = torch.log(dd[ok] * v[ok])
        todo.reshape(-1)[acc] = False
    if bool(boost.any()):
        u = _rand(a.shape, generator, torch.float64, device)
        log_g = torch.where(boost, log_g + torch.log(u) / a, log_g)
    return log_g


# ---------------------------------------------------------------------------------------------
# Base class
# ---------------------------------------------------------------------------------------------
class Posterior:
    """Base class of the posterior families (not to be used directly).

    A posterior family owns its natural parameter ``nat`` (a vector over the ``n``
    voters), its prior, the KL divergence to the prior (SPEC 2), the per-example
    stochastic loss ``r(x, y) = P_{w ~ Q}(h_w(x) != y)`` (ties are errors), the
    deterministic loss of the vote with the mean weights, and the mean weights
    themselves. Training optimizes an unconstrained ``raw`` tensor with
    ``nat = natural(raw)``.

    Parameters
    ----------
    n_voters : int
        Number of voters ``n`` (all of them, zero-weight ones included).
    n_classes : int, default=2
        Number of classes ``k``; ``k = 2`` is the binary task.
    prior : array-like or float, default=None
        Natural parameter of the prior; ``None`` is the default of SPEC 2 (uniform
        Categorical, Dirichlet(1, ..., 1), N(0, I)).

    Attributes
    ----------
    name : str
        Family name.
    loss_tolerance : float
        Certified absolute error of :meth:`stochastic_loss` evaluated in float64 (the
        certificate adds it to ``r`` on the safe side). See each family.
    prior : torch.Tensor
        The resolved prior parameter (float64, CPU), shape ``(n_voters,)``.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Dirichlet, Posterior
    >>> post = Dirichlet(n_voters=3)
    >>> isinstance(post, Posterior), post.name, post.loss_tolerance
    (True, 'dirichlet', 1e-09)
    >>> raw = post.init_raw(generator=torch.Generator().manual_seed(0))
    >>> nat = post.natural(raw)  # alpha = exp(raw), close to the prior Dirichlet(1, 1, 1)
    >>> votes = torch.tensor([[1, 1, 0]], dtype=torch.int8)
    >>> r = post.stochastic_loss(nat, votes, torch.tensor([1]))
    >>> (r.sum() + post.kl(nat)).backward()  # a training objective's gradient
    >>> raw.grad.shape
    torch.Size([3])
    """

    name: ClassVar[str] = ""
    loss_tolerance: float = 0.0

    def __init__(self, n_voters: int, n_classes: int = 2, prior=None):
        self.n_voters = _check_count(n_voters, "n_voters", 1)
        self.n_classes = _check_count(n_classes, "n_classes", 2)
        self.prior = self._resolve_prior(prior)

    def __repr__(self):
        return f"{type(self).__name__}(n_voters={self.n_voters}, n_classes={self.n_classes})"

    # -- to be provided by the families --------------------------------------------------
    def _resolve_prior(self, prior):  # pragma: no cover - abstract
        raise NotImplementedError

    def init_raw(self, *, generator=None, dtype=torch.float32, device="cpu") -> torch.Tensor:
        """Unconstrained starting point (a leaf tensor with ``requires_grad=True``).

        The prior's natural parameter plus ``0.01 N(0, I)`` noise drawn from ``generator``
        (no noise when ``generator`` is ``None``; the global RNG is never used).

        Parameters
        ----------
        generator : torch.Generator or None, default=None
            Source of the start-up noise; ``None`` adds no noise.
        dtype : torch.dtype, default=torch.float32
            Floating dtype of the result (``float32`` for training).
        device : str or torch.device, default="cpu"
            Device of the result.

        Returns
        -------
        raw : torch.Tensor of shape (n_voters,)
            Leaf tensor with ``requires_grad=True``, of the requested dtype and device.

        Examples
        --------
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(3).init_raw()  # no generator: no noise, the prior mean N(0, I)
        tensor([0., 0., 0.], requires_grad=True)
        """
        raise NotImplementedError  # pragma: no cover

    def natural(self, raw) -> torch.Tensor:
        """Natural parameter from the unconstrained one.

        Parameters
        ----------
        raw : torch.Tensor of shape (n_voters,)
            Unconstrained parameter, e.g. from :meth:`init_raw`.

        Returns
        -------
        nat : torch.Tensor of shape (n_voters,)
            The natural parameter, differentiable in ``raw``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical(2).natural(torch.tensor([0.0, 0.0]))  # softmax
        tensor([0.5000, 0.5000])
        """
        raise NotImplementedError  # pragma: no cover

    def raw_from_natural(self, nat) -> torch.Tensor:
        """Inverse of :meth:`natural`.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        raw : torch.Tensor of shape (n_voters,)
            An unconstrained parameter ``raw`` with ``natural(raw) = nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> post = Dirichlet(2)
        >>> post.natural(post.raw_from_natural(torch.tensor([2.0, 3.0])))
        tensor([2., 3.])
        """
        raise NotImplementedError  # pragma: no cover

    def kl(self, nat) -> torch.Tensor:
        """``KL(Q || prior)`` as a scalar tensor.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        kl : torch.Tensor
            Scalar (0-dimensional) tensor, differentiable in ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).kl(torch.tensor([3.0, 4.0]))  # ||p||^2 / 2 against N(0, I)
        tensor(12.5000)
        """
        raise NotImplementedError  # pragma: no cover

    def stochastic_loss(self, nat, votes, y) -> torch.Tensor:
        """``r(x_j, y_j)``, shape ``(b,)``, differentiable in ``nat``.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (float32 for training, float64 for a certificate).
        votes : torch.Tensor of shape (b, n_voters)
            Integer class indices voted by each voter on each example.
        y : torch.Tensor of shape (b,)
            Integer class indices of the true labels.

        Returns
        -------
        r : torch.Tensor of shape (b,)
            Stochastic loss of each example, in [0, 1], dtype and device of ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> votes, y = torch.tensor([[1, 0, 1]]), torch.tensor([1])
        >>> Categorical(3).stochastic_loss(torch.tensor([0.5, 0.25, 0.25]), votes, y)
        tensor([0.2500])
        """
        raise NotImplementedError  # pragma: no cover

    def deterministic_loss(self, nat, votes, y) -> torch.Tensor:
        """Exact loss (bool, ties are errors) of the vote with weights :meth:`vote_weights`.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (float32 for training, float64 for a certificate).
        votes : torch.Tensor of shape (b, n_voters)
            Integer class indices voted by each voter on each example.
        y : torch.Tensor of shape (b,)
            Integer class indices of the true labels.

        Returns
        -------
        err : torch.Tensor of shape (b,)
            Boolean tensor, ``True`` where the deterministic vote errs (ties included).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> votes, y = torch.tensor([[1, 0, 1]]), torch.tensor([1])
        >>> Categorical(3).deterministic_loss(torch.tensor([0.5, 0.25, 0.25]), votes, y)
        tensor([False])
        """
        raise NotImplementedError  # pragma: no cover

    def vote_weights(self, nat) -> torch.Tensor:
        """Mean weights of ``Q`` (the deterministic majority vote).

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        weights : torch.Tensor of shape (n_voters,)
            Weights of the deterministic majority vote.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> Dirichlet(2).vote_weights(torch.tensor([1.0, 3.0]))  # the mean of Dir(1, 3)
        tensor([0.2500, 0.7500])
        """
        raise NotImplementedError  # pragma: no cover

    def win_probabilities(self, nat, votes) -> torch.Tensor:
        """``P_Q(class y is the strict winner of the sampled vote)``, shape ``(b, k)``.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior.
        votes : torch.Tensor of shape (b, n_voters)
            Integer class indices voted by each voter on each example.

        Returns
        -------
        proba : torch.Tensor of shape (b, n_classes)
            Probability that each class is the strict winner of the sampled vote.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical(2).win_probabilities(torch.tensor([0.75, 0.25]), torch.tensor([[1, 0]]))
        tensor([[0.2500, 0.7500]])
        """
        raise NotImplementedError  # pragma: no cover

    def sample(self, nat, n_samples, generator) -> torch.Tensor:
        """``n_samples`` weight vectors ``w ~ Q``, shape ``(n_samples, n)``.

        Drawn with ``generator`` (``None``: a fresh generator with seed 0).

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior.
        n_samples : int
            Number of weight vectors to draw.
        generator : torch.Generator or None
            Source of randomness; ``None`` uses a fresh CPU generator with seed 0 (the global RNG
            is never used).

        Returns
        -------
        w : torch.Tensor of shape (n_samples, n_voters)
            One sampled weight vector per row, dtype and device of ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).sample(torch.zeros(2), 3, None).shape
        torch.Size([3, 2])
        """
        raise NotImplementedError  # pragma: no cover

    # -- shared helpers --------------------------------------------------------------------
    def _nat(self, nat):
        nat = _as_float_tensor(nat, "nat")
        if nat.shape != (self.n_voters,):
            raise ValueError(f"nat must have shape ({self.n_voters},), got {tuple(nat.shape)}.")
        return nat

    def _votes(self, votes, device, y=None, need_y=True):
        if isinstance(votes, ErrorMask):
            if votes.shape[1] != self.n_voters or y is not None or not need_y:
                raise ValueError(
                    f"An ErrorMask must have shape (b, {self.n_voters}) and come with y=None "
                    "(stochastic losses only)."
                )
            return votes, None
        votes = _check_integer_tensor(votes, "votes", device)
        if votes.dim() != 2 or votes.shape[1] != self.n_voters:
            raise ValueError(
                f"votes must have shape (b, {self.n_voters}), got {tuple(votes.shape)}."
            )
        if votes.numel():
            lo, hi = torch.aminmax(votes)
            if int(lo) < 0 or int(hi) >= self.n_classes:
                raise ValueError(
                    f"votes must be class indices in [0, {self.n_classes}), "
                    f"got values in [{int(lo)}, {int(hi)}]."
                )
        if not need_y:
            return votes
        y = _check_integer_tensor(y, "y", device)
        if y.dim() != 1 or y.shape[0] != votes.shape[0]:
            raise ValueError(f"y must have shape ({votes.shape[0]},), got {tuple(y.shape)}.")
        if y.numel():
            lo, hi = torch.aminmax(y)
            if int(lo) < 0 or int(hi) >= self.n_classes:
                raise ValueError(f"y must be class indices in [0, {self.n_classes}).")
        return votes, y.to(votes.dtype)

    def _prior_like(self, nat):
        return self.prior.to(dtype=nat.dtype, device=nat.device)

    @staticmethod
    def _exact(nat):
        return nat.dtype == torch.float64
