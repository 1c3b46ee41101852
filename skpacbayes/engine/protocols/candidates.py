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

from skpacbayes._docstrings import fill_doc
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
    "PLAN_PARAMETERS",
    "SELECTIONS",
    "Candidate",
    "CandidatesResult",
    "CandidatesSpec",
    "DOCS",
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

#: the text of CertifiedVoteClassifier's parameters, attributes and Notes on what this
#: protocol takes and decides, written once: filled into the functions that take or decide
#: them and into the class
DOCS = {
    "selection": """\
Which certified candidate is deployed: the one with the smallest estimated
error (its error on its own held-out rows, which its voters never saw; never
its bound) among those whose bound is close enough to the smallest.
``"tightest_bound"``: the smallest certificate, trading nothing of it for an
estimate. ``"most_accurate"``: the smallest estimated error among the
candidates whose bound is at most one point (0.01,
:data:`~skpacbayes.engine.protocols.candidates.MOST_ACCURATE_MARGIN`) above
the smallest, so the certificate stays useful. A float ``t``: among those whose
bound is at most ``1 + t`` times the smallest, trading at most a relative ``t``
of the certificate; ``float("inf")`` asks explicitly for the most accurate
estimate whatever certificate comes with it (the out-of-bag candidates then
join). See the Notes of :class:`~skpacbayes.CertifiedVoteClassifier` for what each
rule trades, measured.""",
    "out_of_bag": """\
Add the two out-of-bag candidates (one bagged ensemble of every row,
fitted once and shared). ``"auto"``: only when ``selection`` is a float
``t >= 1`` (a bound at least twice the smallest accepted) and the
candidates are not the user's own (``candidates``),
the only rules under which they can win: their bounds carry a factor 2
(first order) or 4 (tandem) and are several times looser than the
hold-out bounds wherever the trees err (:ref:`strategies`).""",
    "stump_candidate": """\
Add two candidates: a decision stump (``DecisionTreeClassifier(max_depth=1)``)
grown on each half, its prediction certified on the other half. On a few
hundred noisy rows a forest can be weaker than its best single split, and
the user would then deploy that split instead; elsewhere the stumps are far
weaker and never deployed, and each costs the others a small share of
``delta`` (see the Notes of :class:`~skpacbayes.CertifiedVoteClassifier`).
``"auto"``: only with the default candidates (``voters=None``, ``candidates=None``)
of a binary task (two leaves predict two classes at most); an ensemble the user
brings is the one certified.""",
    "candidates_": """\
One entry per candidate, in a fixed order (fractions, then folds, model by
model; boosting; stumps; out-of-bag): ``kind`` ("holdout", "boosting", "stump" or
"out_of_bag"), ``validation_fraction`` and ``fold`` (None for the out-of-bag
ones), ``model`` (the class name of what a hold-out, boosting or stump candidate
grows), ``out_of_bag_bound`` (the short name of the first- or
second-order bound, else None), ``delta``
(the candidate's share), ``bound`` (at that share), ``estimated_error``
(the candidate's error on rows its voters never saw: the held-out error, or
the out-of-bag error of the weighted vote; an estimate of its accuracy, not
part of the certificate) and ``fit_time`` (seconds). A candidate that cannot be
fitted or certified (a fraction whose training rows hold a single class, a model
whose ``fit`` raises, an out-of-bag candidate on so few rows that some pair of
trees shares no out-of-bag row) drops out with a ``FitFailedWarning`` (and a
progress line with ``verbose``): ``bound`` 1.0, ``estimated_error`` nan and the
reason under ``dropped``; it is never deployed. If every candidate drops out,
``fit`` raises a ``ValueError`` naming each reason. With a sample
(``train_size``), also ``held_out_rows`` (the rows the candidate is certified on:
its held-out rows of the sample and every row outside it) and ``train_size``.""",
    "selection_note": """\
**Selection.** Each candidate has its bound ``B_c`` and an estimate ``E_c``
of its error on its own held-out rows (the out-of-bag error for an out-of-bag
candidate). The deployed candidate is the one with the smallest ``E_c`` among
those with ``B_c <= min_c B_c + 0.01`` (``"most_accurate"``), ``B_c <= (1 + t)
min_c B_c`` (a float ``t``) or ``B_c = min_c B_c`` (``"tightest_bound"``); ties go
to the smaller bound, then to the earlier candidate (the larger training set among
the hold-outs of one fold). The estimates never enter ``bound_``, and every rule is
a choice among statements that hold together. What they trade, measured on the
twelve reference data sets of :ref:`strategies` (3 seeds; bound / test error in
percent, means over the data sets; ``RandomForestClassifier(200)`` on every row: 7.15):
``"tightest_bound"`` 9.21 / 6.92, ``"most_accurate"`` 9.22 / 6.90 (a hundredth of a
point of certificate for two hundredths of test error: on small held-out sets the
estimates are noisy), while
``float("inf")`` deployed the out-of-bag tandem candidate (certified at 27-44 %) on
half the cells of data sets you do not have (a mean bound of 20.6 %).""",
    "voters": """\
The ensemble each candidate grows (unfitted; cloned per candidate). Its
members vote (the trees of a forest), as with ``voters`` of
:class:`~skpacbayes.HoldOutBoundClassifier`. ``None``: a
``RandomForestClassifier`` of 140 trees for a hold-out candidate of a fraction
below 0.5 and of 40 for 0.5 or more, and ``OutOfBagVoters(n_estimators=200)`` for
the out-of-bag ones (each tree grown on half the rows without replacement); on
fewer than 128 rows, one tree per four rows (at least 10) for all of them (see
the Notes of :class:`~skpacbayes.CertifiedVoteClassifier`, and
:func:`~skpacbayes.engine.protocols.default_candidates.default_forest_trees`).""",
    "n_folds": """\
Disjoint held-out sets per fraction, each with its own forest grown on the
other rows (fold 1 of ``0.5`` is the other half). ``n_folds * f`` must not
exceed 1. A second fold is a second, independent draw of every hold-out
candidate: the tighter of two draws more than pays for the larger union,
and it is as strong a forest (see the Notes of
:class:`~skpacbayes.CertifiedVoteClassifier`). Each fold grows its own forest,
so the fit takes ``n_folds`` times as long as one fold.""",
    "delta": """\
Total confidence budget, split over the candidates (see the Notes of
:class:`~skpacbayes.CertifiedVoteClassifier`).""",
    "n_jobs": """\
Parallel jobs: candidates fitted at the same time (through joblib, so a
Dask backend spreads them out), and each forest's own ``n_jobs``.""",
    "verbose": """\
When > 0, print a line when the fit starts, one line per candidate as
soon as it is certified (its bound, estimated error and seconds), and the
deployed candidate at the end.""",
    "per_class": """\
Also certify each class's miss rate ``P(predict(x) != y | y = k)``
(``class_bounds_``): every hold-out and stump candidate splits its share of
``delta`` evenly over its ``K + 1`` statements (overall and per class,
:ref:`Proposition 5a <theory-per-class>`), so ``bound_`` and every class bound
hold together with probability at least ``1 - delta``. The out-of-bag candidates
have no per-class statement: ``"auto"`` leaves them out, ``out_of_bag=True``
raises.""",
    "certificate_note": """\
**Certificate.** Candidate ``c`` states ``R(h_c) <= B_c`` with probability at
least ``1 - delta_c``; by the union bound all statements hold together with
probability at least ``1 - sum_c delta_c = 1 - delta``, so ``R(h) <= B`` holds
for the deployed pair ``(h, B)`` whichever way it was chosen, from any data
(:ref:`theory-selection`). Only i.i.d. training examples are assumed; the
candidate list and the shares are fixed before seeing the data.""",
    "folds_note": """\
**Why two folds.** A hold-out bound is a random draw: the held-out error of one
forest on one held-out set. A second fold of the same fraction is an
independent draw with the same distribution (a forest as strong, grown on as
many rows), so the smaller of the two is about half a standard deviation of
the held-out error below either, while the larger union (``delta / 4.2``
instead of ``delta / 2``) costs about a quarter of one (for a held-out error
``p`` on ``n`` rows the bound is close to ``p + sqrt(2 p ln(K / delta) / n)``).
The gain is largest where the held-out sets are smallest, so the tighter
candidate is more often one grown on 80 % of the rows: the deployed vote tends
to be stronger too (measured in :ref:`strategies`).""",
    "out_of_core_note": """\
**Out of core.** ``fit`` on a dask array draws ``train_size`` rows into memory
(:func:`~skpacbayes.engine.protocols.held_out.training_rows`) and grows the forests
there; the client holds that sample and the forests, the workers read the other rows
block by block and only error counts come back. Each candidate's held-out set (its
held-out rows of the sample and every row outside the sample) is drawn from the seed and
the number of rows alone and its forest is grown on the other rows, so the test-set
bound holds for it as for a hold-out of the rows in memory (:ref:`theory-holdout`).
The default of 50,000 rows: forests grown on tens of thousands of rows are close to
those grown on all of them, while the certificate's deviation term shrinks with the
rows it is counted on, so on a large array the rows are better spent certifying; a
third of a smaller array keeps two thirds for the certificate. ``predict``,
``predict_proba`` and ``decision_function`` on a dask array give lazy dask arrays.""",
    "random_state": """\
Seeds the held-out rows and the ensembles. An int is handed to every
candidate as is (so fold 0 holds out HoldOut's rows and grows the first trees
of its forest for the same ``random_state``); otherwise one int is drawn from it
for all of them.""",
    "validation_fraction": """\
The held-out share of each hold-out candidate (fixed before the data). Small
fractions give a stronger vote, large ones a tighter bound on small samples.
``(0.1, 0.2, 0.5)`` adds two forests grown on 90 % of the rows (the fit then
takes about 1.7 times as long; see the Notes of
:class:`~skpacbayes.CertifiedVoteClassifier`).""",
    "train_size": """\
**Sample protocol** (an int ``n``): ``n`` rows are drawn from the seed and the
number of rows alone (the rows ``HoldOutBoundClassifier(train_size=n)`` draws with
the same ``random_state``) and held in memory; every candidate is fitted on them as
on a whole sample, then certified on every row its voters never saw: its held-out
rows of the sample and every row outside it, read once for all the candidates (one
map-reduce over the blocks of a dask array). No out-of-bag candidate then
(``"auto"`` leaves them out, ``out_of_bag=True`` raises). ``None``: every row in
memory (out-of-bag candidates included). ``"auto"``: ``None`` in memory; for a dask
array, ``min(50000, n_samples // 3)`` rows, so that every candidate is certified on at
least two thirds of the rows, and on all but 50,000 of a large array (see the Notes of
:class:`~skpacbayes.CertifiedVoteClassifier`). A dask array with ``train_size=None`` is
refused (never loaded whole).""",
    "candidates": """\
The user's own candidates instead of ``voters`` (which must then be None): each
an unfitted scikit-learn classifier (cloned; grown for every fraction of
``validation_fraction``) or a ``(classifier, validation_fraction)`` pair (its own
fraction or fractions), each fraction with ``n_folds`` folds, every one at an
equal share of ``delta``; "certify the best of these models" is
``CertifiedVoteClassifier(candidates=[m1, (m2, 0.3), ...])``. A classifier that
votes (a forest, bagging, AdaBoost) is certified as the plain vote of its members;
any other model (gradient boosting, a linear model, ...) as one voter. No stump
or out-of-bag candidate unless asked for (``stump_candidate=True``). ``None``: the
default forests and boosting.""",
}
#: how far above the smallest bound ``"most_accurate"`` may deploy a candidate: one point
#: of error rate (absolute), so that it never trades the certificate away for an estimate
MOST_ACCURATE_MARGIN = 0.01
#: named selection rules -> their (relative tolerance, absolute margin) on the bound
#: (:func:`select`)
SELECTIONS = {"tightest_bound": (0.0, 0.0), "most_accurate": (0.0, MOST_ACCURATE_MARGIN)}


@fill_doc(**DOCS)
def candidates_seed(random_state):
    """Every candidate's ``random_state`` from the estimator's (an int, a RandomState instance
    or None); the int drawn is :func:`~skpacbayes.engine.protocols.held_out.rows_seed`'s.

    {random_state}

    Parameters
    ----------
    random_state : int, RandomState instance or None
        The estimator's ``random_state``.

    Returns
    -------
    seed : int
        The ``random_state`` of every candidate and of the out-of-bag bank.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import candidates_seed
    >>> candidates_seed(7)
    7
    """
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    return rows_seed(random_state)


@fill_doc(**DOCS)
def selection_rule(selection):
    """A selection rule's relative tolerance and absolute margin on the bound (:func:`select`).

    Parameters
    ----------
    selection : str or float
        A name of :data:`SELECTIONS`, or the relative tolerance itself (no margin).
        {selection}

    Returns
    -------
    tolerance, margin : float
        The arguments of :func:`select` (``t`` and 0.0 for a float ``t``).

    Examples
    --------
    >>> from skpacbayes.engine.protocols.candidates import selection_rule
    >>> selection_rule("most_accurate"), selection_rule(0.5)
    ((0.0, 0.01), (0.5, 0.0))
    """
    if isinstance(selection, str):
        return SELECTIONS[selection]
    return float(selection), 0.0


@fill_doc(**DOCS)
def use_stumps(stump_candidate, default):
    """Whether the stump candidates join (:func:`candidate_list`'s ``stumps``: ``"binary"``,
    grown on binary tasks only, where ``"auto"`` adds them).

    Parameters
    ----------
    stump_candidate : "auto" or bool
        {stump_candidate}
    default : bool
        Whether the candidates are the defaults (``voters=None``, ``candidates=None``).

    Returns
    -------
    stumps : bool or "binary"
        ``"binary"``: stumps that drop out of a task of more than two classes.
    """
    if stump_candidate == "auto":
        return "binary" if default else False
    return bool(stump_candidate)


@fill_doc(**DOCS)
def use_out_of_bag(out_of_bag, selection, per_class, candidates):
    """Whether the out-of-bag candidates join, refusing them where they cannot.

    Parameters
    ----------
    out_of_bag : "auto" or bool
        {out_of_bag}
    selection : str or float
        The selection rule (:func:`selection_rule`).
    per_class : bool
        Whether each class's miss rate is certified too (the out-of-bag candidates have no
        such statement).
    candidates : bool
        Whether the candidates are the user's models (no bagged ensemble of every row).

    Returns
    -------
    out_of_bag : bool
        Whether :func:`plan_candidates` adds the out-of-bag candidates (where the rows
        allow: not on a sample).

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
    if candidates and out_of_bag is True:
        raise ValueError(
            "The out-of-bag candidates (out_of_bag=True) bag voters on every row; with "
            "candidates=[...] there is no such ensemble. Set out_of_bag=False or 'auto'."
        )
    if out_of_bag == "auto":
        tolerance, _ = selection_rule(selection)
        return tolerance >= 1.0 and not per_class and not candidates
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
        Unfitted, grown by :func:`certify_candidates` where there are out-of-bag candidates.
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


@fill_doc(**DOCS)
def candidate_list(n_rows, voters, fractions, n_folds, stumps, out_of_bag_bounds, models=None):
    """The candidates, in a fixed order: fractions then folds (the default forests, or the
    user's models in their order), the boosting ones, the stumps, the out-of-bag ones; each
    depends on the parameters and the number of rows alone.

    {folds_note}

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

    The candidates fitted at the same time are ``held_out.n_jobs``, the progress lines'
    prefix ``held_out.label``.

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
    default_forests : bool
        Whether the hold-out candidates grow the default forests (the start line names their
        sizes).
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
    default_forests: bool = False
    verbose: int = 0

    def say(self, text):
        """Print one progress line (when ``verbose``), prefixed with ``held_out.label``."""
        if self.verbose:
            progress(self.held_out.label, text)


#: the parameters of CertifiedVoteClassifier that :func:`plan_candidates` takes as they are
PLAN_PARAMETERS = (
    "n_folds",
    "selection",
    "out_of_bag",
    "stump_candidate",
    "delta",
    "per_class",
    "n_jobs",
    "verbose",
)


@fill_doc(**DOCS)
def plan_candidates(
    n_rows,
    seed,
    train_size,
    voters,
    fractions,
    models,
    *,
    bound,
    fit_specs,
    label,
    n_folds,
    selection,
    out_of_bag,
    stump_candidate,
    delta,
    per_class,
    n_jobs,
    verbose,
):
    """The candidates protocol's specification, fixed by the parameters and the number of rows.

    The arguments from ``n_folds`` on are the estimator's parameters
    (:data:`PLAN_PARAMETERS`).

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.
    seed : int
        Every candidate's ``random_state`` (:func:`candidates_seed`).
    train_size : int or None
        The estimator's ``train_size``, resolved
        (:func:`~skpacbayes.engine.protocols.sample.resolve_train_size`).
        {train_size}
    voters : scikit-learn classifier or None
        {voters}
    fractions : tuple of float
        The estimator's ``validation_fraction``, as a tuple.
        {validation_fraction}
    models : list of (classifier, tuple of float) or None
        The estimator's ``candidates`` as (classifier, fractions) pairs.
        {candidates}
    bound : test-set bound
        What certifies the hold-out and stump candidates.
    fit_specs : dict
        Bound name -> the :class:`~skpacbayes.engine.spec.FitSpec` of an out-of-bag candidate
        certified by it (the out-of-bag bounds, in their order).
    label : str
        The name the progress lines are prefixed with.
    n_folds : int >= 1
        {n_folds}
    selection : str or float
        {selection}
    out_of_bag : "auto" or bool
        {out_of_bag}
    stump_candidate : "auto" or bool
        {stump_candidate}
    delta : float
        {delta}
    per_class : bool
        {per_class}
    n_jobs : int or None
        {n_jobs}
    verbose : int
        {verbose}

    Returns
    -------
    spec : CandidatesSpec
        What :func:`certify_candidates` is handed besides the rows.

    Raises
    ------
    ValueError
        If ``n_folds`` held-out sets of a fraction do not fit in the rows, or the out-of-bag
        candidates are asked for where they cannot be certified.
    """
    listed = fractions if models is None else [f for _, fs in models for f in fs]
    too_many = [f for f in listed if n_folds * f > 1 + 1e-9]
    if too_many:
        raise ValueError(
            f"n_folds={n_folds} disjoint held-out sets of validation_fraction "
            f"{too_many[0]} do not fit in the rows (n_folds * fraction must be at most 1)."
        )
    use = use_out_of_bag(out_of_bag, selection, per_class, models is not None)
    if train_size is not None and use:
        if out_of_bag is True:
            raise ValueError(
                "The out-of-bag candidates (out_of_bag=True) are certified on the rows "
                "their forest is grown on; with train_size (and on a dask array) the "
                "forests are grown on a sample and certified on the other rows. Set "
                "out_of_bag=False or 'auto'."
            )
        use = False
    bounds = tuple(fit_specs) if use else ()
    n_grown = n_rows if train_size is None else int(train_size)
    default = voters is None and models is None
    stumps = use_stumps(stump_candidate, default)
    candidates = candidate_list(n_grown, voters, fractions, n_folds, stumps, bounds, models=models)
    tolerance, margin = selection_rule(selection)
    delta = float(delta)
    return CandidatesSpec(
        candidates=candidates,
        delta=delta,
        seed=seed,
        held_out=HeldOutSpec(
            bound=bound,
            voters=None,
            delta=delta,
            seed=rows_seed(seed),
            risks=("miss_rate",) if per_class else (),
            n_jobs=n_jobs,
            label=label,
        ),
        out_of_bag={name: fit_specs[name] for name in bounds},
        out_of_bag_voters=out_of_bag_voters(voters, n_grown, seed, n_jobs),
        tolerance=tolerance,
        margin=margin,
        train_size=train_size,
        default_forests=default,
        verbose=int(verbose),
    )


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
