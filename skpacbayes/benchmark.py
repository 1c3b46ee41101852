"""The comparison benchmark behind ``skpacbayes compare``.

For each seed: a stratified 80/20 split, the voters of the reference
protocol fitted once (stumps for binary tasks, a 200-tree split forest for
multi-class tasks) and shared by every method, every valid (bound, posterior)
pair trained and certified, and the test error of the certified classifier.
A "best of families" row per method reports the tightest family after
re-certifying every family at ``delta / K`` (union bound over the K valid
families), so that row is itself a certificate. The strategy rows (``STRATEGIES``)
certify genuine votes of trees: the Gaussian PAC-Bayes vote, the hold-out votes (the
halves of a split forest, or a forest grown on ``1 - f`` of the rows and certified on
the held-out ``f``) and :class:`~skpacbayes.CertifiedVoteClassifier` with its defaults.
"""

import json
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from sklearn.utils.parallel import Parallel, delayed

from skpacbayes import _reference
from skpacbayes.classifiers import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.classifiers._certified_vote import CertifiedVoteClassifier
from skpacbayes.classifiers._hold_out import HoldOutBoundClassifier
from skpacbayes.datasets import fetch_dataset
from skpacbayes.engine.passes import shared_vote_matrix
from skpacbayes.engine.sharing import shared_votes
from skpacbayes.model_selection import BoundSelectionClassifier

__all__ = [
    "METHODS",
    "CompareResult",
    "UnsupportedRequestError",
    "check_request",
    "compare",
    "format_table",
    "upgrade_result",
]

#: method name (the bound's name in ``certificate_.bound``) -> estimator class
METHODS = {
    "FO": FirstOrderBoundClassifier,
    "SO": SecondOrderBoundClassifier,
    "Bin": BinomialBoundClassifier,
    "CBound": CBoundClassifier,
    "VC": VCDimBoundClassifier,
    "Partition": PartitionBoundClassifier,
    "Occam": OccamBoundClassifier,
    "Vote": BoundSelectionClassifier,
    "HoldOut": HoldOutBoundClassifier,
    "HO10": HoldOutBoundClassifier,
    "HO20": HoldOutBoundClassifier,
    "HO50": HoldOutBoundClassifier,
    "OOB-FO": FirstOrderBoundClassifier,
    "OOB-SO": SecondOrderBoundClassifier,
    "Certified": CertifiedVoteClassifier,
}
#: strategies with a fixed posterior family and their own voters (every task). Vote: the
#: Gaussian PAC-Bayes vote on the shared split forest (prior t 1, t in 1, 2, 4, 8, untrained
#: and trained, the tightest at delta / 8); HoldOut: the halves of that split forest; HOxx: a
#: forest of ``n_estimators`` trees grown on 1 - f of the rows, certified on the held-out f;
#: OOB-FO / OOB-SO: ``n_estimators`` random-forest trees, each grown on half the rows
#: (``OutOfBagVoters`` with its defaults, shared by both rows), its trained Categorical vote
#: certified by the out-of-bag first-order / tandem bound; Certified:
#: ``CertifiedVoteClassifier`` with its defaults (its own forests).
STRATEGIES = {
    "Vote": "gaussian",
    "HoldOut": "categorical",
    "HO10": "categorical",
    "HO20": "categorical",
    "HO50": "categorical",
    "OOB-FO": "categorical",
    "OOB-SO": "categorical",
    "Certified": "categorical",
}
#: hold-out rows: the validation fraction of each
HOLDOUT_FRACTIONS = {"HO10": 0.1, "HO20": 0.2, "HO50": 0.5}
#: the strategies that grow their own ensembles (no shared voter bank)
OWN_VOTERS = ("HO10", "HO20", "HO50", "Certified")
#: the rows certified on the shared out-of-bag forest
OUT_OF_BAG = ("OOB-FO", "OOB-SO")
FAMILIES = ("categorical", "dirichlet", "gaussian")
#: method names of results written before the names followed the certificate's
LEGACY_METHOD_NAMES = {"CBnd": "CBound", "Part": "Partition"}


def upgrade_result(data):
    """Rename legacy method names in a result read back from JSON (see ``to_json``).

    Parameters
    ----------
    data : dict
        Parsed JSON of a :class:`CompareResult`, possibly written with the legacy names
        ``CBnd`` and ``Part``.

    Returns
    -------
    dict
        The same data with the current names in ``rows``, ``summary`` and ``settings``.

    Examples
    --------
    >>> from skpacbayes.benchmark import upgrade_result
    >>> old = {"rows": [{"method": "Part", "chosen": "Part/categorical"}],
    ...        "summary": {"CBnd/best": {}}, "settings": {"methods": ["Part"]}}
    >>> new = upgrade_result(old)
    >>> new["rows"], sorted(new["summary"]), new["settings"]["methods"]
    ([{'method': 'Partition', 'chosen': 'Partition/categorical'}], ['CBound/best'], ['Partition'])
    """

    def name(text):
        method, _, family = text.partition("/")
        method = LEGACY_METHOD_NAMES.get(method, method)
        return f"{method}/{family}" if family else method

    data = dict(data)
    rows = []
    for row in data.get("rows", []):
        row = {**row, "method": name(row["method"])}
        if "chosen" in row:
            row["chosen"] = name(row["chosen"])
        rows.append(row)
    data["rows"] = rows
    data["summary"] = {name(k): v for k, v in data.get("summary", {}).items()}
    settings = dict(data.get("settings", {}))
    if settings.get("methods"):
        settings["methods"] = [name(m) for m in settings["methods"]]
    data["settings"] = settings
    return data


@dataclass
class CompareResult:
    """Rows of a comparison run and its settings.

    Attributes
    ----------
    dataset : str
        Name of the dataset.
    rows : list of dict
        One row per (seed, method, posterior), plus rows with
        ``posterior="best"`` for the delta-split best of families (and, with
        ``method="All"``, the delta-split best of everything). Keys:
        dataset, seed, method, posterior, bound, test_error, train_error,
        fit_time, n_iter, delta.
    settings : dict
        The arguments of the run.
    wall_time : float
        Seconds for the whole run.

    Examples
    --------
    >>> from skpacbayes.benchmark import CompareResult
    >>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
    ...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
    >>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
    ...                     settings={"seeds": 1, "delta": 0.05})
    >>> print(res.to_csv().splitlines()[0])
    dataset,seed,method,posterior,bound,test_error,train_error,fit_time,n_iter,delta
    """

    dataset: str
    rows: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    wall_time: float = 0.0

    def to_json(self):
        """The result as a JSON string (schema: dataset, settings, wall_time, rows, summary).

        Returns
        -------
        str
            Indented JSON text; ``summary`` holds the mean and standard deviation over
            seeds of the bound and the test error per (method, posterior).

        Examples
        --------
        >>> import json
        >>> from skpacbayes.benchmark import CompareResult
        >>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
        ...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
        >>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
        ...                     settings={"seeds": 1, "delta": 0.05})
        >>> data = json.loads(res.to_json())
        >>> sorted(data), data["summary"]["FO/best"]["bound_mean"]
        (['dataset', 'rows', 'settings', 'summary', 'wall_time'], 0.3)
        """
        return json.dumps(
            {
                "dataset": self.dataset,
                "settings": self.settings,
                "wall_time": self.wall_time,
                "rows": self.rows,
                "summary": summarize(self.rows),
            },
            indent=2,
        )

    def to_csv(self):
        """The rows as CSV text.

        Returns
        -------
        str
            A header line with the keys of ``ROW_KEYS``, then one line per row (the extra
            ``chosen`` key of the best-of-families rows is not written).

        Examples
        --------
        >>> from skpacbayes.benchmark import CompareResult
        >>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
        ...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
        >>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
        ...                     settings={"seeds": 1, "delta": 0.05})
        >>> print(res.to_csv())
        dataset,seed,method,posterior,bound,test_error,train_error,fit_time,n_iter,delta
        toy,0,FO,categorical,0.3,0.1,0.08,1.0,10,0.05
        toy,0,FO,best,0.3,0.1,0.08,1.0,10,0.05
        <BLANKLINE>
        """
        keys = list(ROW_KEYS)
        lines = [",".join(keys)]
        for row in self.rows:
            lines.append(",".join(str(row[k]) for k in keys))
        return "\n".join(lines) + "\n"


ROW_KEYS = (
    "dataset",
    "seed",
    "method",
    "posterior",
    "bound",
    "test_error",
    "train_error",
    "fit_time",
    "n_iter",
    "delta",
)


def _voters_key(task, method):
    """Which fitted voter bank a method uses within one seed (None: it grows its own)."""
    if method in OWN_VOTERS:
        return None
    if method in OUT_OF_BAG:
        return "out_of_bag"
    if method in STRATEGIES:
        return "forest" if task == "binary" else "shared"
    return "single" if (task != "binary" and method == "VC") else "shared"


def _voters_for(task, method, seed, n_estimators, n_jobs):
    from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank

    if method in OUT_OF_BAG:  # the bank's defaults: random-forest trees on half the rows
        return OutOfBagVoters(n_estimators=n_estimators, random_state=seed, n_jobs=n_jobs)
    if task == "binary" and method not in STRATEGIES:
        return StumpBank(random_state=seed)
    split = "single" if method == "VC" else "cross"
    return SplitForest(n_estimators=n_estimators, split=split, random_state=seed, n_jobs=n_jobs)


def _valid_pairs(methods, posteriors, n_classes, split_for):
    pairs = []
    for method in methods:
        if method in STRATEGIES:
            if STRATEGIES[method] in posteriors:
                pairs.append((method, STRATEGIES[method]))
            continue
        proto = METHODS[method]()
        for family in posteriors:
            if family in proto._valid_posteriors(n_classes, split_for(method)):
                pairs.append((method, family))
    return pairs


def _split_for(n_classes):
    """Whether a method runs on split voters (multi-class tasks, every method but VC)."""
    return lambda method: n_classes > 2 and method != "VC"


class UnsupportedRequestError(ValueError):
    """A :func:`compare` request naming a method that none of the asked posteriors can run.

    A ``ValueError``; ``skpacbayes compare`` exits with status 2 (a usage error) on it.

    Examples
    --------
    >>> from skpacbayes.benchmark import UnsupportedRequestError, check_request
    >>> try:
    ...     check_request("breast_cancer", ["Occam"], ["gaussian"])
    ... except UnsupportedRequestError as exc:
    ...     print(str(exc).split(":")[1].strip())
    Occam needs categorical. Valid methods (posteriors) here
    """


def check_request(dataset, methods, posteriors, *, explicit=True):
    """Refuse a request that cannot be honoured; name the methods left out of the others.

    Parameters
    ----------
    dataset : str
        A name accepted by :func:`skpacbayes.datasets.dataset_info` (its number of
        classes decides which posteriors each bound accepts).
    methods : list of str
        Keys of ``METHODS``.
    posteriors : list of str
        Posterior families asked for.
    explicit : bool, default=True
        Whether the user named ``methods``. A named method that no asked posterior can run
        is an error; with the default list (every method) it is left out and returned.

    Returns
    -------
    not_run : dict
        ``{method: valid posteriors}`` of the methods left out (only when not explicit).

    Raises
    ------
    UnsupportedRequestError
        When a named method cannot run with any of ``posteriors`` on this task, or no
        (method, posterior) pair is left at all; the message lists the valid combinations.

    Examples
    --------
    >>> from skpacbayes.benchmark import check_request
    >>> check_request("iris", ["Occam", "Vote"], ["categorical"], explicit=False)
    {'Vote': ['gaussian']}
    >>> check_request("iris", ["Vote"], ["categorical"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    skpacbayes.benchmark.UnsupportedRequestError: cannot run Vote with posterior categorical ...
    """
    from skpacbayes.datasets import dataset_info

    n_classes = dataset_info(dataset).n_classes
    task = f"{'binary' if n_classes == 2 else 'multi-class'} task, {n_classes} classes"
    valid = {
        m: [f for _, f in _valid_pairs([m], FAMILIES, n_classes, _split_for(n_classes))]
        for m in METHODS
    }
    missing = {m: valid[m] for m in methods if not set(valid[m]) & set(posteriors)}
    if (missing and explicit) or len(missing) == len(methods):
        reasons = "; ".join(
            f"{m} needs {' or '.join(v)}" if v else f"{m} runs on binary tasks only"
            for m, v in missing.items()
        )
        combos = ", ".join(f"{m} ({'/'.join(v)})" for m, v in valid.items() if v)
        asked = "posterior" + ("s " if len(posteriors) > 1 else " ") + " ".join(posteriors)
        raise UnsupportedRequestError(
            f"cannot run {', '.join(missing)} with {asked} on {dataset} ({task}): {reasons}. "
            f"Valid methods (posteriors) here: {combos}. Add a posterior (--posteriors) or "
            "leave the method out (--methods)."
        )
    return missing


def _gaussian_vote(voters, delta, max_epochs, seed):
    """The Gaussian PAC-Bayes vote: prior ``t 1`` on a fixed grid, the tightest at delta / K."""
    epochs = [0] if max_epochs == 0 else [0, max_epochs]
    candidates = [
        FirstOrderBoundClassifier(
            voters=voters, posterior="gaussian", prior=t, max_epochs=e, random_state=seed
        )
        for t in (1.0, 2.0, 4.0, 8.0)
        for e in epochs
    ]
    return BoundSelectionClassifier(candidates, delta=delta)


def _cost_rank(method, family):
    """A rough rank of a fit's cost, for the blocks and their order: a selection over several
    Gaussian fits or one that grows its own forests, then the families trained on the rows,
    then the Categorical fits trained on the rows, then those optimised on the counts (and
    the others)."""
    if method in ("Vote", "Certified"):
        return 3
    if family in ("dirichlet", "gaussian"):
        return 2
    return 1 if method in ("Bin", "CBound", "VC") else 0


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
    from sklearn.ensemble import RandomForestClassifier

    forest = RandomForestClassifier(n_estimators=settings["n_estimators"])
    if method == "Vote":
        est = _gaussian_vote(voters, settings["delta"], min(settings["max_epochs"], 20), seed)
    elif method == "HoldOut":
        est = HoldOutBoundClassifier(
            voters=voters, validation_fraction=None, delta=settings["delta"], random_state=seed
        )
    elif method in HOLDOUT_FRACTIONS:
        est = HoldOutBoundClassifier(
            voters=forest,
            validation_fraction=HOLDOUT_FRACTIONS[method],
            delta=settings["delta"],
            random_state=seed,
        )
    elif method == "Certified":
        est = CertifiedVoteClassifier(forest, delta=settings["delta"], random_state=seed)
    elif method in OUT_OF_BAG:
        est = METHODS[method](
            voters=voters,
            posterior="categorical",
            delta=settings["delta"],
            max_epochs=settings["max_epochs"],
            random_state=seed,
        )
    else:
        est = METHODS[method](
            voters=voters,
            posterior=family,
            delta=settings["delta"],
            max_epochs=settings["max_epochs"],
            random_state=seed,
        )
    start = time.perf_counter()
    est.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    return est, fit_time, float(np.mean(est.predict(X_test) != y_test))


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
        Subset of the families (default: all).
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
    explicit = methods is not None
    methods = list(methods or METHODS)
    posteriors = list(posteriors or FAMILIES)
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"Unknown methods {sorted(unknown)}; valid: {list(METHODS)}.")
    unknown = set(posteriors) - set(FAMILIES)
    if unknown:
        raise ValueError(f"Unknown posteriors {sorted(unknown)}; valid: {list(FAMILIES)}.")
    skipped = check_request(dataset, methods, posteriors, explicit=explicit)
    bunch = fetch_dataset(dataset, data_home=data_home, progress=progress)
    X, y = np.asarray(bunch.data), np.asarray(bunch.target)
    n_classes = int(np.unique(y).size)
    task = "binary" if n_classes == 2 else "multiclass"
    settings = {
        "seeds": seeds,
        "methods": methods,
        "posteriors": posteriors,
        "delta": delta,
        "max_epochs": max_epochs,
        "n_estimators": n_estimators,
        "test_size": test_size,
        "n_jobs": n_jobs,
        "task": task,
        "not_run": skipped,
    }
    pairs = _valid_pairs(methods, posteriors, n_classes, _split_for(n_classes))

    bar = _Progress(seeds * len(pairs), enabled=progress, label=dataset)
    tasks = []
    for seed in range(seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=test_size, stratify=y, random_state=seed
        )
        fitted = {}
        for method in sorted({m for m, _ in pairs}):
            key = _voters_key(task, method)
            if key is not None and key not in fitted:
                voters = _voters_for(task, method, seed, n_estimators, n_jobs)
                fitted[key] = FrozenEstimator(voters.fit(X_tr, y_tr))
                bar.note(f"seed {seed}: {type(voters).__name__} voters grown")
        for method, family in pairs:
            key = _voters_key(task, method)
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
            rows.append(_best_row(dataset, seed, "All", delta, chosen))
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


def summarize(rows):
    """Mean and std over seeds of bound and test error per (method, posterior)."""
    out = {}
    for key in sorted({(r["method"], r["posterior"]) for r in rows}):
        sel = [r for r in rows if (r["method"], r["posterior"]) == key]
        b = np.array([r["bound"] for r in sel])
        t = np.array([r["test_error"] for r in sel])
        out[f"{key[0]}/{key[1]}"] = {
            "bound_mean": float(b.mean()),
            "bound_std": float(b.std()),
            "test_mean": float(t.mean()),
            "test_std": float(t.std()),
            "n_seeds": len(sel),
        }
    return out


#: what each column of the tables is (``format_table`` prints the lines of the columns shown)
COLUMNS = {
    "FO": "first-order bound (twice the Gibbs risk)",
    "SO": "second-order (tandem) bound",
    "Bin": "binomial bound (Gibbs risk of a vote of n_draws voters)",
    "CBound": "C-bound (binary tasks)",
    "VC": "VC-dimension bound, no PAC-Bayes (binary tasks)",
    "Partition": "partition bound of the reference paper",
    "Occam": "Occam bound of the best single voter",
    "Vote": "Gaussian PAC-Bayes vote of a split forest (tightest of 8 priors and budgets)",
    "HoldOut": "plain vote of one half of a split forest, certified on the other half",
    "HO10": "forest grown on 90 % of the rows, certified on the held-out 10 %",
    "HO20": "forest grown on 80 % of the rows, certified on the held-out 20 %",
    "HO50": "forest grown on 50 % of the rows, certified on the held-out 50 %",
    "OOB-FO": "forest grown on every row, out-of-bag first-order bound",
    "OOB-SO": "forest grown on every row, out-of-bag tandem bound",
    "Certified": "CertifiedVoteClassifier, the recommended estimator (forests of n_estimators)",
    "All": "the tightest of every (method, posterior) row, delta split over all of them",
}


def _cell(stats):
    """``bound / test`` in percent, with the spread over seeds when there are several."""
    if stats["n_seeds"] < 2:
        return f"{100 * stats['bound_mean']:.1f} / {100 * stats['test_mean']:.1f}"
    return (
        f"{100 * stats['bound_mean']:.1f}±{100 * stats['bound_std']:.1f} / "
        f"{100 * stats['test_mean']:.1f}±{100 * stats['test_std']:.1f}"
    )


def _legend(methods, not_run):
    """The lines that say what each column shown is, and which methods were left out."""
    lines = ["Columns:"]
    lines += [f"  {m}: {COLUMNS[m]}" for m in methods if m in COLUMNS]
    if not_run:
        left = "; ".join(
            f"{m} (needs {' or '.join(v)})" if v else f"{m} (binary tasks only)"
            for m, v in not_run.items()
        )
        lines.append(f"Not run with the posteriors asked: {left}.")
    return lines


def format_table(result):
    """Text tables (percent): best of families per method with the reference, and per family.

    Parameters
    ----------
    result : CompareResult
        Output of :func:`compare`.

    Returns
    -------
    str
        Markdown tables: the best family per method (with the reference values of the
        paper where known), then every family per method, a legend naming what each
        column is, and the wall time. Cells are ``bound / test error`` in percent, with
        the standard deviation over the seeds (``±``) when there are several.

    Examples
    --------
    >>> from skpacbayes.benchmark import CompareResult, format_table
    >>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
    ...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
    >>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
    ...                     settings={"seeds": 1, "delta": 0.05})
    >>> print(format_table(res).splitlines()[4])
    | ours (best family) | 30.0 / 10.0 |
    """
    summary = summarize(result.rows)
    methods = [m for m in (*METHODS, "All") if f"{m}/best" in summary]
    name = result.dataset
    seeds = result.settings.get("seeds")
    spread = (
        "one split (seed 0), no spread"
        if seeds == 1
        else f"mean±std over {seeds} seeds (random stratified splits)"
    )
    lines = [
        f"{name}: certified bound / test error in percent, {spread}, delta = "
        f"{result.settings.get('delta')} (best of families: delta split over the valid "
        "families; All: the tightest of every (method, family) pair, delta split over all "
        "of them)",
        "",
        "| row | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
        "| ours (best family) | " + " | ".join(_cell(summary[f"{m}/best"]) for m in methods) + " |",
    ]
    ref = _reference.TABLE2.get(name)
    if ref:
        cells = []
        for m in methods:
            if m == "Occam" and name in _reference.OCCAM:
                b, t = _reference.OCCAM[name]
                cells.append(f"{b:.1f} / {t:.1f}")
            elif m in ref:
                b, bs, t, ts = ref[m]
                cells.append(f"{b:.1f}±{bs:.1f} / {t:.1f}±{ts:.1f}")
            else:
                cells.append("n/a")
        lines.append("| reference | " + " | ".join(cells) + " |")
    lines += ["", "Per posterior family (each at the full delta):", ""]
    lines.append("| method | " + " | ".join(FAMILIES) + " |")
    lines.append("|---|" + "---|" * len(FAMILIES))
    for m in (m for m in methods if m != "All"):
        cells = [_cell(summary[f"{m}/{f}"]) if f"{m}/{f}" in summary else "n/a" for f in FAMILIES]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    ref3 = _reference.TABLE3.get(name)
    if ref3:
        cells = [
            "{:.1f}±{:.1f} / {:.1f}±{:.1f}".format(*ref3[f]) if f in ref3 else "n/a"
            for f in FAMILIES
        ]
        lines.append("| Partition (reference) | " + " | ".join(cells) + " |")
    lines.append("")
    if ref or ref3:
        lines.append(
            "reference: the reference paper's figures (mean±std over its 5 seeds; Occam: "
            "measured on our copies of the data); n/a: not reported, or not valid here."
        )
    lines += _legend(methods, result.settings.get("not_run"))
    lines.append("")
    lines.append(f"wall time: {result.wall_time:.1f} s")
    return "\n".join(lines)


def _check_positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}.")


class _Progress:
    """Progress of a run on stderr: a tqdm bar on a terminal, one plain line per step otherwise.

    A bar redraws one line with carriage returns, which only makes sense on a terminal; in a
    log file or a pipe each step is written as a line of its own (count, what finished and
    the elapsed time), so that ``skpacbayes compare ... > run.log 2>&1`` can be followed with
    ``tail -f``.
    """

    def __init__(self, total, enabled=True, label=""):
        self.total, self.done, self.label = total, 0, label
        self.enabled = bool(enabled)
        self.start = time.perf_counter()
        self._bar = None
        if self.enabled and _isatty(sys.stderr):
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=label, unit="fit", file=sys.stderr, leave=True)

    def step(self, what):
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)
            return
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(
            f"{self.label}: {self.done}/{self.total} fits done ({what}), {elapsed:.1f} s\n"
        )
        sys.stderr.flush()

    def note(self, what):
        """Report work that is not one of the counted fits (a shared voter bank)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(what)
            return
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(f"{self.label}: {what}, {elapsed:.1f} s\n")
        sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def plot_results(result, path):
    """Scatter of certified bound against test error per method (matplotlib, lazy import).

    Parameters
    ----------
    result : CompareResult
    path : str or path
        Image file to write.
    """
    from skpacbayes.plotting import BoundDisplay

    display = BoundDisplay.from_results(result.rows, title=result.dataset)
    display.figure_.savefig(path, bbox_inches="tight", dpi=120)
    return display
