"""Classifiers fitted beforehand, used as data-independent voters."""

import sys
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
from sklearn.utils.validation import (
    _num_samples,
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from skpacbayes._docstrings import fill_doc

from ._base import N_JOBS, check_float32_range, keep_parameters
from ._members import MemberVoters, _as_tree_input, _Member

__all__ = ["PrefitVoters", "SampleReuseWarning"]

#: the setup of the examples: the iris rows (the models are fitted on them in each)
_IRIS_SETUP = """\
>>> from sklearn.datasets import load_iris
>>> from skpacbayes.voters import PrefitVoters
>>> X, y = load_iris(return_X_y=True)"""

# The same-rows check needs this many leaves beyond one per tree (a coincidence of every
# leaf count becomes implausible).
_MIN_FREE_LEAVES = 20

# Libraries whose classifiers are gradient-boosted additive models (not majority votes).
_BOOSTING_MODULES = ("xgboost", "lightgbm", "catboost")


class SampleReuseWarning(UserWarning):
    """The prefit voters look fitted on the very rows given to the bound.

    Raised by :class:`PrefitVoters` when a cheap check finds that the models were trained on
    the rows passed to ``fit``: every tree among the voters grown on them, or the training
    rows a model keeps (SVC, nearest neighbours), the bins of hist-gradient boosting or the
    recorded size and loss of an MLP matching them (see :class:`PrefitVoters`, Notes, for
    what is and is not detected). The bound is then not a certificate: the voters must be
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


def _is_boosting(model):
    """Whether ``model`` is gradient boosting: an additive model, not a majority vote."""
    module = type(model).__module__.split(".")[0]
    return isinstance(model, (GradientBoostingClassifier, HistGradientBoostingClassifier)) or (
        module in _BOOSTING_MODULES
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
    m = _num_samples(X)
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
    if "dask" in sys.modules and sys.modules["dask"].is_dask_collection(X):  # out of core
        warnings.warn(
            f"PrefitVoters: the prefit model recorded a training size equal to the {m} rows "
            "given to fit, and the same-rows check, which needs the rows in memory, did not "
            "run on this dask array. A bound on the rows the voters were fitted on is NOT a "
            "certificate: make sure the model was fitted on other data.",
            SampleReuseWarning,
            stacklevel=2,
        )
        return False
    try:
        X_tree = _as_tree_input(X)
    except (TypeError, ValueError):  # rows the trees cannot read as they are (e.g. strings)
        return False
    return all(_grown_on_exactly(t, X_tree, r) for t, r in zip(trees, rows, strict=True))


# Attributes in which fitted scikit-learn classifiers keep rows of their training set (SVC /
# NuSVC: the support vectors; nearest neighbours: every row; Gaussian processes and label
# propagation: every row).
_STORED_ROWS = ("support_vectors_", "_fit_X", "X_train_", "X_")
# Share of the stored training rows found among the rows of X above which the model is
# taken as trained on them.
_FOUND_ROWS = 0.5
# A stochastic-gradient MLP whose data loss on X is at most this multiple of its recorded
# final training loss (loss_: the last epoch's mean loss plus the L2 penalty, above the data
# loss of the final weights on the training rows), on exactly as many rows as it recorded,
# is taken as trained on them.
_LOSS_RATIO = 1.0


def _found_rows(stored, X):
    """Share of the rows of ``stored`` that are (exactly) rows of ``X``."""
    stored = np.ascontiguousarray(np.asarray(stored, dtype=np.float64))
    rows = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
    if stored.ndim != 2 or stored.shape[0] == 0 or stored.shape[1] != rows.shape[1]:
        return 0.0
    seen = {row.tobytes() for row in rows}
    return sum(row.tobytes() in seen for row in stored) / stored.shape[0]


def _same_bins(model, X):
    """Whether a hist-gradient boosting model's bin thresholds are those of ``X`` exactly."""
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper

    fitted = model._bin_mapper
    again = _BinMapper(
        n_bins=fitted.n_bins,
        subsample=fitted.subsample,
        is_categorical=fitted.is_categorical,
        known_categories=fitted.known_categories,
        random_state=fitted.random_state,
        n_threads=1,
    ).fit(np.asarray(X, dtype=np.float64))
    return len(again.bin_thresholds_) == len(fitted.bin_thresholds_) and all(
        np.array_equal(a, b)
        for a, b in zip(again.bin_thresholds_, fitted.bin_thresholds_, strict=True)
    )


def _trained_on(model, X, y):
    """Why ``model`` looks trained on the rows ``X`` (labels ``y``), or None (see Notes of
    :class:`PrefitVoters`). Checks that cannot run (a private attribute moved, a transform
    that fails) find nothing: they can miss, never raise."""
    from sklearn.metrics import log_loss
    from sklearn.pipeline import Pipeline

    model = _unfreeze(model)
    try:
        if isinstance(model, Pipeline):  # the last step, on the rows as the pipeline feeds it
            return _trained_on(model[-1], model[:-1].transform(X), y)
        if sparse.issparse(X):
            return None
        for name in _STORED_ROWS:
            stored = getattr(model, name, None)
            if stored is not None and not sparse.issparse(stored) and np.ndim(stored) == 2:
                share = _found_rows(stored, X)
                if share >= _FOUND_ROWS:
                    return (
                        f"{100 * share:.0f} % of the training rows {type(model).__name__} keeps "
                        f"({name}) are rows given to fit"
                    )
        if isinstance(model, HistGradientBoostingClassifier) and _same_bins(model, X):
            return (
                "the HistGradientBoostingClassifier's bin thresholds are exactly those of the "
                "rows given to fit"
            )
        t, n_iter, loss = (getattr(model, a, None) for a in ("t_", "n_iter_", "loss_"))
        if y is not None and t and n_iter and loss and hasattr(model, "predict_proba"):
            if t == n_iter * _num_samples(X):  # the rows a stochastic-gradient MLP recorded
                data_loss = log_loss(y, model.predict_proba(X), labels=model.classes_)
                if data_loss <= _LOSS_RATIO * loss:
                    return (
                        f"the {type(model).__name__} recorded {_num_samples(X)} training rows, as "
                        f"many as given to fit, and its loss on them ({data_loss:.4g}) is its "
                        f"final training loss ({loss:.4g})"
                    )
    except (AttributeError, TypeError, ValueError, ImportError):
        return None
    return None


def _check_tree_input(members, X, bank):
    """The rows scikit-learn trees read through their fast path (no input checks of their
    own: ``apply(check_input=False)``) must be finite float32 values; every other model
    validates ``X`` itself."""
    if any(member.uses_tree_input for member in members) and not (
        "dask" in sys.modules and sys.modules["dask"].is_dask_collection(X)
    ):
        check_array(X, accept_sparse="csr", dtype=None, ensure_all_finite=True)
        check_float32_range(X, bank)


@fill_doc(iris_setup=_IRIS_SETUP)
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
       :class:`SampleReuseWarning` when the models (trees, SVCs, nearest neighbours,
       hist-gradient boosting, MLPs) were visibly trained on these very rows (see Notes);
       it cannot detect every case.

    Parameters
    ----------
    estimators : list of fitted classifiers, or one fitted ensemble
        Either a list (or tuple) of fitted classifiers (each may be wrapped in
        :class:`sklearn.frozen.FrozenEstimator`) that share the same ``classes_``;
        each one is a voter, whatever it is (a boosted model in a list is one voter
        that predicts like the model). Or a single fitted classifier (possibly
        frozen): any scikit-learn classifier (a pipeline, an SVC without
        ``predict_proba``, an MLP, gradient boosting, ...) is accepted;
        :class:`~skpacbayes.HoldOutBoundClassifier` deploys and certifies its own
        ``predict`` (:meth:`deployed_voters`). For the PAC-Bayes estimators, which
        weigh voters, a single fitted ensemble's members are the voters:
        :class:`RandomForestClassifier` /
        :class:`ExtraTreesClassifier` (their trees), :class:`BaggingClassifier`
        (members with their feature subsets), :class:`VotingClassifier` and
        :class:`StackingClassifier` (their fitted base estimators) or
        :class:`AdaBoostClassifier` (its members). Gradient boosting
        (:class:`GradientBoostingClassifier`, :class:`HistGradientBoostingClassifier`,
        XGBoost, LightGBM, CatBoost) is never taken apart (see Notes): it is one voter,
        as is a single fitted classifier that is not an ensemble.
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
    **Which estimator certifies a given model tightest.** To certify a fitted model,
    ``HoldOutBoundClassifier(voters=PrefitVoters(model))`` (a test-set bound on exactly
    the model's own ``predict``, measured on rows the model never saw)
    is usually far tighter than a PAC-Bayes estimator on the same voters: the
    PAC-Bayes bounds pay for the disagreement of the members (second order) or a factor
    2 (first order), and reweight them.

    **Gradient boosting is not a majority vote.** Its members are regression trees
    fitted one after another to the residuals of the previous ones; their sum, not a
    vote, makes the prediction, and a vote over them would certify a different (and
    much weaker) classifier than the model. So a boosted model is ONE voter, alone or in a
    list: its own predictions.

    **The same-rows checks.** ``fit`` warns with :class:`SampleReuseWarning` when the
    models visibly were trained on the rows given to it. *Trees* (forests, bagging,
    extra trees, decision trees, in a list or an ensemble): when (1) a
    training size recorded by the model (a forest's or bagging's number of rows, a
    tree's root counts) equals the number of rows given to ``fit``, and (2) every leaf
    of every scikit-learn tree among the voters holds exactly as many of these rows as
    it recorded (for bootstrap forests, the in-bag rows replayed from each tree's seed,
    in the order given; for bagging, its ``estimators_samples_``), and (3) the trees
    have at least 20 leaves beyond one per tree, so that a coincidence is implausible.
    Condition (2) is certain for trees grown on these rows and improbable otherwise.
    The check costs one pass of the trees over ``X`` and only runs when (1) holds.
    *Models that keep training rows* (the support vectors of an SVC or NuSVC, the rows of
    a nearest-neighbours classifier, of a Gaussian process or of label propagation /
    spreading): when at least half of the rows they keep are, exactly, rows of ``X``
    (a model trained on a part of ``X`` is caught too, one trained on a much larger set
    is not).
    *Hist-gradient boosting*: when its bin thresholds are exactly those computed from
    ``X`` (same rows, in any order). *Stochastic-gradient MLPs* (``solver="adam"`` or
    ``"sgd"``): when the number of training rows they recorded (``t_ / n_iter_``) equals
    the number of rows of ``X`` and their log-loss on ``X`` is at most their final
    training loss (``loss_``, which adds the L2 penalty to the last epoch's mean loss).
    In a :class:`~sklearn.pipeline.Pipeline` the last step is checked on the rows as the
    pipeline feeds it.

    **What is not detected.** Models that keep no trace of their training rows: linear
    models, :class:`GradientBoostingClassifier`, an MLP trained by L-BFGS, naive Bayes,
    models of other libraries; a few shallow trees; bootstrap forests given the rows in
    another order; trees, hist-gradient boosting or an MLP trained on a *part* of the rows
    (or on more rows); hist-gradient boosting with early stopping (its bins come from its
    own training split); sparse ``X`` for the row and bin checks; and, on a dask array,
    everything but the forests' recorded size (the checks need the rows in memory). No
    warning does not prove independence: keeping the certification rows apart is the user's
    part of the contract. The MLP check is a heuristic: an MLP that does not overfit,
    certified on independent rows of exactly the size it was trained on, may warn wrongly.

    ``fit`` does not refit anything: it checks that the voters are fitted, share
    their classes and expect ``n_features_in_`` features, and that ``y`` only
    contains known labels. :func:`sklearn.base.clone` of a ``PrefitVoters`` keeps
    the same fitted voters (they are fixed functions, not hyper-parameters).

    Examples
    --------
    {iris_setup}
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
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

    _fits_without_rows = True  # fit_without_rows: the shape of X and the labels
    _keeps_input = True  # X reaches the models as given

    _parameter_constraints: dict = {
        "estimators": [list, tuple, HasMethods(["predict"])],
        "n_jobs": N_JOBS,
    }

    _X_dtype = None

    def __init__(self, estimators, *, n_jobs=None):
        keep_parameters(self, locals())

    def __sklearn_clone__(self):
        # The wrapped classifiers are fixed, fitted functions: cloning must keep them.
        return type(self)(**self.get_params(deep=False))

    def _expand(self):
        """The voters, their members, the sorted classes and the expected feature counts."""
        if isinstance(self.estimators, (list, tuple)):
            voters, members, classes = _expand_list(self.estimators)
            return voters, members, classes, [getattr(v, "n_features_in_", None) for v in voters]
        _check_fitted(self.estimators, "estimators")
        inner = _unfreeze(self.estimators)
        if hasattr(inner, "estimators_") and not _is_boosting(inner):
            voters, members, classes = _expand_ensemble(inner)
        else:
            voters, members, classes = _expand_list([self.estimators])
        return voters, members, classes, [getattr(inner, "n_features_in_", None)]

    def fingerprint(self):
        """What changes when a prefit model is refitted or its parameters set: cheap to
        take, so that a stream can check it at every batch.

        For each model given and, recursively, each estimator it holds (the steps of a
        pipeline, the members of an ensemble): its type, its parameters and, for each of its
        fitted attributes (the names ending in ``_``), the identity of the value (a fit
        assigns new ones; the fingerprint holds the values, so that no new one can take
        their identity) and, for a NumPy array of at most 100,000 entries, a digest of its
        bytes (an array edited in place).

        Returns
        -------
        fingerprint : ModelFingerprint
            Equal for two calls on unchanged models (the identities do not survive a pickle).

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from skpacbayes.voters import PrefitVoters
        >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
        >>> taken = PrefitVoters(tree).fingerprint()
        >>> taken == PrefitVoters(tree).fingerprint()
        True
        >>> taken == PrefitVoters(tree.fit([[0.0], [2.0]], [0, 1])).fingerprint()  # refitted
        False
        """
        from ._fingerprint import model_fingerprint

        models = self.estimators
        return model_fingerprint(models if isinstance(models, (list, tuple)) else [models])

    @fill_doc(iris_setup=_IRIS_SETUP)
    def known_classes(self):
        """The sorted labels the prefit classifiers know, without fitting the bank.

        Returns
        -------
        classes : ndarray
            What ``classes_`` will be after ``fit``.

        Examples
        --------
        {iris_setup}
        >>> from sklearn.linear_model import LogisticRegression
        >>> PrefitVoters(LogisticRegression(max_iter=500).fit(X, y)).known_classes()
        array([0, 1, 2])
        """
        return self._expand()[2]

    def _encode_y(self, y):
        voters, members, classes, expected = self._expand()
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

    def _validate_fit_data(self, X, y):
        """``X`` as given (the models validate it; ``n_features_in_`` and feature names are
        recorded as scikit-learn does), ``y`` as labels of as many rows."""
        X, y = validate_data(self, X, y, skip_check_array=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        return X, y

    def _validate_X(self, X):
        X = validate_data(self, X, reset=False, skip_check_array=True)
        _check_tree_input(self._members, X, type(self).__name__)
        return X

    def _fit(self, X, y_encoded):
        voters, members, expected = self._voters_tmp
        del self._voters_tmp
        n_features = getattr(X, "shape", (0, None))[1] if np.ndim(X) == 2 else None
        for i, n_expected in enumerate(expected):
            if n_expected is not None and n_features is not None and n_expected != n_features:
                raise ValueError(
                    f"X has {n_features} features, but the prefit voters expect {n_expected} "
                    f"(voter {i})."
                )
        _check_tree_input(members, X, type(self).__name__)
        self._check_sample_reuse(voters, members, X, y_encoded)
        self.estimators_ = voters
        self._members = members
        self.n_voters_ = len(members)
        self.voter_groups_ = np.full(self.n_voters_, -1, dtype=np.int8)
        self.sample_groups_ = np.zeros(_num_samples(X), dtype=np.int8)
        self.n_groups_ = 1

    def _check_sample_reuse(self, voters, members, X, y_encoded):
        """Warn with :class:`SampleReuseWarning` when the models look trained on ``X``."""
        models = list(voters)
        ensemble = None
        if not isinstance(self.estimators, (list, tuple)):
            ensemble = _unfreeze(self.estimators)
            models.append(ensemble)
        if _looks_fitted_on(models, members, ensemble, X):
            warnings.warn(
                "PrefitVoters: the prefit voters look fitted on the very rows given to fit "
                f"(training size {_num_samples(X)} recorded by the model, and every leaf of every "
                "tree holds exactly the training rows it recorded). A bound computed on them "
                "is NOT a certificate: fit the voters on other data (e.g. a separate split), "
                "or use SplitForest / a hold-out.",
                SampleReuseWarning,
                stacklevel=5,
            )
        elif not ("dask" in sys.modules and sys.modules["dask"].is_dask_collection(X)):
            # the rows and bins checks read the rows in memory
            labels = None if y_encoded is None else self.classes_[y_encoded]
            unique = {id(m): m for m in models}.values()
            reasons = [r for m in unique if (r := _trained_on(m, X, labels)) is not None]
            if reasons:
                warnings.warn(
                    f"PrefitVoters: the prefit model looks trained on the rows given to fit "
                    f"({'; '.join(reasons)}). A bound computed on them is NOT a certificate: "
                    "fit the model on other data (e.g. a separate split).",
                    SampleReuseWarning,
                    stacklevel=5,
                )

    @fill_doc(iris_setup=_IRIS_SETUP)
    def deployed_voters(self):
        """The voters whose plain vote is the deployed classifier: the model itself, if one.

        Given ONE fitted model (an ensemble or not), the classifier a user deploys is the
        model's own ``predict`` (a forest's averaged probabilities, a boosted model's sum, a
        pipeline's last step), not the vote of its members: this returns a fitted bank of one
        voter, that ``predict`` (mapped to ``classes_``). Given a list of models, their plain
        vote is deployed and this returns the bank itself. What
        :class:`~skpacbayes.HoldOutBoundClassifier` certifies and predicts with.

        Returns
        -------
        bank : PrefitVoters
            Fitted, with the same ``classes_``, features and evaluation rule as ``self``.

        Examples
        --------
        {iris_setup}
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[::2], y[::2])
        >>> bank = PrefitVoters(rf).fit(X[1::2], y[1::2])
        >>> bank.n_voters_, bank.deployed_voters().n_voters_
        (5, 1)
        >>> model = bank.deployed_voters()
        >>> bool((model.classes_[model.votes(X)[:, 0]] == rf.predict(X)).all())
        True
        """
        check_is_fitted(self)
        if isinstance(self.estimators, (list, tuple)):
            return self
        voters, members, classes = _expand_list([self.estimators])
        bank = type(self)([self.estimators], n_jobs=self.n_jobs)
        for name in ("n_features_in_", "feature_names_in_", "n_classes_"):
            if hasattr(self, name):
                setattr(bank, name, getattr(self, name))
        bank.classes_ = classes
        bank.estimators_ = voters
        bank._members = members
        bank.n_voters_ = 1
        bank.voter_groups_ = np.full(1, -1, dtype=np.int8)
        bank.sample_groups_ = self.sample_groups_
        bank.n_groups_ = 1
        return bank


class _GrownMembers(PrefitVoters):
    """The members of a model grown on purpose on the rows given to ``fit``
    (:func:`grown_members`): no same-rows check, and the rows validated as the hold-out
    validated those it grew them on (the model was grown on float arrays)."""

    _keeps_input = False
    _validate_fit_data = MemberVoters._validate_fit_data
    _validate_X = MemberVoters._validate_X

    def _check_sample_reuse(self, voters, members, X, y_encoded):
        """Nothing to check: the caller grew the members on ``X`` and certifies them on
        other rows."""


class _GrownOnInput(_GrownMembers):
    """The members of a model grown on purpose on the rows as the user gave them (a pipeline
    on a DataFrame, a list of dicts): they read every row as given, as prefit models do."""

    _keeps_input = True
    _validate_fit_data = PrefitVoters._validate_fit_data
    _validate_X = PrefitVoters._validate_X


def grown_members(model, X, y, n_jobs=None, keep_input=False):
    """The members of a model just grown on ``(X, y)``, as a fitted bank of fixed voters.

    What a hold-out grows itself on its training rows and certifies on other rows: the
    members vote as with :class:`PrefitVoters`, without its same-rows check (no
    :class:`SampleReuseWarning`: the model was grown on these rows on purpose, and the check
    would only confirm it, replaying every tree on every training row).

    Parameters
    ----------
    model : fitted classifier
        Grown on ``(X, y)``.
    X, y : ndarray
        Its training rows.
    n_jobs : int or None, default=None
        Threads of the votes.
    keep_input : bool, default=False
        The model was grown on the rows as the user gave them (``X`` a DataFrame, a list
        of dicts, ...): its members read every row as given, as prefit models do; else as
        float arrays.

    Returns
    -------
    bank : PrefitVoters
        Fitted on ``(X, y)``.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes.voters._prefit import grown_members
    >>> X, y = load_iris(return_X_y=True)
    >>> rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error")  # no SampleReuseWarning
    ...     grown_members(rf, X, y).n_voters_
    5
    """
    bank = _GrownOnInput if keep_input else _GrownMembers
    return bank(model, n_jobs=n_jobs).fit(X, y)
