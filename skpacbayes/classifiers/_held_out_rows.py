"""The rows of the hold-out estimators: the seeded draws of the held-out rows, the default
forest, and the bank grown on the training rows."""

from numbers import Real

import numpy as np
from sklearn.utils import check_random_state

from skpacbayes.classifiers._base import (
    resolve_voters,
)
from skpacbayes.engine.sampling import draw_rows
from skpacbayes.voters import PrefitVoters
from skpacbayes.voters._base import _check_float32_range

__all__ = ["grown_voters", "rows_seed", "training_rows", "validation_rows"]

#: Trees of the forest grown on the training rows when ``voters`` is None.
DEFAULT_N_ESTIMATORS = 200
#: Default validation fractions: a held-out share that doubles, then grows 2.5-fold, from a
#: tenth (tens of thousands of rows: the vote barely weakens, the bound is already tight) to
#: a half (hundreds of rows: the bound needs every held-out row it can get).
DEFAULT_FRACTIONS = (0.1, 0.2, 0.5)


def validation_rows(n_samples, fraction, seed, fold=0):
    """Training and held-out row indices, drawn from the seed and the sample size alone.

    The held-out rows are the entries ``fold * n_held`` to ``(fold + 1) * n_held - 1``
    (the last fold cut at ``n_samples``) of a permutation of ``range(n_samples)`` seeded
    by ``seed``, with ``n_held = ceil(fraction * n_samples)`` (at least one row on each
    side). Neither ``X`` nor ``y`` is read, so the held-out rows are an i.i.d. sample
    independent of the training rows (no stratification: a split that looks at the
    labels ties the two sides' class counts together). For the same seed, a larger
    fraction holds out a superset of the rows of fold 0, and the folds of one fraction
    are disjoint (fold 1 of ``0.5`` is the other half).

    Parameters
    ----------
    n_samples : int
        Number of rows (at least 2).
    fraction : float in (0, 1)
        Share of the rows held out.
    seed : int
        Seed of the permutation.
    fold : int, default=0
        Which block of ``n_held`` rows of the permutation is held out; it must start
        inside the permutation and leave at least one row to train on.

    Returns
    -------
    train : ndarray of int
        Sorted indices of the rows the ensemble is grown on.
    held_out : ndarray of int
        Sorted indices of the rows its vote is certified on.

    Examples
    --------
    >>> from skpacbayes.classifiers._held_out_rows import validation_rows
    >>> train, held_out = validation_rows(10, 0.25, seed=0)
    >>> train.size, held_out.size
    (7, 3)
    >>> sorted(set(train) | set(held_out)) == list(range(10))
    True
    >>> other = validation_rows(10, 0.25, seed=0, fold=1)[1]
    >>> other.size, set(other) & set(held_out)
    (3, set())
    """
    n_held = min(max(int(np.ceil(fraction * n_samples)), 1), n_samples - 1)
    start = int(fold) * n_held
    if not 0 <= start < n_samples or n_samples - min(n_held, n_samples - start) < 1:
        raise ValueError(
            f"Fold {fold} of validation_fraction={fraction} does not fit in {n_samples} rows: "
            f"{fold} disjoint held-out sets of {n_held} rows come before it."
        )
    perm = np.random.RandomState(seed).permutation(n_samples)
    held = perm[start : start + n_held]
    train = np.concatenate([perm[:start], perm[start + n_held :]])
    return np.sort(train), np.sort(held)


def rows_seed(random_state):
    """The seed every draw of a hold-out's rows is made from, given its ``random_state``.

    ``HoldOutBoundClassifier(random_state=r)`` draws its held-out rows (and the rows of its
    sample protocol) from ``rows_seed(r)``; ``CertifiedVoteClassifier`` draws its sample of
    ``train_size`` rows from the same seed, so both hold the same rows in memory.

    Parameters
    ----------
    random_state : int, RandomState instance or None

    Returns
    -------
    seed : int

    Examples
    --------
    >>> from skpacbayes.classifiers._held_out_rows import rows_seed
    >>> rows_seed(0) == rows_seed(0)
    True
    """
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def training_rows(n_samples, train_size, seed):
    """The ``train_size`` rows the voters are grown on, drawn from the seed and ``n_samples``.

    ``train_size`` distinct rows drawn by :func:`~skpacbayes.engine.sampling.draw_rows`
    (uniformly without replacement by ``numpy.random.default_rng(seed)``); neither ``X``
    nor ``y`` is read, so every other row is an i.i.d. sample independent of them.

    Parameters
    ----------
    n_samples : int
        Number of rows.
    train_size : int
        Rows drawn, ``1 <= train_size <= n_samples - 1`` (at least one row is held out).
    seed : int
        Seed of the draw.

    Returns
    -------
    train : ndarray of int
        Sorted indices of the drawn rows.

    Examples
    --------
    >>> from skpacbayes.classifiers._held_out_rows import training_rows
    >>> training_rows(10, 3, seed=0).size
    3
    """
    if not 1 <= train_size <= n_samples - 1:
        raise ValueError(
            f"train_size={train_size} must leave at least one of the n_samples={n_samples} "
            "rows to certify on: 1 <= train_size <= n_samples - 1."
        )
    return draw_rows(n_samples, train_size, seed)


class RecodedVoters:
    """A fitted bank whose votes are mapped by ``codes`` (its classes -> the estimator's).

    Parameters
    ----------
    voters : voter bank
        Fitted.
    codes : ndarray of int
        ``codes[i]``: index, among ``n_classes``, of the bank's class ``i``.
    n_classes : int
        Number of classes of the mapped votes.
    """

    def __init__(self, voters, codes, n_classes):
        self.voters = voters
        self.codes = np.asarray(codes)
        self.n_classes_ = int(n_classes)
        self.n_voters_ = voters.n_voters_

    def votes(self, X):
        """Votes of the bank on ``X``, mapped by ``codes``."""
        return self.codes[self.voters.votes(X)]


def grown_voters(voters, X, y, seed, n_jobs):
    """A fitted voter bank grown on ``(X, y)`` only (the training rows of a hold-out).

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        A bank is cloned and fitted (``PrefitVoters`` of one model: the model itself,
        :meth:`~skpacbayes.voters.PrefitVoters.deployed_voters`); a classifier is cloned,
        fitted and its members become the voters (:class:`~skpacbayes.voters.PrefitVoters`);
        ``None`` grows ``RandomForestClassifier(n_estimators=200)``.
    X, y : ndarray
        The training rows.
    seed : int
        ``random_state`` of the bank or classifier when it has one left at None.
    n_jobs : int or None
        ``n_jobs`` of the bank or classifier when it has one left at None.

    Returns
    -------
    bank : fitted voter bank
    """
    from sklearn.ensemble import RandomForestClassifier

    if voters is not None and hasattr(voters, "votes"):
        bank = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
        # prefit models: the model itself, if one (as with every row, _fit_halves)
        return bank.deployed_voters() if hasattr(bank, "deployed_voters") else bank
    if voters is None:
        voters = RandomForestClassifier(n_estimators=DEFAULT_N_ESTIMATORS)
    if _grows_trees(voters):  # sklearn's own error would not say what is wrong with X
        _check_float32_range(X, type(voters).__name__)
    est = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
    return _GrownMembers(est, n_jobs=n_jobs).fit(X, y)


class _GrownMembers(PrefitVoters):
    """The members of a model grown here on the hold-out's training rows, on purpose.

    No sample-reuse check (no :class:`~skpacbayes.voters.SampleReuseWarning`): the model was
    just grown on these rows by the hold-out itself, whose bound reads only other rows, so
    the check could only confirm what is known (it replays every tree on every training row).
    """

    def _check_sample_reuse(self, voters, members, X, y_encoded):
        """Nothing to check: the members were grown on ``X`` by the hold-out on purpose."""


def _grows_trees(estimator):
    """Whether ``estimator`` grows scikit-learn decision trees (on float32 features)."""
    from sklearn.ensemble import (
        AdaBoostClassifier,
        BaggingClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import BaseDecisionTree

    if isinstance(estimator, AdaBoostClassifier | BaggingClassifier):  # None: a tree
        return estimator.estimator is None or _grows_trees(estimator.estimator)
    trees = (BaseDecisionTree, RandomForestClassifier, ExtraTreesClassifier)
    return isinstance(estimator, (*trees, GradientBoostingClassifier))


def _fractions(value):
    """The validation fractions as a tuple of distinct floats in (0, 1), or None."""
    if value is None:
        return None
    if isinstance(value, Real) and not isinstance(value, bool):
        values = [value]
    else:
        try:
            values = list(value)
        except TypeError:
            values = [value]
    ok = len(values) > 0 and all(
        isinstance(v, Real) and not isinstance(v, bool) and 0.0 < float(v) < 1.0 for v in values
    )
    if not ok:
        raise ValueError(
            "validation_fraction must be None, a float in (0, 1) or a non-empty sequence of "
            f"floats in (0, 1); got {value!r}."
        )
    values = [float(v) for v in values]
    if len(set(values)) != len(values):
        raise ValueError(f"validation_fraction holds duplicates: {value!r}.")
    return tuple(values)


def _class_vote_errors(votes, codes, y_idx, n_classes):
    """Errors of what ``predict`` returns, the plain vote (ties to the first class), votes
    mapped by ``codes``: the errors and the rows of each true class."""
    from skpacbayes.engine.vote import vote_errors

    ones = np.ones(votes.shape[1])
    wrong = vote_errors(codes[votes], y_idx, ones, n_classes, ties="first")
    return (
        np.bincount(y_idx[wrong], minlength=n_classes),
        np.bincount(y_idx, minlength=n_classes),
    )


def _has_fixed_voters(estimator):
    """``partial_fit`` exists only with fixed voters (PrefitVoters): else say why it does not."""
    from skpacbayes.voters import PrefitVoters

    if not isinstance(estimator.voters, PrefitVoters):
        raise AttributeError(
            "partial_fit certifies fixed voters on a stream: it needs voters=PrefitVoters("
            "model) (or a list of models) fitted beforehand on other data; got "
            f"{type(estimator.voters).__name__}."
        )
    return True
