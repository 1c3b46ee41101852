"""The stream protocol: fixed voters certified on the rows of a stream, at every moment.

Each batch adds the errors of the deployed vote (what ``predict`` returns) on its rows, class
by class, to those of the rows read before; the certificate of the rows read so far is the
time-uniform test-set bound (:ref:`Proposition 5b <theory-streaming>`), which holds at every
number of rows at once, so the smallest value reported along the stream holds too.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.validation import _num_samples

from skpacbayes.engine.certify import HeldOutStatement, certify
from skpacbayes.engine.dask_passes import is_dask_input

__all__ = ["StreamState", "start_stream", "update_stream"]


@dataclass(frozen=True)
class StreamState:
    """What a stream has read: the counts of its rows and the settings it was started with.

    Attributes
    ----------
    class_errors, class_sizes : ndarray of int64, shape (n_classes,)
        Errors of the deployed vote and rows read, per true class.
    settings : dict
        The parameters every bound of the stream shares (``voters``, ``delta``,
        ``per_class``), as the first batch found them.
    certificate : Certificate
        The certificate of the rows read so far.
    """

    class_errors: np.ndarray
    class_sizes: np.ndarray
    settings: dict
    certificate: Any

    @property
    def n_samples_seen(self):
        """Rows read so far."""
        return int(self.class_sizes.sum())


def start_stream(voters, X, classes=None):
    """The deployed voters of a stream: fixed voters fitted from the shape of ``X`` alone.

    Parameters
    ----------
    voters : PrefitVoters
        The estimator's ``voters`` parameter (cloned).
    X : {ndarray, sparse matrix, dask array}
        The first batch (only its shape is read).
    classes : array-like or None
        scikit-learn's ``classes`` of a first ``partial_fit``: when given, it must hold the
        classes the voters know.

    Returns
    -------
    bank : PrefitVoters
        Fitted, the deployed voters (one model: the model itself).
    """
    from sklearn.base import clone

    from skpacbayes.engine.dask_passes import WHAT_WORKS
    from skpacbayes.voters._base import fit_without_rows

    bank = clone(voters)
    known = bank.known_classes()
    if classes is not None and not np.array_equal(np.unique(classes), known):
        raise ValueError(
            f"classes={np.asarray(classes).tolist()!r} differs from the classes the "
            f"prefit voters know, {known.tolist()!r}: they are the stream's classes."
        )
    fit_without_rows(bank, X, known, WHAT_WORKS)
    return bank.deployed_voters()


def update_stream(state, bound, voters, settings, X, y_idx, n_classes):
    """Add one batch to a stream and certify the rows read so far.

    Parameters
    ----------
    state : StreamState or None
        The stream before this batch (None for the first).
    bound : TestSet
        The test-set bound.
    voters : fitted voter bank
        The deployed voters (every one votes, unweighted).
    settings : dict
        ``delta``, ``per_class`` and ``voters`` of the estimator; the first batch's are kept.
    X : {ndarray, sparse matrix, dask array}
        The batch.
    y_idx : ndarray or dask array of int
        Its true class indices.
    n_classes : int
        Number of classes.

    Returns
    -------
    state : StreamState
        The stream after this batch, its certificate complete.
    """
    from skpacbayes.engine.passes import VotePasses

    weights = np.ones(voters.n_voters_)
    if is_dask_input(X):
        from skpacbayes.engine.dask_passes import DaskVotePasses

        passes = DaskVotePasses(voters, X)
    else:
        passes = VotePasses(voters, X, keep_bytes=0)
    errors, sizes = passes.class_vote_errors(
        y_idx, weights, n_classes, np.ones(_num_samples(X), dtype=bool), ties="first"
    )
    previous = None
    if state is not None:
        errors, sizes = errors + state.class_errors, sizes + state.class_sizes
        previous, settings = state.certificate, state.settings
    n_seen = int(sizes.sum())
    certified = certify(
        HeldOutStatement(
            bound,
            0,
            (int(errors.sum()),),
            (n_seen,),
            float(settings["delta"]),
            voters.n_voters_,
            weights,
            [(errors, sizes)] if settings["per_class"] else None,
            anytime=True,
            previous=previous,
        )
    )
    return StreamState(errors, sizes, settings, certified.certificate)
