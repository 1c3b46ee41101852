"""The sample protocol: candidates grown on an in-memory sample of the rows, each certified on
its held-out rows of the sample and on every row outside it, read once for all of them.

With ``train_size=n``, ``n`` rows are drawn from the seed and the number of rows alone
(:func:`~skpacbayes.engine.protocols.held_out.training_rows`) and held in memory; each
candidate is grown on its training rows of the sample as on a whole in-memory sample, and
certified on every row its voters never saw. The rows outside the sample are read once for
all the candidates (one map-reduce over the blocks of a dask array); only integer counts come
back.
"""

import numpy as np

from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.protocols.held_out import HeldOutCount, training_rows

__all__ = ["DASK_TRAIN_SIZE", "Sample", "StackedVoters", "resolve_train_size"]

#: most rows ``train_size="auto"`` draws into memory from a dask array (and at most a third
#: of its rows, so that every candidate is certified on at least two thirds of them)
DASK_TRAIN_SIZE = 50_000


def resolve_train_size(train_size, n_rows, out_of_core):
    """The number of rows drawn into memory, or None for the in-memory protocol on every row.

    Parameters
    ----------
    train_size : "auto", int or None
        The estimator's parameter.
    n_rows : int
        Rows handed to ``fit``.
    out_of_core : bool
        Whether they are a dask array.

    Returns
    -------
    train_size : int or None
        ``"auto"``: ``min(DASK_TRAIN_SIZE, n_rows // 3)`` for a dask array, None in memory.

    Raises
    ------
    ValueError
        ``train_size=None`` with a dask array (it would load every row).

    Examples
    --------
    >>> from skpacbayes.engine.protocols.sample import resolve_train_size
    >>> resolve_train_size("auto", 300_000, True), resolve_train_size("auto", 300_000, False)
    (50000, None)
    >>> resolve_train_size("auto", 30_000, True)
    10000
    """
    if isinstance(train_size, str):  # "auto"
        if not out_of_core:
            return None
        if n_rows < 6:
            raise ValueError(
                f"train_size='auto' draws a third of the rows into memory: {n_rows} rows are "
                "too few to grow and certify forests on (at least 6)."
            )
        return min(DASK_TRAIN_SIZE, n_rows // 3)
    if train_size is None and out_of_core:
        raise ValueError(
            "CertifiedVoteClassifier(train_size=None) grows its forests on most of the rows, "
            "which a dask array does not hold in memory: set train_size='auto' or a number of "
            "rows (the forests grown on that many rows drawn into memory, each certified on "
            "every other row)."
        )
    return None if train_size is None else int(train_size)


class StackedVoters:
    """The voters of several fitted banks side by side, each bank's votes mapped by its codes.

    Parameters
    ----------
    banks : list of voter banks
        Fitted.
    codes : list of ndarray of int
        ``codes[b][i]``: index, among ``n_classes``, of class ``i`` of bank ``b``.
    n_classes : int
        Number of classes of the mapped votes.
    """

    def __init__(self, banks, codes, n_classes):
        self.banks = list(banks)
        self.codes = [np.asarray(c) for c in codes]
        self.n_classes_ = int(n_classes)
        self.n_voters_ = sum(int(b.n_voters_) for b in self.banks)

    def votes(self, X):
        """Votes of every bank on ``X``, mapped by its codes, one column per voter."""
        dtype = np.int8 if self.n_classes_ <= 127 else np.intp
        return np.hstack(
            [c.astype(dtype)[b.votes(X)] for b, c in zip(self.banks, self.codes, strict=True)]
        )


class Sample:
    """The sample of ``train_size`` rows in memory, and the counts on every other row.

    Parameters
    ----------
    X : ndarray, sparse matrix or dask array of shape (n_rows, n_features)
        Every row of the fit (validated).
    y : ndarray or dask array of shape (n_rows,)
        Their labels (in the row chunks of ``X`` for a dask array).
    classes : ndarray
        The sorted labels of ``y``.
    train_size : int
        Rows drawn (``1 <= train_size <= n_rows - 1``).
    seed : int
        Seed of the draw (:func:`~skpacbayes.engine.protocols.held_out.rows_seed`): the rows
        depend on it and on ``n_rows`` only.

    Attributes
    ----------
    rows : ndarray of int
        Sorted indices of the drawn rows.
    X, y : ndarray
        The drawn rows, in memory.
    """

    def __init__(self, X, y, classes, train_size, seed):
        self._X, self._y, self.classes = X, y, classes
        self.rows = training_rows(X.shape[0], int(train_size), seed)
        if is_dask_input(X, y):
            import dask

            self.X, self.y = dask.compute(X[self.rows], y[self.rows])
        else:
            self.X, self.y = X[self.rows], y[self.rows]
        missing = np.setdiff1d(classes, self.y)
        if missing.size:
            raise ValueError(
                f"The {self.rows.size} rows drawn for train_size={self.rows.size} miss the "
                f"classes {missing[:5].tolist()!r} of y, which their forests could never "
                "predict: use a larger train_size."
            )

    def add_outside(self, counted):
        """Each counted vote's counts on its held-out rows of the sample plus every row
        outside the sample, in one pass over the rows outside it.

        Parameters
        ----------
        counted : list of HeldOutCount
            Grown on the sample (their ``held`` rows index it).

        Returns
        -------
        counted : list of HeldOutCount
            The same votes, counted on every row their voters never saw (``held`` indexes
            the rows given to ``fit``); ``details`` records ``train_size`` and
            ``held_out_rows``.
        """
        from skpacbayes.engine.passes import VotePasses

        classes, n_classes = self.classes, self.classes.size
        rest = np.ones(self._X.shape[0], dtype=bool)
        rest[self.rows] = False
        bank = StackedVoters([c.voters for c in counted], [c.codes for c in counted], n_classes)
        weights = np.zeros((len(counted), bank.n_voters_))
        start = 0
        for i, c in enumerate(counted):  # each candidate's plain vote: its own block
            weights[i, start : start + c.voters.n_voters_] = 1.0
            start += c.voters.n_voters_
        if is_dask_input(self._X):
            from skpacbayes.engine.dask_passes import DaskVotePasses, label_indices

            passes, rows = DaskVotePasses(bank, self._X), rest
            y_idx = label_indices(self._y, classes)
        else:
            y_idx = np.searchsorted(classes, self._y[rest])
            passes, rows = VotePasses(bank, self._X[rest]), np.ones(y_idx.size, dtype=bool)
        outside = passes.vote_confusions(y_idx, weights, n_classes, rows)
        outside_rows = np.flatnonzero(rest)
        added = []
        for c, confusion in zip(counted, outside, strict=True):
            held = np.union1d(self.rows[c.held], outside_rows)
            confusion = c.confusion + confusion
            details = {"train_size": int(self.rows.size), "held_out_rows": int(confusion.sum())}
            added.append(HeldOutCount(c.voters, c.codes, held, confusion, c.n_train, details))
        return added
