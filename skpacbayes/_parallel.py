"""Parallelism: independent fits through joblib, handed back as each one finishes (for
``verbose``), and the thread pools (BLAS, OpenMP) of one fit."""

import functools

from sklearn.utils.parallel import Parallel
from threadpoolctl import ThreadpoolController

__all__ = ["as_completed", "thread_limit"]


@functools.cache
def _controller():
    # Inspecting the loaded libraries costs milliseconds (measured: 9 ms a call); the
    # libraries that matter (torch's OpenMP, numpy's and scipy's BLAS) are loaded when the
    # package is imported, so one inspection serves every later call.
    return ThreadpoolController()


def thread_limit(n_threads):
    """A context manager that limits the BLAS and OpenMP pools (torch's included) to
    ``n_threads`` threads, and restores them on exit.

    Parameters
    ----------
    n_threads : int
        Threads per pool (``>= 1``).

    Returns
    -------
    context manager

    Examples
    --------
    >>> from skpacbayes._parallel import thread_limit
    >>> with thread_limit(1):
    ...     pass
    """
    return _controller().limit(limits=n_threads)


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
