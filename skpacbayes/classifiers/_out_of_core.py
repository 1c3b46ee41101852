"""Dask arrays at the estimators' doors: the checks of ``fit`` and the lazy predictions.

The checks, the refusals and the lazy map over the blocks of rows are the engine's
(:mod:`skpacbayes.engine.dask_input`), and so are the map-reduce passes
(:mod:`skpacbayes.engine.dask_passes`), the list of the fits that cannot run on a dask array
(:func:`skpacbayes.engine.fit.out_of_core_refusal`) and what works instead
(``engine.dask_passes.WHAT_WORKS``), which the estimators add to the refusals; here the
estimator records what the checks found.
"""

import functools

from skpacbayes.engine import dask_input
from skpacbayes.engine.dask_passes import is_dask_input

__all__ = [
    "dask_rows",
    "dask_training_data",
    "refuse_dask_input",
]


def dask_training_data(estimator, X, y, min_classes=2, reset=True):
    """Check a dask ``X`` and its labels; the dask counterpart of ``validate_training_data``.

    :func:`~skpacbayes.engine.dask_input.dask_training_rows` with the estimator's name (``X``,
    ``y`` and ``min_classes`` as it takes them, ``X``, ``y`` and ``classes`` as it returns
    them), a DataFrame kept as given where the voters read their rows so (``PrefitVoters``).
    The estimator receives ``n_features_in_`` and, from a DataFrame's columns,
    ``feature_names_in_`` (``reset=False``: they are checked against it, as for a later
    batch of a stream).
    """
    from sklearn.utils.validation import _check_feature_names

    keeps = getattr(getattr(estimator, "voters", None), "_keeps_input", False)
    name = type(estimator).__name__
    rows, y, classes, columns = dask_input.dask_training_rows(X, y, name, min_classes, keeps)
    estimator.n_features_in_ = rows.shape[1]
    if columns is not None:  # the columns, as scikit-learn records and checks them
        _check_feature_names(estimator, columns, reset=reset)
    elif hasattr(estimator, "feature_names_in_"):  # a previous fit on a DataFrame
        del estimator.feature_names_in_
    return rows, y, classes


def refuse_dask_input(estimator, X, y, reason):
    """:func:`skpacbayes.engine.dask_input.refuse_dask_input`, naming ``estimator``."""
    dask_input.refuse_dask_input(type(estimator).__name__, X, y, reason)


def dask_rows(output):
    """Decorator of ``predict``-like methods: a dask array in, a lazy dask array out.

    ``output`` is ``"labels"`` (one label per row), ``"proba"`` (one column per class) or
    ``"scores"`` (one column for two classes, else one per class). The method runs on each
    block of rows on the workers, as dask-ml's ``ParallelPostFit`` does
    (:func:`~skpacbayes.engine.dask_input.lazy_predictions`).
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X):
            if is_dask_input(X):
                from sklearn.utils.validation import check_is_fitted

                check_is_fitted(self)
                return dask_input.lazy_predictions(self, method.__name__, X, output)
            return method(self, X)

        return wrapper

    return decorate
