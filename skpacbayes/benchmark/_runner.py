"""The comparison runner: every valid (method, posterior) pair fitted and certified per seed.

For each seed: a stratified split, the voter banks fitted once and shared by the methods
that use them, every fit run (in blocks that share the banks' votes), and the rows of the
result, with the best-of-families and overall rows re-certified with a union bound.
"""

import time
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from sklearn.utils.parallel import Parallel, delayed

from skpacbayes.benchmark._methods import (
    BANKS,
    FAMILIES,
    OVERALL,
    REGISTRY,
    _cost_rank,
    task_of,
)
from skpacbayes.benchmark._progress import _Progress
from skpacbayes.benchmark._request import _checked
from skpacbayes.benchmark._result import CompareResult
from skpacbayes.datasets import fetch_dataset
from skpacbayes.engine.passes import shared_vote_matrix
from skpacbayes.engine.sharing import shared_votes


def compare(
    dataset="breast_cancer",
    *,
    data_home=None,
    seeds=5,
    methods=None,
    posteriors=None,
    delta=0.05,
    max_epochs=100,
    n_estimators=200,
    test_size=0.2,
    n_jobs=1,
    progress=True,
    skip_invalid=False,
):
    """Train and certify every valid (bound, posterior) pair on one dataset.

    Parameters
    ----------
    dataset : str, default="breast_cancer"
        A name accepted by :func:`skpacbayes.datasets.load_dataset`.
    data_home : str or path, optional
        Folder of the raw datasets; missing files are downloaded there with
        :func:`skpacbayes.datasets.fetch_dataset`.
    seeds : int, default=5
        Number of random splits (seeds 0 .. seeds - 1).
    methods : list of str, optional
        Subset of ``METHODS`` (default: all).
    posteriors : list of str, optional
        Subset of the families (default: all). Each method runs with those it certifies on
        the task; an asked pair that cannot run (a named method with a named posterior,
        see :func:`check_request`) is refused before any work starts.
    delta : float, default=0.05
        Confidence parameter of every certificate (each bound holds with probability at
        least ``1 - delta``; the best-of-families rows split it over the families).
    max_epochs : int, default=100
        Maximum number of training epochs of each estimator.
    n_estimators : int, default=200
        Trees of the split forest (multi-class tasks, and the Vote and HoldOut rows) and of
        the forests grown by the HO10, HO20, HO50, OOB-FO, OOB-SO and Certified rows.
    test_size : float, default=0.2
        Fraction of the data held out (stratified) to measure the test error.
    n_jobs : int, default=1
        Parallel fits, through :class:`joblib.Parallel` (so the backend set by
        :func:`joblib.parallel_config`, e.g. ``"dask"``, is used). The fits of one seed on
        the seed's shared voter bank run in at most ``n_jobs`` blocks of about equal cost,
        each in one process, where they share the bank's vote matrices on the training and
        test rows (computed once per block instead of once per fit: a 200-tree forest's
        votes cost as much as a Categorical fit on them); fits that grow their own voters
        run one by one. Each row's ``fit_time`` is the fit's own time plus that of its
        block's training votes, as for a fit run alone.
    progress : bool, default=True
        Progress bar (and download progress) on stderr, drawn only when stderr is a
        terminal.
    skip_invalid : bool, default=False
        Run the valid pairs of a request that asks for some that cannot run, instead of
        refusing it; the skipped pairs and why are in ``settings["skipped"]`` and the
        tables' notes.

    Returns
    -------
    CompareResult
        One row per (seed, method, posterior), one best-of-families row per
        (seed, method) and one ``method="All"`` row per seed (the tightest of everything,
        delta split), with the settings of the run.

    Examples
    --------
    >>> from skpacbayes.benchmark import compare
    >>> res = compare("breast_cancer", seeds=1, methods=["Occam"], progress=False)
    >>> [r["posterior"] for r in res.rows if r["method"] == "Occam"]
    ['categorical', 'best']
    >>> all(r["bound"] >= r["train_error"] for r in res.rows)
    True
    """
    start = time.perf_counter()
    _check_positive_int(seeds, "seeds")
    _check_positive_int(max_epochs, "max_epochs")
    _check_positive_int(n_estimators, "n_estimators")
    for value, what in ((delta, "delta"), (test_size, "test_size")):
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
            raise ValueError(f"{what} must be a number in (0, 1), got {value!r}.")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a nonzero integer, got {n_jobs!r}.")
    request = _checked(
        dataset, methods, posteriors, explicit=methods is not None, skip_invalid=skip_invalid
    )
    bunch = fetch_dataset(dataset, data_home=data_home, progress=progress)
    X, y = np.asarray(bunch.data), np.asarray(bunch.target)
    task = task_of(int(np.unique(y).size))
    pairs = request.pairs
    settings = {
        "seeds": seeds,
        "methods": list(dict.fromkeys(methods or REGISTRY)),
        "posteriors": list(dict.fromkeys(posteriors or FAMILIES)),
        "delta": delta,
        "max_epochs": max_epochs,
        "n_estimators": n_estimators,
        "test_size": test_size,
        "n_jobs": n_jobs,
        "task": task,
        "not_run": request.not_run,
        "skipped": {f"{m}/{f}": why for (m, f), why in request.invalid.items()},
    }

    bar = _Progress(seeds * len(pairs), enabled=progress, label=dataset)
    tasks = []
    for seed in range(seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=test_size, stratify=y, random_state=seed
        )
        fitted = {}
        for method in sorted({m for m, _ in pairs}):
            key = REGISTRY[method].voters[task]
            if key is not None and key not in fitted:
                voters = BANKS[key].make(seed, n_estimators, n_jobs)
                fitted[key] = FrozenEstimator(voters.fit(X_tr, y_tr))
                bar.note(f"seed {seed}: {type(voters).__name__} voters grown")
        for method, family in pairs:
            key = REGISTRY[method].voters[task]
            voters = None if key is None else fitted[key]
            tasks.append((seed, method, family, voters, X_tr, y_tr, X_te, y_te))

    blocks = _blocks(tasks, effective_n_jobs(n_jobs))
    jobs = (delayed(_fit_block)([tasks[i] for i in block], settings) for block in blocks)
    done = [None] * len(tasks)
    results = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
    for block, outcomes in zip(blocks, results, strict=True):
        for i, outcome in zip(block, outcomes, strict=True):
            done[i] = outcome
            bar.step(f"seed {tasks[i][0]} {tasks[i][1]}/{tasks[i][2]}")
    rows, fitted_estimators = [], {}
    for (seed, method, family, *_), (est, fit_time, test_error) in zip(tasks, done, strict=True):
        rows.append(
            {
                "dataset": dataset,
                "seed": seed,
                "method": method,
                "posterior": family,
                "bound": float(est.bound_),
                "test_error": test_error,
                "train_error": float(est.certificate_.train_error),
                "fit_time": fit_time,
                "n_iter": int(est.n_iter_),
                "delta": delta,
            }
        )
        fitted_estimators[(seed, method, family)] = (est, test_error, fit_time)
    bar.close()
    rows.extend(_best_of_families(fitted_estimators, dataset, delta))
    rows.extend(_best_overall(fitted_estimators, dataset, delta))
    return CompareResult(dataset, rows, settings, time.perf_counter() - start)


def _check_positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}.")


def _blocks(tasks, n_workers):
    """The tasks cut into blocks, each run in one process, the heaviest first.

    The fits of one seed on one fitted bank share its vote matrices (:func:`_fit_block`):
    they are cut into at most ``n_workers`` blocks of about equal cost (by
    :func:`_cost_rank`, each fit given to the lightest block so far, the costliest first),
    so that the bank's votes are computed once per block rather than once per fit while
    every worker still has work. Fits that grow their own voters are blocks of their own.
    The blocks are returned by decreasing cost (the last ones to finish are short).
    """

    def cost(i):
        return 4 ** _cost_rank(*tasks[i][1:3])

    groups, blocks = {}, []
    for i, (seed, _, _, voters, *_) in enumerate(tasks):
        if voters is None:
            blocks.append([i])
        else:
            groups.setdefault((seed, id(voters)), []).append(i)
    for members in groups.values():
        parts = [[] for _ in range(min(max(1, n_workers), len(members)))]
        loads = [0] * len(parts)
        for i in sorted(members, key=cost, reverse=True):
            lightest = loads.index(min(loads))
            parts[lightest].append(i)
            loads[lightest] += cost(i)
        blocks.extend(parts)
    return sorted(blocks, key=lambda block: -sum(map(cost, block)))


def _fit_block(tasks, settings):
    """The fits ``tasks`` of one seed on one fitted bank (or one fit), in turn.

    They share the bank's vote matrices on the training and test rows (a
    :func:`~skpacbayes.engine.sharing.shared_votes` block), computed first; each fit's time is
    its own plus the time of the training rows' votes, as if it had computed them itself
    (which a fit of its own does), so that fit times compare across runs and blocks.
    Returns ``(estimator, fit time, test error)`` per fit.
    """
    seed, _, _, voters, X_train, y_train, X_test, y_test = tasks[0]
    with shared_votes() if voters is not None else nullcontext():
        votes_time = 0.0
        if voters is not None:
            start = time.perf_counter()
            shared_vote_matrix(voters, X_train)
            votes_time = time.perf_counter() - start
            shared_vote_matrix(voters, X_test)
        out = []
        for _, method, family, *_ in tasks:
            est, fit_time, test_error = _fit_one(
                method, family, voters, X_train, y_train, X_test, y_test, seed, settings
            )
            out.append((est, fit_time + votes_time, test_error))
    return out


def _fit_one(method, family, voters, X_train, y_train, X_test, y_test, seed, settings):
    """Fit one method; return ``(estimator, fit time, test error)``."""
    est = REGISTRY[method].build(family, voters, seed, settings)
    start = time.perf_counter()
    est.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    return est, fit_time, float(np.mean(est.predict(X_test) != y_test))


def _tightest(cands, delta):
    """The candidate with the smallest bound when each is re-certified at delta / K.

    ``K`` is the number of candidates, fixed before looking at any bound. A candidate that
    cannot be re-certified (its bound splits delta internally over a grid fixed at fit
    time) is left out of the selection; counting it in ``K`` anyway only makes the split
    more conservative.
    """
    share = delta / max(1, len(cands))
    scored = []
    for label, (est, test_error, fit_time) in cands:
        try:
            bound = est.recompute_bound(share)
        except NotImplementedError:
            continue
        scored.append((bound, label, est, test_error, fit_time))
    if not scored:
        return None
    return min(scored, key=lambda t: t[0])


def _best_row(dataset, seed, method, delta, chosen):
    bound, label, est, test_error, fit_time = chosen
    return {
        "dataset": dataset,
        "seed": seed,
        "method": method,
        "posterior": "best",
        "bound": float(bound),
        "test_error": test_error,
        "train_error": float(est.certificate_.train_error),
        "fit_time": fit_time,
        "n_iter": int(est.n_iter_),
        "delta": delta,
        "chosen": label,
    }


def _best_overall(fitted, dataset, delta):
    """Per seed: the tightest of every (method, family) fitted, at delta / K (K: all of them)."""
    rows = []
    for seed in sorted({s for s, _, _ in fitted}):
        cands = [(f"{m}/{f}", v) for (s, m, f), v in fitted.items() if s == seed]
        chosen = _tightest(cands, delta)
        if chosen is not None:
            rows.append(_best_row(dataset, seed, OVERALL, delta, chosen))
    return rows


def _best_of_families(fitted, dataset, delta):
    """Per (seed, method): the tightest family re-certified at delta / K."""
    rows = []
    for seed, method in sorted({(s, m) for s, m, _ in fitted}):
        cands = [(f, v) for (s, m, f), v in fitted.items() if s == seed and m == method]
        chosen = _tightest(cands, delta)
        if chosen is not None:
            rows.append(_best_row(dataset, seed, method, delta, chosen))
    return rows
