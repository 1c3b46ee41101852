"""CertifiedVote's sample protocol: every candidate grown on an in-memory sample of the rows,
certified on its held-out rows of the sample and on every row outside it, in one pass.

With ``train_size=n``, ``n`` rows are drawn from the seed and the number of rows alone
(:func:`~skpacbayes.classifiers._held_out_rows.training_rows`) and held in memory; the
candidates are fitted on them as on a whole in-memory sample (each forest grown on its
training rows of the sample), and each is then certified on every row its voters never
saw: its held-out rows of the sample and every row outside the sample. The rows outside the
sample are read once for all the candidates (one map-reduce over the blocks of a dask
array); only integer counts come back.
"""

import numpy as np

from skpacbayes.classifiers._held_out_rows import training_rows
from skpacbayes.engine.dask_passes import is_dask_input

__all__ = ["DASK_TRAIN_SIZE", "SampleProtocol", "StackedVoters", "resolve_train_size"]

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
    >>> from skpacbayes.classifiers._certified_sample import resolve_train_size
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


class SampleProtocol:
    """The sample of ``train_size`` rows in memory, and the certificates on every other row.

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
        Seed of the draw (:func:`~skpacbayes.classifiers._held_out_rows.rows_seed`): the
        rows depend on it and on ``n_rows`` only.

    Attributes
    ----------
    sample : ndarray of int
        Sorted indices of the drawn rows.
    X_sample, y_sample : ndarray
        The drawn rows, in memory.
    """

    def __init__(self, X, y, classes, train_size, seed):
        self.X, self.y, self.classes = X, y, classes
        self.sample = training_rows(X.shape[0], int(train_size), seed)
        if is_dask_input(X, y):
            import dask

            self.X_sample, self.y_sample = dask.compute(X[self.sample], y[self.sample])
        else:
            self.X_sample, self.y_sample = X[self.sample], y[self.sample]
        missing = np.setdiff1d(classes, self.y_sample)
        if missing.size:
            raise ValueError(
                f"The {self.sample.size} rows drawn for train_size={self.sample.size} miss the "
                f"classes {missing[:5].tolist()!r} of y, which their forests could never "
                "predict: use a larger train_size."
            )

    def candidates(self, candidates, out_of_bag):
        """The candidates that a sample certifies: the hold-out ones (and stumps).

        The out-of-bag candidates are certified on the rows their forest is grown on: they
        are left out (``out_of_bag="auto"``) or refused (``out_of_bag=True``). The list
        depends on the parameters only, so the split of ``delta`` over it is fixed before
        the data.
        """
        if out_of_bag is True:
            raise ValueError(
                "The out-of-bag candidates (out_of_bag=True) are certified on the rows their "
                "forest is grown on; with train_size (and on a dask array) the forests are "
                "grown on a sample and certified on the other rows. Set out_of_bag=False or "
                "'auto'."
            )
        return [(info, est) for info, est in candidates if info["kind"] != "out_of_bag"]

    def certify(self, estimators):
        """Certify each fitted hold-out candidate on every row its voters never saw.

        Its held-out rows of the sample and every row outside the sample; one pass over the
        rows outside the sample for all of them. Each candidate is updated in place: one
        statement at its own ``delta`` (and per class with ``per_class``), ``bound_``,
        ``validation_indices_`` (rows of the ``X`` given to ``fit``).

        Parameters
        ----------
        estimators : list of fitted HoldOutBoundClassifier
            Fitted on ``(X_sample, y_sample)`` with one validation fraction each (their
            ``validation_indices_`` index the sample).
        """
        from skpacbayes.engine.passes import VotePasses

        classes, n_classes = self.classes, self.classes.size
        rest = np.ones(self.X.shape[0], dtype=bool)
        rest[self.sample] = False
        banks, codes = [e.voters_ for e in estimators], [e._codes for e in estimators]
        bank = StackedVoters(banks, codes, n_classes)
        weights = np.zeros((len(estimators), bank.n_voters_))
        start = 0
        for i, est in enumerate(estimators):  # each candidate's plain vote: its own block
            weights[i, start : start + est.voters_.n_voters_] = est.weights_
            start += est.voters_.n_voters_
        if is_dask_input(self.X):
            from skpacbayes.engine.dask_passes import DaskVotePasses, label_indices

            passes, rows = DaskVotePasses(bank, self.X), rest
            y_idx = label_indices(self.y, classes)
        else:
            y_idx = np.searchsorted(classes, self.y[rest])
            passes, rows = VotePasses(bank, self.X[rest]), np.ones(y_idx.size, dtype=bool)
        outside = passes.class_vote_errors_each(y_idx, weights, n_classes, rows, ties="first")
        y_idx_sample = np.searchsorted(classes, self.y_sample)
        outside_rows = np.flatnonzero(rest)
        for est, (errors, sizes) in zip(estimators, outside, strict=True):
            held = est.validation_indices_  # its held-out rows of the sample
            count = est._plain_vote_errors(self.X_sample[held], y_idx_sample[held])
            inside = count(np.flatnonzero(est.weights_), np.ones(held.size, dtype=bool))
            counts = (inside[0] + errors, inside[1] + sizes)
            n_held = int(counts[1].sum())
            n_voters = est.voters_.n_voters_
            est._set_certificate(0, [int(counts[0].sum())], [n_held], n_voters, [counts])
            est.bound_ = float(est.certificate_.value)
            est.validation_indices_ = np.union1d(self.sample[held], outside_rows)
            est.certificate_.details.update(train_size=int(self.sample.size), held_out_rows=n_held)
