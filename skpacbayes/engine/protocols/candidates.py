"""Several certified candidates, each at a share of ``delta`` fixed before the data, and the
rule that deploys one (:ref:`theory-selection`).

Candidate ``c`` states ``R(h_c) <= B_c`` with probability at least ``1 - delta_c``; by the
union bound all the statements hold together with probability at least ``1 - sum_c
delta_c``, so the deployed pair ``(h, B)`` keeps its certificate whichever rule chose it.
What is fixed here before any row is read: the candidate list (the defaults of
:mod:`~skpacbayes.engine.protocols.default_candidates`, sized and weighed by the numbers of rows
and classes alone, or the user's models), the weight of each candidate in the split of
``delta``, the rounding of the shares; what reads a fitted candidate: the estimate of its
error and the selection rule. A candidate that cannot be fitted drops out with its reason.
"""

import time
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import FitFailedWarning
from sklearn.utils.parallel import delayed

from skpacbayes._docstrings import fill_doc
from skpacbayes.engine.certificate import shares_within
from skpacbayes.engine.parallel import as_completed
from skpacbayes.engine.protocols.candidate_plan import DOCS
from skpacbayes.engine.protocols.default_candidates import (
    default_forest_trees,
)
from skpacbayes.engine.protocols.held_out import (
    certify_count,
    count_fraction,
    rows_seed,
)
from skpacbayes.engine.statistics import EmptySampleError
from skpacbayes.engine.vote import _strict_argmax_is, weighted_vote_scores

__all__ = [
    "CandidatesResult",
    "FittedVote",
    "candidate_deltas",
    "certify_candidates",
    "describe",
    "out_of_bag_error",
    "select",
    "timed_fit",
]


def out_of_bag_error(estimator, X, y):
    """Error of a fitted vote on out-of-bag voters: each row voted by the voters it may evaluate.

    Row ``i`` is classified by the weighted vote of the voters ``j`` with
    ``evaluation_mask()[i, j]`` (the voters that never saw it; ties count as errors);
    rows that no voter may evaluate are left out. For an
    :class:`~skpacbayes.voters.OutOfBagVoters` bank it is the out-of-bag error of a
    random forest: an estimate of the deployed vote's error, not a certificate.

    Parameters
    ----------
    estimator : fitted MajorityVoteClassifier
        With ``voters_`` fitted on ``X``, ``weights_`` and ``classes_``.
    X, y : ndarray
        The rows the bank was fitted on.

    Returns
    -------
    error : float
        The share of the rows some voter may evaluate that their vote gets wrong.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import FirstOrderBoundClassifier
    >>> from skpacbayes.engine.protocols.candidates import out_of_bag_error
    >>> from skpacbayes.voters import OutOfBagVoters
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = FirstOrderBoundClassifier(voters=OutOfBagVoters(n_estimators=20, random_state=0),
    ...                                 random_state=0).fit(X, y)
    >>> bool(0 < out_of_bag_error(clf, X, y) < 0.1)
    True
    """
    mask = estimator.voters_.evaluation_mask()
    votes = np.where(mask, estimator.voters_.votes(X), -1)  # -1: no class, no weight
    scores = weighted_vote_scores(votes, estimator.weights_, estimator.classes_.size)
    rows = mask.any(axis=1)
    y_idx = np.searchsorted(estimator.classes_, y)
    return float(np.mean(~_strict_argmax_is(scores[rows], y_idx[rows])))


@fill_doc(**DOCS)
def select(bounds, estimates, tolerance, margin=0.0):
    """Index of the deployed candidate: the most accurate among the nearly tightest.

    Among the candidates whose bound is at most ``(1 + tolerance)`` times the smallest
    bound plus ``margin``, the one with the smallest estimated error; ties go to the
    smaller bound, then to the earlier candidate.

    {selection_note}

    Parameters
    ----------
    bounds, estimates : sequence of float
        Each candidate's certified bound and estimated error.
    tolerance : float >= 0
        ``0``: the tightest bound (with ``margin=0``); ``inf``: the most accurate estimate.
    margin : float >= 0, default=0.0
        An absolute allowance above the (relatively widened) smallest bound
        (``"most_accurate"``: :data:`MOST_ACCURATE_MARGIN`).

    Returns
    -------
    index : int
        The deployed candidate's position in ``bounds``.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import select
    >>> bounds, estimates = [0.040, 0.041, 0.060], [0.035, 0.030, 0.020]
    >>> select(bounds, estimates, 0.0), select(bounds, estimates, 0.05)
    (0, 1)
    >>> select(bounds, estimates, float("inf")), select(bounds, estimates, 0.0, margin=0.01)
    (2, 1)
    """
    limit = np.inf if np.isinf(tolerance) else (1.0 + tolerance) * min(bounds) + margin
    eligible = [i for i, b in enumerate(bounds) if b <= limit]
    return min(eligible, key=lambda i: (estimates[i], bounds[i], i))


def candidate_deltas(delta, shares):
    """Each candidate's ``delta * share``, rounded down so that they sum to at most ``delta``
    exactly.

    Parameters
    ----------
    delta : float
        The whole budget.
    shares : sequence of float
        Each candidate's share (its weight, :func:`candidate_weight`, over their sum), fixed
        before the data.

    Returns
    -------
    deltas : list of float
        One per share, in their order.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import candidate_deltas
    >>> candidate_deltas(0.05, [0.5, 0.5])
    [0.025, 0.025]
    """
    return shares_within(delta, [float(delta * share) for share in shares])


def timed_fit(index, estimator, X, y):
    """Fit one estimator; return its index, itself and the seconds it took (a job of
    :func:`~skpacbayes.engine.parallel.as_completed`)."""
    start = time.perf_counter()
    estimator.fit(X, y)
    return index, estimator, time.perf_counter() - start


def describe(candidate):
    """A candidate in a few words: ``hold-out 0.2 fold 1``, ``boosting 0.2 fold 0``, ``stump
    0.5 fold 0``, ``out-of-bag FO`` or, for a user's model, its class name with its fold.

    Parameters
    ----------
    candidate : dict
        An entry of ``CertifiedVoteClassifier.candidates_``.

    Returns
    -------
    text : str
        What the progress lines and the warnings call the candidate.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import describe
    >>> describe({"kind": "holdout", "validation_fraction": 0.2, "fold": 1})
    'hold-out 0.2 fold 1'
    >>> describe({"kind": "out_of_bag", "out_of_bag_bound": "SO"})
    'out-of-bag SO'
    >>> describe({"kind": "holdout", "validation_fraction": 0.2, "fold": 0, "model": "SVC"})
    'SVC 0.2 fold 0'
    """
    if candidate["kind"] == "out_of_bag":
        return f"out-of-bag {candidate['out_of_bag_bound']}"
    names = {"holdout": "hold-out", "boosting": "boosting", "stump": "stump"}
    kind = names[candidate["kind"]]
    if candidate["kind"] == "holdout" and candidate.get("model", _FOREST) != _FOREST:
        kind = candidate["model"]  # a user's model
    return f"{kind} {candidate['validation_fraction']} fold {candidate['fold']}"


#: the class name of the hold-out candidates' default ensemble
_FOREST = "RandomForestClassifier"


@dataclass(frozen=True)
class FittedVote:
    """A vote fitted by the engine, read by :func:`out_of_bag_error` as a fitted estimator is."""

    voters_: Any
    weights_: Any
    classes_: Any


@dataclass
@fill_doc(**DOCS)
class CandidatesResult:
    """Every candidate certified, and the one deployed.

    Attributes
    ----------
    entries : list of dict
        ``CertifiedVoteClassifier.candidates_``:
        {candidates_}
    outcomes : list
        Each candidate's :class:`~skpacbayes.engine.protocols.held_out.HeldOutResult`, or the
        :class:`~skpacbayes.engine.spec.FitResult` of an out-of-bag candidate (None where it
        dropped out).
    shares : tuple of float
        Each candidate's share of ``delta``.
    best_index : int
        The deployed candidate.
    out_of_bag_voters : fitted voter bank or None
        The out-of-bag bank, where there are out-of-bag candidates.
    """

    entries: list
    outcomes: list
    shares: tuple
    best_index: int
    out_of_bag_voters: Any = None


def _held_out_job(index, spec, X, y, y_idx, classes, fraction, fold, certified, details):
    """One hold-out candidate grown and counted (and certified, with every row in memory), or
    the reason it cannot be (its fit failed: the error it raised)."""
    start = time.perf_counter()
    try:
        outcome = count_fraction(spec, X, y, y_idx, classes, fraction, fold)
    except Exception as error:  # noqa: BLE001 (scikit-learn's error_score: any failed fit)
        return index, error, time.perf_counter() - start
    if certified:
        outcome = _certified(spec, outcome, fraction, details, X.shape[0])
    return index, outcome, time.perf_counter() - start


def _certified(spec, counted, fraction, details, n_rows):
    """The certificate of one counted hold-out candidate at its share (one statement, the
    statement of :func:`~skpacbayes.engine.protocols.held_out.certify_fractions` with one
    fraction), its details naming the fraction, its training rows and every share."""
    recorded = {
        "validation_fractions": (fraction,),
        "training_rows": int(n_rows - counted.size),
        **details,
    }
    return replace(certify_count(spec, counted, recorded), validation_fraction=fraction)


def _out_of_bag_job(index, spec, voters, X, y, seed):
    """One out-of-bag candidate fitted and certified (or the reason it has no bound: an empty
    out-of-bag pair sample); the torch seed is the one a bound estimator with
    ``random_state=seed`` draws."""
    from sklearn.utils import check_random_state

    from skpacbayes.engine.fit import fit_posterior

    start = time.perf_counter()
    torch_seed = int(check_random_state(seed).randint(np.iinfo(np.int32).max, size=2)[1])
    y_idx = np.searchsorted(np.asarray(voters.classes_), y)
    try:
        outcome = fit_posterior(spec, voters, X, y_idx, torch_seed)
    except EmptySampleError as error:
        outcome = error
    return index, outcome, time.perf_counter() - start


def _entry(candidate, delta, outcome, voters, X, y, seconds):
    """A candidate's line of ``candidates_``: its description, share, bound, estimate, time.

    A candidate that cannot be certified drops out (its fit failed, or its bound has no
    sample): bound 1.0 (trivially certified), no estimate, and the reason under ``dropped``.
    A candidate counted on a sample gets its bound once the rows outside the sample are
    counted.
    """
    entry = {**candidate.info(), "delta": delta}
    if isinstance(outcome, Exception):
        dropped = {"bound": 1.0, "estimated_error": float("nan"), "dropped": str(outcome)}
        return {**entry, **dropped, "fit_time": seconds}
    if candidate.kind == "out_of_bag":
        vote = FittedVote(voters, outcome.vote_weights, np.asarray(voters.classes_))
        estimate = out_of_bag_error(vote, X, y)
        entry.update(bound=float(outcome.certificate.value), estimated_error=estimate)
    elif hasattr(outcome, "certificate"):  # certified on its held-out rows
        cert = outcome.certificate
        entry.update(bound=float(cert.value), estimated_error=float(cert.train_error))
    entry["fit_time"] = seconds
    return entry


def _said(entry, outcome):
    """What a candidate's progress line says of it."""
    if "dropped" in entry:
        return f"dropped out: {entry['dropped']}"
    if "bound" in entry:
        return f"bound {entry['bound']:.4f}, estimated error {entry['estimated_error']:.4f}"
    # counted on the sample; certified once every row outside it is read
    return f"{outcome.errors} errors on its {outcome.size} held-out rows of the sample"


def _check_some_left(entries):
    """Refuse a fit whose every candidate dropped out, naming each reason."""
    if all("dropped" in e for e in entries):
        reasons = "; ".join(f"{describe(e)}: {e['dropped']}" for e in entries)
        raise ValueError(f"Every candidate dropped out, none can be certified ({reasons}).")


@fill_doc(**DOCS)
def certify_candidates(spec, X, y, classes):
    """Fit every candidate once at its share of ``delta``, certify each, deploy one.

    {certificate_note}

    {out_of_core_note}

    A candidate whose fit fails (e.g. a fraction whose training rows hold a single class)
    drops out with a ``FitFailedWarning`` and its reason in its entry; a fit whose every
    candidate drops out raises a ``ValueError`` naming each reason.

    Parameters
    ----------
    spec : CandidatesSpec
        From :func:`plan_candidates`.
    X, y : {ndarray, sparse matrix, dask array} and ndarray or dask array
        The validated rows, ``(n_rows, n_features)``, and their ``n_rows`` labels (dask
        arrays with the sample protocol only).
    classes : ndarray
        The sorted labels of ``y``.

    Returns
    -------
    result : CandidatesResult
        Every candidate's entry and outcome, the shares and the deployed one.
    """
    from skpacbayes.engine.protocols.sample import Sample

    sample = None
    if spec.train_size is not None:  # the candidates' rows: a sample drawn into memory
        sample = Sample(X, y, classes, spec.train_size, rows_seed(spec.seed))
        X, y = sample.X, sample.y
    candidates = spec.candidates
    weights = np.array([c.weight for c in candidates])
    shares = weights / weights.sum()
    deltas = candidate_deltas(spec.delta, shares)
    details = {"candidate_deltas": tuple(deltas)}  # every share, in the certificate
    start = time.perf_counter()
    trees = ""
    if spec.default_forests:  # the default forests' sizes, fraction by fraction
        sizes = {
            c.validation_fraction: default_forest_trees(X.shape[0], c.validation_fraction)
            for c in candidates
            if c.kind == "holdout"
        }
        trees = ", trees " + ", ".join(f"{n} (fraction {f})" for f, n in sizes.items())
    spec.say(f"{len(candidates)} candidates on {X.shape[0]} rows{trees}, each reported as it ends")
    bank = None
    if any(c.kind == "out_of_bag" for c in candidates):  # grown once, shared by FO and SO
        bank = spec.out_of_bag_voters.fit(X, y)
        spec.say(f"out-of-bag forest grown ({time.perf_counter() - start:.1f} s)")
    y_idx = np.searchsorted(classes, y)
    jobs = []
    not_grown = {}  # binary-only candidates on more classes: out, their shares unused
    for i, (c, d) in enumerate(zip(candidates, deltas, strict=True)):
        if c.binary_only and classes.size > 2:
            not_grown[i] = ValueError(
                f"not grown on a {classes.size}-class task (a {c.kind} candidate is grown on "
                "binary tasks only); its share of delta is unused"
            )
        elif c.kind == "out_of_bag":
            fit_spec = replace(spec.out_of_bag[c.out_of_bag_bound], delta=d)
            jobs.append(delayed(_out_of_bag_job)(i, fit_spec, bank, X, y, spec.seed))
        else:
            held = replace(spec.held_out, voters=c.voters, delta=d)
            args = (X, y, y_idx, classes, c.validation_fraction, c.fold, sample is None)
            jobs.append(delayed(_held_out_job)(i, held, *args, {**details, "candidate": i}))
    entries, outcomes = [None] * len(candidates), [None] * len(candidates)
    for index, reason in not_grown.items():
        entries[index] = _entry(candidates[index], deltas[index], reason, bank, X, y, 0.0)
    for done, (index, outcome, seconds) in enumerate(as_completed(jobs, spec.held_out.n_jobs), 1):
        entry = _entry(candidates[index], deltas[index], outcome, bank, X, y, seconds)
        entries[index] = entry
        outcomes[index] = None if isinstance(outcome, Exception) else outcome
        spec.say(
            f"{done}/{len(candidates)} candidate {index} ({describe(entry)}): "
            f"{_said(entry, outcome)} ({seconds:.1f} s; {time.perf_counter() - start:.1f} s "
            "so far)"
        )
    _check_some_left(entries)
    for index, entry in enumerate(entries):
        if "dropped" in entry and index not in not_grown:
            warnings.warn(
                f"Candidate {index} ({describe(entry)}) dropped out (bound 1.0): "
                f"{entry['dropped']}",
                FitFailedWarning,
                stacklevel=4,  # the user's call: here < fit < scikit-learn's wrapper
            )
    if sample is not None:  # every candidate on every row outside the sample, too
        kept = [i for i, outcome in enumerate(outcomes) if outcome is not None]
        for index, counted in zip(
            kept, sample.add_outside([outcomes[i] for i in kept]), strict=True
        ):
            held = replace(spec.held_out, voters=candidates[index].voters, delta=deltas[index])
            recorded = {**counted.details, **details, "candidate": index}
            outcomes[index] = certify_count(held, counted, recorded)
            cert = outcomes[index].certificate
            entries[index].update(
                bound=float(cert.value),
                estimated_error=float(cert.train_error),
                held_out_rows=int(cert.details["held_out_rows"]),
                train_size=int(sample.rows.size),
            )
        spec.say(f"certified on every other row ({time.perf_counter() - start:.1f} s)")
    best = select(
        [e["bound"] for e in entries],
        [np.inf if "dropped" in e else e["estimated_error"] for e in entries],
        spec.tolerance,
        spec.margin,
    )
    spec.say(
        f"deployed candidate {best} ({describe(entries[best])}), bound "
        f"{entries[best]['bound']:.4f} ({time.perf_counter() - start:.1f} s)"
    )
    shares = tuple(float(share) for share in shares)
    return CandidatesResult(entries, outcomes, shares, best, bank)
