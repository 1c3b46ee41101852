"""More rows than memory: the statistics and certificates as a map-reduce over a Dask array.

The count path of the engine (:mod:`skpacbayes.engine.counts`) reads the training rows
through two kinds of pass only: the exact error counts of the voters and pairs of voters (a
:class:`~skpacbayes.engine.statistics.VoteStatistics`, which adds up over disjoint sets of
rows) and the error count of a weighted vote. The row path (:mod:`skpacbayes.engine.rows`)
adds two: the votes of its in-memory training sample, and the float64 sums of the
statistics of a trained posterior's stochastic losses
(:mod:`skpacbayes.engine.row_statistics`). :class:`DaskVotePasses` runs each pass as one
task per block of rows (the in-memory :class:`~skpacbayes.engine.passes.VotePasses` on that
block, on a worker) and a tree of additions brings the sums back: the rows never leave the
workers (but the training sample's votes), only sums travel, and the counts are the very
counts the in-memory pass gives.

Nothing here imports dask at module level: a dask array only reaches these functions once
the user has imported dask.
"""

import functools
import math
import sys

import numpy as np

from skpacbayes.engine.passes import TotalVoteErrors

__all__ = [
    "WHAT_WORKS",
    "DaskVotePasses",
    "FrameRows",
    "column_array",
    "is_dask_array",
    "is_dask_frame",
    "is_dask_input",
    "is_dask_series",
    "label_indices",
    "predict_accuracy",
    "rows_array",
]

_SPLIT_EVERY = 8  # counts added per task of the reduction tree


#: what works on a dask array (named by every refusal)
WHAT_WORKS = (
    "On a dask array, fit FirstOrderBoundClassifier, SecondOrderBoundClassifier, "
    "CBoundClassifier, BinomialBoundClassifier, PartitionBoundClassifier, "
    "VCDimBoundClassifier or OccamBoundClassifier (any posterior they certify; the per-row "
    "families train on max_train_rows rows held in memory and are certified on every row by "
    "a map-reduce) on voters=StumpBank(...) or PrefitVoters(...); or certify a vote with "
    "HoldOutBoundClassifier (voters=PrefitVoters(model), a StumpBank, or its own ensemble "
    "grown on train_size rows held in memory); or fit CertifiedVoteClassifier (its forests "
    "grown on train_size rows drawn into memory, train_size='auto' by default, each "
    "certified on every other row). Or pass X.compute() when the rows fit in memory."
)


def is_dask_input(X, y=None):
    """Whether ``X`` (or ``y``) is a dask collection (False when dask was never imported)."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(X) or (y is not None and dask.is_dask_collection(y))


def is_dask_array(obj):
    """Whether ``obj`` is a ``dask.array.Array`` (False when dask was never imported)."""
    module = sys.modules.get("dask.array")
    return module is not None and isinstance(obj, module.Array)


def is_dask_frame(obj):
    """Whether ``obj`` is a ``dask.dataframe.DataFrame`` (False when it was never imported)."""
    module = sys.modules.get("dask.dataframe")
    return module is not None and isinstance(obj, getattr(module, "DataFrame", ()))


def _partitions(collection):
    """The partitions of a dask DataFrame or Series as delayed pandas objects, and the number
    of rows of each, counted by one pass over these very partitions (dask may fuse the
    partitions of a projection, so that another graph of the same collection would count
    others)."""
    import dask
    from dask import delayed

    parts = collection.to_delayed()
    return parts, [int(n) for n in dask.compute(*[delayed(len)(p) for p in parts])]


def is_dask_series(obj):
    """Whether ``obj`` is a ``dask.dataframe.Series`` (False when it was never imported)."""
    module = sys.modules.get("dask.dataframe")
    return module is not None and isinstance(obj, getattr(module, "Series", ()))


class FrameRows:
    """The partitions of a dask DataFrame and their numbers of rows: the rows of a prefit
    model that reads a DataFrame, each partition handed to it as the pandas DataFrame it is.

    What the passes read of a dask array, for a DataFrame: its row chunks (the partitions'
    rows, counted once, by a pass, when it is built), its blocks (``to_delayed``, the very
    partitions counted) and its shape. It is a dask collection (its frame's graph), so every
    check for out-of-core input sees it as one; ``meta``, an empty pandas DataFrame of its
    columns and dtypes, gives the feature names.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
        The rows, as the user gave them.
    """

    ndim = 2

    def __init__(self, frame):
        self.frame = frame
        self.meta = frame._meta  # no row: the columns and their dtypes
        self._parts, lengths = _partitions(frame)
        n_columns = len(frame.columns)
        self.chunks = (tuple(lengths), (n_columns,))
        self.shape = (sum(lengths), n_columns)
        self.numblocks = (len(lengths), 1)

    def __dask_graph__(self):
        return self.frame.__dask_graph__()

    def to_delayed(self):
        """The partitions as delayed pandas DataFrames, in a column of blocks (as a dask
        array's ``to_delayed``)."""
        return np.array(self._parts, dtype=object).reshape(-1, 1)


def column_array(values):
    """Labels or weights of rows as a 1-D dask array of known chunks: a dask Series by the
    position of its rows (its partitions' rows counted by a pass), an array as it is."""
    import dask.array as da
    from dask import delayed

    if not is_dask_series(values):
        return da.asarray(values)
    parts, lengths = _partitions(values)
    dtype = np.asarray(values._meta).dtype
    to_array = delayed(np.asarray, pure=True)
    return da.concatenate(
        [
            da.from_delayed(to_array(p), shape=(n,), dtype=dtype)
            for p, n in zip(parts, lengths, strict=True)
        ]
    )


def rows_array(X, what):
    """``X`` as a 2-D dask array of known row chunks and a single column chunk."""
    if not is_dask_array(X):
        if is_dask_frame(X):
            hint = (
                "a dask DataFrame reaches the model as it is with voters=PrefitVoters(model); "
                "voters fitted here read numbers: convert it with X.to_dask_array(lengths=True)"
            )
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
    from skpacbayes.engine.passes import VotePasses
    from skpacbayes.engine.statistics import EvaluationGroup, EvaluationScheme

    n_rows = X.shape[0]
    groups = [
        EvaluationGroup(v, np.flatnonzero(_unpack(rule, n_rows)))
        for v, rule in zip(group_voters, rules, strict=True)
    ]
    scheme = EvaluationScheme(groups, n_voters, n_rows)
    passes = VotePasses(voters, X, keep_bytes=0)
    return passes.statistics(np.asarray(y_idx), scheme, pairs)


def _block_vote_errors(voters, X, y_idx, weights, n_classes, packed, ties):
    from skpacbayes.engine.passes import VotePasses

    rows = _unpack(packed, X.shape[0]).astype(bool, copy=False)
    errors, sizes = VotePasses(voters, X, keep_bytes=0).class_vote_errors(
        np.asarray(y_idx), weights, n_classes, rows, ties
    )
    return np.stack([errors, sizes])


def _block_vote_confusions(voters, X, y_idx, weights, n_classes, packed):
    from skpacbayes.engine.passes import VotePasses

    rows = _unpack(packed, X.shape[0]).astype(bool, copy=False)
    passes = VotePasses(voters, X, keep_bytes=0)  # the block's votes, read by every vote
    return passes.vote_confusions(np.asarray(y_idx), weights, n_classes, rows)


def _block_rows(voters, X, y_idx, local):
    """The votes and labels of the rows ``local`` of one block (the training sample's)."""
    from sklearn.utils import _safe_indexing

    return voters.votes(_safe_indexing(X, local)), np.asarray(y_idx)[local]


def _block_loss_sums(voters, X, y_idx, spec, group_voters, rule, nat):
    """The float64 loss sums of one block's rows of a half (a one-half row problem)."""
    import torch

    from skpacbayes.engine.problem import RowProblem
    from skpacbayes.engine.row_statistics import loss_sums
    from skpacbayes.engine.statistics import EvaluationGroup

    rows = np.flatnonzero(_unpack(rule, X.shape[0]))
    if rows.size == 0:
        return np.zeros(len(spec.bound.statistic_keys))
    group = EvaluationGroup(group_voters, rows)
    votes, cpu = voters.votes(X), torch.device("cpu")
    problem = RowProblem(spec, votes, np.asarray(y_idx), [group], cpu, torch.float64)
    sums = loss_sums(problem, spec.bound, 0, nat)
    return np.array([sums[k] for k in spec.bound.statistic_keys])


def _group_rule(group, start, stop):
    """The rows ``start:stop`` of ``group`` as a packed mask, or None when all are in it."""
    lo, hi = np.searchsorted(group.samples, (start, stop))
    if hi - lo == stop - start:
        return None
    ok = np.zeros(stop - start, dtype=bool)
    ok[group.samples[lo:hi] - start] = True
    return np.packbits(ok)


def _packed_rows(rows):
    """A block's boolean row mask in one bit per row, or None when every row is in."""
    return None if rows.all() else np.packbits(rows)


def _shipped(obj):
    """``obj`` as the blocks' tasks read it, sent to the cluster once.

    Where a distributed client will run the tasks, ``obj`` is scattered to every worker
    and the graph holds only its reference: a fitted forest can weigh hundreds of MiB,
    which the scheduler would otherwise carry inside the graph (distributed's "Sending
    large graph" warning). Under any other scheduler, one delayed copy in the graph.
    """
    import dask
    from dask import delayed

    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client
        client = None
    if client is not None and dask.base.get_scheduler() == client.get:
        return client.scatter(obj, broadcast=True, hash=False)
    return delayed(obj, pure=False)


class DaskVotePasses(TotalVoteErrors):
    """The passes of the count path over a dask array: one task per block, counts reduced.

    The dask counterpart of :class:`~skpacbayes.engine.passes.VotePasses`: each task runs the
    in-memory pass on one block of rows (the voters and the block's evaluation rule sent
    along, the rows computed on the worker), and the counts are added up by a tree of tasks.
    The computation uses dask's current scheduler (a ``distributed.Client`` when one is
    active). The pair products run on the workers' CPUs whatever the estimator's
    ``device``: they are exact integer counts either way.

    Parameters
    ----------
    voters : voter bank
        Fitted (sent once to the cluster).
    X : dask.array.Array of shape (n_rows, n_features) or FrameRows
        In a single column chunk (a DataFrame's partitions are read by prefit models).
    """

    def __init__(self, voters, X):
        self.X = X
        self.n_rows = X.shape[0]
        ends = np.cumsum((0, *X.chunks[0]))
        self._blocks = [
            (i, int(ends[i]), int(ends[i + 1]), block)
            for i, block in enumerate(X.to_delayed().ravel())
            if ends[i + 1] > ends[i]
        ]
        self._voters = _shipped(voters)
        self._n_voters = voters.n_voters_

    out_of_core = True  # the row path trains on a sample and certifies by map-reduce

    def _label_blocks(self, y_idx):
        if y_idx.chunks[0] != self.X.chunks[0]:
            y_idx = y_idx.rechunk((self.X.chunks[0],))
        return y_idx.to_delayed().ravel()

    def _compute(self, func, y_idx, args_of_block):
        from dask import compute, delayed

        task = delayed(func, pure=False)
        y_blocks = self._label_blocks(y_idx)
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
            rules = [_group_rule(g, start, stop) for g in scheme.groups]
            return group_voters, rules, self._n_voters, pairs

        total = self._compute(_block_statistics, y_idx, args)
        return scheme.with_pair_sizes(total) if pairs else total

    def class_vote_errors(self, y_idx, weights, n_classes, rows, ties="error"):
        """One pass: the errors of the weighted vote on the rows ``rows``, class by class.

        Returns two int64 arrays of shape ``(n_classes,)``: errors and rows of each true
        class (the counts of :meth:`VotePasses.class_vote_errors
        <skpacbayes.engine.passes.VotePasses.class_vote_errors>`, added over the blocks).
        """
        weights = np.asarray(weights)

        def args(start, stop):
            return weights, n_classes, _packed_rows(rows[start:stop]), ties

        errors, sizes = self._compute(_block_vote_errors, y_idx, args)
        return errors.astype(np.int64), sizes.astype(np.int64)

    def vote_confusions(self, y_idx, weights, n_classes, rows):
        """One pass for every row of ``weights``: the confusion matrix of what each plain
        vote predicts, an int64 array of shape ``(len(weights), n_classes, n_classes + 1)``.

        Each block's votes are computed once on its worker and read by every vote
        (:meth:`VotePasses.vote_confusions
        <skpacbayes.engine.passes.VotePasses.vote_confusions>`, added over the blocks).
        """
        weights = np.asarray(weights)

        def args(start, stop):
            return weights, n_classes, _packed_rows(rows[start:stop])

        return self._compute(_block_vote_confusions, y_idx, args).astype(np.int64)

    def rows(self, indices, y_idx):
        """The votes and labels of the rows ``indices``, in memory (a training sample).

        One task per block that holds some of them: the workers compute the votes of those
        rows only, and only they (and their labels) come back.

        Parameters
        ----------
        indices : ndarray of int
            Sorted distinct rows.
        y_idx : dask.array.Array of shape (n_rows,)
            True class indices, in the row chunks of ``X``.

        Returns
        -------
        votes : ndarray of shape (n_indices, n_voters)
        y : ndarray of shape (n_indices,)
        """
        from dask import compute, delayed

        task = delayed(_block_rows, pure=False)
        y_blocks = self._label_blocks(y_idx)
        parts = []
        for i, start, stop, block in self._blocks:
            lo, hi = np.searchsorted(indices, (start, stop))
            if hi > lo:
                parts.append(task(self._voters, block, y_blocks[i], indices[lo:hi] - start))
        parts = compute(*parts)
        return np.concatenate([v for v, _ in parts]), np.concatenate([y for _, y in parts])

    def loss_sums(self, spec, y_idx, group, nat):
        """One pass: the float64 sums over the rows of ``group`` of what the bound's statistics
        average (:func:`~skpacbayes.engine.row_statistics.loss_sums`), added over the blocks.

        Each task computes its block's votes and the stochastic losses of the half's rows
        there in float64, with the natural parameters ``nat``; only the sums come back.

        Returns
        -------
        sums : dict of str to float
            One sum per key of the bound's ``statistic_keys``.
        """
        nat = np.asarray(nat, dtype=np.float64)

        def args(start, stop):
            return spec, group.voters, _group_rule(group, start, stop), nat

        total = self._compute(_block_loss_sums, y_idx, args)
        return {k: float(v) for k, v in zip(spec.bound.statistic_keys, total, strict=True)}

    def whole(self):
        """Refused: the whole vote matrix of a dask array is never loaded into memory."""
        raise ValueError(
            "The whole vote matrix of a dask array is not computed: a fit on the rows "
            "trains on an in-memory sample of them (max_train_rows) and certifies the others "
            "by a map-reduce."
        )


def _block_score(estimator, X, y, weights):
    """The weighted number of rows of one block that ``predict`` gets right, and its weight."""
    y = np.asarray(y)
    right = estimator.predict(X) == y
    weights = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    return np.array([weights @ right, weights.sum()])


def predict_accuracy(estimator, X, y, sample_weight=None):
    """The accuracy of ``estimator.predict`` on a dask ``X`` (an array, or a DataFrame read by
    prefit models), by one pass that adds up each block's right answers: the predictions
    never come back.

    ``y`` and ``sample_weight``: dask Series (their rows by position), dask arrays or arrays
    in memory; a DataFrame's partitions' rows are counted first, by a pass over ``X``.
    """
    import dask
    from dask import delayed

    if is_dask_frame(X):
        X = FrameRows(X)
    else:
        X = rows_array(X, f"{type(estimator).__name__}.score")
    lengths = X.chunks[0]
    blocks = []
    for what, values in (("y", y), ("sample_weight", sample_weight)):
        if values is None:
            blocks.append([None] * len(lengths))
            continue
        values = column_array(values)
        if values.ndim != 1 or values.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but {what} has shape {values.shape}.")
        blocks.append(list(values.rechunk((lengths,)).to_delayed().ravel()))
    task, model = delayed(_block_score, pure=False), delayed(estimator, pure=False)
    parts = [task(model, *b) for b in zip(X.to_delayed().ravel(), *blocks, strict=True)]
    right, total = np.sum(dask.compute(*parts), axis=0)
    return float(right / total)
