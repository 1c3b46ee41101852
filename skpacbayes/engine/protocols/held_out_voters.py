"""The voters a hold-out certifies: grown on its training rows only, or the user's fitted
model, and their classes mapped to the estimator's (:ref:`theory-holdout`).

A hold-out's statement is fixed before its held-out rows are read: :func:`grown_voters`
grows the bank (the default forest, a cloned classifier, a voter bank) on the training rows
alone; prefit voters are taken as they are. :class:`RecodedVoters` maps a bank's classes to
the estimator's, :func:`held_out_classes` widens ``y``'s classes to those prefit voters know,
and :func:`own_model` / :func:`own_model_output` hand ``predict_proba`` and
``decision_function`` to the deployed vote's one model where there is one.
"""

import numpy as np
from scipy import sparse

__all__ = [
    "DEFAULT_N_ESTIMATORS",
    "RecodedVoters",
    "grown_voters",
    "held_out_classes",
    "own_model",
    "own_model_output",
]


#: Trees of the forest grown on the training rows when ``voters`` is None.
DEFAULT_N_ESTIMATORS = 200


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


def own_model(voters, codes):
    """The deployed vote's one model (a prefit model, a grown boosted model), if one.

    Parameters
    ----------
    voters : fitted voter bank
        The deployed voters.
    codes : ndarray of int
        The bank's classes among the estimator's.

    Returns
    -------
    model : estimator or None
        The model, or None where the vote is not one model's.
    columns : ndarray of int or None
        The estimator's index of each of the model's classes.
    """
    single = getattr(voters, "single_model", None)
    model, columns = (None, None) if single is None else single()
    return (None, None) if model is None else (model, codes[columns])


def own_model_output(model, columns, n_classes, method, rows):
    """The deployed model's own ``method`` on the rows, its columns mapped to the classes.

    Parameters
    ----------
    model : estimator or None
        The deployed vote's one model (:func:`own_model`), or None.
    columns : ndarray of int or None
        The estimator's index of each of the model's classes.
    n_classes : int
        The estimator's number of classes.
    method : {"predict_proba", "decision_function"}
    rows : callable
        Returns the validated rows (called only when the model's ``method`` is read).

    Returns
    -------
    out : ndarray or None
        ``predict_proba`` (0 in the columns of the classes the model does not know) or
        ``decision_function``; None where there is no model, the model has no ``method``,
        or its scores are not over the estimator's classes (the vote's are given).
    """
    if model is None or not hasattr(model, method):
        return None
    if method == "predict_proba":
        proba = np.asarray(model.predict_proba(rows()))
        out = np.zeros((proba.shape[0], n_classes), dtype=proba.dtype)
        out[:, columns] = proba
        return out
    if not np.array_equal(columns, np.arange(n_classes)):
        return None  # the model's scores are not over classes_: the vote's are given
    return model.decision_function(rows())


def held_out_classes(voters, classes):
    """The estimator's classes: ``y``'s, widened to every class prefit voters know (so that
    ``predict`` may return any of them); labels they do not know are refused by their
    ``fit``.

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        The estimator's ``voters`` parameter.
    classes : ndarray
        The sorted labels of ``y``.

    Returns
    -------
    classes : ndarray
    """
    from skpacbayes.voters import PrefitVoters

    if not isinstance(voters, PrefitVoters):
        return classes
    known = voters.known_classes()
    return known if np.isin(classes, known).all() else classes


def grown_voters(voters, X, y, seed, n_jobs):
    """A fitted voter bank grown on ``(X, y)`` only (the training rows of a hold-out).

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None
        A bank is cloned and fitted (``PrefitVoters`` of one model: the model itself,
        :meth:`~skpacbayes.voters.PrefitVoters.deployed_voters`); a classifier is cloned,
        fitted and its members become the voters
        (:func:`~skpacbayes.voters._prefit.grown_members`: no same-rows check, since the hold-out
        grew them on these rows on purpose and certifies them on others); ``None`` grows
        ``RandomForestClassifier(n_estimators=200)``.
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

    from skpacbayes.voters._base import check_float32_range, resolve_voters
    from skpacbayes.voters._prefit import grown_members

    if voters is not None and hasattr(voters, "votes"):
        bank = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
        # prefit models: the model itself, if one (as with every row, certify_halves)
        return bank.deployed_voters() if hasattr(bank, "deployed_voters") else bank
    if voters is None:
        voters = RandomForestClassifier(n_estimators=DEFAULT_N_ESTIMATORS)
    if _grows_trees(voters):  # sklearn's own error would not say what is wrong with X
        check_float32_range(X, type(voters).__name__)
    # rows the face left as the user gave them (a DataFrame, objects, a list of dicts): the
    # model reads every row so; validated float arrays stay float arrays
    keep_input = not (sparse.issparse(X) or (isinstance(X, np.ndarray) and X.dtype.kind == "f"))
    est = resolve_voters(voters, None, seed, n_jobs).fit(X, y)
    return grown_members(est, X, y, n_jobs=n_jobs, keep_input=keep_input)


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
