"""The methods of the comparison: the estimator and the voters of each, and the valid requests.

A method is a bound trained with a posterior family on a shared voter bank, or a strategy
(``STRATEGIES``) with a fixed family and, for some, voters of its own.
"""

from sklearn.ensemble import RandomForestClassifier

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.datasets import dataset_info
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank

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
    """The unfitted voter bank of ``method`` (see :func:`_voters_key` for its sharing)."""
    if method in OUT_OF_BAG:  # the bank's defaults: random-forest trees on half the rows
        return OutOfBagVoters(n_estimators=n_estimators, random_state=seed, n_jobs=n_jobs)
    if task == "binary" and method not in STRATEGIES:
        return StumpBank(random_state=seed)
    split = "single" if method == "VC" else "cross"
    return SplitForest(n_estimators=n_estimators, split=split, random_state=seed, n_jobs=n_jobs)


def _gaussian_vote(voters, delta, max_epochs, seed):
    """The Gaussian PAC-Bayes vote: prior ``t 1`` on a fixed grid, the tightest at delta / K."""
    # the untrained start (solver="none") and, unless max_epochs is 0, the trained vote
    budgets = [{"solver": "none"}] + ([{"max_epochs": max_epochs}] if max_epochs else [])
    candidates = [
        FirstOrderBoundClassifier(
            voters=voters, posterior="gaussian", prior=t, random_state=seed, **budget
        )
        for t in (1.0, 2.0, 4.0, 8.0)
        for budget in budgets
    ]
    return BoundSelectionClassifier(candidates, delta=delta)


def _estimator(method, family, voters, seed, settings):
    """The unfitted estimator of ``method`` with posterior ``family`` on ``voters``."""
    forest = RandomForestClassifier(n_estimators=settings["n_estimators"])
    if method == "Vote":
        return _gaussian_vote(voters, settings["delta"], min(settings["max_epochs"], 20), seed)
    if method == "HoldOut":
        return HoldOutBoundClassifier(
            voters=voters, validation_fraction=None, delta=settings["delta"], random_state=seed
        )
    if method in HOLDOUT_FRACTIONS:
        return HoldOutBoundClassifier(
            voters=forest,
            validation_fraction=HOLDOUT_FRACTIONS[method],
            delta=settings["delta"],
            random_state=seed,
        )
    if method == "Certified":
        return CertifiedVoteClassifier(voters=forest, delta=settings["delta"], random_state=seed)
    return METHODS[method](
        voters=voters,
        posterior="categorical" if method in OUT_OF_BAG else family,
        delta=settings["delta"],
        max_epochs=settings["max_epochs"],
        random_state=seed,
    )


def _valid_pairs(methods, posteriors, n_classes, split_for):
    """The (method, family) pairs of ``methods`` x ``posteriors`` that run on the task."""
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
    >>> from skpacbayes.benchmark import UnsupportedRequestError, check_request
    >>> check_request("iris", ["Occam", "Vote"], ["categorical"], explicit=False)
    {'Vote': ['gaussian']}
    >>> try:
    ...     check_request("iris", ["Vote"], ["categorical"])
    ... except UnsupportedRequestError as exc:
    ...     print(str(exc).split(":")[0])
    cannot run Vote with posterior categorical on iris (multi-class task, 3 classes)
    """
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
