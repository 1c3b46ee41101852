"""Trees (or any classifiers) grown on two halves of the training sample."""

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import BaseDecisionTree
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.parallel import Parallel, delayed

from skpacbayes._docstrings import fill_doc

from ._base import FITTED_ATTRIBUTES, N_JOBS, check_float32_range, keep_parameters
from ._integers import Integers
from ._members import MemberVoters, _Member

__all__ = ["SplitForest"]

_MAX_SEED = np.iinfo(np.int32).max
_DEFAULT_N_ESTIMATORS = 200


def _split_halves(y_encoded, stratify, seed):
    """Two disjoint halves (sizes m // 2 and m - m // 2), stratified when possible."""
    m = y_encoded.size
    n0 = m // 2
    counts = np.bincount(y_encoded)
    counts = counts[counts > 0]
    can_stratify = bool(
        stratify and counts.min() >= 2 and n0 >= counts.size and m - n0 >= counts.size
    )
    idx0, idx1 = train_test_split(
        np.arange(m),
        train_size=n0,
        test_size=m - n0,
        stratify=y_encoded if can_stratify else None,
        random_state=seed,
        shuffle=True,
    )
    return np.sort(idx0), np.sort(idx1), can_stratify


def _fit_clone(estimator, X, y, sample_idx, seed):
    est = clone(estimator)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=seed)
    return est.fit(X[sample_idx], y[sample_idx])


@fill_doc(fitted=FITTED_ATTRIBUTES)
class SplitForest(MemberVoters):
    """Voters grown on two halves of the training sample (cross scheme).

    The training sample is split into two disjoint halves (sizes ``m // 2`` and
    ``m - m // 2``; stratified by class when possible; seeded by
    ``random_state``). With ``split="cross"`` (default) half of the voters are
    grown on each half, and a voter may only be evaluated, for the bound, on the
    OTHER half: this is the two-halves cross bound of the reference paper
    (Zantedeschi et al. 2021). With ``split="single"`` all voters are grown on the
    first half and the second half alone serves for the weights and the bound (the
    protocol of the VC-dimension baseline).

    Parameters
    ----------
    estimator : object, default=None
        The learner. ``None`` means ``RandomForestClassifier(max_features="sqrt",
        criterion="gini", max_depth=None)``. For a :class:`RandomForestClassifier`
        or :class:`ExtraTreesClassifier`, one forest is fitted on each half with the
        given forest's parameters (``max_depth``, ``max_features``, ...) and its trees
        are the voters; its ``n_estimators`` is the total number of voters (see
        ``n_estimators``), and ``random_state`` and ``n_jobs`` are set by this class.
        Any other classifier with ``fit``/``predict`` is cloned once per voter, and
        each clone is fitted on a bootstrap sample of its half (bagging) with its own
        ``random_state`` when it has one.
    n_estimators : int or None, default=None
        Total number of voters ``n``: ``ceil(n/2)`` on the first half and
        ``floor(n/2)`` on the second (``split="cross"``, needs ``n >= 2``), or all
        ``n`` on the first half (``split="single"``). ``None`` means the
        ``n_estimators`` of ``estimator`` when it is a forest (so that
        ``SplitForest(RandomForestClassifier(n_estimators=30))`` has 30 trees, 15 per
        half), and 200 otherwise. A forest whose ``n_estimators`` is still its class
        default (e.g. ``RandomForestClassifier(max_depth=3)``) takes this value;
        giving both explicitly, with different values, raises a ``ValueError``: the
        number of trees is set in one place.
    split : {"cross", "single"}, default="cross"
        Which protocol (see above).
    stratify : bool, default=False
        Split with the class proportions of ``y`` when every class has at least 2
        examples (and each half can hold one of each); otherwise a plain random
        split is used (see ``stratified_``). The default is a plain random split:
        the cross bound needs the two halves to be chosen without looking at the
        data, and a stratified split uses the labels (it makes the halves'
        class counts dependent). Stratify only for reproduction runs.
    n_jobs : int, default=None
        Parallel jobs (joblib) to grow the voters and to compute the votes.
        ``None`` means 1 unless in a :func:`joblib.parallel_config` context.
    random_state : int, RandomState instance or None, default=None
        Seeds the split and the voters.

    Attributes
    ----------
    {fitted}
    n_voters_ : int
        Number of voters (``n_estimators``, or the given forest's ``n_estimators``).
    estimators_ : list of estimators
        The voters, first those of half 0, then those of half 1. They were fitted
        on ENCODED labels: a scikit-learn forest's tree predicts an index into its
        forest's ``classes_`` (see ``forests_``), whose entries are indices into
        ``classes_``; a cloned classifier predicts an index into ``classes_``. Use
        :meth:`votes` to get global class indices.
    forests_ : list of fitted forests
        The forest fitted on each half (forest learners only; empty otherwise).
    halves_ : tuple of two ndarrays
        Sorted row indices (into the ``X`` given to ``fit``) of half 0 and half 1.
    stratified_ : bool
        Whether the split is stratified.
    voter_groups_ : ndarray of shape (n_voters_,)
        Half on which each voter was grown (0 or 1).
    sample_groups_ : ndarray of shape (n_fit_samples,)
        Half of each training example (0 or 1). Voter ``j`` may be evaluated on
        example ``i`` iff ``sample_groups_[i] != voter_groups_[j]``.
    n_groups_ : int
        Always 2.

    See Also
    --------
    StumpBank : data-independent decision stumps.
    PrefitVoters : classifiers fitted beforehand on other data.

    Notes
    -----
    Each voter depends on its own half only, so on the other half it is a
    data-independent function and a PAC-Bayes bound on that half is valid
    (:ref:`theory-split` gives the mixture posterior, the deployed classifier and the
    bounds). With ``split="single"`` the examples of half 0 evaluate no voter: the
    bound and the weights use half 1 only.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skpacbayes.voters import SplitForest
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = SplitForest(n_estimators=4, random_state=0).fit(X, y)
    >>> forest.n_voters_, forest.voter_groups_.tolist()
    (4, [0, 0, 1, 1])
    >>> [len(h) for h in forest.halves_]
    [75, 75]
    >>> V = forest.votes(X)
    >>> V.shape, V.dtype
    ((150, 4), dtype('int8'))
    >>> mask = forest.evaluation_mask()
    >>> bool(mask[forest.halves_[0]][:, :2].any()), bool(mask[forest.halves_[1]][:, :2].all())
    (False, True)
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Integers(1, None, closed="left"), None],
        "split": [StrOptions({"cross", "single"})],
        "stratify": ["boolean"],
        "n_jobs": N_JOBS,
        "random_state": ["random_state"],
    }

    _is_split = True

    def __init__(
        self,
        estimator=None,
        n_estimators=None,
        *,
        split="cross",
        stratify=False,
        n_jobs=None,
        random_state=None,
    ):
        keep_parameters(self, locals())

    def _fit(self, X, y_encoded):
        m = X.shape[0]
        if m // 2 < 2:
            raise ValueError(
                f"SplitForest needs at least 2 samples in each half, i.e. n_samples >= 4; "
                f"got n_samples={m}."
            )
        base = self.estimator
        if base is None:
            base = RandomForestClassifier(max_features="sqrt", criterion="gini", max_depth=None)
        forest_mode = isinstance(base, (RandomForestClassifier, ExtraTreesClassifier))
        n = self._n_voters(base, forest_mode)
        if self.split == "cross":
            if n < 2:
                raise ValueError(
                    "SplitForest(split='cross') grows voters on both halves and needs "
                    f"n_estimators >= 2; got {n}."
                )
            per_half = [n - n // 2, n // 2]
        else:
            per_half = [n, 0]

        rng = check_random_state(self.random_state)
        split_seed = int(rng.randint(_MAX_SEED))
        idx0, idx1, self.stratified_ = _split_halves(y_encoded, self.stratify, split_seed)
        self.halves_ = (idx0, idx1)
        self.sample_groups_ = np.zeros(m, dtype=np.int8)
        self.sample_groups_[idx1] = 1

        if forest_mode or isinstance(base, BaseDecisionTree):
            check_float32_range(X, "SplitForest")

        estimators, members, groups, forests = [], [], [], []
        for half, (idx, n_half) in enumerate(zip((idx0, idx1), per_half, strict=True)):
            if n_half == 0:
                continue
            half_seed = int(rng.randint(_MAX_SEED))
            X_half, y_half = X[idx], y_encoded[idx]
            if forest_mode:
                forest = clone(base)
                params = {"n_estimators": n_half, "random_state": half_seed}
                if "n_jobs" in forest.get_params(deep=False):
                    params["n_jobs"] = self.n_jobs
                forest.set_params(**params)
                forest.fit(X_half, y_half)
                forests.append(forest)
                keys = np.arange(forest.classes_.size)
                codes = np.asarray(forest.classes_, dtype=np.intp)
                fitted = list(forest.estimators_)
                members.extend(_Member(tree, keys, codes) for tree in fitted)
            else:
                half_rng = np.random.RandomState(half_seed)
                jobs = [
                    (half_rng.randint(0, idx.size, idx.size), int(half_rng.randint(_MAX_SEED)))
                    for _ in range(n_half)
                ]
                fitted = Parallel(n_jobs=self.n_jobs)(
                    delayed(_fit_clone)(base, X_half, y_half, boot, seed) for boot, seed in jobs
                )
                keys = np.arange(self.n_classes_)
                members.extend(_Member(est, keys, keys) for est in fitted)
            estimators.extend(fitted)
            groups.extend([half] * len(fitted))

        self.estimators_ = estimators
        self.forests_ = forests
        self._members = members
        self.n_voters_ = len(estimators)
        self.voter_groups_ = np.asarray(groups, dtype=np.int8)
        self.n_groups_ = 2

    def _n_voters(self, base, forest_mode):
        """Total number of voters: ``n_estimators``, or the given forest's, never two counts."""
        own = self.n_estimators
        if not (forest_mode and self.estimator is not None):
            return _DEFAULT_N_ESTIMATORS if own is None else int(own)
        theirs = int(base.n_estimators)
        if own is not None and theirs == _class_default(base, "n_estimators"):
            return int(own)  # the forest's count was left at its class default: ours decides
        if own is not None and int(own) != theirs:
            raise ValueError(
                f"SplitForest got n_estimators={own} and an estimator "
                f"{type(base).__name__}(n_estimators={theirs}): set the number of trees in "
                "one place (leave SplitForest's n_estimators at None to use the forest's)."
            )
        return theirs


def _class_default(estimator, name):
    """Default of parameter ``name`` in the signature of ``type(estimator)`` (None if absent)."""
    import inspect

    parameter = inspect.signature(type(estimator)).parameters.get(name)
    return None if parameter is None else parameter.default
