"""More rows than memory: the statistics and certificates as a map-reduce over a Dask array.

The count path of the engine (:func:`~skpacbayes.engine.fit.uses_counts`) reads the training
rows through two kinds of pass only: the exact error counts of the voters and pairs of voters
(a :class:`~skpacbayes.engine.statistics.VoteStatistics`, which adds up over disjoint sets of rows)
and the error count of a weighted vote. :class:`DaskVotePasses` runs each pass as one task per
block of rows (the in-memory :class:`~skpacbayes.engine.statistics.VotePasses` on that block, on a
worker) and a tree of additions brings the counts back: the rows never leave the workers,
only integer counts travel, and they are the very counts the in-memory pass gives.

Nothing here imports dask at module level: a dask array only reaches these functions once
the user has imported dask.
"""

import functools
import math
import sys
import uuid

import numpy as np

__all__ = [
    "DaskVotePasses",
    "check_count_path",
    "dask_rows",
    "dask_training_data",
    "fit_voters",
    "is_dask_input",
    "label_indices",
]

#: what works on a dask array (named by every refusal)
WHAT_WORKS = (
    "On a dask array, fit an estimator whose statistics are sums over rows: "
    "FirstOrderBoundClassifier, SecondOrderBoundClassifier, CBoundClassifier, "
    "PartitionBoundClassifier or OccamBoundClassifier with posterior='categorical' and "
    "solver='auto' or 'lbfgs', on voters=StumpBank(...) or PrefitVoters(...); or certify a "
    "vote with HoldOutBoundClassifier (voters=PrefitVoters(model), a StumpBank, or its own "
    "ensemble grown on train_size rows held in memory). Or pass X.compute() when the rows "
    "fit in memory."
)
_SPLIT_EVERY = 8  # counts added per task of the reduction tree


def is_dask_input(X, y=None):
    """Whether ``X`` (or ``y``) is a dask collection (False when dask was never imported)."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(X) or (y is not None and dask.is_dask_collection(y))


def _is_dask_array(obj):
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(obj, module.Array)


def _rows_array(X, what):
    """``X`` as a 2-D dask array of known row chunks and a single column chunk."""
    if not _is_dask_array(X):
        if hasattr(X, "to_dask_array"):  # a dask DataFrame
            hint = "convert a dask DataFrame with X.to_dask_array(lengths=True)"
        else:  # in-memory X with dask labels
            hint = "pass both X and y as dask arrays (e.g. da.from_array(X)), or both in memory"
        raise TypeError(f"{what} takes X as a dask.array.Array; got {type(X).__name__}: {hint}.")
    if X.ndim != 2:
        raise ValueError(f"{what} needs a 2-D dask array X; got {X.ndim} dimension(s).")
    if any(math.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{what}: the row chunks of X have unknown sizes (e.g. after boolean indexing); "
            "call X.compute_chunk_sizes() first."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{what} needs numeric features; X has dtype {X.dtype}.")
    if X.dtype not in (np.float64, np.float32):  # as validate_data would convert in memory
        X = X.astype(np.float64)
    if X.numblocks[1] > 1:  # the voters read whole rows
        X = X.rechunk({1: -1})
    return X


def dask_training_data(estimator, X, y):
    """Check a dask ``X`` and its labels; the dask counterpart of ``validate_training_data``.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_``.
    X : dask.array.Array of shape (n_samples, n_features)
        Finite numeric features (NaN and infinite values are refused by the passes).
    y : dask.array.Array or array-like of shape (n_samples,)
        Class labels; rechunked to the row chunks of ``X`` when they differ.

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
    X = _rows_array(X, f"{name}.fit")
    n_rows = X.shape[0]
    if n_rows == 0:
        raise ValueError(f"{name}.fit: X has no row.")
    if _is_dask_array(y):
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
    if classes.shape[0] < 2:
        raise ValueError(
            f"{name} needs samples of at least 2 classes in the data, but the data contains "
            f"only one class: {classes[0]!r}."
        )
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):  # a previous fit on a DataFrame
        del estimator.feature_names_in_
    return X, y, classes


def check_count_path(estimator):
    """Raise a ``ValueError`` unless ``estimator`` fits on the counts (sums over rows)."""
    from types import SimpleNamespace

    from skpacbayes.engine.fit import uses_counts

    if uses_counts(estimator, SimpleNamespace(out_of_bag=False)):
        return
    raise ValueError(
        f"{type(estimator).__name__}(posterior={estimator.posterior!r}, "
        f"solver={estimator.solver!r}) cannot fit on a dask array: it is trained on the "
        "per-row error matrix of the voters (or certified on per-row losses), which needs "
        f"every row in memory. {WHAT_WORKS}"
    )


def fit_voters(voters, X, classes):
    """Fit a bank that needs no pass over the rows on a dask ``X`` (``classes``: the labels).

    A :class:`~skpacbayes.voters.StumpBank` with ``feature_range`` and
    :class:`~skpacbayes.voters.PrefitVoters` read the shape of ``X`` only; the default
    ``StumpBank`` computes its few build rows, drawn from its seed and the number of rows
    alone, exactly as the in-memory fit draws them. Any other bank is grown on the rows and
    is refused.
    """
    from skpacbayes.voters import PrefitVoters, StumpBank

    if not isinstance(voters, (StumpBank, PrefitVoters)):
        raise ValueError(
            f"The voters {type(voters).__name__} are grown on the training rows, which a dask "
            "array does not hold in memory (voters=None is SplitForest for more than two "
            "classes). On a dask array the voters must need no pass over the rows: "
            "StumpBank(feature_range=...), the default StumpBank() (built from a few "
            "seed-drawn rows) or PrefitVoters(model) (fitted beforehand on other data). "
            f"{WHAT_WORKS}"
        )
    voters._validate_params()
    voters._encode_y(classes)  # sets classes_ (PrefitVoters: refuses labels it does not know)
    voters.n_classes_ = len(voters.classes_)
    voters.n_features_in_ = X.shape[1]
    if hasattr(voters, "feature_names_in_"):
        del voters.feature_names_in_
    voters._fit(X, None)  # neither bank reads a label here
    return voters


def _label_block(y, classes, dtype):
    return np.searchsorted(classes, y).astype(dtype, copy=False)


def label_indices(y, classes):
    """Lazy class indices of the labels ``y`` (a dask array) in ``classes`` (which hold them).

    ``int8`` up to 127 classes: the client never holds them, the workers compute each block.
    """
    dtype = np.int8 if classes.size <= 127 else np.intp
    return y.map_blocks(_label_block, classes, dtype, dtype=dtype)


def _add(*parts):
    return functools.reduce(lambda a, b: a + b, parts)


def _tree_sum(parts):
    """The sum of the delayed ``parts`` by a tree of additions (on the workers)."""
    from dask import delayed

    add = delayed(_add, pure=True)
    while len(parts) > 1:
        parts = [add(*parts[i : i + _SPLIT_EVERY]) for i in range(0, len(parts), _SPLIT_EVERY)]
    return parts[0]


def _unpack(packed, n_rows):
    return np.ones(n_rows, dtype=bool) if packed is None else np.unpackbits(packed, count=n_rows)


def _block_statistics(voters, X, y_idx, group_voters, rules, n_voters, pairs):
    """Counts of one block: the in-memory pass on a scheme restricted to the block's rows."""
    from skpacbayes.engine.statistics import EvaluationGroup, EvaluationScheme, VotePasses

    n_rows = X.shape[0]
    groups = [
        EvaluationGroup(v, np.flatnonzero(_unpack(rule, n_rows)))
        for v, rule in zip(group_voters, rules, strict=True)
    ]
    scheme = EvaluationScheme(groups, n_voters, n_rows)
    passes = VotePasses(voters, X, keep_bytes=0)
    return passes.statistics(np.asarray(y_idx), scheme, pairs)


def _block_vote_errors(voters, X, y_idx, weights, n_classes, packed):
    from skpacbayes.engine.statistics import VotePasses

    rows = _unpack(packed, X.shape[0]).astype(bool, copy=False)
    wrong, used = VotePasses(voters, X, keep_bytes=0).vote_errors(
        np.asarray(y_idx), weights, n_classes, rows
    )
    return np.array([wrong, used], dtype=np.int64)


def _packed_rows(rows):
    """A block's boolean row mask in one bit per row, or None when every row is in."""
    return None if rows.all() else np.packbits(rows)


class DaskVotePasses:
    """The passes of the count path over a dask array: one task per block, counts reduced.

    The dask counterpart of :class:`~skpacbayes.engine.statistics.VotePasses`: each task runs the
    in-memory pass on one block of rows (the voters and the block's evaluation rule sent
    along, the rows computed on the worker), and the counts are added up by a tree of tasks.
    The computation uses dask's current scheduler (a ``distributed.Client`` when one is
    active). The pair products run on the workers' CPUs whatever the estimator's
    ``device``: they are exact integer counts either way.

    Parameters
    ----------
    voters : voter bank
        Fitted (sent once to the cluster).
    X : dask.array.Array of shape (n_rows, n_features)
        In a single column chunk.
    """

    def __init__(self, voters, X):
        from dask import delayed

        self.X = X
        self.n_rows = X.shape[0]
        ends = np.cumsum((0, *X.chunks[0]))
        self._blocks = [
            (i, int(ends[i]), int(ends[i + 1]), block)
            for i, block in enumerate(X.to_delayed().ravel())
            if ends[i + 1] > ends[i]
        ]
        self._voters = delayed(voters, pure=False)  # one copy in the graph
        self._n_voters = voters.n_voters_

    def _compute(self, func, y_idx, args_of_block):
        from dask import compute, delayed

        task = delayed(func, pure=False)
        if y_idx.chunks[0] != self.X.chunks[0]:
            y_idx = y_idx.rechunk((self.X.chunks[0],))
        y_blocks = y_idx.to_delayed().ravel()
        parts = [
            task(self._voters, block, y_blocks[i], *args_of_block(start, stop))
            for i, start, stop, block in self._blocks
        ]
        (total,) = compute(_tree_sum(parts))
        return total

    def statistics(self, y_idx, scheme, pairs, device="cpu"):
        """One pass: the counts of :func:`~skpacbayes.engine.statistics.count_statistics`.

        Parameters
        ----------
        y_idx : dask.array.Array of shape (n_rows,)
            True class indices, in the row chunks of ``X``.
        scheme : EvaluationScheme
            Which voter may be evaluated on which row (groups of voters; out-of-bag banks
            are not fitted on dask arrays).
        pairs : bool
            Also count the pairs.
        device : str or torch.device, default="cpu"
            Not used: the counts are computed on the workers' CPUs.

        Returns
        -------
        VoteStatistics
        """
        if scheme.out_of_bag:
            raise ValueError("Out-of-bag banks are not fitted on dask arrays.")
        group_voters = [g.voters for g in scheme.groups]

        def args(start, stop):
            rules = []
            for g in scheme.groups:
                lo, hi = np.searchsorted(g.samples, (start, stop))
                if hi - lo == stop - start:
                    rules.append(None)
                    continue
                ok = np.zeros(stop - start, dtype=bool)
                ok[g.samples[lo:hi] - start] = True
                rules.append(np.packbits(ok))
            return group_voters, rules, self._n_voters, pairs

        total = self._compute(_block_statistics, y_idx, args)
        return scheme.with_pair_sizes(total) if pairs else total

    def vote_errors(self, y_idx, weights, n_classes, rows):
        """One pass: the errors of the weighted vote on the rows ``rows`` (bool mask).

        Returns the number of errors and of rows (ties count as errors).
        """
        weights = np.asarray(weights)

        def args(start, stop):
            return weights, n_classes, _packed_rows(rows[start:stop])

        wrong, used = self._compute(_block_vote_errors, y_idx, args)
        return int(wrong), int(used)

    def whole(self):
        """Refused: the per-row optimisers need the whole vote matrix in memory."""
        raise ValueError(f"The whole vote matrix of a dask array is not computed. {WHAT_WORKS}")


def _map_rows(estimator, method, X, output):
    """``method`` of ``estimator`` on every block of rows of ``X``: a lazy dask array."""
    from dask import delayed
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    if not _is_dask_array(X) or X.ndim != 2:
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
