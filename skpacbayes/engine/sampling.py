"""Rows drawn from a seed and a number of rows alone: the in-memory training sample of the
row path (:ref:`theory-training-sample`) and the hold-out estimators' training rows."""

import numpy as np

from skpacbayes.engine.statistics import EvaluationGroup

__all__ = ["draw_rows", "training_groups"]


def draw_rows(n_rows, size, seed):
    """``size`` distinct rows of ``range(n_rows)``, sorted, drawn from ``seed`` alone.

    Uniform without replacement by ``numpy.random.default_rng(seed)``; neither the features
    nor the labels are read, so the draw is independent of the data. It takes memory in
    ``size``, not in ``n_rows``.

    Parameters
    ----------
    n_rows : int
        Number of rows drawn from.
    size : int
        Rows drawn, ``0 <= size <= n_rows``.
    seed : int or sequence of int
        Seed of the draw (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    rows : ndarray of int
        Sorted indices of the drawn rows.

    Examples
    --------
    >>> from skpacbayes.engine.sampling import draw_rows
    >>> draw_rows(10, 3, seed=0).size
    3
    """
    return np.sort(np.random.default_rng(seed).choice(n_rows, size=size, replace=False))


def training_groups(groups, max_rows, seed):
    """The halves' training rows: at most ``max_rows`` of each half's rows, or None.

    A half of more than ``max_rows`` rows trains on ``max_rows`` of them drawn by
    :func:`draw_rows` from ``(seed, g)`` (``g``: the half's index) and its number of rows;
    a smaller half on every one of its rows. The certificate reads every row of every half
    whatever the draw (:ref:`theory-training-sample`).

    Parameters
    ----------
    groups : list of EvaluationGroup
        The halves (their voters and certification rows).
    max_rows : int or None
        Largest training sample of a half (None: every row).
    seed : int
        Seed of the draws.

    Returns
    -------
    groups : list of EvaluationGroup or None
        The halves with their training rows (global indices), or None when every half
        trains on all its rows.
    """
    if max_rows is None or all(g.samples.size <= max_rows for g in groups):
        return None
    return [
        g
        if g.samples.size <= max_rows
        else EvaluationGroup(g.voters, g.samples[draw_rows(g.samples.size, max_rows, (seed, i))])
        for i, g in enumerate(groups)
    ]
