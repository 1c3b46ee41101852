"""The certified statistics of the per-row stochastic losses: float64 sums over rows, then the
safe-side allowances.

A bound's statistics (:meth:`~skpacbayes.objectives.Bound.statistics`) are means over rows of
functions of each row's stochastic loss, so they are sums divided by the number of rows: the
sums add up over disjoint blocks of rows, which lets a map-reduce over a dask array
(:mod:`skpacbayes.engine.dask_passes`) certify every row while only the sums travel. The
in-memory certificate reads the same sums (``np.sum`` then one division is ``np.mean`` to
the bit).
"""

import numpy as np
import torch

from skpacbayes.engine.certificate import _STAT_SLACK

__all__ = ["loss_sums", "safe_statistics"]


def loss_sums(problem, bound, g, nat):
    """Sums over the rows of half ``g`` of what ``bound``'s statistics average, in float64.

    Parameters
    ----------
    problem : RowProblem
        A float64 row problem (:class:`~skpacbayes.engine.problem.RowProblem`).
    bound : Bound
        The bound whose :meth:`~skpacbayes.objectives.Bound.statistics` are summed.
    g : int
        The half.
    nat : ndarray
        Its natural parameters.

    Returns
    -------
    sums : dict of str to float
        One sum per statistic, each row's loss widened by the family's loss tolerance (the
        statistic is taken at the safe end of ``[r - tol, r + tol]``, clipped to [0, 1]).
    """
    with torch.no_grad():
        r = problem.losses(g, torch.from_numpy(np.asarray(nat, dtype=np.float64)))
    tol = problem.posteriors[g].loss_tolerance
    r_lo = torch.clamp(r - tol, 0.0, 1.0).numpy()
    r_hi = torch.clamp(r + tol, 0.0, 1.0).numpy()
    return {k: float(v) for k, v in bound.statistics(r_lo, r_hi, np.sum).items()}


def safe_statistics(sums, m):
    """The statistics of :func:`loss_sums` ``sums`` on ``m`` rows, moved to the safe side.

    Each sum divided by ``m``, moved by the statistic allowance ``1e-12`` (up, but down for
    the disagreement, which a bound reads with the opposite sign) and clipped to [0, 1].
    """
    sign = {"disagreement": -1.0}
    return {k: min(1.0, max(0.0, v / m + sign.get(k, 1.0) * _STAT_SLACK)) for k, v in sums.items()}
