"""The stream protocol: fixed voters certified on the rows of a stream, at every moment.

Each batch adds the confusion matrix of the deployed vote (what ``predict`` returns) on its
rows to that of the rows read before; the certificate of the rows read so far is the
time-uniform test-set bound (:ref:`Proposition 5b <theory-streaming>`), which holds at every
number of rows at once, so the smallest value reported along the stream holds too.
"""

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import _num_samples

from skpacbayes.engine.certify import HeldOutStatement, certify
from skpacbayes.engine.dask_passes import is_dask_input, label_indices
from skpacbayes.engine.protocols.held_out import HeldOutResult
from skpacbayes.engine.risks import error_counts

__all__ = [
    "StreamState",
    "certify_batch",
    "check_first_batch",
    "check_fixed_voters",
    "check_unchanged",
    "restored_stream",
    "start_stream",
]


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

    #: the parameters every bound of a stream shares, fixed at its first batch
    SETTINGS: ClassVar[tuple] = ("voters", "delta", "per_class", "risks")

    confusion: np.ndarray
    settings: dict
    certificate: Any
    fingerprint: Any = None

    @property
    def n_samples_seen(self):
        """Rows read so far."""
        return int(self.confusion.sum())


def check_fixed_voters(name, voters):
    """Whether a stream may certify ``voters``: fixed voters (``PrefitVoters``) only.

    Parameters
    ----------
    name : str
        The estimator's name, in the error.
    voters : object
        The estimator's ``voters`` parameter.

    Returns
    -------
    True

    Raises
    ------
    AttributeError
        Saying why the estimator has no ``partial_fit``, if ``voters`` is not fixed.
    """
    from skpacbayes.voters import PrefitVoters

    if not isinstance(voters, PrefitVoters):
        got = type(voters).__name__
        if voters is None:
            got = "None (a forest grown on the rows)"
        raise AttributeError(
            f"{name}.partial_fit certifies fixed voters on a stream: it needs "
            "voters=PrefitVoters(model) (or a list of models) fitted beforehand on other "
            f"data, got voters={got}. Use {name}(voters=PrefitVoters(model)).partial_fit(X, "
            "y), or fit(X, y) to grow the voters and certify them on held-out rows."
        )
    return True


def check_first_batch(name, fitted, validation_fraction, train_size):
    """The first batch of a stream: an estimator not fitted by ``fit``, no split of the rows.

    Parameters
    ----------
    name : str
        The estimator's name, in the error.
    fitted : bool
        Whether the estimator holds the certificate of a ``fit``.
    validation_fraction, train_size : object
        The estimator's parameters: ``"auto"`` (or None) and None.

    Raises
    ------
    ValueError
        If ``fitted``, or if either parameter splits the rows.
    """
    if fitted:
        raise ValueError(
            f"This {name} was fitted with fit; partial_fit certifies a "
            "stream from its first row on. Call partial_fit on an unfitted copy "
            "(sklearn.base.clone(estimator))."
        )
    fraction = validation_fraction
    if train_size is not None or not (
        fraction is None or (isinstance(fraction, str) and fraction == "auto")
    ):
        raise ValueError(
            "partial_fit certifies every row it is given: leave validation_fraction at "
            f"'auto' (or None) and train_size at None (got validation_fraction={fraction!r}, "
            f"train_size={train_size!r})."
        )


def check_unchanged(state, settings, classes, stream_classes):
    """A later batch: the settings, the models and ``classes`` are the stream's.

    Parameters
    ----------
    state : StreamState
        The stream.
    settings : dict
        The estimator's settings now (``voters``, ``delta``, ``per_class``, ``risks``).
    classes : array-like or None
        scikit-learn's ``classes`` argument of ``partial_fit``.
    stream_classes : ndarray
        The stream's classes (those the prefit voters know).

    Raises
    ------
    ValueError
        If a setting changed, a prefit model changed (its fingerprint), or ``classes`` is
        not the stream's.
    """
    if any(settings.get(k) is not v and settings.get(k) != v for k, v in state.settings.items()):
        raise ValueError(
            "voters, delta, per_class and risks are fixed for a stream (every bound "
            "reported along it shares them); they changed since the first partial_fit. "
            "Start a new stream on an unfitted copy (sklearn.base.clone(estimator))."
        )
    if settings["voters"].fingerprint() != state.fingerprint:
        raise ValueError(
            "A prefit model of voters changed since the first partial_fit (refitted, its "
            "parameters or fitted attributes set): the stream's certificate counts the "
            "errors of the model as it was. Certify the changed model on a new stream "
            "(sklearn.base.clone(estimator)), on rows it was not fitted on."
        )
    if classes is not None and not np.array_equal(np.unique(classes), stream_classes):
        raise ValueError(
            f"classes={np.asarray(classes).tolist()!r} differs from the stream's classes "
            f"{stream_classes.tolist()!r} (those the prefit voters know)."
        )


def certify_batch(state, bound, settings, risks, X, y, labels, classes=None, deployed=None):
    """Add one batch to a stream and certify the rows read so far.

    Parameters
    ----------
    state : StreamState or None
        The stream before this batch (None for the first).
    bound : TestSet
        The test-set bound.
    settings : dict
        The parameters of the estimator every bound of the stream shares (``voters``, the
        ``PrefitVoters`` parameter, and ``delta`` among them); the first batch's are kept.
    risks : tuple of str
        Risks certified beside the error rate (names of
        :data:`~skpacbayes.engine.risks.RISKS`), from the first batch's settings.
    X : {ndarray, sparse matrix, dask array, FrameRows}
        The batch, validated.
    y : {ndarray, dask array}
        Its labels.
    labels : ndarray
        Their distinct values.
    classes : array-like or None, default=None
        scikit-learn's ``classes`` argument of a first ``partial_fit``.
    deployed : tuple or None, default=None
        A later batch's deployed voters (every one votes, unweighted) and classes, as the
        first batch fitted them.

    Returns
    -------
    state : StreamState
        The stream after this batch, its certificate complete.
    classes : ndarray
        The stream's classes.
    result : HeldOutResult
        The deployed vote and the certificate of the rows read so far.
    """
    from skpacbayes.engine.passes import VotePasses

    if state is None:
        voters = start_stream(settings["voters"], X, classes)
        stream_classes = np.asarray(voters.classes_)
    else:
        voters, stream_classes = deployed
    unknown = labels[~np.isin(labels, stream_classes)]
    if unknown.size:
        raise ValueError(
            f"y contains labels {unknown[:5].tolist()!r} that the prefit voters do not know "
            f"(their classes_ are {stream_classes.tolist()!r})."
        )
    n_classes = stream_classes.size
    weights = np.ones(voters.n_voters_)
    if is_dask_input(X, y):
        from skpacbayes.engine.dask_passes import DaskVotePasses

        y_idx = label_indices(y, stream_classes)
        passes = DaskVotePasses(voters, X)
    else:
        y_idx = np.searchsorted(stream_classes, y)
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
    state = StreamState(confusion, settings, certified.certificate, fingerprint)
    result = HeldOutResult(
        voters, np.arange(n_classes), weights, None, None, None, state.certificate
    )
    return state, stream_classes, result


def restored_stream(kept, certificate, voters):
    """The stream of an unpickled estimator, its models' fingerprint taken again.

    A stream of 0.1.0 kept its errors and rows per class (a tuple, then a StreamState of
    those fields), certified the error and the miss rates only, and took no fingerprint:
    its miss counts are kept in a confusion matrix of the same class counts (the errors of
    class ``c`` in the cell of class ``c + 1``). Identities do not survive a pickle: the
    fingerprint is taken again from the unpickled ``voters``.

    Parameters
    ----------
    kept : StreamState, tuple or dict
        The pickled stream.
    certificate : Certificate
        The estimator's ``certificate_``.
    voters : PrefitVoters
        The estimator's ``voters``.

    Returns
    -------
    state : StreamState
    """
    if isinstance(kept, tuple):
        kept = dict(zip(("class_errors", "class_sizes", "settings"), kept, strict=True))
    elif "class_errors" in vars(kept):
        kept = vars(kept)
    if isinstance(kept, dict):
        errors, sizes = np.asarray(kept["class_errors"]), np.asarray(kept["class_sizes"])
        k = errors.size
        confusion = np.zeros((k, k + 1), dtype=np.int64)
        confusion[np.arange(k), np.arange(k)] = sizes - errors
        confusion[np.arange(k), (np.arange(k) + 1) % k] += errors
        settings = {"risks": None, **kept["settings"]}
        kept = StreamState(confusion, settings, certificate, None)
    return replace(kept, fingerprint=voters.fingerprint())


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
