"""The default candidates of :class:`~skpacbayes.CertifiedVoteClassifier`: what each grows
and what it weighs in the split of ``delta``, fixed by the numbers of rows and classes alone
(never by the rows' values), so that every certificate of
:mod:`~skpacbayes.engine.protocols.candidates` holds as for any fixed candidate list.
"""

import numpy as np

from skpacbayes.engine.protocols.held_out import DEFAULT_N_ESTIMATORS

__all__ = [
    "BOOSTING_FRACTION",
    "BOOSTING_MIN_ROWS",
    "CANDIDATE_FRACTIONS",
    "DEFAULT_FOLDS",
    "FOREST_TREES",
    "FULL_WEIGHT_ROWS",
    "HALF_FOREST_TREES",
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
    """
    return STUMP_WEIGHT if kind == "stump" else 1.0


def default_weight(kind, fraction, n_rows):
    """A default candidate's weight in the split of ``delta``, fixed by the row count alone.

    ``min(1, ceil(fraction * n_rows) / FULL_WEIGHT_ROWS)`` for a forest or boosting candidate
    (its held-out rows over :data:`FULL_WEIGHT_ROWS`, 200; an out-of-bag candidate with
    ``fraction`` 0.5, each of its trees' out-of-bag half), :data:`STUMP_WEIGHT` for a stump.
    A test-set bound on ``m`` held-out rows is at least ``ln(1 / delta_c) / m`` and its
    deviation term shrinks as ``1 / sqrt(m)``: a small held-out set certifies little whatever
    its share, so on a few hundred rows the share goes to the candidates of larger held-out
    sets, which are the ones deployed there (:ref:`strategies`); from 1,000 rows on every
    forest and boosting candidate weighs 1, as with a user's own ensemble.

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


def default_boosting(n_rows):
    """The unfitted default boosting model of a boosting candidate, or None where there is none.

    ``HistGradientBoostingClassifier()`` with scikit-learn's defaults (100 rounds, early
    stopping from 10,000 training rows on, on a tenth of them) from
    :data:`BOOSTING_MIN_ROWS` (500) rows on: a vote of trees by boosting beside the forests'
    votes by bagging, one voter (its trees are never taken apart:
    :class:`~skpacbayes.voters.PrefitVoters`). Seeded by the candidate, as the forests. It
    depends on the number of rows alone; its candidates are grown on binary tasks only
    (:attr:`~skpacbayes.engine.protocols.candidates.Candidate.binary_only`: a ``K``-class
    model grows ``K`` trees a round).

    Parameters
    ----------
    n_rows : int
        Rows the candidates are grown on.

    Returns
    -------
    model : HistGradientBoostingClassifier or None

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
