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

from skpacbayes.engine.dask_passes import (
    WHAT_WORKS,
    FrameRows,
    column_array,
    is_dask_array,
    is_dask_frame,
    is_dask_input,
    is_dask_series,
    rows_array,
)

__all__ = [
    "dask_rows",
    "dask_training_data",
    "refuse_dask_input",
]


def dask_training_data(estimator, X, y, min_classes=2, reset=True):
    """Check a dask ``X`` and its labels; the dask counterpart of ``validate_training_data``.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_`` (and ``feature_names_in_`` from a DataFrame's columns).
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        Finite numeric features (NaN and infinite values are refused by the passes); or,
        when the estimator's voters are prefit models that read their rows as given
        (``PrefitVoters``), a dask DataFrame, each partition of which reaches the models.
    y : dask.array.Array, dask.dataframe.Series or array-like of shape (n_samples,)
        Class labels, by the position of their rows; rechunked to the row chunks of ``X``
        when they differ.
    min_classes : int, default=2
        Fewest distinct labels accepted (1 for a batch of a stream, ``partial_fit``).
    reset : bool, default=True
        Whether a DataFrame's columns set ``feature_names_in_`` (False: they are checked
        against it, as for a later batch of a stream).

    Returns
    -------
    X : dask.array.Array or FrameRows
        Float features in a single column chunk, or the DataFrame's partitions with their
        numbers of rows.
    y : dask.array.Array
        The labels, in the row chunks of ``X``.
    classes : ndarray
        Sorted distinct labels (at least two), computed in one pass over ``y``.
    """
    import dask.array as da
    from sklearn.utils.validation import _check_feature_names

    name = type(estimator).__name__
    frame = is_dask_frame(X) and getattr(getattr(estimator, "voters", None), "_keeps_input", False)
    rows = FrameRows(X) if frame else rows_array(X, f"{name}.fit")  # FrameRows: a pass
    if rows.shape[0] == 0:
        raise ValueError(f"{name}.fit: X has no row.")
    y = _labels(name, y, rows.chunks[0])
    classes = np.unique(da.unique(y).compute())
    _check_classes(name, classes, min_classes)
    estimator.n_features_in_ = rows.shape[1]
    if frame:  # the columns, as scikit-learn records and checks them
        _check_feature_names(estimator, X._meta, reset=reset)
    elif hasattr(estimator, "feature_names_in_"):  # a previous fit on a DataFrame
        del estimator.feature_names_in_
    return rows, y, classes


def _check_classes(name, classes, min_classes):
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(classes)
    if classes.shape[0] < min_classes:
        raise ValueError(
            f"{name} needs samples of at least 2 classes in the data, but the data contains "
            f"only one class: {classes.tolist()[0]!r}."
        )


def _labels(name, y, row_chunks):
    """The labels ``y`` (a dask array, a dask Series, by the position of its rows, or labels
    in memory) as a 1-D dask array in the row chunks ``row_chunks`` of ``X``."""
    import dask.array as da
    from sklearn.utils.validation import column_or_1d

    if is_dask_array(y):
        if y.ndim != 1:
            raise ValueError(f"{name}.fit needs a 1-D dask array y; got shape {y.shape}.")
        if any(math.isnan(c) for c in y.chunks[0]):
            raise ValueError("The chunks of y have unknown sizes: call y.compute_chunk_sizes().")
    elif is_dask_series(y):
        y = column_array(y)
    elif is_dask_input(y):
        raise TypeError(
            f"y must be a dask array, a dask Series or in-memory labels; got {type(y).__name__}."
        )
    else:
        y = da.from_array(column_or_1d(np.asarray(y), warn=True))
    if y.shape[0] != sum(row_chunks):
        raise ValueError(f"X has {sum(row_chunks)} rows but y has {y.shape[0]} labels.")
    return y if y.chunks[0] == tuple(row_chunks) else y.rechunk((tuple(row_chunks),))


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
    if is_dask_frame(X):
        return _map_partitions(estimator, method, X, output)
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


def _map_partitions(estimator, method, X, output):
    """``method`` of ``estimator`` on every partition of a dask DataFrame ``X`` (each a pandas
    DataFrame, as the prefit models read it): a lazy dask array of unknown row chunks."""
    import dask.array as da
    from dask import delayed

    n_classes = len(estimator.classes_)
    one_column = output == "labels" or (output == "scores" and n_classes == 2)
    dtype = np.asarray(estimator.classes_).dtype if output == "labels" else np.float64
    shape = (math.nan,) if one_column else (math.nan, n_classes)
    task = delayed(_apply_method, pure=False)
    model = delayed(estimator, pure=False)
    blocks = [task(part, model, method.__name__) for part in X.to_delayed()]
    return da.concatenate([da.from_delayed(b, shape=shape, dtype=dtype) for b in blocks])


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
