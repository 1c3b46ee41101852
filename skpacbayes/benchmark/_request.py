"""The check of a comparison request: the pairs it runs, those it cannot run and why.

A request names methods and posterior families, or leaves either to its default (every
method, every family). The (method, family) pairs of the request that a method runs on the
task are run; an asked pair that cannot run is refused before any work starts, with the
reason, unless the caller asks to skip it. A pair is asked when its method and its family were
both named, or when the one named on one side runs with nothing of the other side: a named
method that no asked family can run, a named family that no asked method runs. The other
pairs of a default list that cannot run are left out, and the methods left out altogether
are named in the tables.
"""

from dataclasses import dataclass

from skpacbayes.benchmark._methods import FAMILIES, REGISTRY
from skpacbayes.datasets import dataset_info


class UnsupportedRequestError(ValueError):
    """A :func:`compare` request with a (method, posterior) pair that cannot run on the task.

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


@dataclass(frozen=True)
class _Request:
    """A checked request: its pairs to run, the methods left out, the asked pairs refused."""

    pairs: list  # (method, family), in the order of the methods, then of the families asked
    not_run: dict  # {method: the families it runs here} of the default list's left out
    invalid: dict  # {(method, family): why} of the asked pairs that cannot run


def _why(valid):
    """Why a method cannot run a family it does not run here (``valid``: those it runs)."""
    return f"needs {' or '.join(valid)}" if valid else "runs on binary tasks only"


def _plan(n_classes, methods, posteriors, *, explicit):
    """The request of ``methods`` and ``posteriors`` (None: every one) on ``n_classes``."""
    named_methods, named_families = methods is not None and explicit, posteriors is not None
    methods = list(dict.fromkeys(REGISTRY if methods is None else methods))
    posteriors = list(dict.fromkeys(FAMILIES if posteriors is None else posteriors))
    for kind, asked, known in (
        ("methods", methods, REGISTRY),
        ("posteriors", posteriors, FAMILIES),
    ):
        unknown = sorted(set(asked) - set(known))
        if unknown:
            raise ValueError(f"Unknown {kind} {unknown}; valid: {list(known)}.")
        if not asked:
            raise ValueError(f"{kind} is empty: name at least one, or pass None for all.")
    valid = {m: REGISTRY[m].families(n_classes) for m in methods}
    pairs = [(m, f) for m in methods for f in posteriors if f in valid[m]]
    runs, run_families = {m for m, _ in pairs}, {f for _, f in pairs}
    invalid = {
        (m, f): _why(valid[m])
        for m in methods
        for f in posteriors
        if f not in valid[m]
        and (
            not pairs
            or (named_methods and named_families)
            or (named_methods and m not in runs)
            or (named_families and f not in run_families)
        )
    }
    not_run = {m: valid[m] for m in methods if m not in runs and not named_methods}
    return _Request(pairs, not_run, invalid)


def _refusal(dataset, n_classes, invalid):
    """The message of an :class:`UnsupportedRequestError`: the pairs refused, why, and the
    valid (method, posteriors) of the task."""
    task = f"{'binary' if n_classes == 2 else 'multi-class'} task, {n_classes} classes"
    by_method = {}
    for (method, family), why in invalid.items():
        by_method.setdefault(method, ([], why))[0].append(family)
    asked = ", ".join(
        f"{m} with posterior{'s' if len(fs) > 1 else ''} {' '.join(fs)}"
        for m, (fs, _) in by_method.items()
    )
    reasons = "; ".join(f"{m} {why}" for m, (_, why) in by_method.items())
    combos = ", ".join(
        f"{name} ({'/'.join(v)})"
        for name, method in REGISTRY.items()
        if (v := method.families(n_classes))
    )
    return (
        f"cannot run {asked} on {dataset} ({task}): {reasons}. Valid methods (posteriors) "
        f"here: {combos}. Add a posterior (--posteriors), leave the method out (--methods), "
        "or run the valid pairs only (--skip-invalid; skip_invalid=True of compare)."
    )


def _checked(dataset, methods, posteriors, *, explicit=True, skip_invalid=False):
    """The :class:`_Request` of a request, or :class:`UnsupportedRequestError`."""
    n_classes = dataset_info(dataset).n_classes
    request = _plan(n_classes, methods, posteriors, explicit=explicit)
    if not request.pairs or (request.invalid and not skip_invalid):
        raise UnsupportedRequestError(_refusal(dataset, n_classes, request.invalid))
    return request


def check_request(dataset, methods, posteriors, *, explicit=True, skip_invalid=False):
    """Refuse a request that cannot be honoured; name the methods left out of the others.

    Parameters
    ----------
    dataset : str
        A name accepted by :func:`skpacbayes.datasets.dataset_info` (its number of
        classes decides which posteriors each bound accepts).
    methods : list of str or None
        Keys of ``METHODS``; None: every method (as ``explicit=False``).
    posteriors : list of str or None
        Posterior families asked for; None: every family, each method with those it runs.
    explicit : bool, default=True
        Whether the user named ``methods``. A (method, posterior) pair of a named method and
        a named posterior that cannot run is an error, as is a named method that no asked
        posterior can run, or a named posterior that no asked method runs; with the default
        list (every method) a method that no asked posterior can run is left out and
        returned.
    skip_invalid : bool, default=False
        Leave the asked pairs that cannot run out instead of refusing the request
        (:func:`invalid_pairs` names them); a request with no pair left is still refused.

    Returns
    -------
    not_run : dict
        ``{method: valid posteriors}`` of the methods left out (only when not explicit).

    Raises
    ------
    UnsupportedRequestError
        When an asked (method, posterior) pair cannot run on this task (unless
        ``skip_invalid``), or no pair is left at all; the message names every such pair,
        why, and the valid combinations.

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
    >>> check_request("wine", ["FO", "HoldOut"], ["categorical", "dirichlet"], skip_invalid=True)
    {}
    """
    return _checked(
        dataset, methods, posteriors, explicit=explicit, skip_invalid=skip_invalid
    ).not_run


def invalid_pairs(dataset, methods=None, posteriors=None, *, explicit=True):
    """The asked (method, posterior) pairs that cannot run on a dataset, and why.

    Parameters
    ----------
    dataset : str
        A name accepted by :func:`skpacbayes.datasets.dataset_info`.
    methods : list of str, optional
        Keys of ``METHODS`` (default: every method).
    posteriors : list of str, optional
        Posterior families asked for (default: every family).
    explicit : bool, default=True
        Whether the user named ``methods`` (see :func:`check_request`).

    Returns
    -------
    invalid : dict
        ``{(method, posterior): why}``: the pairs :func:`check_request` refuses, and
        ``compare(..., skip_invalid=True)`` skips.

    Examples
    --------
    >>> from skpacbayes.benchmark import invalid_pairs
    >>> invalid = invalid_pairs("wine", ["FO", "HoldOut"], ["categorical", "dirichlet"])
    >>> for pair, why in invalid.items():
    ...     print(pair, why)
    ('FO', 'dirichlet') needs categorical or gaussian
    ('HoldOut', 'dirichlet') needs categorical
    >>> invalid_pairs("breast_cancer", ["FO", "HoldOut"])
    {}
    """
    n_classes = dataset_info(dataset).n_classes
    return _plan(n_classes, methods, posteriors, explicit=explicit).invalid
