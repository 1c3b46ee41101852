"""What the bounds read of the sample: exact error counts per voter and per pair of voters.

The first-order, tandem and C-bounds of a Categorical posterior, the partition bound's Gibbs
term and the Occam bound depend on the training sample only through integer counts
(:ref:`theory-statistics`):

* per voter ``i``: the number ``m_i`` of rows it may be evaluated on and its errors ``e_i``
  there;
* per pair ``(i, i')``: the rows ``m_ii'`` both may be evaluated on and their joint errors
  ``t_ii'`` there.

:func:`count_statistics` computes them in one chunked pass over the vote matrix, for every
evaluation rule of the voter banks (:class:`EvaluationScheme`): voters in groups that share
their rows (stumps, prefit voters, the halves of a split forest) or one row set per voter
(the out-of-bag members of :class:`~skpacbayes.voters.OutOfBagVoters`). The training reads
them as float64 rates, the certificate reads the same counts (:func:`certified_statistics`).
"""

import math
from dataclasses import dataclass

import numpy as np

from skpacbayes.engine.certificate import _STAT_SLACK

__all__ = [
    "EvaluationGroup",
    "EvaluationScheme",
    "GroupStatistics",
    "VoteStatistics",
    "certified_statistics",
    "chunk_counts",
    "column_sums",
    "count_statistic_tensors",
    "count_statistics",
    "needs_pairs",
    "statistics_of",
]

_PAIR_STATISTICS = frozenset({"tandem", "disagreement"})
_BLOCK_BYTES = 64 * 2**20  # temporaries per block of rows of the pair products
_EXACT_ROWS = 2**24  # float32 sums of 0/1 products are exact integers below this


class RowGroups:
    """The evaluation rule of a chunk of rows for voters in groups.

    Parameters
    ----------
    parts : list of (ndarray of bool, ndarray of int)
        For each group, which rows of the chunk its voters may be evaluated on and which
        columns of the vote matrix they are.
    """

    def __init__(self, parts):
        self.parts = parts


def column_sums(a):
    """Column sums of a 0/1 (bool) matrix, as int64 (exact below 2**31 rows: NumPy sums the
    bytes in int32, several times faster than a bool sum)."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1], dtype=np.int64)
    return np.add.reduce(a.view(np.uint8), axis=0, dtype=np.int32).astype(np.int64)


class EvaluationGroup:
    """Voters that share their evaluation rows, and those rows.

    Parameters
    ----------
    voters : ndarray of int
        Columns of the vote matrix.
    samples : ndarray of int
        Training rows they may all be evaluated on (for an out-of-bag bank: every row; each
        voter's own rows are then given by the scheme's mask).
    """

    def __init__(self, voters, samples):
        self.voters = np.asarray(voters)
        self.samples = np.asarray(samples)


class EvaluationScheme:
    """Which voter of a bank may be evaluated on which training row.

    Parameters
    ----------
    groups : list of EvaluationGroup
        The voters in groups, each with the rows its voters share.
    n_voters, n_rows : int
        Shape of the vote matrix.
    out_of_bag_mask : ndarray of bool of shape (n_rows, n_voters), optional
        One row set per voter (an out-of-bag bank): ``mask[j, i]`` is True iff voter ``i``
        may be evaluated on row ``j``. ``groups`` is then one group of every voter and row.

    Attributes
    ----------
    out_of_bag : bool
        Whether each voter has its own rows.
    """

    def __init__(self, groups, n_voters, n_rows, out_of_bag_mask=None):
        self.groups = groups
        self.n_voters = int(n_voters)
        self.n_rows = int(n_rows)
        self.out_of_bag = out_of_bag_mask is not None
        self._mask = out_of_bag_mask
        self._voter_group = np.full(self.n_voters, -1, dtype=np.intp)
        self._row_group_ok = None
        if not self.out_of_bag:
            # row_ok[g, j]: row j is an evaluation row of group g
            self._row_group_ok = np.zeros((len(groups), self.n_rows), dtype=bool)
            for g, group in enumerate(groups):
                self._voter_group[group.voters] = g
                self._row_group_ok[g, group.samples] = True
        self._every_row = not self.out_of_bag and bool(self._row_group_ok.all())

    @classmethod
    def from_voters(cls, voters, n_rows):
        """The scheme of a fitted voter bank (``voter_groups_`` / ``sample_groups_`` or out of bag).

        Parameters
        ----------
        voters : voter bank
            Fitted on the ``n_rows`` training rows.
        n_rows : int
            Number of training rows.

        Returns
        -------
        EvaluationScheme
        """
        if getattr(voters, "is_out_of_bag", False):
            mask = voters.evaluation_mask()
            everything = EvaluationGroup(np.arange(mask.shape[1]), np.arange(n_rows))
            return cls([everything], mask.shape[1], n_rows, out_of_bag_mask=mask)
        voter_groups = np.asarray(voters.voter_groups_)
        sample_groups = np.asarray(voters.sample_groups_)
        groups = []
        for g in np.unique(voter_groups):
            samples = np.flatnonzero(sample_groups != g)
            if samples.size == 0:
                raise ValueError("No training example may evaluate a group of voters.")
            groups.append(EvaluationGroup(np.flatnonzero(voter_groups == g), samples))
        return cls(groups, voter_groups.size, n_rows)

    @property
    def is_split(self):
        """Whether the voters form several groups (the two-halves protocol)."""
        return len(self.groups) > 1

    def mask(self, start, stop):
        """Which voter may be evaluated on rows ``start:stop``, for :func:`chunk_counts`.

        None when every voter may be evaluated on every row; a :class:`RowGroups` (per group
        of voters, its rows among these) for groups; the boolean mask ``(b, n_voters)`` of
        an out-of-bag bank.
        """
        if self.out_of_bag:
            return self._mask[start:stop]
        if self._every_row:
            return None
        return RowGroups(
            [
                (self._row_group_ok[g, start:stop], group.voters)
                for g, group in enumerate(self.groups)
            ]
        )

    def with_pair_sizes(self, statistics):
        """``statistics`` with the pairs' shared rows (counted, or those of the groups)."""
        if statistics.pair_sizes is not None:
            return statistics
        n = self.n_voters
        shared = np.zeros((n, n), dtype=np.int64)
        for group in self.groups:  # every pair of a group shares the group's rows
            shared[np.ix_(group.voters, group.voters)] = group.samples.size
        return VoteStatistics(statistics.sizes, statistics.errors, statistics.pair_errors, shared)


@dataclass(frozen=True)
class VoteStatistics:
    """Exact counts of every voter (and pair of voters) on the rows it may be evaluated on.

    Attributes
    ----------
    sizes : ndarray of int64, shape (n_voters,)
        ``m_i``, the rows voter ``i`` may be evaluated on.
    errors : ndarray of int64, shape (n_voters,)
        ``e_i``, its errors on them.
    pair_errors : ndarray of int64, shape (n_voters, n_voters) or None
        ``t_ii'``, the rows where both voters may be evaluated and both err (None when the
        pairs were not counted).
    pair_sizes : ndarray of int64, shape (n_voters, n_voters) or None
        ``m_ii'``, the rows where both may be evaluated.
    """

    sizes: np.ndarray
    errors: np.ndarray
    pair_errors: np.ndarray | None = None
    pair_sizes: np.ndarray | None = None

    def __add__(self, other):
        """The counts of two disjoint sets of rows together."""

        def add(a, b):
            return None if a is None or b is None else a + b

        return VoteStatistics(
            self.sizes + other.sizes,
            self.errors + other.errors,
            add(self.pair_errors, other.pair_errors),
            add(self.pair_sizes, other.pair_sizes),
        )

    def group(self, voters):
        """The counts of the voters ``voters`` (a :class:`GroupStatistics`)."""
        ix = np.ix_(voters, voters)
        return GroupStatistics(
            sizes=self.sizes[voters],
            errors=self.errors[voters],
            pair_errors=None if self.pair_errors is None else self.pair_errors[ix],
            pair_sizes=None if self.pair_sizes is None else self.pair_sizes[ix],
        )


class EmptySampleError(ValueError):
    """The sample of a PAC-Bayes statement is empty: its bound cannot be computed."""


@dataclass(frozen=True)
class GroupStatistics:
    """Counts of one evaluation group, and the rates and sample sizes the bounds use.

    The first-order statement of a group uses ``m = min_i m_i`` and the rates
    ``e_i / m_i``; the tandem statement ``m = min_ii' m_ii'`` and ``t_ii' / m_ii'``. When
    the voters share their rows (every group but an out-of-bag bank's) ``m_i = m`` and the
    Gibbs risk ``sum_i q_i e_i / m`` is exactly the mean stochastic loss of ``C(q)`` over
    the group's rows, and the tandem risk ``q^T T q`` the mean of its square.
    """

    sizes: np.ndarray
    errors: np.ndarray
    pair_errors: np.ndarray | None = None
    pair_sizes: np.ndarray | None = None

    @property
    def rates(self):
        """Error rate of each voter on its rows (float64)."""
        return self.errors / self.sizes

    @property
    def tandem(self):
        """Joint error rate of each pair on its shared rows (float64, ``(n, n)``)."""
        return self.pair_errors / self.pair_sizes

    def sample_size(self, keys):
        """Sample size of the PAC-Bayes statement on the statistics ``keys``.

        Raises
        ------
        EmptySampleError
            If that sample is empty: no bound can be computed on it.
        """
        m = int(self.sizes.min())
        if m < 1:
            raise EmptySampleError(
                "Some voter may be evaluated on no row, so the bound has no sample; use more "
                "rows or leave each voter some rows it was not grown on."
            )
        if _PAIR_STATISTICS & set(keys):
            m = min(m, int(self.pair_sizes.min()))
            if m < 1:
                raise EmptySampleError(
                    "Some pair of voters shares no row on which both may be evaluated (no "
                    "out-of-bag row in common), so the tandem bound has no sample; use more "
                    "rows, fewer voters or fewer rows per voter (max_samples), or the "
                    "first-order bound (FirstOrderBoundClassifier)."
                )
        return m


def needs_pairs(keys):
    """Whether the statistics ``keys`` need the pair counts."""
    return bool(_PAIR_STATISTICS & set(keys))


def chunk_counts(votes, y, mask, pairs, pair_sizes=False, device="cpu"):
    """The counts of one chunk of rows (a :class:`VoteStatistics`, summed over chunks).

    Parameters
    ----------
    votes : ndarray of shape (b, n_voters)
        Class indices.
    y : ndarray of shape (b,)
        True class indices.
    mask : None, RowGroups or ndarray of bool of shape (b, n_voters)
        Where each voter may be evaluated (:meth:`EvaluationScheme.mask`; None:
        everywhere).
    pairs : bool
        Also count the pairs' joint errors.
    pair_sizes : bool, default=False
        Also count the pairs' shared rows (only the out-of-bag banks need it; the groups of
        the other banks know theirs).
    device : str or torch.device, default="cpu"
        Where the pair products run (float32 on blocks of fewer than ``2**24`` rows, where
        sums of 0/1 products are exact integers).

    Returns
    -------
    VoteStatistics
    """
    import torch

    n = votes.shape[1]
    wrong = votes != y[:, None]
    step = max(1, min(_EXACT_ROWS - 1, _BLOCK_BYTES // max(1, 8 * n)))

    def gram(a):
        t = torch.from_numpy(np.ascontiguousarray(a).view(np.uint8))
        t = t.to(device=device, dtype=torch.float32)
        return torch.round(t.T @ t).to("cpu", torch.int64).numpy()

    def grams(a):
        return sum(gram(a[s : s + step]) for s in range(0, max(1, a.shape[0]), step))

    if isinstance(mask, RowGroups):  # voters in groups: each group's rows and columns
        sizes = np.zeros(n, dtype=np.int64)
        errors = np.zeros(n, dtype=np.int64)
        joint = np.zeros((n, n), dtype=np.int64) if pairs else None
        for rows, voters in mask.parts:
            sub = wrong[rows][:, voters] if voters.size < n else wrong[rows]
            sizes[voters] += int(np.count_nonzero(rows))
            errors[voters] += column_sums(sub)
            if pairs:
                joint[np.ix_(voters, voters)] += grams(sub)
        return VoteStatistics(sizes, errors, joint)
    if mask is None:
        sizes = np.full(n, votes.shape[0], dtype=np.int64)
    else:
        wrong &= mask
        sizes = column_sums(mask)
    errors = column_sums(wrong)
    if not pairs:
        return VoteStatistics(sizes, errors)
    joint = grams(wrong)
    shared = None
    if pair_sizes:
        shared = grams(mask) if mask is not None else np.full((n, n), votes.shape[0], np.int64)
    return VoteStatistics(sizes, errors, joint, shared)


def count_statistics(vote_chunks, y_idx, scheme, pairs, device="cpu"):
    """Count errors per voter (and per pair) in one pass over chunks of the vote matrix.

    Parameters
    ----------
    vote_chunks : iterable of (int, ndarray)
        ``(start, votes)`` pairs covering the rows in order, ``votes`` of shape
        ``(b, n_voters)`` holding class indices.
    y_idx : ndarray of shape (n_rows,)
        True class indices.
    scheme : EvaluationScheme
        Which voter may be evaluated on which row.
    pairs : bool
        Also count the pairs (tandem and C-bounds).
    device : str or torch.device, default="cpu"
        Where the pair products run.

    Returns
    -------
    VoteStatistics
        Exact integer counts, the sum of :func:`chunk_counts` over the chunks.
    """
    total = None
    for start, votes in vote_chunks:
        stop = start + votes.shape[0]
        counts = chunk_counts(
            votes,
            y_idx[start:stop],
            scheme.mask(start, stop),
            pairs,
            pair_sizes=scheme.out_of_bag,
            device=device,
        )
        total = counts if total is None else total + counts
    if total is None:
        raise ValueError("No training row to count.")
    return scheme.with_pair_sizes(total) if pairs else total


def count_statistic_tensors(group, keys, dtype, device):
    """The rates of ``group`` the statistics ``keys`` read, as torch tensors (training)."""
    import torch

    out = {"rates": torch.as_tensor(group.rates, dtype=dtype, device=device)}
    if needs_pairs(keys):
        out["tandem"] = torch.as_tensor(group.tandem, dtype=dtype, device=device)
    return out


def statistics_of(q, tensors, keys):
    """Statistics ``keys`` of the normalised Categorical weights ``q`` (torch, differentiable).

    ``gibbs = <q, rates>``, ``tandem = q^T T q``, ``disagreement = 2 (gibbs - tandem)``.
    """
    out = {}
    gibbs = q @ tensors["rates"] if {"gibbs", "disagreement"} & set(keys) else None
    tandem = q @ (tensors["tandem"] @ q) if needs_pairs(keys) else None
    for key in keys:
        if key == "gibbs":
            out[key] = gibbs
        elif key == "tandem":
            out[key] = tandem
        else:
            out[key] = 2 * (gibbs - tandem)
    return out


def certified_statistics(weights, group, keys):
    """Statistics ``keys`` of the normalised weights ``weights`` in float64, on the safe side.

    Each is a ``math.fsum`` of correctly rounded products (relative error a few ``2^-53``),
    moved by the library's statistic allowance ``1e-12`` towards the safe side: up for the
    Gibbs and tandem risks, down for the disagreement ``2 (gibbs - tandem)``; clipped to
    [0, 1].

    Parameters
    ----------
    weights : ndarray of shape (n_g,)
        Deployed weights of the group's voters, summing to one.
    group : GroupStatistics
    keys : iterable of str

    Returns
    -------
    dict of str to float
    """
    out = {}
    gibbs = tandem = None
    if {"gibbs", "disagreement"} & set(keys):
        gibbs = math.fsum((weights * group.rates).tolist())
    if needs_pairs(keys):
        tandem = math.fsum((np.outer(weights, weights) * group.tandem).ravel().tolist())
    for key in keys:
        if key == "gibbs":
            value = gibbs + _STAT_SLACK
        elif key == "tandem":
            value = tandem + _STAT_SLACK
        else:
            value = 2 * (gibbs - tandem) - 4 * _STAT_SLACK
        out[key] = min(1.0, max(0.0, value))
    return out
