"""The default candidates of :class:`~skpacbayes.CertifiedVoteClassifier`: what each grows
and what it weighs in the split of ``delta``, fixed by the numbers of rows and classes alone
(never by the rows' values), so that every certificate of
:mod:`~skpacbayes.engine.protocols.candidates` holds as for any fixed candidate list.
"""

import numpy as np

from skpacbayes._docstrings import fill_doc
from skpacbayes.engine.protocols.held_out_voters import DEFAULT_N_ESTIMATORS

__all__ = [
    "BOOSTING_FRACTION",
    "BOOSTING_MIN_ROWS",
    "CANDIDATE_FRACTIONS",
    "DEFAULT_FOLDS",
    "FOREST_TREES",
    "FULL_WEIGHT_ROWS",
    "HALF_FOREST_TREES",
    "NOTES",
    "SMALL_SAMPLE",
    "STUMP_WEIGHT",
    "candidate_weight",
    "default_boosting",
    "default_forest",
    "default_forest_trees",
    "default_n_estimators",
    "default_weight",
]

#: the default hold-out fractions: HoldOutBoundClassifier's 0.2 and 0.5 (two folds of 0.1
#: cost the union more than forests grown on 90 % of the rows gain over 80 %)
CANDIDATE_FRACTIONS = (0.2, 0.5)
#: disjoint held-out sets per fraction by default: a second draw of every hold-out
#: candidate (fold 1 of 0.5 is the other half)
DEFAULT_FOLDS = 2
#: weight of each stump candidate in the split of delta (a user's forest weighs 1, the
#: defaults :func:`default_weight`): a fall-back that wins only where a forest is weaker than
#: one split (a few hundred noisy rows) gets a small share, so that from 1,000 rows on its two
#: stumps cost the forests ln(4.2 / 4) ~ 0.05 nat; two leaves predict two classes at most, so
#: the default stumps are binary tasks' only
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
#: the validation fraction of the default boosting candidates (two folds, as the forests')
BOOSTING_FRACTION = 0.2
#: the default boosting candidates join from this many rows on: below, their shares of
#: ``delta`` cost the forests more than they win (:func:`default_boosting`)
BOOSTING_MIN_ROWS = 500
#: a default candidate's weight in the split of ``delta`` grows with its held-out rows up to
#: this many (:func:`default_weight`)
FULL_WEIGHT_ROWS = 200


#: the Notes of CertifiedVoteClassifier on its default candidates, written once: each is the
#: extended description of the function below that decides it, and filled into the class
NOTES = {
    "shares_note": """\
**Shares of delta.** ``delta_c = delta w_c / sum_c' w_c'``, the weights fixed by the
numbers of rows and classes before the data. With the default candidates
(:func:`~skpacbayes.engine.protocols.default_candidates.default_weight`): ``w_c = min(1,
h_c / 200)`` for a forest or boosting candidate of ``h_c = ceil(f m)`` held-out rows of
the ``m`` the candidates are grown on
(:data:`~skpacbayes.engine.protocols.default_candidates.FULL_WEIGHT_ROWS`; an out-of-bag
one counts half the rows, ``f = 0.5``: each of its trees' out-of-bag half), 0.1 for a
stump (:data:`~skpacbayes.engine.protocols.default_candidates.STUMP_WEIGHT`). A held-out
set of ``h`` rows certifies at best ``ln(1 / delta_c) / h`` and its deviation term
shrinks as ``1 / sqrt(h)``: a small held-out set certifies little whatever its share, so
on a few hundred rows the shares go to the large held-out sets, the ones deployed there
(:ref:`strategies`): on 244 rows the forests on 80 % weigh 0.245, those on half the rows
0.61. From 1,000 rows on every forest and boosting candidate weighs 1: with four
forests, two boosting candidates and two stumps, ``delta / 6.2`` each (``delta / 62``
per stump). A user's candidates weigh 1 each (0.1 a stump). Where the float shares would
sum to more than ``delta``, each is rounded down by a few ulps.""",
    "boosting_note": """\
**Boosting.** Gradient boosting is a vote of trees too (by boosting, where a forest
votes by bagging): ``HistGradientBoostingClassifier()`` with scikit-learn's defaults
(100 rounds, early stopping from 10,000 training rows on, on a tenth of them), one voter
(its trees are never taken apart: :class:`~skpacbayes.voters.PrefitVoters`), seeded by
the candidate as the forests, grown on 80 % of the rows (two folds) and certified on the
others as every hold-out candidate. It joins binary tasks of
:data:`~skpacbayes.engine.protocols.default_candidates.BOOSTING_MIN_ROWS` (500) rows or
more (:func:`~skpacbayes.engine.protocols.default_candidates.default_boosting`: the
number of rows alone decides; on more classes its candidates drop out,
:attr:`~skpacbayes.engine.protocols.candidate_plan.Candidate.binary_only`): below, its share
costs the forests more than it wins on the reference data sets, and a ``K``-class model
grows ``K`` trees a round (13 times a forest's CPU on mnist's ten classes).""",
    "forests_note": """\
**Default forests and fractions.** The default candidates grow 2 x 140 trees on 80 % of
the rows and 2 x 40 on 50 %
(:data:`~skpacbayes.engine.protocols.default_candidates.FOREST_TREES` for a validation
fraction below 0.5,
:data:`~skpacbayes.engine.protocols.default_candidates.HALF_FOREST_TREES` for 0.5 or
more, from :data:`~skpacbayes.engine.protocols.default_candidates.SMALL_SAMPLE` rows
on): 360 trees, the work of 1.3 (many rows: a tree's cost grows with its rows) to 1.8
(few rows: a tree's fixed cost dominates) ``RandomForestClassifier(200)`` on every row
(:func:`~skpacbayes.engine.protocols.default_candidates.default_forest_trees`). A forest
grown on half the rows is deployed where the rows are few or noisy, where the size of
its held-out set, not its last trees, sets the bound; the forests grown on 80 % are
deployed elsewhere and keep most of the trees. Two more folds of 0.1 (forests grown on
90 % of the rows) would cost the union more (``delta / 6.2`` instead of ``delta / 4.2``)
than the extra rows gain on the reference data sets (:ref:`strategies`). Trees and
fractions depend on the number of rows alone (fixed before the data's values are read),
so every certificate holds as with any other fixed forest.""",
    "small_note": """\
**Small samples.** With the default forests (``voters=None``) and fewer than 128 rows
(:data:`~skpacbayes.engine.protocols.default_candidates.SMALL_SAMPLE`), each forest, the
out-of-bag one too, holds one tree per four rows (at least 10)
(:func:`~skpacbayes.engine.protocols.default_candidates.default_n_estimators`; from 128
rows on the out-of-bag forest holds ``DEFAULT_N_ESTIMATORS``, 200, trees): trees grown
on a few dozen rows have a handful of leaves, and held-out sets of a few rows certify
little either way (no bound on 13 rows is below 0.2), while a fit on tens of rows
(scikit-learn's ``check_estimator`` runs about a hundred) takes a fraction of the time.
The number depends on the number of rows only, not on their values, so the certificate
holds as before (the reference figures start at 142 training rows). Pass
``voters=RandomForestClassifier(n_estimators=200)`` to grow 200 trees for every
candidate on any sample; for a light fit (a downstream CI), small forests
(``voters=RandomForestClassifier(n_estimators=10)``) or ``n_folds=1``.""",
}


@fill_doc(**NOTES)
def default_forest_trees(n_rows, fraction):
    """Trees of the default forest (``voters=None``) of a hold-out candidate.

    {forests_note}

    On fewer rows than :data:`SMALL_SAMPLE`, :func:`default_n_estimators`.

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.
    fraction : float
        The candidate's validation fraction.

    Returns
    -------
    n_estimators : int
        The trees of the candidate's ``RandomForestClassifier``.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.default_candidates import default_forest_trees
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


@fill_doc(**NOTES)
def default_n_estimators(n_rows):
    """Trees of the default out-of-bag forest on ``n_rows`` rows, and of every default forest
    below :data:`SMALL_SAMPLE` rows.

    {small_note}

    Parameters
    ----------
    n_rows : int
        Rows handed to ``fit``.

    Returns
    -------
    n_estimators : int
        The trees of the out-of-bag bank, or of a default forest below 128 rows.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.default_candidates import default_n_estimators
    >>> default_n_estimators(20), default_n_estimators(127), default_n_estimators(128)
    (10, 31, 200)
    """
    return DEFAULT_N_ESTIMATORS if n_rows >= SMALL_SAMPLE else max(10, int(n_rows) // 4)


def candidate_weight(kind):
    """A candidate's weight in the split of ``delta`` besides the defaults' (those weigh
    :func:`default_weight`): 1, or :data:`STUMP_WEIGHT` for a stump.

    Parameters
    ----------
    kind : {"holdout", "stump", "out_of_bag"}

    Returns
    -------
    weight : float
        Before the weights are normalised into shares.
    """
    return STUMP_WEIGHT if kind == "stump" else 1.0


@fill_doc(**NOTES)
def default_weight(kind, fraction, n_rows):
    """A default candidate's weight in the split of ``delta``, fixed by the row count alone:
    ``min(1, ceil(fraction * n_rows) / FULL_WEIGHT_ROWS)``, :data:`STUMP_WEIGHT` a stump.

    {shares_note}

    Parameters
    ----------
    kind : {"holdout", "boosting", "stump", "out_of_bag"}
    fraction : float
        The candidate's validation fraction (0.5 for an out-of-bag candidate).
    n_rows : int
        Rows the candidates are grown on.

    Returns
    -------
    weight : float
        In (0, 1], before the weights are normalised into shares.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.default_candidates import default_weight
    >>> default_weight("holdout", 0.2, 244), default_weight("holdout", 0.5, 244)
    (0.245, 0.61)
    >>> default_weight("boosting", 0.2, 5000), default_weight("stump", 0.5, 244)
    (1.0, 0.1)
    """
    if kind == "stump":
        return STUMP_WEIGHT
    return min(1.0, int(np.ceil(fraction * n_rows)) / FULL_WEIGHT_ROWS)


@fill_doc(**NOTES)
def default_boosting(n_rows):
    """The unfitted default boosting model of a boosting candidate, or None where there is none.

    {boosting_note}

    Parameters
    ----------
    n_rows : int
        Rows the candidates are grown on.

    Returns
    -------
    model : HistGradientBoostingClassifier or None
        Unfitted; None below :data:`BOOSTING_MIN_ROWS` rows.

    Examples
    --------
    >>> from skpacbayes.engine.protocols.default_candidates import default_boosting
    >>> type(default_boosting(1000)).__name__
    'HistGradientBoostingClassifier'
    >>> default_boosting(400) is None
    True
    """
    if n_rows < BOOSTING_MIN_ROWS:
        return None
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier()
