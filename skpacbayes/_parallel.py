"""Independent fits through joblib, handed back as each one finishes (for ``verbose``)."""

from sklearn.utils.parallel import Parallel

__all__ = ["as_completed"]


def as_completed(jobs, n_jobs):
    """Run ``delayed`` jobs with joblib; yield each result as soon as its job finishes.

    The order is the order of completion (run sequentially, the order of ``jobs``), so a
    job should return what identifies it. A backend that cannot hand results back one by
    one (joblib's ``multiprocessing``) runs every job first and then yields the results.

    Parameters
    ----------
    jobs : iterable of delayed calls
        ``sklearn.utils.parallel.delayed(f)(...)`` calls.
    n_jobs : int or None
        ``n_jobs`` of :class:`joblib.Parallel` (the active backend is used, e.g. dask).

    Yields
    ------
    result : object
        What each job returned.

    Examples
    --------
    >>> from sklearn.utils.parallel import delayed
    >>> from skpacbayes._parallel import as_completed
    >>> sorted(as_completed((delayed(pow)(i, 2) for i in range(4)), n_jobs=None))
    [0, 1, 4, 9]
    """
    try:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except ValueError:  # a backend without generators: every result at the end
        parallel = Parallel(n_jobs=n_jobs)
    yield from parallel(jobs)
