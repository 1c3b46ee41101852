"""Values shared between the fits of one selection on the same sample.

Within a :func:`shared_votes` block (a selection's candidates, a benchmark's fits), a bank
grown from equal parameters on the same rows is grown once (:func:`shared_fit`), the vote
matrix of the same voters on the same rows is computed once
(:class:`~skpacbayes.engine.passes.VotePasses`), and values that only depend on the votes are
computed once (:func:`shared_value`).
"""

import contextlib
import contextvars
import pickle

import joblib
import numpy as np

__all__ = ["rows_key", "shared_entries", "shared_fit", "shared_value", "shared_votes"]

_SHARED = contextvars.ContextVar("skpacbayes_shared_votes", default=None)


def shared_entries():
    """The entries of the open :func:`shared_votes` block (a dict), or None outside one."""
    return _SHARED.get()


@contextlib.contextmanager
def shared_votes():
    """Within this block, fits of the same fitted voters on the same ``X`` share one vote matrix.

    A selection estimator fits several candidates on one sample; when they are given the
    same fitted (e.g. frozen) voter bank, the first
    :class:`~skpacbayes.engine.passes.VotePasses` that keeps its votes
    hands them to the next ones instead of computing them again. The key is the identity
    of the voters and which rows ``X`` holds (:func:`rows_key`: for an array, the memory
    it views); both are held by the entry, so neither can be reused while the block is
    open. The kept chunks are read-only. Banks that the candidates grow themselves from
    equal parameters are grown once (:func:`shared_fit`), hence share their votes too.
    Each thread or process of a parallel backend has its own context, hence its own (or
    no) sharing. A block opened inside another one joins it (a selection fitted within a
    block shares the votes of the enclosing block's fits).
    """
    entries = _SHARED.get()
    token = _SHARED.set({} if entries is None else entries)
    try:
        yield
    finally:
        _SHARED.reset(token)


def rows_key(X):
    """What identifies the rows ``X`` within a :func:`shared_votes` block.

    An array is identified by the memory it views: its address, shape, strides and dtype.
    Another view of the same memory reads the same rows, such as the plain array that
    scikit-learn's input validation makes of a memory-mapped one (the arrays joblib hands
    to its worker processes), which is a new object at every fit. Anything else (a sparse
    matrix, an empty array) is identified by the object itself. The entry keyed by it
    holds ``X``, so the memory cannot be freed and reused while the block is open.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_rows, n_features)
        Rows.

    Returns
    -------
    tuple
        A hashable key.

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.sharing import rows_key
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> rows_key(X) == rows_key(X.view())  # the same memory, read the same way
    True
    >>> rows_key(X) == rows_key(X.copy()) or rows_key(X) == rows_key(X[:2])
    False
    """
    if isinstance(X, np.ndarray) and X.size:
        return ("memory", X.__array_interface__["data"][0], X.shape, X.strides, X.dtype.str)
    return ("object", id(X))


def shared_value(key, compute):
    """``compute()``, computed once per ``key()`` within a :func:`shared_votes` block.

    Outside a block ``compute()`` is returned and ``key`` is not called. Inside, the value
    of the first call with an equal key is returned to the later ones (the fits of one
    selection on the same votes); ``key()`` must identify everything ``compute`` reads.
    """
    entries = _SHARED.get()
    if entries is None:
        return compute()
    k = ("value", key())
    if k not in entries:
        entries[k] = compute()
    return entries[k]


def shared_fit(voters, X, y):
    """``voters.fit(X, y)``; within a :func:`shared_votes` block, the bank an earlier fit of
    the block grew from equal parameters on the same rows, when there is one.

    A bank grown from the data (stumps, trees) is a function of its parameters, its seed
    among them, and of ``X`` and ``y``: the candidates of a selection that each grow the
    same bank (the same voters and ``random_state``) would grow identical copies. Within a
    block the first one grows it and the next ones get that fitted bank (the same object,
    hence one vote matrix as well). The key is the hash of the unfitted bank
    (:func:`joblib.hash`: every parameter), the rows ``X`` (:func:`rows_key`; held by the
    entry) and the hash of ``y``. Only for unfitted banks whose parameters are small: not for
    :class:`~skpacbayes.voters.PrefitVoters`, whose parameters are fitted models. A bank
    that cannot be hashed (a parameter that cannot be pickled) is fitted on its own.

    Parameters
    ----------
    voters : voter bank
        Unfitted.
    X : {ndarray, sparse matrix} of shape (n_rows, n_features)
        Training rows.
    y : ndarray of shape (n_rows,)
        Labels.

    Returns
    -------
    voters : voter bank
        Fitted: ``voters`` itself, or the equal bank fitted earlier in the block.
    """
    entries = _SHARED.get()
    if entries is None:
        return voters.fit(X, y)
    try:
        key = ("voters", joblib.hash(voters), rows_key(X), joblib.hash(y))
    except pickle.PicklingError:  # a parameter that cannot be pickled: a fit of its own
        return voters.fit(X, y)
    if key not in entries:
        entries[key] = (voters.fit(X, y), X)
    return entries[key][0]
