"""Sums of the voter weights over vote patterns, and the exact deterministic losses.

Data convention: see :mod:`skpacbayes.posteriors._base` (``votes`` of shape ``(b, n)`` and
``y`` of shape ``(b,)``, integer class indices), or an :class:`ErrorMask` of precomputed
errors in place of the votes, or (multi-class Gaussian) :class:`ClassVotes`.

Floating point policy. ``float32`` is the training precision: sums are plain
matrix-vector products. ``float64`` is the certificate precision: every sum of
weights is computed with an error-free split of the weights (see
:func:`~skpacbayes.posteriors._exact_sums.split_weights`), so that sums are correct to a
relative ``2^-52`` and differences of sums (margins) have no cancellation error; the deterministic
losses are exact in every precision (:func:`margin_is_nonpositive`,
:func:`not_strict_winner`).
"""

import math

import numpy as np
import torch
from scipy.linalg.blas import sgemv

from ._exact_sums import split_weights

__all__ = ["ClassVotes", "ErrorMask", "margin_is_nonpositive", "not_strict_winner", "vote_sums"]

_ROW_CHUNK = 8192
_BYTES_MIN_ELEMENTS = 2**23  # smallest float32 mask held in bytes too (32 MiB)
_BYTES_BLOCK = 2**21  # bytes of the float32 buffer of a block of rows (ErrorMask.with_bytes)
_HASH_PIECE_BITS = 8  # integers below 2^8: exact in bfloat16 and tf32 products too
_U = 2.0**-53  # unit roundoff of float64


# ---------------------------------------------------------------------------------------------
# Precomputed error masks
# ---------------------------------------------------------------------------------------------
class ErrorMask:
    """Precomputed errors ``1{v_i != y}`` of a batch, as floats (the training fast path).

    Passing ``ErrorMask(e)`` as ``votes`` (with ``y=None``) to a posterior's
    ``stochastic_loss`` skips forming the error mask from class indices and
    converting it to floats at every call: the training loop computes it once
    per sample. Only the losses built on sums of wrong / right weights accept
    it (every family except the multi-class Gaussian, which needs the votes).

    The mask may be held folded (:meth:`folded`): one column per class of voters whose
    errors are equal or complementary on the batch (a stump and its opposite err on
    complementary rows), voter ``i`` reading column ``columns[i]``, or its complement where
    ``signs[i] = -1``. Then ``e @ w = values @ u + sum_{signs < 0} w`` with
    ``u = sum_{columns[i] = k} signs[i] w_i``: a product over fewer columns.

    Parameters
    ----------
    values : torch.Tensor of shape (b, n_voters) or (b, n_columns)
        0/1 floats, in the dtype and on the device of the posterior parameters.
    columns : torch.Tensor of shape (n_voters,), optional
        int64 column of each voter (folded masks).
    signs : torch.Tensor of shape (n_voters,), optional
        ``1.0`` where a voter's errors are its column, ``-1.0`` where they are its
        complement, in the dtype of ``values`` (folded masks).
    codes : torch.Tensor of shape (b, n_columns), optional
        ``values`` in bytes (:meth:`with_bytes`), read by the products of the rows.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Categorical
    >>> from skpacbayes.posteriors._vote_sums import ErrorMask
    >>> votes, y = torch.tensor([[0, 1, 1]]), torch.tensor([1])
    >>> mask = ErrorMask((votes != y[:, None]).to(torch.float32))
    >>> p = torch.tensor([0.5, 0.25, 0.25])
    >>> post = Categorical(3)
    >>> bool(post.stochastic_loss(p, mask, None) == post.stochastic_loss(p, votes, y))
    True
    """

    __slots__ = ("codes", "columns", "signs", "values")

    def __init__(self, values, columns=None, signs=None, codes=None):
        if not (torch.is_tensor(values) and values.is_floating_point() and values.dim() == 2):
            raise TypeError("ErrorMask expects a 2-D floating tensor of 0/1 errors.")
        if (columns is None) != (signs is None):
            raise TypeError("A folded ErrorMask needs both its columns and its signs.")
        self.values = values
        self.columns = columns
        self.signs = signs
        self.codes = codes

    def with_bytes(self):
        """The mask with a copy of its values in bytes, where that makes the products of its
        rows (``e @ w``) faster: a float32 mask on the CPU of at least
        ``_BYTES_MIN_ELEMENTS`` entries, whose float32 matrix does not stay in the caches
        (:func:`_byte_matvec` reads a quarter of the memory, for the same numbers; so do the
        gradients of those products, :func:`_byte_rmatvec`). Else the mask itself.

        Returns
        -------
        ErrorMask
        """
        values = self.values
        if (
            values.dtype != torch.float32
            or values.device.type != "cpu"
            or values.numel() < _BYTES_MIN_ELEMENTS
        ):
            return self
        return ErrorMask(values, self.columns, self.signs, values.to(torch.uint8))

    @classmethod
    def folded(cls, values):
        """The mask of ``values`` with its equal and complementary columns folded.

        Columns are grouped by two integer hashes, exact in float64 (random integer row
        weights whose sums stay below ``2^53``; the hashes of a column and of its complement
        add up to the weights' totals). Two columns that differ share both hashes with a
        probability of at most ``2^-2k`` for each pair, ``k = min(30, 52 - bit_length(b))``
        bits per weight (``2^-60`` below ``2^22`` rows); the training would then read one
        voter's errors for the other's, which only steers its search: the certificate is
        computed from the votes. The weights are read in pieces of ``_HASH_PIECE_BITS`` bits,
        whose products with a chunk of rows are exact in float32 (sums below ``2^21``, and
        the pieces exact even where float32 products run in bfloat16 or tf32): one product
        of the mask as it is, no float64 copy of it. Returns the mask itself where no column
        folds.

        Parameters
        ----------
        values : torch.Tensor of shape (b, n_voters)
            0/1 floats.

        Returns
        -------
        ErrorMask
        """
        mask = cls(values)
        b, n = values.shape
        if b == 0 or n < 2:
            return mask
        device = values.device
        bits = min(30, 52 - b.bit_length())
        generator = torch.Generator(device="cpu").manual_seed(0)
        weights = torch.randint(0, 2**bits, (2, b), generator=generator)
        shifts = range(0, bits, _HASH_PIECE_BITS)
        pieces = torch.cat([(weights >> k) & (2**_HASH_PIECE_BITS - 1) for k in shifts])
        dtype = torch.promote_types(values.dtype, torch.float32)
        pieces = pieces.to(device=device, dtype=dtype)
        scales = torch.tensor([2.0**k for k in shifts], dtype=torch.float64, device=device)
        hashes = torch.zeros((2, n), dtype=torch.float64, device=device)
        for s in _chunks(b):
            rows = slice(s, s + _ROW_CHUNK)
            sums = (pieces[:, rows] @ values[rows].to(dtype)).to(torch.float64)  # exact
            hashes += (sums.reshape(len(shifts), 2, n) * scales[:, None, None]).sum(dim=0)
        totals = weights.to(torch.float64).sum(dim=1).tolist()
        kept, columns, signs, first = [], [], [], {}
        for h in zip(*hashes.tolist(), strict=True):
            complement = tuple(t - x for t, x in zip(totals, h, strict=True))
            if h in first:
                columns.append(first[h])
                signs.append(1.0)
            elif complement in first:
                columns.append(first[complement])
                signs.append(-1.0)
            else:
                first[h] = len(kept)
                columns.append(len(kept))
                kept.append(len(columns) - 1)
                signs.append(1.0)
        if len(kept) == n:
            return mask
        return cls(
            values[:, torch.tensor(kept, device=device)].contiguous(),
            torch.tensor(columns, dtype=torch.int64, device=device),
            torch.tensor(signs, dtype=values.dtype, device=device),
        )

    @property
    def shape(self):
        """Shape ``(b, n_voters)`` of the mask."""
        n = self.values.shape[1] if self.columns is None else self.columns.shape[0]
        return (self.values.shape[0], n)

    @property
    def dtype(self):
        """Floating dtype of the mask."""
        return self.values.dtype

    @property
    def device(self):
        """Device of the mask."""
        return self.values.device

    def take(self, rows):
        """The mask of the rows ``rows`` (an index tensor or a slice)."""
        return ErrorMask(self.values[rows], self.columns, self.signs)

    def fold(self, w):
        """``(u, c)`` with ``e @ w = values @ u + c`` (``u = w``, ``c = 0`` unfolded)."""
        if self.columns is None:
            return w, 0.0
        u = torch.zeros(self.values.shape[1], dtype=w.dtype, device=w.device)
        u = u.index_add(0, self.columns, self.signs * w)
        return u, torch.sum(w * (self.signs < 0))

    def unfold(self, g, total):
        """``e.T @ r`` from ``g = values.T @ r`` and ``total = sum(r)``."""
        if self.columns is None:
            return g
        return g[self.columns] * self.signs + (self.signs < 0) * total

    def rmatvec(self, r):
        """``e.T @ r``, values only (one product with the held matrix, unfolded).

        Parameters
        ----------
        r : torch.Tensor of shape (b,)
            One number per row, in the dtype and on the device of the mask.

        Returns
        -------
        torch.Tensor of shape (n_voters,)
        """
        return self.unfold(_matvec(self.values.T, r), r.sum())

    def matvec(self, w):
        """``e @ w``, differentiable in ``w`` (the mask is a constant).

        Parameters
        ----------
        w : torch.Tensor of shape (n_voters,)
            Weights, in the dtype and on the device of the mask.

        Returns
        -------
        torch.Tensor of shape (b,)
            The sum of the weights of the voters that err, row by row.
        """
        u, c = self.fold(w)
        return _MaskProduct.apply(self.values, u, self.codes) + c


def _matvec(a, x):
    """``a @ x`` for a matrix ``a`` and a vector ``x``, values only (no autograd graph).

    A float32 product on the CPU goes through NumPy's BLAS, two to three times faster than
    torch's own kernel there (measured on an adult-sized 26,048 x 212 error matrix, one
    thread: 0.31 ms against 0.82 ms for ``E @ w``, 0.24 ms against 0.64 ms for ``E.T @ g``).
    Only the float32 training objective takes that path (its values steer the optimiser);
    float64, the certificates' precision, and other devices use torch's product.

    Some OpenBLAS kernels raise the floating-point "invalid" flag on finite inputs (numpy
    issues 13173 and 24067), which NumPy reports as a warning; the flag is ignored here, and
    a real NaN still shows in the product's values.
    """
    if a.dtype == x.dtype == torch.float32 and a.device.type == x.device.type == "cpu":
        with np.errstate(invalid="ignore"):
            product = np.matmul(a.detach().numpy(), x.detach().numpy())
        return torch.from_numpy(product)
    return a @ x


def _byte_blocks(codes):
    """The rows of the 0/1 uint8 matrix ``codes`` (CPU) in float32, a block at a time:
    ``(first row, block)``, each block converted into one buffer that stays in the caches.

    The blocks start at multiples of 64 rows, where the OpenBLAS kernels' groups of rows (the
    products of the rows) and of columns (the products of the columns, 8 at a time) start
    too, and the last one has at least 64 rows (a product over fewer columns takes another
    kernel). The buffer is reused: a block is read before the next one is yielded.
    """
    n_rows, n = codes.shape
    step = max(64, _BYTES_BLOCK // max(1, 4 * n) // 64 * 64)
    buf = torch.empty((min(step + 63, n_rows), n), dtype=torch.float32)
    s = 0
    while s < n_rows:
        stop = n_rows if n_rows - s < step + 64 else s + step
        block = buf[: stop - s]
        block.copy_(codes[s:stop])  # exact (0 and 1); torch's vectorised conversion
        yield s, block.numpy()
        s = stop


def _byte_matvec(codes, x):
    """``codes @ x`` for a 0/1 uint8 matrix ``codes`` (CPU) and a float32 vector ``x``: the
    float32 :func:`_matvec` of the same 0/1 matrix, a block of rows at a time
    (:func:`_byte_blocks`).

    Each block is multiplied in the cache by the same BLAS kernel: the product of a matrix
    with a vector sums each row on its own, so the values are those of the whole float32
    matrix (bit for bit with the x86-64 OpenBLAS kernels measured; BLAS itself promises them
    to rounding only), for a read of a quarter of its bytes from memory. Only the float32
    training objective reads it; the certificates recompute every loss in float64.
    """
    xv = x.detach().numpy()
    out = np.empty(codes.shape[0], dtype=np.float32)
    with np.errstate(invalid="ignore"):  # see _matvec
        for s, block in _byte_blocks(codes):
            np.matmul(block, xv, out=out[s : s + block.shape[0]])
    return torch.from_numpy(out)


def _byte_rmatvec(codes, x):
    """``codes.T @ x`` for a 0/1 uint8 matrix ``codes`` (CPU) and a float32 vector ``x``: the
    float32 :func:`_matvec` of the transposed 0/1 matrix, a block of rows at a time
    (:func:`_byte_blocks`).

    That product is BLAS's ``sgemv`` adding the rows, scaled, into the result, 8 rows at a
    time, in order; here each block is added by the same routine into the same result
    (``beta = 1``), the blocks starting at multiples of 64 rows: the same sums in the same
    order (bit for bit with the x86-64 OpenBLAS kernels measured, SciPy's BLAS on each block
    against NumPy's on the whole matrix; BLAS promises them to rounding only), for a read of
    a quarter of the bytes from memory. Only the float32 training reads it (the gradient of
    :class:`_MaskProduct`).
    """
    xv = x.detach().numpy()
    out = np.zeros(codes.shape[1], dtype=np.float32)
    with np.errstate(invalid="ignore"):  # see _matvec
        for s, block in _byte_blocks(codes):
            rows = xv[s : s + block.shape[0]]
            out = sgemv(1.0, block.T, rows, beta=1.0, y=out, overwrite_y=True)
    return torch.from_numpy(out)


def _row_products(e, codes, w):
    """``e @ w`` (values only), from the bytes ``codes`` of ``e`` where they are held."""
    return _matvec(e, w) if codes is None else _byte_matvec(codes, w)


def _column_products(e, codes, r):
    """``e.T @ r`` (values only), from the bytes ``codes`` of ``e`` where they are held and
    its columns are a multiple of 4 (OpenBLAS's ``sgemv`` sums the last rows of its result,
    beyond a multiple of 4, on their own: blocks would round them differently)."""
    if codes is None or e.shape[1] % 4:
        return _matvec(e.T, r)
    return _byte_rmatvec(codes, r)


class _MaskProduct(torch.autograd.Function):
    """``e @ w`` for a constant 0/1 matrix ``e``, differentiable in ``w`` (see :func:`_matvec`;
    ``codes``: the bytes of ``e``, read by both products where given)."""

    @staticmethod
    def forward(ctx, e, w, codes=None):
        ctx.save_for_backward(e, codes)
        return _row_products(e, codes, w)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        e, codes = ctx.saved_tensors
        return None, _column_products(e, codes, grad), None


class ClassVotes:
    """Votes of a batch held as int64 class indices, with their per-row vote counts.

    The class sums of the multi-class Gaussian loss scatter the weights by the class
    indices, and the counts ``n_j`` of votes per class do not depend on the weights.
    Passing ``ClassVotes(votes, n_classes)`` as ``votes`` to that loss (with the labels
    ``y``) skips converting the indices and counting the votes at every call: the training
    builds it once per batch. The sums are the same numbers.

    Parameters
    ----------
    votes : torch.Tensor of shape (b, n_voters)
        Integer class indices in ``[0, n_classes)``.
    n_classes : int
        Number of classes.
    dtype : torch.dtype, default=torch.float32
        Floating dtype of the counts (that of the posterior parameters).

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Gaussian
    >>> from skpacbayes.posteriors._vote_sums import ClassVotes
    >>> votes, y = torch.tensor([[0, 1, 2], [2, 2, 1]]), torch.tensor([2, 2])
    >>> post, p = Gaussian(3, n_classes=3), torch.tensor([0.5, 0.25, 1.0])
    >>> held = ClassVotes(votes, 3)
    >>> held.counts
    tensor([[1., 1., 1.],
            [0., 1., 2.]])
    >>> bool((post.stochastic_loss(p, held, y) == post.stochastic_loss(p, votes, y)).all())
    True
    """

    __slots__ = ("counts", "indices")

    def __init__(self, votes, n_classes, dtype=torch.float32):
        if not (torch.is_tensor(votes) and votes.dim() == 2 and not votes.is_floating_point()):
            raise TypeError("ClassVotes expects a 2-D integer tensor of class indices.")
        self.indices = votes.to(torch.int64).contiguous()
        if self.indices.numel():
            lo, hi = torch.aminmax(self.indices)
            if int(lo) < 0 or int(hi) >= n_classes:
                raise ValueError(f"votes must be class indices in [0, {n_classes}).")
        b, n = self.indices.shape
        one = torch.ones((), dtype=dtype, device=votes.device)
        self.counts = torch.zeros((b, n_classes), dtype=dtype, device=votes.device)
        self.counts.scatter_add_(1, self.indices, one.expand(b, n))

    @property
    def shape(self):
        """Shape ``(b, n_voters)`` of the votes."""
        return self.indices.shape

    @property
    def dtype(self):
        """Integer dtype of the indices (int64)."""
        return self.indices.dtype


# ---------------------------------------------------------------------------------------------
# Sums of weights over vote patterns
# ---------------------------------------------------------------------------------------------
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


def _chunk_rows(votes, mode):
    """Rows per chunk of :class:`_VoteSums`: ``_ROW_CHUNK``, or every row for the sums of an
    :class:`ErrorMask` but those of the right votes (its errors held whole need no buffer: one
    matrix-vector product per level instead of one per chunk)."""
    if isinstance(votes, ErrorMask) and mode != "err_ok":
        return max(votes.shape[0], 1)
    return _ROW_CHUNK


def _chunk_errors(votes, y, n_classes, rows, mask, buf):
    """Float 0/1 errors of the rows ``rows`` (a slice) and their integer mask.

    From an :class:`ErrorMask`, a view of its values (integer mask ``None``); otherwise
    formed from the votes into the reused buffers ``mask`` (integer) and ``buf`` (float).
    """
    if isinstance(votes, ErrorMask):
        return votes.values[rows], None
    v, t = votes[rows], y[rows]
    r = v.shape[0]
    e8 = _error_mask_into(v, t, n_classes, mask[:r])
    fb = buf[:r]
    fb.copy_(e8)
    return fb, e8


def _error_sums(votes, errors, w):
    """``e @ w`` on the chunk ``errors`` of ``votes`` (values only; folded where the mask is;
    from the mask's bytes where it holds them and the chunk is every row)."""
    if not isinstance(votes, ErrorMask):
        return _matvec(errors, w)
    codes = votes.codes if errors.shape[0] == votes.values.shape[0] else None
    if votes.columns is not None:
        u, c = votes.fold(w)
        return _row_products(errors, codes, u) + c
    return _row_products(errors, codes, w)


def _exact_error_sums(votes, errors, parts):
    """``e @ w_l`` for every exact level ``w_l`` of ``parts``, shape ``(r, len(parts))``: one
    product with the matrix of the levels (their sums are exact in any order, so the same
    numbers as one product per level, for one read of the chunk)."""
    if isinstance(votes, ErrorMask) and votes.columns is not None:
        folds = [votes.fold(part) for part in parts]
        u = torch.stack([fold[0] for fold in folds], dim=1)
        c = torch.stack([torch.as_tensor(c, dtype=u.dtype, device=u.device) for _, c in folds])
        return errors @ u + c
    return errors @ torch.stack(parts, dim=1)


def _error_products(votes, errors, g):
    """``e.T @ g`` on the chunk ``errors`` of ``votes`` (unfolded where the mask is folded)."""
    if isinstance(votes, ErrorMask) and votes.columns is not None:
        return votes.unfold(_matvec(errors.T, g), g.sum())
    return _matvec(errors.T, g)


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
    :func:`~skpacbayes.posteriors._exact_sums.exact_total` for it with its rounding residual.
    Rows are processed in chunks through two reused buffers (an integer mask and its float
    copy); the backward pass recomputes the masks.
    """

    @staticmethod
    def forward(ctx, w, votes, y, mode, n_classes, exact):
        parts = split_weights(w) if exact else [w]
        b, n = votes.shape
        rows = min(b, _ROW_CHUNK)
        precomputed = isinstance(votes, ErrorMask)
        if precomputed and votes.columns is not None and mode == "err_ok":
            raise TypeError("the sums of the right votes need an ErrorMask that is not folded.")
        mask = None
        if not precomputed:
            mask = torch.empty((rows, n), dtype=votes.dtype, device=votes.device)
        buf = torch.empty((rows, n), dtype=w.dtype, device=w.device)
        width = 2 if mode == "err_ok" else 1
        totals = [part.sum() for part in parts]
        exact_totals = torch.stack(totals[:-1]) if exact else None  # exact sums
        hi = torch.zeros((len(parts) - 1, b, width), dtype=w.dtype, device=w.device)
        lo = torch.zeros((b, width), dtype=w.dtype, device=w.device)
        step = _chunk_rows(votes, mode)
        for s in range(0, b, step):
            fb, e8 = _chunk_errors(votes, y, n_classes, slice(s, s + step), mask, buf)
            r = fb.shape[0]
            rounded = _error_sums(votes, fb, parts[-1])
            wrong = _exact_error_sums(votes, fb, parts[:-1]) if exact else None
            if mode == "margin":  # (1 - 2 e) . w, level by level (exact for the exact levels)
                rounded = totals[-1] - 2.0 * rounded
                wrong = None if wrong is None else exact_totals - 2.0 * wrong
            lo[s : s + r, 0] = rounded
            if wrong is not None:
                hi[:, s : s + r, 0] = wrong.T
            if mode == "err_ok":
                if wrong is not None:  # the right votes' exact levels: totals less the wrong
                    hi[:, s : s + r, 1] = (exact_totals - wrong).T
                if precomputed:
                    fb = torch.sub(1.0, fb, out=buf[:r])
                else:
                    torch.bitwise_xor(e8, 1, out=e8)
                    fb.copy_(e8)
                lo[s : s + r, 1] = _matvec(fb, parts[-1])
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
        step = _chunk_rows(votes, ctx.mode)
        for s in range(0, b, step):
            fb, _ = _chunk_errors(votes, y, ctx.n_classes, slice(s, s + step), mask, buf)
            g = g_lo[s : s + fb.shape[0]]
            if ctx.mode == "err_ok":  # d/dw of [e . w, (1 - e) . w]
                grad += _matvec(fb.T, g[:, 0] - g[:, 1]) + g[:, 1].sum()
            elif ctx.mode == "err":
                grad += _error_products(votes, fb, g)
            else:  # margin = (1 - 2 e) . w
                grad += g.sum() - 2.0 * _error_products(votes, fb, g)
        return grad, None, None, None, None, None


def _scatter_levels(parts, idx, k):
    """Per row, the sum of each weight level over the voters of each class: ``(r, k)`` each."""
    r = idx.shape[0]
    return [
        torch.zeros(r, k, dtype=p.dtype, device=p.device).scatter_add_(1, idx, p.expand(r, -1))
        for p in parts
    ]


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
        if isinstance(votes, ClassVotes):  # indices and counts held: one scatter per part
            sums = _scatter_levels(parts, votes.indices, k)
            hi = torch.stack(sums[:-1]) if len(sums) > 1 else sums[0].new_zeros((0, b, k))
            counts = votes.counts.to(w.dtype, copy=True)  # an output of its own
            ctx.votes = votes
            ctx.mark_non_differentiable(hi, counts)
            return hi, sums[-1], counts
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
            sums = _scatter_levels(parts, idx, k)
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
        if isinstance(votes, ClassVotes):
            return g_lo.gather(1, votes.indices).sum(dim=0), None, None, None
        b, n = votes.shape
        idx_buf = torch.empty((min(b, _ROW_CHUNK), n), dtype=torch.int64, device=votes.device)
        grad = torch.zeros(n, dtype=g_lo.dtype, device=g_lo.device)
        for s in _chunks(b):
            v = votes[s : s + _ROW_CHUNK]
            idx = idx_buf[: v.shape[0]]
            idx.copy_(v)
            grad += g_lo[s : s + v.shape[0]].gather(1, idx).sum(dim=0)
        return grad, None, None, None


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
