"""What a set of candidates states, fixed before any row is read (:ref:`theory-selection`).

The candidate list (the defaults of :mod:`~skpacbayes.engine.protocols.default_candidates`,
sized and weighed by the numbers of rows and classes alone, or the user's models), each
candidate's weight in the split of ``delta``, the selection rule and the seed:
:func:`plan_candidates` turns an estimator's parameters and the sample's size into the
:class:`CandidatesSpec` that
:func:`~skpacbayes.engine.protocols.candidates.certify_candidates` certifies.
"""

from dataclasses import dataclass
from numbers import Integral
from typing import Any

from skpacbayes._docstrings import fill_doc
from skpacbayes.engine.protocols.default_candidates import (
    BOOSTING_FRACTION,
    candidate_weight,
    default_boosting,
    default_forest,
    default_n_estimators,
    default_weight,
)
from skpacbayes.engine.protocols.held_out import HeldOutSpec, rows_seed
from skpacbayes.engine.spec import progress

__all__ = [
    "DOCS",
    "MOST_ACCURATE_MARGIN",
    "PLAN_PARAMETERS",
    "SELECTIONS",
    "Candidate",
    "CandidatesSpec",
    "candidate_list",
    "candidates_seed",
    "out_of_bag_voters",
    "plan_candidates",
    "selection_rule",
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
:data:`MOST_ACCURATE_MARGIN`) above
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
    >>> from skpacbayes.engine.protocols.candidate_plan import candidates_seed
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
    >>> from skpacbayes.engine.protocols.candidate_plan import selection_rule
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
    >>> from skpacbayes.engine.protocols.candidate_plan import candidate_list
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
