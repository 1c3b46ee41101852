"""Dask collections at the estimators' doors: the checks of the training rows, the refusal of
the fits that hold their rows in memory, and the lazy predictions of a fitted estimator.

The estimators record what these checks find (``n_features_in_``, the feature names of a
DataFrame) and name the method called; the map-reduce passes themselves are
:mod:`skpacbayes.engine.dask_passes`'s. Nothing here imports dask at module level.
"""

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

__all__ = ["dask_training_rows", "lazy_predictions", "refuse_dask_input"]


def dask_training_rows(X, y, name, min_classes=2, keeps_input=False):
    """Check a dask ``X`` and its labels; the dask counterpart of ``validate_training_data``.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        Finite numeric features (NaN and infinite values are refused by the passes); or,
        when the estimator's voters are prefit models that read their rows as given
        (``PrefitVoters``), a dask DataFrame, each partition of which reaches the models.
    y : dask.array.Array, dask.dataframe.Series or array-like of shape (n_samples,)
        Class labels, by the position of their rows; rechunked to the row chunks of ``X``
        when they differ.
    name : str
        The estimator's name, in the errors.
    min_classes : int, default=2
        Fewest distinct labels accepted (1 for a batch of a stream, ``partial_fit``).
    keeps_input : bool, default=False
        Whether the voters read their rows as given (a DataFrame is then kept a DataFrame).

    Returns
    -------
    X : dask.array.Array or FrameRows
        Float features in a single column chunk, or the DataFrame's partitions with their
        numbers of rows.
    y : dask.array.Array
        The labels, in the row chunks of ``X``.
    classes : ndarray
        Sorted distinct labels (at least ``min_classes``), computed in one pass over ``y``.
    columns : pandas.DataFrame or None
        The DataFrame's empty frame of columns (``X._meta``), whose names the estimator
        records or checks as scikit-learn does; None for a dask array.
    """
    import dask.array as da

    frame = is_dask_frame(X) and keeps_input
    rows = FrameRows(X) if frame else rows_array(X, f"{name}.fit")  # FrameRows: a pass
    if rows.shape[0] == 0:
        raise ValueError(f"{name}.fit: X has no row.")
    y = _labels(name, y, rows.chunks[0])
    classes = np.unique(da.unique(y).compute())
    _check_classes(name, classes, min_classes)
    return rows, y, classes, X._meta if frame else None


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


def refuse_dask_input(name, X, y, reason):
    """Raise a ``ValueError`` naming what works when ``X`` or ``y`` is a dask collection.

    For the estimators that hold their training rows in memory: a dask array would
    otherwise be loaded whole, silently.

    Parameters
    ----------
    name : str
        The estimator's name, in the error.
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
            f"{name} cannot fit on a dask array: it {reason}, which a dask array does not "
            f"hold in memory. {WHAT_WORKS}"
        )


def lazy_predictions(estimator, method, X, output):
    """The fitted ``estimator``'s ``method`` (a name) on every block of rows of a dask ``X``.

    Parameters
    ----------
    estimator : fitted estimator
        Shipped to the workers, where its ``method`` runs on each block of rows (each
        partition of a dask DataFrame, a pandas DataFrame as prefit models read it).
    method : str
        ``"predict"``, ``"predict_proba"`` or ``"decision_function"``.
    X : dask.array.Array or dask.dataframe.DataFrame
        The rows (a 2-D dask array, rechunked to whole rows, or a DataFrame).
    output : {"labels", "proba", "scores"}
        One label per row, one column per class, or one column for two classes (else one
        per class).

    Returns
    -------
    out : dask.array.Array
        Lazy (row chunks of unknown size for a DataFrame).
    """
    from dask import delayed

    n_classes = len(estimator.classes_)
    one_column = output == "labels" or (output == "scores" and n_classes == 2)
    dtype = np.asarray(estimator.classes_).dtype if output == "labels" else np.float64
    if is_dask_frame(X):
        return _map_partitions(estimator, method, X, one_column, dtype, n_classes)
    if not is_dask_array(X) or X.ndim != 2:
        raise ValueError(
            f"{type(estimator).__name__}.{method} takes a 2-D dask array (or "
            f"in-memory data); got {type(X).__name__} of shape {getattr(X, 'shape', None)}."
        )
    if X.numblocks[1] > 1:  # the voters read whole rows
        X = X.rechunk({1: -1})
    kwargs = {"drop_axis": 1} if one_column else {"chunks": (X.chunks[0], (n_classes,))}
    return X.map_blocks(
        _apply_method,
        delayed(estimator, pure=False),
        method,
        dtype=dtype,
        name=f"{method}-{uuid.uuid4().hex}",
        meta=np.empty((0,) * (1 if one_column else 2), dtype=dtype),
        **kwargs,
    )


def _apply_method(X, estimator, name):
    return getattr(estimator, name)(X)


def _map_partitions(estimator, method, X, one_column, dtype, n_classes):
    """``method`` of ``estimator`` on every partition of a dask DataFrame ``X``: a lazy dask
    array of unknown row chunks."""
    import dask.array as da
    from dask import delayed

    shape = (math.nan,) if one_column else (math.nan, n_classes)
    task = delayed(_apply_method, pure=False)
    model = delayed(estimator, pure=False)
    blocks = [task(part, model, method) for part in X.to_delayed()]
    return da.concatenate([da.from_delayed(b, shape=shape, dtype=dtype) for b in blocks])
