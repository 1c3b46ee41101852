"""Classifiers fitted beforehand, used as data-independent voters."""

import warnings
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    StackingClassifier,
    VotingClassifier,
)
from sklearn.ensemble._forest import ForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from ._base import N_JOBS
from ._members import MemberVoters, _as_tree_input, _Member

__all__ = ["PrefitVoters", "SampleReuseWarning"]

# The same-rows check needs this many leaves beyond one per tree (a coincidence of every
# leaf count becomes implausible).
_MIN_FREE_LEAVES = 20

# Libraries whose classifiers are gradient-boosted additive models (not majority votes).
_BOOSTING_MODULES = ("xgboost", "lightgbm", "catboost")


class SampleReuseWarning(UserWarning):
    """The prefit voters look fitted on the very rows given to the bound.

    Raised by :class:`PrefitVoters` when a cheap check finds that every tree among the
    voters was grown on rows of the sample passed to ``fit`` (see
    :class:`PrefitVoters`, Notes). The bound is then not a certificate: the voters must be
    fitted on data independent of the bound's sample (:ref:`theory-guarantee`, (A2)).

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes.voters import PrefitVoters, SampleReuseWarning
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> rf = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = PrefitVoters(rf).fit(X, y)  # the rows rf was trained on: not a certificate
    >>> [w.category.__name__ for w in caught]
    ['SampleReuseWarning']
    """


def _unfreeze(estimator):
    while isinstance(estimator, FrozenEstimator):
        estimator = estimator.estimator
    return estimator


def _check_fitted(estimator, what):
    try:
        check_is_fitted(estimator)
    except NotFittedError as exc:
        raise ValueError(
            f"PrefitVoters needs fitted classifiers; {what} ({estimator!r}) is not fitted."
        ) from exc
    except TypeError as exc:
        raise TypeError(f"{what} ({estimator!r}) is not an estimator.") from exc


def _classes_of(estimator, what):
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(
            f"{what} ({estimator!r}) has no classes_ attribute; PrefitVoters needs fitted "
            "classifiers."
        )
    if isinstance(classes, list) or np.ndim(classes) != 1:
        raise ValueError(f"{what} is multi-output; PrefitVoters needs single-output classifiers.")
    return np.asarray(classes)


def _global_classes(classes):
    """Sorted unique labels and, for each entry of ``classes``, its global index."""
    uniq = np.unique(classes)
    if uniq.size != classes.size:
        raise ValueError(f"classes_ contains duplicates: {classes.tolist()!r}.")
    return uniq, np.searchsorted(uniq, classes)


def _expand_list(estimators):
    if len(estimators) == 0:
        raise ValueError("PrefitVoters needs at least one fitted classifier; got an empty list.")
    voters, first = [], None
    for i, est in enumerate(estimators):
        what = f"estimators[{i}]"
        if not hasattr(est, "predict"):
            raise TypeError(f"{what} ({est!r}) has no predict method.")
        _check_fitted(est, what)
        inner = _unfreeze(est)
        classes = _classes_of(inner, what)
        if first is None:
            first = classes
        elif classes.shape != first.shape or np.any(classes != first):
            raise ValueError(
                "The prefit voters disagree on classes_: estimators[0] has "
                f"{first.tolist()!r} but {what} has {classes.tolist()!r}."
            )
        voters.append(inner)
    classes, codes = _global_classes(first)
    members = [_Member(v, first, codes) for v in voters]
    return voters, members, classes


def _check_not_boosting(model):
    """Refuse gradient boosting passed as an ensemble: it is not a majority vote."""
    module = type(model).__module__.split(".")[0]
    if isinstance(model, (GradientBoostingClassifier, HistGradientBoostingClassifier)) or (
        module in _BOOSTING_MODULES
    ):
        raise ValueError(
            f"PrefitVoters cannot take {type(model).__name__} apart into voters: gradient "
            "boosting is an additive model of regression trees fitted to residuals, not a "
            "majority vote of classifiers, so its members are not voters. To certify the "
            f"boosted model as it is, pass it as ONE voter, PrefitVoters([model]), to "
            "HoldOutBoundClassifier (a test-set bound on exactly its predictions)."
        )


def _expand_ensemble(ensemble):
    """Members of a fitted ensemble (its ``estimators_``) mapped to its classes_."""
    classes_raw = _classes_of(ensemble, "the ensemble")
    classes, codes = _global_classes(classes_raw)
    encoded_keys = np.arange(classes_raw.size)
    subs = ensemble.estimators_

    if isinstance(subs, np.ndarray):
        subs = list(subs.ravel())
    voters = [s for s in subs if not (isinstance(s, str) and s == "drop")]
    if isinstance(ensemble, BaggingClassifier):
        feats = ensemble.estimators_features_
        members = [
            _Member(v, encoded_keys, codes, features=f) for v, f in zip(voters, feats, strict=True)
        ]
    elif isinstance(ensemble, (ForestClassifier, VotingClassifier, StackingClassifier)):
        # These ensembles fit their members on the ENCODED labels 0..k-1.
        members = [_Member(v, encoded_keys, codes) for v in voters]
    elif isinstance(ensemble, AdaBoostClassifier):
        members = [_Member(v, classes_raw, codes) for v in voters]
    else:
        # Unknown ensemble: its members must predict the ensemble's own labels.
        for i, v in enumerate(voters):
            sub_classes = getattr(v, "classes_", None)
            if sub_classes is None or not np.all(np.isin(sub_classes, classes_raw)):
                raise TypeError(
                    f"Cannot interpret the members of {type(ensemble).__name__}: member {i} "
                    "does not predict the ensemble's classes_. Pass a list of fitted "
                    "classifiers instead."
                )
        members = [_Member(v, classes_raw, codes) for v in voters]
    if not voters:
        raise ValueError(f"{type(ensemble).__name__} has no fitted member.")
    return voters, members, classes


def _recorded_sizes(models):
    """Training-set sizes the fitted models recorded (what sklearn keeps, not private guesses).

    Forests and bagging keep ``_n_samples``; a decision tree keeps the number of rows
    (``n_node_samples``) and of weighted rows (bootstrap counts, ``weighted_n_node_samples``)
    at its root.
    """
    sizes = set()
    for model in models:
        n = getattr(model, "_n_samples", None)
        if isinstance(n, Integral):
            sizes.add(int(n))
        tree = getattr(model, "tree_", None)
        if tree is not None and getattr(tree, "node_count", 0) > 0:
            sizes.add(int(tree.n_node_samples[0]))
            sizes.add(int(round(float(tree.weighted_n_node_samples[0]))))
    return sizes


def _in_bag_rows(tree, m):
    """Rows a tree of a bootstrap forest was grown on, if the forest's draw can be replayed.

    A tree of ``RandomForestClassifier`` / ``ExtraTreesClassifier(bootstrap=True)`` keeps its
    seed and its number of draws (``weighted_n_node_samples`` at the root); scikit-learn draws
    the rows as ``randint(0, m, n_draws)`` from that seed. ``None`` when the tree used every
    row once (no bootstrap). A replay that does not match what the tree recorded simply makes
    the check below fail: the check can miss, never raise a false alarm for this reason.
    """
    root = tree.tree_
    n_draws = float(root.weighted_n_node_samples[0])
    if int(root.n_node_samples[0]) == m and n_draws == m:
        return None
    if not float(n_draws).is_integer() or not isinstance(tree.random_state, Integral):
        return np.empty(0, dtype=np.intp)  # cannot replay: the check fails for this tree
    return np.random.RandomState(tree.random_state).randint(0, m, int(n_draws))


def _grown_on_exactly(member, X_tree, rows):
    """Whether each leaf holds exactly the number of training rows it recorded, counting the
    rows of ``X`` the tree was grown on (all of them when ``rows`` is None). Certain when
    the tree was grown on these rows; for a tree grown on independent data, every leaf
    count must coincide, which becomes improbable as the number of leaves grows."""
    tree = member.estimator.tree_
    Xt = X_tree if member.features is None else X_tree[:, member.features]
    if rows is not None:
        if rows.size == 0:
            return False
        Xt = Xt[np.unique(rows)]
    counts = np.bincount(member.estimator.apply(Xt, check_input=False), minlength=tree.node_count)
    leaves = tree.children_left == -1
    return bool(np.array_equal(counts[leaves], tree.n_node_samples[leaves]))


def _looks_fitted_on(models, members, ensemble, X):
    """Cheap check that the prefit trees were grown on the rows of ``X`` themselves.

    Three conditions: a training size recorded by the model equals ``len(X)``; every tree
    among the voters holds, in each leaf, exactly as many of its training rows of ``X`` as
    it recorded (bootstrap rows replayed from the forest's seeds, or bagging's
    ``estimators_samples_``); and the trees have at least ``_MIN_FREE_LEAVES`` leaves
    beyond one per tree in total, so that a coincidence is implausible. Voters that are not
    scikit-learn trees are not checked.
    """
    m = X.shape[0]
    trees = [member for member in members if member.uses_tree_input]
    if not trees or m not in _recorded_sizes(models):
        return False
    if sum(int(t.estimator.tree_.n_leaves) - 1 for t in trees) < _MIN_FREE_LEAVES:
        return False
    if isinstance(ensemble, BaggingClassifier):
        samples = list(ensemble.estimators_samples_)
        rows = [None if len(r) == m and np.all(np.sort(r) == np.arange(m)) else r for r in samples]
        if len(rows) != len(trees):
            return False
    else:
        rows = [_in_bag_rows(t.estimator, m) for t in trees]
    if not (isinstance(X, np.ndarray) or sparse.issparse(X)):  # rows out of core (dask)
        warnings.warn(
            f"PrefitVoters: the prefit model recorded a training size equal to the {m} rows "
            "given to fit, and the same-rows check, which needs the rows in memory, did not "
            "run on this dask array. A bound on the rows the voters were fitted on is NOT a "
            "certificate: make sure the model was fitted on other data.",
            SampleReuseWarning,
            stacklevel=2,
        )
        return False
    X_tree = _as_tree_input(X)
    return all(_grown_on_exactly(t, X_tree, r) for t, r in zip(trees, rows, strict=True))


class PrefitVoters(MemberVoters):
    """Classifiers fitted beforehand on other data, used as fixed voters.

    .. warning::

       **The voters must NOT have been trained on the rows given to the bound.** The
       certificate treats them as fixed before the sample (assumption (A2),
       :ref:`theory-guarantee`); voters fitted on the same rows (for instance a forest
       fitted on ``X_train`` and then certified on ``X_train``) give a number that is
       not a certificate, often far too optimistic. Fit them on a separate split, or let
       the library grow the voters itself (:class:`SplitForest`, or ``OutOfBagVoters``
       for a forest grown on every row). A cheap check warns with
       :class:`SampleReuseWarning` when scikit-learn trees among the voters were visibly
       grown on these very rows (see Notes); it cannot detect every case.

    Parameters
    ----------
    estimators : list of fitted classifiers, or one fitted ensemble
        Either a list (or tuple) of fitted classifiers (each may be wrapped in
        :class:`sklearn.frozen.FrozenEstimator`) that share the same ``classes_``;
        each one is a voter, whatever it is (a boosted model in a list is one voter
        that predicts like the model). Or a single fitted ensemble (possibly frozen)
        whose members are the voters: :class:`RandomForestClassifier` /
        :class:`ExtraTreesClassifier` (their trees), :class:`BaggingClassifier`
        (members with their feature subsets), :class:`VotingClassifier` and
        :class:`StackingClassifier` (their fitted base estimators) or
        :class:`AdaBoostClassifier` (its members). Gradient boosting
        (:class:`GradientBoostingClassifier`, :class:`HistGradientBoostingClassifier`,
        XGBoost, LightGBM, CatBoost) is refused as an ensemble with a ``ValueError``
        (see Notes). A single fitted classifier that is not an ensemble is one voter.
    n_jobs : int, default=None
        Number of threads used to compute the votes (``None``: 1 unless in a
        :func:`joblib.parallel_config` context).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The voters' sorted class labels. Every label of ``y`` must be among them.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when ``X`` has string column names.
    n_voters_ : int
        Number of voters.
    estimators_ : list
        The voters (unwrapped from ``FrozenEstimator``).
    voter_groups_ : ndarray of shape (n_voters_,)
        All ``-1``.
    sample_groups_ : ndarray of shape (n_fit_samples,)
        All ``0``: every voter may be evaluated on every training example.
    n_groups_ : int
        Always 1.

    See Also
    --------
    StumpBank : decision stumps fixed before the rows that certify them.
    SplitForest : trees grown on two halves of the training sample.
    SampleReuseWarning : the warning of the same-rows check.

    Notes
    -----
    **Which estimator certifies a given model tightest.** To certify the plain vote of
    a fitted ensemble, ``HoldOutBoundClassifier(voters=PrefitVoters(model))`` (a
    test-set bound on exactly the model's vote, measured on rows the model never saw)
    is usually far tighter than a PAC-Bayes estimator on the same voters: the
    PAC-Bayes bounds pay for the disagreement of the members (second order) or a factor
    2 (first order), and reweight them.

    **Gradient boosting is not a majority vote.** Its members are regression trees
    fitted one after another to the residuals of the previous ones; their sum, not a
    vote, makes the prediction, and a vote over them would certify a different (and
    much weaker) classifier than the model. So the ensemble form is refused; pass the
    boosted model in a list, ``PrefitVoters([model])``, to certify exactly its
    predictions as ONE voter (with :class:`~skpacbayes.HoldOutBoundClassifier`).

    **The same-rows check.** ``fit`` warns with :class:`SampleReuseWarning` when (1) a
    training size recorded by the model (a forest's or bagging's number of rows, a
    tree's root counts) equals the number of rows given to ``fit``, and (2) every leaf
    of every scikit-learn tree among the voters holds exactly as many of these rows as
    it recorded (for bootstrap forests, the in-bag rows replayed from each tree's seed,
    in the order given; for bagging, its ``estimators_samples_``), and (3) the trees
    have at least 20 leaves beyond one per tree, so that a coincidence is implausible.
    Condition (2) is certain for trees grown on these rows and improbable otherwise.
    The check costs one pass of the trees over ``X`` and only runs when (1) holds. It
    does not look at voters that are not trees, at a few shallow trees, at bootstrap
    forests given the rows in another order, or at voters trained on a part of the
    rows: no warning does not prove independence.

    ``fit`` does not refit anything: it checks that the voters are fitted, share
    their classes and expect ``n_features_in_`` features, and that ``y`` only
    contains known labels. :func:`sklearn.base.clone` of a ``PrefitVoters`` keeps
    the same fitted voters (they are fixed functions, not hyper-parameters).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from skpacbayes.voters import PrefitVoters
    >>> X, y = load_iris(return_X_y=True)
    >>> X_prior, y_prior, X_bound, y_bound = X[::2], y[::2], X[1::2], y[1::2]
    >>> trees = [DecisionTreeClassifier(max_depth=d, random_state=0).fit(X_prior, y_prior)
    ...          for d in (1, 2, 3)]
    >>> logreg = LogisticRegression(max_iter=500).fit(X_prior, y_prior)
    >>> bank = PrefitVoters(trees + [logreg]).fit(X_bound, y_bound)
    >>> bank.n_voters_, bank.classes_.tolist()
    (4, [0, 1, 2])
    >>> bool((bank.votes(X_bound)[:, 3] == logreg.predict(X_bound)).all())
    True
    """

    _parameter_constraints: dict = {
        "estimators": [list, tuple, HasMethods(["predict"])],
        "n_jobs": N_JOBS,
    }

    _X_dtype = None

    def __init__(self, estimators, *, n_jobs=None):
        self.estimators = estimators
        self.n_jobs = n_jobs

    def __sklearn_clone__(self):
        # The wrapped classifiers are fixed, fitted functions: cloning must keep them.
        return type(self)(**self.get_params(deep=False))

    def _encode_y(self, y):
        if isinstance(self.estimators, (list, tuple)):
            voters, members, classes = _expand_list(self.estimators)
            expected = [getattr(v, "n_features_in_", None) for v in voters]
        else:
            _check_fitted(self.estimators, "estimators")
            inner = _unfreeze(self.estimators)
            _check_not_boosting(inner)
            if hasattr(inner, "estimators_"):
                voters, members, classes = _expand_ensemble(inner)
            else:
                voters, members, classes = _expand_list([self.estimators])
            expected = [getattr(inner, "n_features_in_", None)]
        if classes.size < 2:
            raise ValueError(
                f"The prefit voters know only one class ({classes.tolist()!r}); at least 2 "
                "are needed."
            )
        uniq = np.unique(y)
        unknown = uniq[~np.isin(uniq, classes)]
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown[:5].tolist()!r} that the prefit voters do not know "
                f"(their classes_ are {classes.tolist()!r})."
            )
        if uniq.size < 2:
            raise ValueError(
                f"PrefitVoters needs at least 2 classes in y; got only {uniq.tolist()!r}."
            )
        self.classes_ = classes
        self._voters_tmp = (voters, members, expected)
        return np.searchsorted(classes, y)

    def _fit(self, X, y_encoded):
        voters, members, expected = self._voters_tmp
        del self._voters_tmp
        n_features = X.shape[1]
        for i, n_expected in enumerate(expected):
            if n_expected is not None and n_expected != n_features:
                raise ValueError(
                    f"X has {n_features} features, but the prefit voters expect {n_expected} "
                    f"(voter {i})."
                )
        models = list(voters)
        ensemble = None
        if not isinstance(self.estimators, (list, tuple)):
            ensemble = _unfreeze(self.estimators)
            models.append(ensemble)
        if _looks_fitted_on(models, members, ensemble, X):
            warnings.warn(
                "PrefitVoters: the prefit voters look fitted on the very rows given to fit "
                f"(training size {X.shape[0]} recorded by the model, and every leaf of every "
                "tree holds exactly the training rows it recorded). A bound computed on them "
                "is NOT a certificate: fit the voters on other data (e.g. a separate split), "
                "or use SplitForest / a hold-out.",
                SampleReuseWarning,
                stacklevel=4,
            )
        self.estimators_ = voters
        self._members = members
        self.n_voters_ = len(members)
        self.voter_groups_ = np.full(self.n_voters_, -1, dtype=np.int8)
        self.sample_groups_ = np.zeros(X.shape[0], dtype=np.int8)
        self.n_groups_ = 1
