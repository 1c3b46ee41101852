"""The votes of the training rows, pass after pass, in chunks of rows (in memory).

The counterpart of :mod:`skpacbayes.engine.dask_passes` for a dask array: the same passes
(the counts, the errors of a weighted vote, the whole matrix), computed here in the process.
"""

import numpy as np
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from skpacbayes.engine.sharing import rows_key, shared_entries
from skpacbayes.engine.statistics import count_statistics

__all__ = ["TotalVoteErrors", "VotePasses", "shared_vote_matrix"]

_KEEP_VOTES_BYTES = 512 * 2**20  # vote matrix kept between passes (else computed again)
_CHUNK_ROWS = 2**16


def shared_vote_matrix(voters, X):
    """``voters.votes(X)``; within a :func:`~skpacbayes.engine.sharing.shared_votes` block,
    computed once per
    (voters, ``X``) and read-only.

    The prediction side of the sharing: the fits of a block that predict on the same rows
    (a benchmark's test rows) read one vote matrix, the one their training computed when
    ``X`` is the training sample.

    Parameters
    ----------
    voters : voter bank
        Fitted.
    X : {ndarray, sparse matrix} of shape (n_rows, n_features)
        Rows.

    Returns
    -------
    ndarray of shape (n_rows, n_voters)
        The votes (read-only within a block).
    """
    if shared_entries() is None:
        return voters.votes(X)
    return VotePasses(voters, X).whole()


class TotalVoteErrors:
    """``vote_errors`` as the sum of a pass's ``class_vote_errors`` (both kinds of passes)."""

    def vote_errors(self, y_idx, weights, n_classes, rows, ties="error"):
        """One pass: where the weighted vote errs on the rows ``rows`` (bool mask).

        Returns the number of errors and of rows (``ties``: see
        :func:`~skpacbayes.engine.vote.vote_errors`).
        """
        errors, sizes = self.class_vote_errors(y_idx, weights, n_classes, rows, ties)
        return int(errors.sum()), int(sizes.sum())


class VotePasses(TotalVoteErrors):
    """The votes of the training rows, pass after pass, in chunks of rows.

    The vote matrix is computed chunk by chunk from the voters and ``X``; when it fits in
    ``keep_bytes`` the chunks are kept for the next pass, otherwise each pass computes them
    again, so that a pass over more rows than fit in memory holds one chunk at a time.

    Parameters
    ----------
    voters : voter bank
        Fitted.
    X : {ndarray, sparse matrix} of shape (n_rows, n_features)
        The training rows.
    keep_bytes : int, default=512 MiB
        Largest vote matrix kept between passes.
    chunk_rows : int, default=65536
        Rows per chunk.
    """

    out_of_core = False  # every row in the process: the row path holds them all

    def __init__(self, voters, X, keep_bytes=_KEEP_VOTES_BYTES, chunk_rows=_CHUNK_ROWS):
        self.voters = voters
        self.X = X
        self.n_rows = _num_samples(X)
        self.chunk_rows = max(1, int(chunk_rows))
        itemsize = 1 if voters.n_classes_ <= 127 else 8
        self._keep = self.n_rows * voters.n_voters_ * itemsize <= keep_bytes
        self._kept = None
        self._shared = shared_entries() if self._keep else None
        if self._shared is not None:
            entry = self._shared.get((id(voters), rows_key(X)))
            self._kept = None if entry is None else entry[2]

    def _store(self, kept):
        """Keep ``kept`` (read-only) for the next passes, and for the other fits of a
        :func:`~skpacbayes.engine.sharing.shared_votes` block."""
        for _, votes in kept:
            votes.setflags(write=False)
        self._kept = kept
        if self._shared is not None:
            self._shared[(id(self.voters), rows_key(self.X))] = (self.voters, self.X, kept)

    def chunks(self):
        """Yield ``(start, votes)`` for consecutive chunks of rows."""
        if self._kept is not None:
            yield from self._kept
            return
        kept = [] if self._keep else None
        for start in range(0, self.n_rows, self.chunk_rows):
            rows = self.X
            if start > 0 or self.n_rows > self.chunk_rows:  # (rows as given: a DataFrame)
                rows = _safe_indexing(self.X, slice(start, start + self.chunk_rows))
            votes = self.voters.votes(rows)
            if kept is not None:
                kept.append((start, votes))
            yield start, votes
        if kept is not None:
            self._store(kept)

    def statistics(self, y_idx, scheme, pairs, device="cpu"):
        """One pass: the counts of :func:`count_statistics`."""
        return count_statistics(self.chunks(), y_idx, scheme, pairs, device=device)

    def class_vote_errors(self, y_idx, weights, n_classes, rows, ties="error"):
        """One pass: the errors of the weighted vote on the rows ``rows``, class by class.

        Returns two int64 arrays of shape ``(n_classes,)``: the errors on the rows of each
        true class and the number of those rows (``ties``: see
        :func:`~skpacbayes.engine.vote.vote_errors`).
        """
        ((errors, sizes),) = self._vote_error_counts(
            y_idx, [(weights, None)], n_classes, rows, ties
        )
        return errors, sizes

    def vote_confusions(self, y_idx, weights, n_classes, rows):
        """One pass for several plain votes: the confusion matrix of what each predicts.

        The prediction of a weighted vote is what ``predict`` returns: the first class of
        largest score (``numpy.argmax``). Each vote reads the columns of its voters only
        (those of nonzero weight), so votes over disjoint blocks of voters (several banks
        side by side) cost what each alone would.

        Parameters
        ----------
        y_idx : ndarray of shape (n_rows,)
            True class indices.
        weights : ndarray of shape (n_votes, n_voters)
            One weighted vote per row.
        n_classes : int
        rows : ndarray of bool, shape (n_rows,)
            The rows counted.

        Returns
        -------
        confusions : ndarray of int64, shape (n_votes, n_classes, n_classes + 1)
            For each vote, the rows of each (true, predicted) cell
            (:func:`~skpacbayes.engine.risks.confusion_counts`; its last column, no
            answer, is 0).
        """
        from skpacbayes.engine.risks import confusion_counts
        from skpacbayes.engine.vote import vote_predictions

        weights = np.asarray(weights)
        supports = [np.flatnonzero(w) for w in weights]
        confusions = np.zeros((len(weights), n_classes, n_classes + 1), dtype=np.int64)
        for start, chunk in self.chunks():
            stop = start + chunk.shape[0]
            in_rows = rows[start:stop]
            y_chunk = y_idx[start:stop][in_rows]
            for i, (w, support) in enumerate(zip(weights, supports, strict=True)):
                predicted = vote_predictions(chunk[:, support], w[support], n_classes)[in_rows]
                confusions[i] += confusion_counts(y_chunk, predicted, n_classes)
        return confusions

    def _vote_error_counts(self, y_idx, votes, n_classes, rows, ties):
        """One pass: for each ``(weights, columns)`` of ``votes`` (``columns`` None: every
        voter), the errors and the rows of each true class, shape ``(len(votes), 2,
        n_classes)``."""
        from skpacbayes.engine.vote import vote_errors

        counts = np.zeros((len(votes), 2, n_classes), dtype=np.int64)
        for start, chunk in self.chunks():
            stop = start + chunk.shape[0]
            y_chunk, in_rows = y_idx[start:stop], rows[start:stop]
            sizes = np.bincount(y_chunk[in_rows], minlength=n_classes)
            for i, (w, columns) in enumerate(votes):
                voted = chunk if columns is None else chunk[:, columns]
                errs = vote_errors(voted, y_chunk, w, n_classes, ties)
                counts[i, 0] += np.bincount(y_chunk[errs & in_rows], minlength=n_classes)
                counts[i, 1] += sizes
        return counts

    def whole(self):
        """The whole vote matrix (the per-row optimisers need it)."""
        if self._kept is not None and len(self._kept) == 1:
            return self._kept[0][1]
        if self._kept is not None:
            votes = np.concatenate([chunk for _, chunk in self._kept])
        else:
            votes = self.voters.votes(self.X)
        if self._keep:
            self._store([(0, votes)])
        return votes
