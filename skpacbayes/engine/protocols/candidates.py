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

import numpy as np

from skpacbayes.engine.certificate import shares_within
from skpacbayes.engine.protocols.held_out import (
    DEFAULT_N_ESTIMATORS,
    certify_fractions,
    count_fraction,
)
from skpacbayes.engine.vote import _strict_argmax_is, weighted_vote_scores

__all__ = [
    "CANDIDATE_FRACTIONS",
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
    "fit_held_out_candidate",
    "out_of_bag_error",
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


def fit_held_out_candidate(index, spec, X, y, y_idx, classes, fraction, fold, certified):
    """Grow and count one hold-out candidate (a job of
    :func:`~skpacbayes.engine.parallel.as_completed`).

    Parameters
    ----------
    index : int
        The candidate's index, handed back.
    spec : HeldOutSpec
        Its voters, its share of ``delta``, the seed.
    X, y, y_idx, classes
        The rows it is grown and held out on (the sample, with the sample protocol).
    fraction, fold
        Its held-out rows (:func:`~skpacbayes.engine.protocols.held_out.validation_rows`).
    certified : bool
        Certify it here (every row in memory); else hand back its counts, for the rows
        outside the sample to be added.

    Returns
    -------
    index : int
    outcome : HeldOutResult or HeldOutCount
    seconds : float
    """
    start = time.perf_counter()
    if certified:
        outcome = certify_fractions(spec, X, y, y_idx, classes, (fraction,), fold)
    else:
        outcome = count_fraction(spec, X, y, y_idx, classes, fraction, fold)
    return index, outcome, time.perf_counter() - start


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
