"""Voters that are fitted classifiers ("members"), shared by SplitForest and PrefitVoters.

A member (``_Member``) knows how to turn the output of one fitted estimator into
GLOBAL class indices (indices into the bank's ``classes_``): ``estimator.predict``
returns labels found in ``keys``; label ``keys[i]`` is the global class ``codes[i]``.
Optional ``features`` (a column subset, as in BaggingClassifier). Scikit-learn
decision trees use a fast path: a per-leaf table of global indices applied to
``tree.apply(X)``; it gives exactly ``predict`` (same argmax, same tie rule).
"""

import numpy as np
from joblib import effective_n_jobs
from scipy import sparse
from sklearn.tree import BaseDecisionTree, DecisionTreeClassifier
from sklearn.utils import _safe_indexing
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ._base import BaseVoters, check_float32_range, n_columns

__all__ = []


def _as_tree_input(X):
    """``X`` in the exact format scikit-learn trees use without input checks."""
    if sparse.issparse(X):
        X = sparse.csr_matrix(X, dtype=np.float32)
        if X.indices.dtype != np.intc or X.indptr.dtype != np.intc:
            X.indices = X.indices.astype(np.intc)
            X.indptr = X.indptr.astype(np.intc)
        X.sort_indices()
        return X
    return np.ascontiguousarray(X, dtype=np.float32)


def _is_tree_member(estimator):
    return isinstance(estimator, BaseDecisionTree) and getattr(estimator, "n_outputs_", 0) == 1


class _Member:
    """One fitted classifier and the map from its labels to global indices."""

    def __init__(self, estimator, keys, codes, features=None):
        keys = np.asarray(keys)
        order = np.argsort(keys, kind="stable")
        self.estimator = estimator
        self.keys = keys[order]
        self.codes = np.asarray(codes, dtype=np.intp)[order]
        self.features = None if features is None else np.asarray(features, dtype=np.intp)
        self.leaf_table = None
        if isinstance(estimator, DecisionTreeClassifier) and _is_tree_member(estimator):
            own = self._lookup(np.asarray(estimator.classes_))
            self.leaf_table = own[np.argmax(estimator.tree_.value[:, 0, :], axis=1)]

    @property
    def uses_tree_input(self):
        return self.leaf_table is not None

    def _lookup(self, labels):
        idx = np.searchsorted(self.keys, labels)
        idx = np.clip(idx, 0, self.keys.size - 1)
        bad = self.keys[idx] != labels
        if np.any(bad):
            unknown = np.unique(np.asarray(labels)[bad])[:5]
            raise ValueError(
                f"Voter {self.estimator!r} predicted labels {unknown.tolist()!r} that are not "
                "among the bank's classes_."
            )
        return self.codes[idx]

    def predict_codes(self, X, X_tree):
        """Global class indices for the rows of ``X`` (``X_tree``: float32 copy)."""
        if self.leaf_table is not None:
            Xt = X_tree if self.features is None else X_tree[:, self.features]
            return self.leaf_table[self.estimator.apply(Xt, check_input=False)]
        Xs = X if self.features is None else _safe_indexing(X, self.features, axis=1)
        return self._lookup(np.asarray(self.estimator.predict(Xs)).ravel())


def _fill_votes(members, columns, X, X_tree, out):
    """Write the votes of ``members`` into ``out[:, columns]``."""
    for member, j in zip(members, columns, strict=True):
        out[:, j] = member.predict_codes(X, X_tree)


def _member_votes_chunk(members, X, out, n_jobs):
    """Fill ``out`` (chunk of rows x all members), in threads when ``n_jobs`` > 1."""
    X_tree = _as_tree_input(X) if any(m.uses_tree_input for m in members) else None
    n_members = len(members)
    n_threads = min(effective_n_jobs(n_jobs), n_members)
    if n_threads <= 1:
        _fill_votes(members, range(n_members), X, X_tree, out)
        return
    bounds = np.linspace(0, n_members, n_threads + 1).astype(int)
    # threads writing into ``out`` in place: shared memory is required, so that a process or
    # cluster backend set with joblib.parallel_config (e.g. "dask") falls back to threads here
    # instead of filling copies of ``out`` on other workers
    Parallel(n_jobs=n_threads, require="sharedmem")(
        delayed(_fill_votes)(
            members[bounds[t] : bounds[t + 1]], range(bounds[t], bounds[t + 1]), X, X_tree, out
        )
        for t in range(n_threads)
    )


class MemberVoters(BaseVoters):
    """A bank whose voters are fitted scikit-learn members (``self._members``).

    Shared by :class:`SplitForest`, :class:`OutOfBagVoters` and :class:`PrefitVoters`:
    input checks for tree members, the chunk budget and the vote of one chunk.
    """

    def _members_n_jobs(self):
        """Jobs used to compute the members' votes."""
        return self.n_jobs

    def single_model(self):
        """The one model whose ``predict`` this bank's plain vote is, if it holds one voter.

        Returns
        -------
        model : fitted classifier or None
            The bank's only voter, when it reads every feature of ``X`` (None for a bank of
            several voters, of one member that reads a subset of the features, or of a model
            without ``classes_``).
        columns : ndarray of int or None
            The bank's index of each of ``model.classes_`` (the columns of its
            ``predict_proba``), None with ``model``.
        """
        check_is_fitted(self)
        member = self._members[0] if self.n_voters_ == 1 else None
        if member is None or member.features is not None:
            return None, None
        classes = getattr(member.estimator, "classes_", None)
        if classes is None:
            return None, None
        return member.estimator, member._lookup(np.asarray(classes))

    def _validate_X(self, X):
        X = super()._validate_X(X)
        if any(member.uses_tree_input for member in self._members):
            check_float32_range(X, type(self).__name__)
        return X

    def _row_bytes(self, X):
        return 4 * n_columns(X) + 16 * (self.n_classes_ + 2)

    def _votes_chunk(self, X, out):
        _member_votes_chunk(self._members, X, out, self._members_n_jobs())
