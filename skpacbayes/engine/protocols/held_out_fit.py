"""The fit of :class:`~skpacbayes.HoldOutBoundClassifier`: which held-out protocol certifies
the validated rows, with its groups, and what the estimator copies onto itself.

The estimator validates its parameters and its rows (in memory, or a dask array checked by
:func:`~skpacbayes.engine.dask_input.dask_training_rows`) and hands them here with its
:class:`~skpacbayes.engine.protocols.held_out.HeldOutSpec`; the protocols themselves are
:mod:`skpacbayes.engine.protocols.held_out`'s.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.validation import check_consistent_length, column_or_1d

from skpacbayes.engine.dask_passes import is_dask_input, label_indices
from skpacbayes.engine.protocols.held_out import (
    DEFAULT_FRACTIONS,
    certify_fractions,
    certify_halves,
    certify_sample,
)
from skpacbayes.engine.protocols.held_out_voters import held_out_classes

__all__ = ["HeldOutFit", "auto_fractions", "certify_held_out", "refuse_grown_out_of_core"]


@dataclass(frozen=True)
class HeldOutFit:
    """What a hold-out fit hands back to the estimator.

    Attributes
    ----------
    result : HeldOutResult
        The deployed vote and its certificate.
    classes : ndarray
        The estimator's classes (``y``'s, widened to every class prefit voters know).
    group_labels : ndarray or None
        The sorted groups, when groups were given.
    """

    result: Any
    classes: np.ndarray
    group_labels: Any = None


def auto_fractions(voters):
    """The validation fractions of ``validation_fraction="auto"``.

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        The estimator's ``voters`` parameter.

    Returns
    -------
    fractions : tuple of float or None
        None (the halves protocol) for a voter bank that brings its own evaluation rule
        (split or data-independent); :data:`DEFAULT_FRACTIONS` for ``None``, a
        scikit-learn classifier or an out-of-bag bank.
    """
    own_rule = hasattr(voters, "votes") and not getattr(voters, "is_out_of_bag", False)
    return None if own_rule else DEFAULT_FRACTIONS


def refuse_grown_out_of_core(fractions):
    """Refuse the fraction protocol on a dask array: it grows the voters on all the rows that
    are not held out (``fractions`` None, the halves protocol, passes)."""
    if fractions is not None:
        raise ValueError(
            f"HoldOutBoundClassifier(validation_fraction={fractions}) grows the voters "
            "on all the rows that are not held out, which a dask array does not hold "
            "in memory. With a dask array, grow them on an in-memory sample "
            "(train_size=<number of rows>, certified on every other row), or certify "
            "voters that need no pass over the rows (voters=PrefitVoters(model) or a "
            "StumpBank, with validation_fraction=None or 'auto')."
        )


def certify_held_out(spec, X, y, classes, fractions, train_size=None, groups=None):
    """Certify validated rows by the held-out protocol the parameters choose.

    Parameters
    ----------
    spec : HeldOutSpec
        Without groups (those given here are added to it).
    X : {ndarray, sparse matrix, dask array, FrameRows} of shape (n_samples, n_features)
        The validated rows (or ``X`` as given, for models that read it so).
    y : {ndarray, dask array} of shape (n_samples,)
        Their labels.
    classes : ndarray
        The sorted labels of ``y``.
    fractions : tuple of float or None
        The validation fractions (fraction protocol); None: the halves protocol.
    train_size : int or None, default=None
        The sample protocol's training rows (then ``fractions`` is not read).
    groups : array-like of shape (n_samples,) or None, default=None
        Each row's group (in memory).

    Returns
    -------
    fitted : HeldOutFit
    """
    out_of_core = is_dask_input(X, y)
    classes = held_out_classes(spec.voters, classes)
    y_idx = label_indices(y, classes) if out_of_core else np.searchsorted(classes, y)
    group_labels = None
    if groups is not None:
        if out_of_core or is_dask_input(groups):
            raise ValueError(
                f"{spec.label}.fit: groups are certified in memory only; give "
                "NumPy arrays (or certify each group's rows on its own)."
            )
        groups = column_or_1d(groups, warn=True)
        check_consistent_length(y, groups)
        group_labels, g_idx = np.unique(groups, return_inverse=True)
        spec = dataclasses.replace(spec, groups=g_idx, n_groups=group_labels.size)
    if train_size is not None:
        result = certify_sample(spec, X, y, y_idx, classes, train_size)
    elif fractions is None:
        result = certify_halves(spec, X, y, y_idx, classes)
    else:
        result = certify_fractions(spec, X, y, y_idx, classes, fractions)
    return HeldOutFit(result, classes, group_labels)
