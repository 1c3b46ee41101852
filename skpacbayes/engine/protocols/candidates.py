"""Several certified candidates, each at a share of ``delta`` fixed before the data, and the
rule that deploys one (:ref:`theory-selection`).

Candidate ``c`` states ``R(h_c) <= B_c`` with probability at least ``1 - delta_c``; by the
union bound all the statements hold together with probability at least ``1 - sum_c
delta_c``, so the deployed pair ``(h, B)`` keeps its certificate whichever rule chose it.
What is fixed here before any row is read: the default forests (sized by the number of rows
and the validation fraction alone), the weight of each candidate in the split of ``delta``,
the rounding of the shares; what reads a fitted candidate: the estimate of its error and the
selection rule.
"""

import time
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import FitFailedWarning
from sklearn.utils.parallel import delayed

from skpacbayes.engine.certificate import shares_within
from skpacbayes.engine.parallel import as_completed
from skpacbayes.engine.protocols.held_out import (
    DEFAULT_N_ESTIMATORS,
    certify_count,
    certify_fractions,
    count_fraction,
)
from skpacbayes.engine.spec import progress
from skpacbayes.engine.statistics import EmptySampleError
from skpacbayes.engine.vote import _strict_argmax_is, weighted_vote_scores

__all__ = [
    "CANDIDATE_FRACTIONS",
    "Candidate",
    "CandidatesResult",
    "CandidatesSpec",
    "FittedVote",
    "candidate_list",
    "certify_candidates",
    "DEFAULT_FOLDS",
    "SELECTIONS",
    "SMALL_SAMPLE",
    "STUMP_WEIGHT",
    "candidate_deltas",
    "candidate_weight",
    "default_forest",
    "default_forest_trees",
    "default_n_estimators",
    "describe",
    "out_of_bag_error",
    "out_of_bag_voters",
    "select",
    "timed_fit",
]

#: the default hold-out fractions: HoldOutBoundClassifier's 0.2 and 0.5 (two folds of 0.1
#: cost the union more than forests grown on 90 % of the rows gain over 80 %)
CANDIDATE_FRACTIONS = (0.2, 0.5)
#: disjoint held-out sets per fraction by default: a second draw of every hold-out
#: candidate (fold 1 of 0.5 is the other half)
DEFAULT_FOLDS = 2
#: named selection rules -> their tolerance on the bound (relative to the smallest one)
SELECTIONS = {"tightest_bound": 0.0, "most_accurate": float("inf")}

#: weight of each stump candidate in the split of delta (every other candidate's is 1): a
#: fall-back that wins only where a forest is weaker than one split gets a small share, so
#: that with the defaults its two stumps cost the forests ln(4.2 / 4) ~ 0.05 nat
STUMP_WEIGHT = 0.1
#: below this many rows the default forests hold one tree per four rows
#: (:func:`default_n_estimators`); the smallest training set of the reference figures has
#: 142 rows (wine)
SMALL_SAMPLE = 128
#: trees of each default forest grown on most of the rows (validation fraction below 0.5),
#: from :data:`SMALL_SAMPLE` rows on
FOREST_TREES = 140
#: trees of each default forest grown on half the rows or fewer (validation fraction 0.5 or
#: more), from :data:`SMALL_SAMPLE` rows on
HALF_FOREST_TREES = 40


def default_forest_trees(n_rows, fraction):
    """Trees of the default forest (``voters=None``) of a hold-out candidate.

    From :data:`SMALL_SAMPLE` (128) rows on, :data:`FOREST_TREES` (140) for a validation
    fraction below 0.5 and :data:`HALF_FOREST_TREES` (40) for 0.5 or more; on fewer rows,
    :func:`default_n_estimators` (one tree per four rows, at least 10). A forest grown on
    half the rows is deployed where the rows are few or noisy: there the size of the
    held-out set, not the last trees of the vote, sets the bound. The number depends on the
    number of rows and the fraction alone (both fixed before the data's values are read), so
    every certificate holds as with any other fixed forest.

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.
    fraction : float
        The candidate's validation fraction.

    Returns
    -------
    n_estimators : int

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import default_forest_trees
    >>> default_forest_trees(1000, 0.2), default_forest_trees(1000, 0.5)
    (140, 40)
    >>> default_forest_trees(60, 0.2)
    15
    """
    if n_rows < SMALL_SAMPLE:
        return default_n_estimators(n_rows)
    return HALF_FOREST_TREES if fraction >= 0.5 else FOREST_TREES


def default_forest(n_rows, fraction):
    """The unfitted default forest of a hold-out candidate: a ``RandomForestClassifier`` of
    :func:`default_forest_trees` trees (seeded by the candidate, as HoldOut seeds its own)."""
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=default_forest_trees(n_rows, fraction))


def default_n_estimators(n_rows):
    """Trees of the default out-of-bag forest on ``n_rows`` rows, and of every default forest
    below :data:`SMALL_SAMPLE` rows.

    ``DEFAULT_N_ESTIMATORS`` (200) from :data:`SMALL_SAMPLE` (128) rows on (the hold-out
    candidates' forests: :func:`default_forest_trees`); on fewer rows, one tree per four
    rows (at least 10). Trees grown on a few dozen rows have a handful
    of leaves and held-out sets of a few rows certify little (no bound on 13 rows is below
    0.2), so more trees change little there; a fit on tens of rows (e.g. the checks of
    ``sklearn.utils.estimator_checks``) takes a fraction of the time. The number depends
    on the number of rows alone, not on their values, so every certificate holds as
    before.

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.

    Returns
    -------
    n_estimators : int

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import default_n_estimators
    >>> default_n_estimators(20), default_n_estimators(127), default_n_estimators(128)
    (10, 31, 200)
    """
    return DEFAULT_N_ESTIMATORS if n_rows >= SMALL_SAMPLE else max(10, int(n_rows) // 4)


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


def select(bounds, estimates, tolerance):
    """Index of the deployed candidate: the most accurate among the nearly tightest.

    Among the candidates whose bound is at most ``(1 + tolerance)`` times the
    smallest bound, the one with the smallest estimated error; ties go to the
    smaller bound, then to the earlier candidate.

    Parameters
    ----------
    bounds, estimates : sequence of float
        Each candidate's certified bound and estimated error.
    tolerance : float >= 0
        ``0``: the tightest bound; ``inf``: the most accurate estimate.

    Returns
    -------
    index : int

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import select
    >>> bounds, estimates = [0.040, 0.041, 0.060], [0.035, 0.030, 0.020]
    >>> select(bounds, estimates, 0.0), select(bounds, estimates, 0.05)
    (0, 1)
    >>> select(bounds, estimates, float("inf"))
    2
    """
    limit = np.inf if np.isinf(tolerance) else (1.0 + tolerance) * min(bounds)
    eligible = [i for i, b in enumerate(bounds) if b <= limit]
    return min(eligible, key=lambda i: (estimates[i], bounds[i], i))


def candidate_weight(kind):
    """A candidate's weight in the split of ``delta``: 1, or :data:`STUMP_WEIGHT` for a stump.

    Parameters
    ----------
    kind : {"holdout", "stump", "out_of_bag"}

    Returns
    -------
    weight : float
    """
    return STUMP_WEIGHT if kind == "stump" else 1.0


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
    """A candidate in a few words: ``hold-out 0.2 fold 1``, ``stump 0.5 fold 0`` or ``OOB FO``.

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
    """
    if candidate["kind"] == "out_of_bag":
        return f"out-of-bag {candidate['out_of_bag_bound']}"
    kind = "hold-out" if candidate["kind"] == "holdout" else "stump"
    return f"{kind} {candidate['validation_fraction']} fold {candidate['fold']}"


@dataclass(frozen=True)
class Candidate:
    """One candidate, fixed before the data.

    Attributes
    ----------
    kind : {"holdout", "stump", "out_of_bag"}
        A vote grown on the rows one fold of one fraction leaves and certified on the fold
        (a forest, or a decision stump), or the vote of an out-of-bag bank grown on every row,
        certified by a PAC-Bayes bound.
    validation_fraction, fold : float and int, or None
        The held-out rows of a hold-out or stump candidate
        (:func:`~skpacbayes.engine.protocols.held_out.validation_rows`).
    out_of_bag_bound : str or None
        The short name of an out-of-bag candidate's bound.
    voters : scikit-learn classifier or None
        What a hold-out or stump candidate grows (unfitted).
    """

    kind: str
    validation_fraction: Any = None
    fold: Any = None
    out_of_bag_bound: Any = None
    voters: Any = None

    @property
    def weight(self):
        """Its weight in the split of ``delta`` (:func:`candidate_weight`)."""
        return candidate_weight(self.kind)

    def info(self):
        """Its description in ``candidates_``."""
        return {
            "kind": self.kind,
            "validation_fraction": self.validation_fraction,
            "fold": self.fold,
            "out_of_bag_bound": self.out_of_bag_bound,
        }


def candidate_list(n_rows, voters, fractions, n_folds, stumps, out_of_bag_bounds):
    """The candidates, in a fixed order: fractions then folds, the stumps, the out-of-bag
    ones; each depends on the parameters and the number of rows alone.

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
    stumps : bool
        Add a decision stump grown on each half, certified on the other.
    out_of_bag_bounds : sequence of str
        The bounds of the out-of-bag candidates (none: no such candidate).

    Returns
    -------
    candidates : list of Candidate

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import candidate_list
    >>> [(c.kind, c.validation_fraction, c.fold) for c in candidate_list(
    ...     1000, None, (0.2, 0.5), 1, stumps=True, out_of_bag_bounds=())]
    [('holdout', 0.2, 0), ('holdout', 0.5, 0), ('stump', 0.5, 0), ('stump', 0.5, 1)]
    """
    from sklearn.tree import DecisionTreeClassifier

    held_out = [
        Candidate(
            "holdout", f, fold, None, voters if voters is not None else default_forest(n_rows, f)
        )
        for f in fractions
        for fold in range(n_folds)
    ]
    if stumps:  # one split grown on each half, certified on the other
        held_out += [
            Candidate("stump", 0.5, fold, None, DecisionTreeClassifier(max_depth=1))
            for fold in (0, 1)
        ]
    return held_out + [Candidate("out_of_bag", out_of_bag_bound=name) for name in out_of_bag_bounds]


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
        The selection rule's tolerance on the bound (:func:`select`).
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
    train_size: Any = None
    n_jobs: Any = None
    default_forests: bool = False
    label: str = "CertifiedVoteClassifier"
    verbose: int = 0

    def say(self, text):
        """Print one progress line (when ``verbose``)."""
        if self.verbose:
            progress(self.label, text)


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


def _held_out_job(index, spec, X, y, y_idx, classes, fraction, fold, certified):
    """One hold-out candidate grown and counted (and certified, with every row in memory)."""
    start = time.perf_counter()
    if certified:
        outcome = certify_fractions(spec, X, y, y_idx, classes, (fraction,), fold)
    else:
        outcome = count_fraction(spec, X, y, y_idx, classes, fraction, fold)
    return index, outcome, time.perf_counter() - start


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

    A candidate whose bound has no sample drops out: bound 1.0 (trivially certified), no
    estimate, and the reason under ``dropped``. A candidate counted on a sample gets its
    bound once the rows outside the sample are counted.
    """
    entry = {**candidate.info(), "delta": delta}
    if isinstance(outcome, EmptySampleError):
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


def certify_candidates(spec, X, y, classes):
    """Fit every candidate once at its share of ``delta``, certify each, deploy one.

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
    for i, (c, d) in enumerate(zip(candidates, deltas, strict=True)):
        if c.kind == "out_of_bag":
            fit_spec = replace(spec.out_of_bag[c.out_of_bag_bound], delta=d)
            jobs.append(delayed(_out_of_bag_job)(i, fit_spec, bank, X, y, spec.seed))
        else:
            held = replace(spec.held_out, voters=c.voters, delta=d)
            f, fold = c.validation_fraction, c.fold
            jobs.append(
                delayed(_held_out_job)(i, held, X, y, y_idx, classes, f, fold, sample is None)
            )
    entries, outcomes = [None] * len(candidates), [None] * len(candidates)
    for done, (index, outcome, seconds) in enumerate(as_completed(jobs, spec.n_jobs), 1):
        entry = _entry(candidates[index], deltas[index], outcome, bank, X, y, seconds)
        entries[index] = entry
        outcomes[index] = None if isinstance(outcome, EmptySampleError) else outcome
        if "dropped" in entry:
            warnings.warn(
                f"Candidate {index} ({describe(entry)}) dropped out (bound 1.0): "
                f"{entry['dropped']}",
                FitFailedWarning,
                stacklevel=3,
            )
        if "bound" in entry:
            said = f"bound {entry['bound']:.4f}, estimated error {entry['estimated_error']:.4f}"
        else:  # counted on the sample; certified once every row outside it is read
            said = f"{outcome.errors} errors on its {outcome.size} held-out rows of the sample"
        spec.say(
            f"{done}/{len(candidates)} candidate {index} ({describe(entry)}): {said} "
            f"({seconds:.1f} s; {time.perf_counter() - start:.1f} s so far)"
        )
    if sample is not None:  # every candidate on every row outside the sample, too
        for index, counted in enumerate(sample.add_outside(outcomes)):
            held = replace(spec.held_out, voters=candidates[index].voters, delta=deltas[index])
            outcomes[index] = certify_count(held, counted, counted.details)
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
    )
    spec.say(
        f"deployed candidate {best} ({describe(entries[best])}), bound "
        f"{entries[best]['bound']:.4f} ({time.perf_counter() - start:.1f} s)"
    )
    shares = tuple(float(share) for share in shares)
    return CandidatesResult(entries, outcomes, shares, best, bank)
