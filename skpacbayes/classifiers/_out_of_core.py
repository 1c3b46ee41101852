"""Dask arrays at the estimators' doors: the checks of ``fit`` and the lazy predictions.

The map-reduce passes themselves are the engine's (:mod:`skpacbayes.engine.dask_passes`), and
so are the list of the fits that cannot run on a dask array
(:func:`skpacbayes.engine.fit.out_of_core_refusal`) and what works instead
(``engine.dask_passes.WHAT_WORKS``), which the estimators add to the refusals.
"""

import functools
import math
import uuid

import numpy as np

from skpacbayes.engine.dask_passes import WHAT_WORKS, is_dask_array, is_dask_input, rows_array

__all__ = [
    "dask_rows",
    "dask_training_data",
    "refuse_dask_input",
]


def dask_training_data(estimator, X, y, min_classes=2):
    """Check a dask ``X`` and its labels; the dask counterpart of ``validate_training_data``.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_``.
    X : dask.array.Array of shape (n_samples, n_features)
        Finite numeric features (NaN and infinite values are refused by the passes).
    y : dask.array.Array or array-like of shape (n_samples,)
        Class labels; rechunked to the row chunks of ``X`` when they differ.
    min_classes : int, default=2
        Fewest distinct labels accepted (1 for a batch of a stream, ``partial_fit``).

    Returns
    -------
    X : dask.array.Array
        Float features in a single column chunk.
    y : dask.array.Array
        The labels, in the row chunks of ``X``.
    classes : ndarray
        Sorted distinct labels (at least two), computed in one pass over ``y``.
    """
    import dask.array as da
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import column_or_1d

    name = type(estimator).__name__
    X = rows_array(X, f"{name}.fit")
    n_rows = X.shape[0]
    if n_rows == 0:
        raise ValueError(f"{name}.fit: X has no row.")
    if is_dask_array(y):
        if y.ndim != 1:
            raise ValueError(f"{name}.fit needs a 1-D dask array y; got shape {y.shape}.")
        if any(math.isnan(c) for c in y.chunks[0]):
            raise ValueError("The chunks of y have unknown sizes: call y.compute_chunk_sizes().")
    elif is_dask_input(y):
        raise TypeError(f"y must be a dask array or in-memory labels; got {type(y).__name__}.")
    else:
        y = column_or_1d(np.asarray(y), warn=True)
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels.")
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    classes = np.unique(da.unique(y).compute())
    check_classification_targets(classes)
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"{name} needs samples of at least 2 classes in the data, but the data contains "
            f"only one class: {classes.tolist()[0]!r}."
        )
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):  # a previous fit on a DataFrame
        del estimator.feature_names_in_
    return X, y, classes


def refuse_dask_input(estimator, X, y, reason):
    """Raise a ``ValueError`` naming what works when ``X`` or ``y`` is a dask collection.

    For the estimators that hold their training rows in memory: a dask array would
    otherwise be loaded whole, silently.

    Parameters
    ----------
    estimator : estimator
        Named by the error.
    X, y : object
        The arguments of ``fit``.
    reason : str
        Why the estimator needs the rows in memory (completes "it ...").

    Raises
    ------
    ValueError
        If ``X`` or ``y`` is a dask collection.
    """
    if is_dask_input(X, y):
        raise ValueError(
            f"{type(estimator).__name__} cannot fit on a dask array: it {reason}, which a "
            f"dask array does not hold in memory. {WHAT_WORKS}"
        )


def _map_rows(estimator, method, X, output):
    """``method`` of ``estimator`` on every block of rows of ``X``: a lazy dask array."""
    from dask import delayed
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    if not is_dask_array(X) or X.ndim != 2:
        raise ValueError(
            f"{type(estimator).__name__}.{method.__name__} takes a 2-D dask array (or "
            f"in-memory data); got {type(X).__name__} of shape {getattr(X, 'shape', None)}."
        )
    if X.numblocks[1] > 1:  # the voters read whole rows
        X = X.rechunk({1: -1})
    n_classes = len(estimator.classes_)
    one_column = output == "labels" or (output == "scores" and n_classes == 2)
    dtype = np.asarray(estimator.classes_).dtype if output == "labels" else np.float64
    name = f"{method.__name__}-{uuid.uuid4().hex}"
    kwargs = {"drop_axis": 1} if one_column else {"chunks": (X.chunks[0], (n_classes,))}
    return X.map_blocks(
        _apply_method,
        delayed(estimator, pure=False),
        method.__name__,
        dtype=dtype,
        name=name,
        meta=np.empty((0,) * (1 if one_column else 2), dtype=dtype),
        **kwargs,
    )


def _apply_method(X, estimator, name):
    return getattr(estimator, name)(X)


def dask_rows(output):
    """Decorator of ``predict``-like methods: a dask array in, a lazy dask array out.

    ``output`` is ``"labels"`` (one label per row), ``"proba"`` (one column per class) or
    ``"scores"`` (one column for two classes, else one per class). The method runs on each
    block of rows on the workers, as dask-ml's ``ParallelPostFit`` does.
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X):
            if is_dask_input(X):
                return _map_rows(self, method, X, output)
            return method(self, X)

        return wrapper

    return decorate
