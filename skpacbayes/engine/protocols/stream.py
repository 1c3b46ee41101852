"""The stream protocol: fixed voters certified on the rows of a stream, at every moment.

Each batch adds the confusion matrix of the deployed vote (what ``predict`` returns) on its
rows to that of the rows read before; the certificate of the rows read so far is the
time-uniform test-set bound (:ref:`Proposition 5b <theory-streaming>`), which holds at every
number of rows at once, so the smallest value reported along the stream holds too.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.validation import _num_samples

from skpacbayes.engine.certify import HeldOutStatement, certify
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.risks import error_counts

__all__ = ["StreamState", "start_stream", "update_stream"]


@dataclass(frozen=True)
class StreamState:
    """What a stream has read: the counts of its rows and the settings it was started with.

    Attributes
    ----------
    confusion : ndarray of int64, shape (n_classes, n_classes + 1)
        Rows read per (true, predicted) class of the deployed vote.
    settings : dict
        The parameters every bound of the stream shares (``voters``, ``delta``, the risks),
        as the first batch found them.
    certificate : Certificate
        The certificate of the rows read so far.
    fingerprint : ModelFingerprint or None
        :meth:`~skpacbayes.voters.PrefitVoters.fingerprint` of the models at the first
        batch (taken again when the stream is restored from a pickle).
    """

    confusion: np.ndarray
    settings: dict
    certificate: Any
    fingerprint: Any = None

    @property
    def n_samples_seen(self):
        """Rows read so far."""
        return int(self.confusion.sum())


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


def update_stream(state, bound, voters, settings, risks, X, y_idx, n_classes):
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
        The parameters of the estimator every bound of the stream shares (``delta`` among
        them); the first batch's are kept.
    risks : tuple of str
        Risks certified beside the error rate (names of
        :data:`~skpacbayes.engine.risks.RISKS`), from the first batch's settings.
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
    rows = np.ones(_num_samples(X), dtype=bool)
    confusion = passes.vote_confusions(y_idx, weights[None], n_classes, rows)[0]
    previous = None
    if state is not None:
        confusion = confusion + state.confusion
        previous, settings = state.certificate, state.settings
    certified = certify(
        HeldOutStatement(
            bound,
            0,
            (error_counts(confusion)[0],),
            (error_counts(confusion)[1],),
            float(settings["delta"]),
            voters.n_voters_,
            weights,
            (confusion,),
            tuple(risks),
            anytime=True,
            previous=previous,
        )
    )
    fingerprint = state.fingerprint if state is not None else settings["voters"].fingerprint()
    return StreamState(confusion, settings, certified.certificate, fingerprint)
