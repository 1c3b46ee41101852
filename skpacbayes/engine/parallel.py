"""Parallelism: independent fits through joblib, handed back as each one finishes (for
``verbose``), and the thread pools (BLAS, OpenMP) of one fit."""

import contextlib
import functools

from sklearn.utils.parallel import Parallel
from threadpoolctl import ThreadpoolController

__all__ = ["as_completed", "thread_limit"]


@functools.cache
def _controller():
    # Inspecting the loaded libraries costs milliseconds: the libraries that matter (torch's
    # OpenMP, numpy's and scipy's BLAS) are loaded with the package, one inspection serves.
    return ThreadpoolController()


@contextlib.contextmanager
def thread_limit(n_threads):
    """A context manager that limits the OpenMP pools (torch's included) to ``n_threads``
    threads and the BLAS pools to one, and restores them on exit.

    BLAS keeps one thread because the two kinds of pools, both multi-threaded, take turns
    badly: after each operation their threads spin for a while waiting for more work, and
    the other pool's threads then wait for a core (``benchmarks/bench_threads.py``). The
    training's BLAS products are matrix-vector products, bound by the memory's bandwidth,
    where one thread loses little.

    Parameters
    ----------
    n_threads : int
        Threads of each OpenMP pool (``>= 1``).

    Returns
    -------
    context manager

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.engine.parallel import thread_limit
    >>> with thread_limit(2):
    ...     torch.get_num_threads()
    2
    """
    import torch

    # torch keeps its own count once set (torch.set_num_threads), which the OpenMP limit
    # alone does not change: it is set, and restored, here too
    before = torch.get_num_threads()
    with _controller().limit(limits={"openmp": n_threads, "blas": 1}):
        torch.set_num_threads(n_threads)
        try:
            yield
        finally:
            torch.set_num_threads(before)


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
    >>> from skpacbayes.engine.parallel import as_completed
    >>> sorted(as_completed((delayed(pow)(i, 2) for i in range(4)), n_jobs=None))
    [0, 1, 4, 9]
    """
    try:
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except ValueError:  # a backend without generators: every result at the end
        parallel = Parallel(n_jobs=n_jobs)
    yield from parallel(jobs)
