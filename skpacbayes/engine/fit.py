"""The engine's entry point: a fit handed a specification, votes and labels, never an estimator.

votes -> statistics -> optimiser -> certificate, along one of two paths
(:ref:`theory-statistics`):

* **counts** (:mod:`skpacbayes.engine.counts`): a Categorical posterior with a bound that
  reads the sample only through the error counts of the voters and pairs of voters, and
  every out-of-bag bank;
* **rows** (:mod:`skpacbayes.engine.rows`): the per-row families, trained on the 0/1 error
  matrix in float32 and certified on every stochastic loss in float64.

Both end in the one certify step (:mod:`skpacbayes.engine.certify`).
"""

from joblib import effective_n_jobs

from skpacbayes.engine.counts import fit_on_counts
from skpacbayes.engine.optimisers import resolve_device
from skpacbayes.engine.parallel import thread_limit
from skpacbayes.engine.rows import fit_on_rows

__all__ = ["fit_posterior", "uses_counts"]


def uses_counts(spec, out_of_bag=False):
    """Whether the fit of ``spec`` runs on the error counts (the count path) rather than on
    the rows."""
    return spec.bound.uses_counts(spec.posterior, spec.solver, out_of_bag)


def fit_posterior(spec, passes, y_idx, scheme, seed, bank=None):
    """Optimise the posterior on the statistics or the rows, then certify it.

    Parameters
    ----------
    spec : FitSpec
        The bound, the posterior family and the optimiser's options.
    passes : VotePasses or DaskVotePasses
        The votes of the training rows, in chunks.
    y_idx : ndarray of shape (n_rows,)
        True class indices.
    scheme : EvaluationScheme
        Which voter may be evaluated on which row.
    seed : int
        Seed of the local torch generator (starting noise, mini-batches).
    bank : voter bank, optional
        The fitted bank (an out-of-bag bank's draws go into the certificate's details).

    Returns
    -------
    FitResult
    """
    device = resolve_device(spec.device)
    # threads of torch (OpenMP): n_jobs (None: one), of BLAS: one (see thread_limit)
    with thread_limit(effective_n_jobs(spec.n_jobs)):
        if uses_counts(spec, scheme.out_of_bag):
            return fit_on_counts(spec, passes, y_idx, scheme, seed, bank, device)
        return fit_on_rows(spec, passes, y_idx, scheme, seed, device)
