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
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.exceptions import FitFailedWarning
from sklearn.utils.parallel import delayed

from skpacbayes.engine.certificate import shares_within
from skpacbayes.engine.parallel import as_completed
from skpacbayes.engine.protocols.default_candidates import (
    BOOSTING_FRACTION,
    candidate_weight,
    default_boosting,
    default_forest,
    default_forest_trees,
    default_n_estimators,
    default_weight,
)
from skpacbayes.engine.protocols.held_out import (
    HeldOutSpec,
    certify_count,
    count_fraction,
    rows_seed,
)
from skpacbayes.engine.spec import progress
from skpacbayes.engine.statistics import EmptySampleError
from skpacbayes.engine.vote import _strict_argmax_is, weighted_vote_scores

__all__ = [
    "MOST_ACCURATE_MARGIN",
    "SELECTIONS",
    "Candidate",
    "CandidatesResult",
    "CandidatesSpec",
    "FittedVote",
    "candidate_deltas",
    "candidate_list",
    "candidates_seed",
    "certify_candidates",
    "describe",
    "out_of_bag_error",
    "out_of_bag_voters",
    "plan_candidates",
    "select",
    "selection_rule",
    "timed_fit",
    "use_out_of_bag",
    "use_stumps",
]

#: how far above the smallest bound ``"most_accurate"`` may deploy a candidate: one point
#: of error rate (absolute), so that it never trades the certificate away for an estimate
MOST_ACCURATE_MARGIN = 0.01
#: named selection rules -> their (relative tolerance, absolute margin) on the bound
#: (:func:`select`)
SELECTIONS = {"tightest_bound": (0.0, 0.0), "most_accurate": (0.0, MOST_ACCURATE_MARGIN)}


def candidates_seed(random_state):
    """Every candidate's ``random_state``: an int as given (so that fold 0 of every fraction
    holds out the rows :class:`~skpacbayes.HoldOutBoundClassifier` holds out with it, and
    grows the first trees of its forest), otherwise one int drawn from it
    (:func:`~skpacbayes.engine.protocols.held_out.rows_seed`).

    Parameters
    ----------
    random_state : int, RandomState instance or None

    Returns
    -------
    seed : int

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import candidates_seed
    >>> candidates_seed(7)
    7
    """
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return rows_seed(random_state)


def selection_rule(selection):
    """A selection rule's relative tolerance and absolute margin on the bound (:func:`select`).

    Parameters
    ----------
    selection : str or float
        A name of :data:`SELECTIONS`, or the relative tolerance itself (no margin).

    Returns
    -------
    tolerance, margin : float

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import selection_rule
    >>> selection_rule("most_accurate"), selection_rule(0.5)
    ((0.0, 0.01), (0.5, 0.0))
    """
    if isinstance(selection, str):
        return SELECTIONS[selection]
    return float(selection), 0.0


def use_stumps(stump_candidate, default):
    """Whether the stump candidates join (:func:`candidate_list`'s ``stumps``).

    Parameters
    ----------
    stump_candidate : "auto" or bool
        ``"auto"``: ``"binary"`` (two leaves: grown on binary tasks only) with the default
        candidates, else none.
    default : bool
        Whether the candidates are the defaults (no ensemble and no models of the user's).

    Returns
    -------
    stumps : bool or "binary"
    """
    if stump_candidate == "auto":
        return "binary" if default else False
    return bool(stump_candidate)


def use_out_of_bag(out_of_bag, selection, per_class, models):
    """Whether the out-of-bag candidates join, refusing them where they cannot.

    Parameters
    ----------
    out_of_bag : "auto" or bool
        ``"auto"``: only where the rule can pick them (a relative tolerance of at least 1),
        with no per-class statement and no models of the user's.
    selection : str or float
        The selection rule (:func:`selection_rule`).
    per_class : bool
        Whether each class's miss rate is certified too (the out-of-bag candidates have no
        such statement).
    models : bool
        Whether the candidates are the user's models (no bagged ensemble of every row).

    Returns
    -------
    out_of_bag : bool

    Raises
    ------
    ValueError
        If ``out_of_bag=True`` with ``per_class`` or with the user's models.
    """
    if per_class and out_of_bag is True:
        raise ValueError(
            "per_class=True certifies each class's miss rate on held-out rows; the "
            "out-of-bag candidates (out_of_bag=True) have no per-class statement. Set "
            "out_of_bag=False or 'auto' (no out-of-bag candidate with per_class=True)."
        )
    if models and out_of_bag is True:
        raise ValueError(
            "The out-of-bag candidates (out_of_bag=True) bag voters on every row; with "
            "candidates=[...] there is no such ensemble. Set out_of_bag=False or 'auto'."
        )
    if out_of_bag == "auto":
        tolerance, _ = selection_rule(selection)
        return tolerance >= 1.0 and not per_class and not models
    return bool(out_of_bag)


def out_of_bag_voters(voters, n_rows, seed, n_jobs):
    """The unfitted out-of-bag bank the out-of-bag candidates share (grown once, on every row).

    Parameters
    ----------
    voters : scikit-learn classifier or None
        What each member is (None: the bank's default trees, each on half the rows, as many
        as :func:`default_n_estimators`).
    n_rows : int
        Rows it is grown on.
    seed : int
        Its ``random_state``.
    n_jobs : int or None
        Its ``n_jobs``.

    Returns
    -------
    bank : OutOfBagVoters
    """
    from skpacbayes.voters import OutOfBagVoters

    if voters is None:
        return OutOfBagVoters(
            n_estimators=default_n_estimators(n_rows), random_state=seed, n_jobs=n_jobs
        )
    return OutOfBagVoters(estimator=voters, random_state=seed, n_jobs=n_jobs)


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


def select(bounds, estimates, tolerance, margin=0.0):
    """Index of the deployed candidate: the most accurate among the nearly tightest.

    Among the candidates whose bound is at most ``(1 + tolerance)`` times the smallest
    bound plus ``margin``, the one with the smallest estimated error; ties go to the
    smaller bound, then to the earlier candidate.

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
class Candidate:
    """One candidate, fixed before the data.

    Attributes
    ----------
    kind : {"holdout", "boosting", "stump", "out_of_bag"}
        A vote grown on the rows one fold of one fraction leaves and certified on the fold
        (a forest or a user's model, the default gradient boosting, or a decision stump), or
        the vote of an out-of-bag bank grown on every row, certified by a PAC-Bayes bound.
    validation_fraction, fold : float and int, or None
        The held-out rows of a hold-out or stump candidate
        (:func:`~skpacbayes.engine.protocols.held_out.validation_rows`).
    out_of_bag_bound : str or None
        The short name of an out-of-bag candidate's bound.
    voters : scikit-learn classifier or None
        What a hold-out, boosting or stump candidate grows (unfitted).
    weight : float or None
        Its weight in the split of ``delta``; None: its kind's (:func:`candidate_weight`).
    binary_only : bool, default=False
        Grown on binary tasks only; on more classes it drops out, its share unused (the
        candidates and their shares are fixed by the parameters and the number of rows,
        never by the classes the labels hold).
    """

    kind: str
    validation_fraction: Any = None
    fold: Any = None
    out_of_bag_bound: Any = None
    voters: Any = None
    weight: float = None
    binary_only: bool = False

    def __post_init__(self):
        if self.weight is None:  # the weight of its kind (:func:`candidate_weight`)
            object.__setattr__(self, "weight", candidate_weight(self.kind))

    def info(self):
        """Its description in ``candidates_``."""
        info = {
            "kind": self.kind,
            "validation_fraction": self.validation_fraction,
            "fold": self.fold,
            "out_of_bag_bound": self.out_of_bag_bound,
        }
        if self.voters is not None:
            info["model"] = type(self.voters).__name__
        return info


def candidate_list(n_rows, voters, fractions, n_folds, stumps, out_of_bag_bounds, models=None):
    """The candidates, in a fixed order: fractions then folds (the default forests, or the
    user's models in their order), the boosting ones, the stumps, the out-of-bag ones; each
    depends on the parameters and the number of rows alone.

    Parameters
    ----------
    n_rows : int
        Rows the candidates are grown on (the sample, with the sample protocol).
    voters : scikit-learn classifier or None
        What every hold-out candidate grows; None: :func:`default_forest` of its fraction.
    fractions : tuple of float
        The validation fractions.
    n_folds : int
        Disjoint held-out sets per fraction.
    stumps : bool or "binary"
        Add a decision stump grown on each half, certified on the other (``"binary"``: on
        binary tasks only, :attr:`Candidate.binary_only`).
    out_of_bag_bounds : sequence of str
        The bounds of the out-of-bag candidates (none: no such candidate).
    models : list of (classifier, tuple of float) or None, default=None
        The user's candidates: each unfitted classifier with its validation fractions, each
        fraction with ``n_folds`` folds, instead of ``voters``; no boosting candidate then.

    Returns
    -------
    candidates : list of Candidate
        With ``voters=None`` and no ``models`` (the defaults), each weighs
        :func:`default_weight`; otherwise 1 (:data:`STUMP_WEIGHT` for a stump).

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import candidate_list
    >>> [(c.kind, c.validation_fraction, c.fold, c.weight) for c in candidate_list(
    ...     1000, None, (0.2, 0.5), 1, stumps=True, out_of_bag_bounds=())]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('holdout', 0.2, 0, 1.0), ('holdout', 0.5, 0, 1.0), ('boosting', 0.2, 0, 1.0),
     ('stump', 0.5, 0, 0.1), ('stump', 0.5, 1, 0.1)]
    """
    from sklearn.tree import DecisionTreeClassifier

    default = voters is None and models is None

    def weight(kind, fraction):
        return default_weight(kind, fraction, n_rows) if default else None

    if models is None:
        models = [(voters, fractions)]
    held_out = [
        Candidate(
            "holdout",
            f,
            fold,
            None,
            model if model is not None else default_forest(n_rows, f),
            weight("holdout", f),
        )
        for model, model_fractions in models
        for f in model_fractions
        for fold in range(n_folds)
    ]
    boosting = default_boosting(n_rows) if default else None
    if boosting is not None:  # a vote of trees by boosting, beside the forests' by bagging
        f = BOOSTING_FRACTION
        held_out += [
            Candidate("boosting", f, fold, None, boosting, weight("boosting", f), True)
            for fold in range(min(n_folds, int(1 / f)))
        ]
    if stumps:  # one split grown on each half, certified on the other
        stump = DecisionTreeClassifier(max_depth=1)
        held_out += [
            Candidate("stump", 0.5, fold, None, stump, weight("stump", 0.5), stumps == "binary")
            for fold in (0, 1)
        ]
    return held_out + [
        Candidate("out_of_bag", out_of_bag_bound=name, weight=weight("out_of_bag", 0.5))
        for name in out_of_bag_bounds
    ]


@dataclass(frozen=True)
class CandidatesSpec:
    """What the candidates protocol is handed besides the rows.

    Attributes
    ----------
    candidates : list of Candidate
    delta : float
        The whole budget, split over the candidates by their weights.
    seed : int
        Every candidate's ``random_state``: its held-out rows are drawn from
        ``rows_seed(seed)`` (those of :class:`~skpacbayes.HoldOutBoundClassifier` with the same
        ``random_state``), an out-of-bag fit's torch seed from ``seed``.
    held_out : HeldOutSpec
        The hold-out and stump candidates' specification (its ``voters`` and ``delta`` are
        each candidate's).
    out_of_bag : dict
        Bound name -> the :class:`~skpacbayes.engine.spec.FitSpec` of an out-of-bag candidate
        (its ``delta`` is the candidate's).
    out_of_bag_voters : voter bank or None
        The unfitted out-of-bag bank the out-of-bag candidates share (grown once).
    tolerance : float
        The selection rule's relative tolerance on the bound (:func:`select`).
    margin : float
        The selection rule's absolute margin on the bound (:func:`select`).
    train_size : int or None
        The sample protocol: the candidates grown on this many rows drawn into memory
        (:class:`~skpacbayes.engine.protocols.sample.Sample`), each certified on every row its
        voters never saw.
    n_jobs : int or None
        Candidates fitted at the same time.
    default_forests : bool
        Whether the hold-out candidates grow the default forests (the start line names their
        sizes).
    label : str
        The name the progress lines are prefixed with.
    verbose : int
        A line per candidate when > 0.
    """

    candidates: list
    delta: float
    seed: int
    held_out: Any
    out_of_bag: dict
    out_of_bag_voters: Any
    tolerance: float
    margin: float = 0.0
    train_size: Any = None
    n_jobs: Any = None
    default_forests: bool = False
    label: str = "CertifiedVoteClassifier"
    verbose: int = 0

    def say(self, text):
        """Print one progress line (when ``verbose``)."""
        if self.verbose:
            progress(self.label, text)


def plan_candidates(
    n_rows, seed, train_size, *, voters, fractions, models, params, bound, fit_specs
):
    """The candidates protocol's specification, fixed by the parameters and the number of rows.

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.
    seed : int
        Every candidate's ``random_state`` (:func:`candidates_seed`).
    train_size : int or None
        The sample protocol's rows (None: every row in memory).
    voters : scikit-learn classifier or None
        What every hold-out candidate grows (None: the default forests).
    fractions : tuple of float
        The validation fractions.
    models : list of (classifier, tuple of float) or None
        The user's candidates (:func:`candidate_list`).
    params : dict
        The estimator's ``n_folds``, ``selection``, ``out_of_bag``, ``stump_candidate``,
        ``delta``, ``per_class``, ``n_jobs`` and ``verbose``, and ``label``, its name.
    bound : test-set bound
        What certifies the hold-out and stump candidates.
    fit_specs : dict
        Bound name -> the :class:`~skpacbayes.engine.spec.FitSpec` of an out-of-bag candidate
        certified by it (the out-of-bag bounds, in their order).

    Returns
    -------
    spec : CandidatesSpec

    Raises
    ------
    ValueError
        If ``n_folds`` held-out sets of a fraction do not fit in the rows, or the out-of-bag
        candidates are asked for where they cannot be certified.
    """
    p = params
    listed = fractions if models is None else [f for _, fs in models for f in fs]
    too_many = [f for f in listed if p["n_folds"] * f > 1 + 1e-9]
    if too_many:
        raise ValueError(
            f"n_folds={p['n_folds']} disjoint held-out sets of validation_fraction "
            f"{too_many[0]} do not fit in the rows (n_folds * fraction must be at most 1)."
        )
    out_of_bag = use_out_of_bag(p["out_of_bag"], p["selection"], p["per_class"], models is not None)
    if train_size is not None and out_of_bag:
        if p["out_of_bag"] is True:
            raise ValueError(
                "The out-of-bag candidates (out_of_bag=True) are certified on the rows "
                "their forest is grown on; with train_size (and on a dask array) the "
                "forests are grown on a sample and certified on the other rows. Set "
                "out_of_bag=False or 'auto'."
            )
        out_of_bag = False
    bounds = tuple(fit_specs) if out_of_bag else ()
    n_grown = n_rows if train_size is None else int(train_size)
    default = voters is None and models is None
    stumps = use_stumps(p["stump_candidate"], default)
    candidates = candidate_list(
        n_grown, voters, fractions, p["n_folds"], stumps, bounds, models=models
    )
    tolerance, margin = selection_rule(p["selection"])
    delta, n_jobs, label = float(p["delta"]), p["n_jobs"], p["label"]
    return CandidatesSpec(
        candidates=candidates,
        delta=delta,
        seed=seed,
        held_out=HeldOutSpec(
            bound=bound,
            voters=None,
            delta=delta,
            seed=rows_seed(seed),
            risks=("miss_rate",) if p["per_class"] else (),
            n_jobs=n_jobs,
            label=label,
        ),
        out_of_bag={name: fit_specs[name] for name in bounds},
        out_of_bag_voters=out_of_bag_voters(voters, n_grown, seed, n_jobs),
        tolerance=tolerance,
        margin=margin,
        train_size=train_size,
        n_jobs=n_jobs,
        default_forests=default,
        label=label,
        verbose=int(p["verbose"]),
    )


@dataclass(frozen=True)
class FittedVote:
    """A vote fitted by the engine, read by :func:`out_of_bag_error` as a fitted estimator is."""

    voters_: Any
    weights_: Any
    classes_: Any


@dataclass
class CandidatesResult:
    """Every candidate certified, and the one deployed.

    Attributes
    ----------
    entries : list of dict
        One per candidate (``CertifiedVoteClassifier.candidates_``).
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


def certify_candidates(spec, X, y, classes):
    """Fit every candidate once at its share of ``delta``, certify each, deploy one.

    A candidate whose fit fails (e.g. a fraction whose training rows hold a single class)
    drops out with a ``FitFailedWarning`` and its reason in its entry; a fit whose every
    candidate drops out raises a ``ValueError`` naming each reason.

    Parameters
    ----------
    spec : CandidatesSpec
    X : {ndarray, sparse matrix, dask array} of shape (n_rows, n_features)
        The validated rows (a dask array with the sample protocol only).
    y : ndarray or dask array of shape (n_rows,)
        Their labels.
    classes : ndarray
        The sorted labels of ``y``.

    Returns
    -------
    result : CandidatesResult
    """
    from skpacbayes.engine.protocols.held_out import rows_seed
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
    for done, (index, outcome, seconds) in enumerate(as_completed(jobs, spec.n_jobs), 1):
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
