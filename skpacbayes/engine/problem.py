"""The rows' problem: each half's votes, labels, posterior and held 0/1 error matrix.

The per-row families (Dirichlet, Gaussian, the binomial bound, the vote's cross-entropy) read
the rows, not the counts: :class:`RowProblem` holds them once on the training device and
dtype (float32, the error matrix folded where it can be) or in float64 on the CPU for the
certificate, and computes the stochastic losses in chunks.
"""

import hashlib
import warnings

import numpy as np
import torch

from skpacbayes.engine.certificate import _STAT_SLACK
from skpacbayes.engine.sharing import shared_value
from skpacbayes.engine.spec import make_posterior
from skpacbayes.engine.statistics import column_sums
from skpacbayes.posteriors._base import ClassVotes, ErrorMask

__all__ = ["RowProblem", "error_matrix_bytes", "take_rows"]

ROW_CHUNK = 16384  # rows per chunk of the losses (and of the mixture's win probabilities)
_INDEX_BYTES = 2**30  # largest int64 vote indices the multi-class Gaussian training holds
_EXACT_FLOAT32_COUNT = 2**24  # integers up to here are exact in float32


class RowProblem:
    """Votes, labels and posteriors of each half, on one device and dtype.

    Parameters
    ----------
    spec : FitSpec
        The fit's specification (family, prior, classes, bound).
    votes : ndarray of shape (n_rows, n_voters)
        Class indices voted.
    y_idx : ndarray of shape (n_rows,)
        True class indices.
    groups : list of EvaluationGroup
        The halves (their voters and rows).
    device : torch.device
        Where the tensors live.
    dtype : torch.dtype
        float32 for the training, float64 for the certificate.
    hold_errors : bool, default=True
        Whether the training holds the 0/1 error matrix (or the multi-class Gaussian's
        vote indices) once, within its budget.
    """

    def __init__(self, spec, votes, y_idx, groups, device, dtype, hold_errors=True):
        self.spec = spec
        self.n_classes = spec.n_classes
        self.n_samples = votes.shape[0]
        self.device = device
        self.dtype = dtype
        self.posteriors = []
        self.votes = []
        self.labels = []
        self.rows = []  # position in the full sample -> row of the half (-1: not used)
        for g in groups:
            post = make_posterior(spec.posterior, len(g.voters), self.n_classes, spec.prior)
            self.posteriors.append(post)
            self.votes.append(_read_only_tensor(_block(votes, g)).to(device))
            self.labels.append(torch.from_numpy(y_idx[g.samples].astype(np.int64)).to(device))
            rows = np.full(self.n_samples, -1, dtype=np.int64)
            rows[g.samples] = np.arange(g.samples.size)
            self.rows.append(torch.from_numpy(rows).to(device))
        self.m = [int(g.samples.size) for g in groups]
        self.n_groups = len(groups)
        self._digests = [None] * self.n_groups
        # The 0/1 error matrix of each half, once, in the training dtype (the losses then
        # skip forming and converting it at every evaluation), its equal and complementary
        # columns folded (ErrorMask.folded: the default stumps come with their opposites,
        # which halves every product), but plain where the bound follows the last bits of the
        # trained point (the folded products round differently); a large one on the CPU also
        # in bytes, a quarter more memory, which the products of its rows read (the same
        # numbers: ErrorMask.with_bytes). Certificates (float64) and a family whose loss reads
        # the votes themselves (the multi-class Gaussian's) do not use it.
        self.errors = None
        uses_votes = self.posteriors[0].reads_class_votes
        if dtype != torch.float64 and not uses_votes and hold_errors:
            mask = ErrorMask if spec.bound.capabilities.follows_last_bits else ErrorMask.folded
            self.errors = [
                mask(_error_matrix(v, lab, dtype)).with_bytes()
                for v, lab in zip(self.votes, self.labels, strict=True)
            ]
        # Such votes (the multi-class Gaussian's) as int64 indices with their vote counts, once,
        # in chunks of rows (the class sums then skip both at every evaluation); within a budget
        self.class_votes = self._indices = None
        if uses_votes and hold_errors and 8 * sum(v.numel() for v in self.votes) <= _INDEX_BYTES:
            self._indices = [v.long() for v in self.votes]
            self.class_votes = [  # views of the int64 indices
                [ClassVotes(ix[s : s + ROW_CHUNK], self.n_classes, dtype) for s in _starts(ix)]
                for ix in self._indices
            ]

    def digest(self, g):
        """A hash of the votes and labels of half ``g`` (computed once): with their shape,
        it identifies what the values shared between fits (:func:`shared_value`) read."""
        if self._digests[g] is None:
            h = hashlib.blake2b(digest_size=16)
            for a in (self.votes[g], self.labels[g]):
                h.update(np.ascontiguousarray(a.cpu().numpy()).data)
            self._digests[g] = (h.hexdigest(), tuple(self.votes[g].shape))
        return self._digests[g]

    def error_mask(self, g, rows=None):
        """The held errors of half ``g`` (an :class:`ErrorMask`), of the rows ``rows`` when
        given; ``None`` where the errors are not held."""
        if self.errors is None:
            return None
        return self.errors[g] if rows is None else self.errors[g].take(rows)

    def held(self, g):
        """How the training reads half ``g``: ``"votes"``, or its error matrix ``"plain"`` or
        ``"folded"`` (the products round differently: values shared between fits are keyed
        by it)."""
        if self.errors is None:
            return "votes"
        return "plain" if self.errors[g].columns is None else "folded"

    def shared_losses(self, g, nat, scales=None):
        """:meth:`losses` of half ``g`` at ``nat`` (with ``scales``: at ``t * nat`` for each
        ``t``), without gradient; within a :func:`~skpacbayes.engine.statistics.shared_votes`
        block, computed once for every fit of the block on the same votes (a stochastic loss
        is a function of the votes, the labels and the natural parameters alone, not of the
        prior or the bound: the candidates of a selection scan the same start points)."""

        def compute():
            with torch.no_grad():
                return self.losses(g, nat, scales=scales)

        def key():
            values = nat.detach().cpu().numpy()
            return (
                "losses",
                self.digest(g),
                type(self.posteriors[g]).__name__,
                self.n_classes,
                str(values.dtype),
                values.tobytes(),
                str(self.device),
                self.held(g),
                None if scales is None else tuple(float(t) for t in scales),
            )

        if torch.device(self.device).type != "cpu":
            return compute()
        return shared_value(key, compute)

    def voter_errors(self, g):
        """Errors of each voter of half ``g`` on its rows (int64 NumPy).

        From the held error matrix where there is one (one product with a vector of ones:
        sums of at most ``2**24`` zeros and ones are exact in float32, in any order), else
        from the votes.
        """
        mask = self.error_mask(g)
        if mask is not None and self.m[g] <= _EXACT_FLOAT32_COUNT:
            ones = torch.ones(self.m[g], dtype=mask.dtype, device=mask.device)
            return mask.rmatvec(ones).to(torch.int64).cpu().numpy()
        votes, labels = self.votes[g], self.labels[g][:, None].to(self.votes[g].dtype)
        if votes.device.type == "cpu":  # NumPy's byte sums: ten times torch's bool sums
            return column_sums(votes.numpy() != labels.numpy())
        return (votes != labels).sum(dim=0).cpu().numpy().astype(np.int64)

    def gibbs(self, g, nat, scales=None):
        """Gibbs risk of half ``g`` at the natural parameters ``nat`` (NumPy), as a float.

        Raised by the loss tolerance and the statistic allowance of a certificate; in
        float32 it only guides a search (the partition tightening). With ``scales``, the
        risks at ``t * nat`` for every ``t`` of them, as an array (the losses' sums are
        formed once for the ray: :meth:`~skpacbayes.posteriors.Posterior.scaled_stochastic_losses`).
        """
        with torch.no_grad():
            values = torch.from_numpy(np.asarray(nat)).to(self.dtype)
            values = self.posteriors[g].into_domain(values, values.dtype)
            r = self.losses(g, values, scales=scales)
        allowance = self.posteriors[g].loss_tolerance + _STAT_SLACK
        if scales is None:
            return min(1.0, float(r.mean()) + allowance)
        return np.fmin(1.0, r.mean(dim=1).double().cpu().numpy() + allowance)

    def losses(self, g, nat, rows=None, scales=None):
        """Stochastic losses of half ``g`` (all its rows, in chunks, or ``rows``); with
        ``scales``, those at ``t * nat`` for each ``t``, one row per scale."""
        post, votes, labels = self.posteriors[g], self.votes[g], self.labels[g]

        def loss(chunk, y):
            if scales is None:
                return post.stochastic_loss(nat, chunk, y)
            return post.scaled_stochastic_losses(nat, chunk, y, scales)

        if self.errors is not None:  # one call: the losses chunk their own temporaries
            return loss(self.error_mask(g, rows), None)
        if rows is not None:
            return loss(votes[rows], labels[rows])
        if self.class_votes is None:
            chunks = [votes[s : s + ROW_CHUNK] for s in _starts(votes)]
        else:
            chunks = self.class_votes[g]
        parts = [
            loss(chunk, labels[s : s + ROW_CHUNK])
            for s, chunk in zip(_starts(votes), chunks, strict=True)
        ]
        return torch.cat(parts, dim=-1)

    def indices(self, g):
        """The votes of half ``g`` as int64 class indices (the held ones where there are)."""
        return self.votes[g].long() if self._indices is None else self._indices[g]


def _block(votes, group):
    """The votes of ``group`` (its rows, its voters), C-contiguous.

    Every row and every voter: the votes themselves, not copied (the problem only reads
    them). Every voter in order (one group, or out-of-bag): a take of the rows, about twenty
    times faster than the fancy indexing ``np.ix_`` needs for a subset of the columns.
    """
    n_rows, n_voters = votes.shape
    if group.voters.size == n_voters and np.array_equal(group.voters, np.arange(n_voters)):
        if group.samples.size == n_rows and np.array_equal(group.samples, np.arange(n_rows)):
            return np.ascontiguousarray(votes)
        return take_rows(votes, group.samples)
    return np.ascontiguousarray(votes[np.ix_(group.samples, group.voters)])


def take_rows(votes, rows):
    """``np.take(votes, rows, axis=0)`` for valid row indices ``rows``, into memory that
    torch allocates (the same values).

    The rows of a large vote matrix fill hundreds of MiB of fresh memory, whose first writes
    can cost more than the copy: NumPy asks the kernel for huge pages there, which a Linux
    kernel may compact memory to find, torch does not.
    """
    votes, rows = np.asarray(votes), np.asarray(rows)
    try:
        dtype = torch.from_numpy(np.empty(0, dtype=votes.dtype)).dtype
    except TypeError:  # a dtype torch does not hold
        return np.take(votes, rows, axis=0)
    out = torch.empty((rows.size, *votes.shape[1:]), dtype=dtype).numpy()
    return np.take(votes, rows, axis=0, out=out, mode="clip")


def _read_only_tensor(array):
    """``torch.from_numpy(array)`` without torch's warning on a read-only array: the votes
    of a kept vote matrix are read-only, and the problem only reads them."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The given NumPy array is not writable", UserWarning)
        return torch.from_numpy(array)


def _error_matrix(votes, labels, dtype):
    """The 0/1 errors ``votes != labels`` in ``dtype``, on the device of the tensors.

    On the CPU one NumPy comparison writes them in place, on views of the tensors (torch's
    comparison, then its conversion from bool, took about ten times as long on a million
    rows); elsewhere the device compares.
    """
    if votes.device.type != "cpu":
        return (votes != labels[:, None].to(votes.dtype)).to(dtype)
    errors = torch.empty(votes.shape, dtype=dtype)
    v = votes.numpy()
    np.not_equal(v, labels.numpy().astype(v.dtype)[:, None], out=errors.numpy(), casting="unsafe")
    return errors


def _starts(votes):
    """First row of each chunk of ``ROW_CHUNK`` rows."""
    return range(0, votes.shape[0], ROW_CHUNK)


def error_matrix_bytes(groups):
    """Bytes of the float32 error matrices the full-batch solver holds."""
    return 4 * sum(g.voters.size * g.samples.size for g in groups)
