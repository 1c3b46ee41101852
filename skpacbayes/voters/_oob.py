"""A bagged ensemble grown on the whole sample, each member evaluated on its out-of-bag rows."""

import inspect
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.ensemble import BaggingClassifier, ExtraTreesClassifier, RandomForestClassifier
from sklearn.tree import BaseDecisionTree, DecisionTreeClassifier, ExtraTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from skpacbayes._docstrings import fill_doc

from ._base import FITTED_ATTRIBUTES, N_JOBS, check_float32_range, keep_parameters
from ._integers import Integers
from ._members import MemberVoters, _Member

__all__ = ["OutOfBagVoters"]

# the setup of the examples: the iris rows and the bank's class
_IRIS_SETUP = """\
>>> from sklearn.datasets import load_iris
>>> from skpacbayes.voters import OutOfBagVoters
>>> X, y = load_iris(return_X_y=True)"""

_MAX_SEED = np.iinfo(np.int32).max
_DEFAULT_N_ESTIMATORS = 100
_DEFAULT_FRACTION = 0.5  # subsample without replacement: every voter has m/2 out-of-bag rows

# Ensemble parameters the bank reads itself; every other non-tree parameter must stay at its
# scikit-learn default (``_check_other_params``), so that none is silently ignored.
_FOREST_OWN = ("n_estimators", "bootstrap", "max_samples", "n_jobs", "class_weight")
_BAGGING_OWN = (
    "estimator",
    "n_estimators",
    "bootstrap",
    "max_samples",
    "max_features",
    "bootstrap_features",
    "n_jobs",
)


def _n_drawn(max_samples, m, what):
    """Number of rows drawn per member from ``max_samples`` (None: ``m``) and ``m`` only."""
    if max_samples is None:
        return m
    if isinstance(max_samples, Integral) and not isinstance(max_samples, bool):
        if not 1 <= max_samples <= m:
            raise ValueError(
                f"{what}={max_samples} must be at most the number of samples ({m}) when it is "
                "an integer."
            )
        return int(max_samples)
    return max(1, round(float(max_samples) * m))


def draw_in_bag(seed, n_samples, n_drawn, replace):
    """The in-bag row indices of one member, from its seed and the sample size alone.

    Parameters
    ----------
    seed : int
        The member's sampling seed.
    n_samples : int
        Number of training rows ``m``.
    n_drawn : int
        Number of draws ``k``.
    replace : bool
        Bootstrap (with replacement) or subsample (without replacement).

    Returns
    -------
    indices : ndarray of shape (n_drawn,)
        Row indices in ``0 .. m - 1`` (sorted when drawn without replacement; with
        repetitions for a bootstrap). No row of the data is read.
    """
    rng = np.random.RandomState(seed)
    if replace:
        return rng.randint(0, n_samples, n_drawn)
    return np.sort(rng.permutation(n_samples)[:n_drawn])


def _draw_features(seed, n_features, n_selected, replace):
    rng = np.random.RandomState(seed)
    if replace:
        return rng.randint(0, n_features, n_selected)
    return np.sort(rng.permutation(n_features)[:n_selected])


def _accepts_sample_weight(estimator):
    try:
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover - exotic callables
        return False


def _fit_member(
    template, X, y, n_samples, n_drawn, replace, sample_seed, member_seed, features, balanced
):
    """Fit one member on its in-bag rows only (the indices are drawn here, from the seed)."""
    idx = draw_in_bag(sample_seed, n_samples, n_drawn, replace)
    est = clone(template)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=member_seed)
    weight = None
    if replace and _accepts_sample_weight(est):
        rows, counts = np.unique(idx, return_counts=True)
        weight = counts.astype(np.float64)
    else:
        rows = idx
    if balanced:  # class_weight="balanced_subsample": from the in-bag labels (and counts) only
        present, counts = np.unique(y[idx], return_counts=True)
        per_class = idx.size / (present.size * counts)
        cw = per_class[np.searchsorted(present, y[rows])]
        weight = cw if weight is None else weight * cw
    Xb = X[rows] if features is None else X[rows][:, features]
    if weight is None:
        return est.fit(Xb, y[rows])
    return est.fit(Xb, y[rows], sample_weight=weight)


@fill_doc(fitted=FITTED_ATTRIBUTES, iris_setup=_IRIS_SETUP)
class OutOfBagVoters(MemberVoters):
    """A bagged ensemble grown on the whole sample; each voter evaluated on its out-of-bag rows.

    Before any row is read, the bank draws for every member ``i`` a set of row indices
    ``B_i`` from its seed and the number of rows ``m`` alone: a bootstrap (with
    replacement) or a subsample (without replacement) of ``max_samples`` rows. Member
    ``i`` is fitted on the rows ``B_i`` only (a bootstrap's distinct rows with their counts
    as ``sample_weight``); for the bound it is evaluated only on its out-of-bag rows
    ``O_i``, the rows it never saw. The index draws never look at ``X`` or ``y`` (no
    class stratification). The deployed classifier is the weighted vote of ALL members,
    each grown on much of the sample: the forest a user deploys, certified by
    :class:`~skpacbayes.FirstOrderBoundClassifier` and
    :class:`~skpacbayes.SecondOrderBoundClassifier` (Categorical posterior) through the
    out-of-bag bounds of :ref:`theory-out-of-bag`.

    Parameters
    ----------
    estimator : object, default=None
        The learner. ``None`` means ``DecisionTreeClassifier(max_features="sqrt")``, the tree
        inside :class:`~sklearn.ensemble.RandomForestClassifier`. Any scikit-learn classifier
        is cloned once per member (its ``random_state``, if it has one, is set per member). A
        :class:`~sklearn.ensemble.RandomForestClassifier` or
        :class:`~sklearn.ensemble.ExtraTreesClassifier` gives its tree parameters
        (``criterion``, ``max_depth``, ``max_features``, ...) to every member tree, and its
        ``n_estimators``, ``bootstrap``, ``max_samples``, ``class_weight`` and ``n_jobs`` are
        honoured; a :class:`~sklearn.ensemble.BaggingClassifier` likewise (its ``estimator``,
        ``n_estimators``, ``max_samples``, ``bootstrap``, ``max_features`` and
        ``bootstrap_features``; the feature subsets are drawn from the seed and the number of
        features). Ensemble parameters the bank cannot honour validly raise a ``ValueError``:
        ``bootstrap=False`` on a forest (no out-of-bag rows), ``class_weight="balanced"``
        (weights from the labels of every row, the out-of-bag ones included), a forest's own
        ``random_state`` (seed the bank instead), ``oob_score``, ``warm_start``, ``verbose``.
    n_estimators : int, default=None
        Number of members. ``None``: the ensemble's ``n_estimators`` for an ensemble
        ``estimator``, else 100. A value that differs from the ensemble's raises a
        ``ValueError``.
    max_samples : int or float, default=None
        Rows drawn per member: a float in (0, 1] is a fraction of ``m`` (rounded, at least 1),
        an int a number of rows. ``None``: the ensemble's own scheme for an ensemble
        ``estimator``; otherwise ``m`` with replacement and ``m / 2`` without.
    bootstrap : bool, default=None
        Draw with replacement (``True``) or without (``False``). ``None``: the ensemble's
        own for an ensemble ``estimator``, else ``False``. A value (of ``max_samples`` or
        ``bootstrap``) that contradicts the ensemble's raises a ``ValueError``.
    random_state : int, RandomState instance or None, default=None
        Seeds the index draws and the members.
    n_jobs : int, default=None
        Parallel jobs (joblib, so ``joblib.parallel_config(backend="dask")`` spreads the
        members over a cluster) to grow the members and compute the votes. ``None``: the
        ensemble's ``n_jobs`` for an ensemble ``estimator``, else 1 unless in a
        :func:`joblib.parallel_config` context.

    Attributes
    ----------
    {fitted}
    n_voters_ : int
        Number of members.
    estimators_ : list of estimators
        The members, fitted on ENCODED labels (indices into ``classes_``).
    estimators_features_ : list of ndarray or None
        Feature subset of each member (``None``: all features).
    n_fit_samples_ : int
        Number of rows ``m`` of the ``X`` given to ``fit``.
    n_drawn_ : int
        Number of rows drawn per member.
    bootstrap_ : bool
        Whether the rows were drawn with replacement.
    sample_seeds_ : ndarray of shape (n_voters_,)
        Seed of each member's index draw: :meth:`in_bag_indices` recomputes the draw from it
        and ``n_fit_samples_`` alone.
    oob_sizes_ : ndarray of shape (n_voters_,)
        Number of out-of-bag rows ``m_i`` of each member.

    See Also
    --------
    SplitForest : trees grown on two halves (cross bound).
    PrefitVoters : classifiers fitted beforehand on other data.

    Notes
    -----
    Why the out-of-bag estimates give a certificate (:ref:`theory-out-of-bag`): given the
    index draws, which do not depend on the data, member ``i`` is a function of the rows
    ``B_i`` only, and its out-of-bag rows are i.i.d. draws independent of it. Subsampling
    half of the rows without replacement (the default) gives every member ``m/2``
    out-of-bag rows and every pair about ``m/4`` shared ones (the tandem bound's sample); a
    bootstrap of ``m`` rows gives about ``0.37 m`` and ``0.14 m``. A bank grown without
    replacement on (nearly) all rows has (almost) no out-of-bag rows and is refused; on a
    handful of rows some pair may share none, and the tandem bound then raises a
    ``ValueError`` saying so (the first-order bound still applies).

    Which bound. The tandem bound (:class:`~skpacbayes.SecondOrderBoundClassifier`) is
    usually the tighter one here and keeps the weights close to uniform, so the deployed
    vote errs about as often as a random forest of the same size. The first-order bound
    favours the few members with the smallest out-of-bag errors and its vote is often
    weaker. Measured on three data sets (80/20 splits, 100 trees, mean of 3 seeds, bound /
    test error in %): svmguide1 first order 10.5 / 3.9, tandem 14.7 / 3.1; phishing 12.0 /
    5.1 and 14.5 / 3.2; pendigits 14.6 / 5.8 and 13.0 / 1.1, where
    ``RandomForestClassifier(100)`` errs 3.3, 3.0 and 1.0 %.

    Unlike the other banks this one has no ``voter_groups_`` / ``sample_groups_``: its
    evaluation rule is one row set per voter (and per pair of voters), see
    :meth:`evaluation_mask`. Estimators that only know halves or data-independent voters
    refuse it with a ``ValueError``.

    Examples
    --------
    {iris_setup}
    >>> bank = OutOfBagVoters(n_estimators=5, random_state=0).fit(X, y)
    >>> bank.n_voters_, bank.n_drawn_, bank.bootstrap_
    (5, 75, False)
    >>> bank.oob_sizes_.tolist()
    [75, 75, 75, 75, 75]
    >>> mask = bank.evaluation_mask()  # True where the row is out of bag for the voter
    >>> mask.shape, mask.sum(axis=0).tolist()
    ((150, 5), [75, 75, 75, 75, 75])
    >>> bank.votes(X[:2])
    array([[0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0]], dtype=int8)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Integers(1, None, closed="left"), None],
        "max_samples": [
            Integers(1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
        "bootstrap": ["boolean", None],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
    }

    _is_split = True
    _is_out_of_bag = True

    def __init__(
        self,
        estimator=None,
        n_estimators=None,
        *,
        max_samples=None,
        bootstrap=None,
        random_state=None,
        n_jobs=None,
    ):
        keep_parameters(self, locals())

    # ------------------------------------------------------------ resolve
    def _resolve(self, n_features):
        """Member template, sampling scheme, feature scheme, n_jobs from the parameters."""
        est = self.estimator
        plan = {
            "n_estimators": None,
            "bootstrap": None,
            "max_samples": None,
            "max_features": None,
            "bootstrap_features": False,
            "n_jobs": None,
            "balanced": False,
        }
        if isinstance(est, (RandomForestClassifier, ExtraTreesClassifier)):
            template = self._forest_template(est, plan)
        elif isinstance(est, BaggingClassifier):
            template = self._bagging_template(est, plan, n_features)
        elif est is None:
            template = DecisionTreeClassifier(max_features="sqrt")
        else:
            if not is_classifier(est):
                raise ValueError(
                    f"OutOfBagVoters: estimator must be a scikit-learn classifier; got {est!r}."
                )
            template = clone(est)
        n_estimators = self._agree("n_estimators", self.n_estimators, plan["n_estimators"])
        bootstrap = self._agree("bootstrap", self.bootstrap, plan["bootstrap"])
        if plan["bootstrap"] is not None and self.max_samples is not None:
            if plan["max_samples"] != self.max_samples:
                raise ValueError(
                    f"OutOfBagVoters: max_samples={self.max_samples!r} conflicts with the "
                    f"estimator's max_samples={plan['max_samples']!r}. Set one of them only."
                )
        max_samples = self.max_samples if plan["bootstrap"] is None else plan["max_samples"]
        n_jobs = self.n_jobs if self.n_jobs is not None else plan["n_jobs"]
        return {
            "template": template,
            "n_estimators": _DEFAULT_N_ESTIMATORS if n_estimators is None else n_estimators,
            "bootstrap": False if bootstrap is None else bool(bootstrap),
            "max_samples": max_samples,
            "max_features": plan["max_features"],
            "bootstrap_features": plan["bootstrap_features"],
            "balanced": plan["balanced"],
            "n_jobs": n_jobs,
        }

    @staticmethod
    def _agree(name, mine, theirs):
        if mine is not None and theirs is not None and mine != theirs:
            raise ValueError(
                f"OutOfBagVoters: {name}={mine!r} conflicts with the estimator's "
                f"{name}={theirs!r}. Set it in one place only (leave OutOfBagVoters' "
                f"{name}=None to use the estimator's)."
            )
        return theirs if mine is None else mine

    @staticmethod
    def _check_other_params(est, own, tree_params):
        defaults = type(est)().get_params(deep=False)
        for name, value in est.get_params(deep=False).items():
            if name in own or name in tree_params:
                continue
            if name == "random_state" and value is not None:
                raise ValueError(
                    f"OutOfBagVoters: the {type(est).__name__}'s random_state={value!r} would be "
                    "ignored; seed OutOfBagVoters(random_state=...) instead (it draws the rows "
                    "and seeds every member)."
                )
            if value is not defaults.get(name) and value != defaults.get(name):
                raise ValueError(
                    f"OutOfBagVoters does not support {type(est).__name__}({name}={value!r}): "
                    "the bank grows and evaluates the members itself. Leave it at its default "
                    f"({defaults.get(name)!r})."
                )

    def _forest_template(self, forest, plan):
        params = forest.get_params(deep=False)
        tree_params = [p for p in forest.estimator_params if p != "random_state"]
        self._check_other_params(forest, _FOREST_OWN, tree_params)
        if not params["bootstrap"]:
            raise ValueError(
                f"OutOfBagVoters: {type(forest).__name__}(bootstrap=False) grows every tree on "
                "all the rows, so no tree has out-of-bag rows. Use bootstrap=True, or pass a "
                "tree (e.g. DecisionTreeClassifier(max_features='sqrt')) as estimator with "
                "OutOfBagVoters(bootstrap=False, max_samples=0.5)."
            )
        class_weight = params["class_weight"]
        if isinstance(class_weight, str) and class_weight == "balanced":
            raise ValueError(
                f'OutOfBagVoters: {type(forest).__name__}(class_weight="balanced") weighs the '
                "classes by their frequencies over ALL the rows, out-of-bag rows included, which "
                'breaks the out-of-bag bound. Use class_weight="balanced_subsample" (weights '
                "from each member's in-bag rows) or fixed weights (a dict)."
            )
        extra = isinstance(forest, ExtraTreesClassifier)
        tree_class = ExtraTreeClassifier if extra else DecisionTreeClassifier
        tree_kwargs = {p: params[p] for p in tree_params}
        if isinstance(class_weight, str):  # "balanced_subsample": computed per member
            plan["balanced"] = True
        else:
            tree_kwargs["class_weight"] = class_weight
        plan.update(
            n_estimators=params["n_estimators"],
            bootstrap=True,
            max_samples=params["max_samples"],
            n_jobs=params["n_jobs"],
        )
        return tree_class(**tree_kwargs)

    def _bagging_template(self, bagging, plan, n_features):
        params = bagging.get_params(deep=False)
        self._check_other_params(bagging, _BAGGING_OWN, ())
        base = params["estimator"]
        base = DecisionTreeClassifier() if base is None else clone(base)
        if not is_classifier(base):
            raise ValueError(
                f"OutOfBagVoters: the BaggingClassifier's estimator must be a classifier; got "
                f"{base!r}."
            )
        max_samples = params["max_samples"]
        if not params["bootstrap"]:
            n_rows = max_samples if max_samples is not None else 1.0
            if (isinstance(n_rows, Real) and not isinstance(n_rows, Integral)) and n_rows >= 1.0:
                raise ValueError(
                    "OutOfBagVoters: BaggingClassifier(bootstrap=False, max_samples=1.0) fits "
                    "every member on all the rows, so no member has out-of-bag rows. Use "
                    "bootstrap=True or max_samples < 1."
                )
        max_features = params["max_features"]
        if isinstance(max_features, Integral) and not isinstance(max_features, bool):
            n_selected = int(max_features)
        else:
            n_selected = max(1, int(float(max_features) * n_features))
        if not 1 <= n_selected <= n_features:
            raise ValueError(
                f"OutOfBagVoters: BaggingClassifier(max_features={max_features!r}) selects "
                f"{n_selected} of {n_features} features."
            )
        plan.update(
            n_estimators=params["n_estimators"],
            bootstrap=bool(params["bootstrap"]),
            max_samples=max_samples,
            max_features=n_selected,
            bootstrap_features=bool(params["bootstrap_features"]),
            n_jobs=params["n_jobs"],
        )
        return base

    # ------------------------------------------------------------ fit
    def _fit(self, X, y_encoded):
        m, n_features = X.shape
        plan = self._resolve(n_features)
        replace = plan["bootstrap"]
        max_samples = plan["max_samples"]
        if max_samples is None and not replace:
            max_samples = _DEFAULT_FRACTION
        k = _n_drawn(max_samples, m, "max_samples")
        n = int(plan["n_estimators"])
        if not replace and k >= m:
            raise ValueError(
                f"OutOfBagVoters: drawing {k} of the {m} rows without replacement leaves no "
                "out-of-bag row. Use max_samples < 1 (e.g. 0.5) or bootstrap=True."
            )
        rng = check_random_state(self.random_state)
        seeds = rng.randint(_MAX_SEED, size=(n, 3))
        self.sample_seeds_ = seeds[:, 0].astype(np.int64)
        self.n_fit_samples_, self.n_drawn_, self.bootstrap_ = m, k, bool(replace)

        features = [None] * n
        if plan["max_features"] is not None and (
            plan["max_features"] < n_features or plan["bootstrap_features"]
        ):
            features = [
                _draw_features(int(s), n_features, plan["max_features"], plan["bootstrap_features"])
                for s in seeds[:, 2]
            ]
        template = plan["template"]
        trees = isinstance(template, BaseDecisionTree)
        if trees:
            check_float32_range(X, "OutOfBagVoters")
        fitted = Parallel(n_jobs=plan["n_jobs"], prefer="threads" if trees else None)(
            delayed(_fit_member)(
                template,
                X,
                y_encoded,
                m,
                k,
                replace,
                int(seeds[i, 0]),
                int(seeds[i, 1]),
                features[i],
                plan["balanced"],
            )
            for i in range(n)
        )
        self._n_jobs = plan["n_jobs"]
        self.estimators_ = fitted
        self.estimators_features_ = features
        self._members = [
            _Member(est, np.asarray(est.classes_), np.asarray(est.classes_), features=f)
            for est, f in zip(fitted, features, strict=True)
        ]
        self.n_voters_ = n
        self.oob_sizes_ = self._out_of_bag_mask().sum(axis=0).astype(np.int64)
        if self.oob_sizes_.min() < 1:
            raise ValueError(
                "OutOfBagVoters: some member has no out-of-bag row (it was fitted on all "
                f"{m} rows); draw fewer rows (max_samples) or use more samples."
            )

    # ------------------------------------------------------------ evaluation
    @fill_doc(iris_setup=_IRIS_SETUP)
    def in_bag_indices(self, voter):
        """The rows drawn for one member, recomputed from its seed and ``n_fit_samples_``.

        Parameters
        ----------
        voter : int
            Index of the member.

        Returns
        -------
        indices : ndarray of shape (n_drawn_,)
            Row indices of the ``X`` given to ``fit`` (with repetitions for a bootstrap).

        Examples
        --------
        {iris_setup}
        >>> bank = OutOfBagVoters(n_estimators=2, bootstrap=True, random_state=0).fit(X, y)
        >>> bank.in_bag_indices(0).shape
        (150,)
        """
        check_is_fitted(self)
        if not isinstance(voter, Integral) or not 0 <= voter < self.n_voters_:
            raise ValueError(f"voter must be an integer in [0, {self.n_voters_}); got {voter!r}.")
        return draw_in_bag(
            int(self.sample_seeds_[voter]), self.n_fit_samples_, self.n_drawn_, self.bootstrap_
        )

    @fill_doc(iris_setup=_IRIS_SETUP)
    def evaluation_mask(self):
        """Out-of-bag mask: which (training row, voter) pairs the bound may use.

        Returns
        -------
        mask : ndarray of bool, shape (n_fit_samples_, n_voters_)
            ``mask[i, j]`` is True iff row ``i`` of the ``X`` given to ``fit`` is out of bag
            for voter ``j`` (voter ``j`` was fitted without it). A pair of voters ``(j, l)``
            may be evaluated together on the rows where both columns are True.

        Examples
        --------
        {iris_setup}
        >>> bank = OutOfBagVoters(n_estimators=3, random_state=0).fit(X, y)
        >>> mask = bank.evaluation_mask()
        >>> bool(mask[bank.in_bag_indices(0), 0].any()), int(mask[:, 0].sum())
        (False, 75)
        """
        check_is_fitted(self)
        return self._out_of_bag_mask()

    def _out_of_bag_mask(self):
        mask = np.ones((self.n_fit_samples_, self.n_voters_), dtype=bool)
        m, k, replace = self.n_fit_samples_, self.n_drawn_, self.bootstrap_
        for j, seed in enumerate(self.sample_seeds_):
            mask[draw_in_bag(int(seed), m, k, replace), j] = False
        return mask

    def _members_n_jobs(self):
        return self._n_jobs

    def __sklearn_is_fitted__(self):
        return hasattr(self, "oob_sizes_")
