"""The estimator to reach for first, :class:`~skpacbayes.CertifiedVoteClassifier`: the face
validates its parameters, hands the candidates protocol
(:mod:`~skpacbayes.engine.protocols.candidates`) the rows and its plan, and copies the
deployed candidate onto itself.
"""

import warnings
from numbers import Real
from typing import ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, StrOptions
from sklearn.utils.validation import _num_samples

from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes._utils._search_refit import warn_if_refit_by_search
from skpacbayes.classifiers._base import _OutOfBagCandidate, fitted_vote, validate_training_data
from skpacbayes.classifiers._constraints import DELTA, N_JOBS, Integers, check_fractions
from skpacbayes.classifiers._docstrings import fill_doc
from skpacbayes.classifiers._held_out_vote import fitted_fold
from skpacbayes.classifiers._out_of_core import dask_training_data
from skpacbayes.classifiers._selected import SelectedCandidateMixin
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.protocols import candidate_plan as plan
from skpacbayes.engine.protocols import candidates as cands
from skpacbayes.engine.protocols import default_candidates as defaults
from skpacbayes.engine.protocols.sample import resolve_train_size
from skpacbayes.objectives import FirstOrder, SecondOrder, TestSet
from skpacbayes.voters._base import DocLinkMixin, plain_numbers

__all__ = ["CertifiedVoteClassifier"]

#: the bounds of the out-of-bag candidates: the first-order and the tandem bound
_OUT_OF_BAG = (FirstOrder.name, SecondOrder.name)


def _is_deprecated(value):
    """Whether ``value`` is the sentinel default of a renamed parameter."""
    return isinstance(value, str) and value == "deprecated"


@fill_doc(**plan.DOCS, **defaults.NOTES)
class CertifiedVoteClassifier(SelectedCandidateMixin, ClassifierMixin, DocLinkMixin, BaseEstimator):
    """A vote of trees grown on most of the rows, by bagging or by boosting, with a
    certificate that holds.

    Every candidate is a certified classifier fitted once, at its share of
    ``delta`` (see Notes): for each validation fraction ``f`` and each of
    ``n_folds`` disjoint held-out sets of ``ceil(f m)`` rows (drawn from the seed
    and the sample size alone), the plain vote of ``voters`` grown on the other
    rows, certified on the held-out ones by the test-set bound
    (:class:`~skpacbayes.HoldOutBoundClassifier`), or each model of ``candidates``
    grown and certified so; with the default forests, gradient boosting
    (``HistGradientBoostingClassifier()``, one voter: a vote of trees by boosting) grown
    and certified so at the fraction 0.2, on binary tasks of 500 rows or more; with
    ``stump_candidate``, a decision stump grown on each half, certified on the other half; with
    ``out_of_bag``, the weighted vote of ``voters`` bagged on every row
    (:class:`~skpacbayes.voters.OutOfBagVoters`), certified by the out-of-bag
    first-order and tandem bounds (:class:`~skpacbayes.FirstOrderBoundClassifier`,
    :class:`~skpacbayes.SecondOrderBoundClassifier`, Categorical posterior). One
    candidate is deployed by the ``selection`` rule; ``bound_`` certifies it at
    confidence ``1 - delta`` whatever the rule.

    With the same ``random_state``, fold 0 of every fraction holds out the rows
    ``HoldOutBoundClassifier(validation_fraction=fractions)`` holds out, and its default
    forest is the first trees of HoldOut's (the same seed; with the same ``voters`` given
    to both, it is exactly HoldOut's candidate).

    Parameters
    ----------
    voters : scikit-learn classifier or None, default=None
        {voters}
    validation_fraction : float or sequence of float in (0, 1), default=(0.2, 0.5)
        {validation_fraction}
    n_folds : int >= 1, default=2
        {n_folds}
    selection : {"tightest_bound", "most_accurate"} or float >= 0, \
default="tightest_bound"
        {selection}
    out_of_bag : "auto" or bool, default="auto"
        {out_of_bag}
    stump_candidate : "auto" or bool, default="auto"
        {stump_candidate}
    delta : float in (0, 1), default=0.05
        {delta}
    random_state : int, RandomState instance or None, default=None
        {random_state}
    n_jobs : int or None, default=None
        {n_jobs}
    verbose : int, default=0
        {verbose}
    per_class : bool, default=False
        {per_class}
    train_size : "auto", int or None, default="auto"
        {train_size}
    candidates : list or None, default=None
        {candidates}
    estimator : scikit-learn classifier or None, default="deprecated"
        The former name of ``voters``.

        .. deprecated:: 0.2.0
            ``estimator`` was renamed ``voters`` (the name every estimator of this package
            gives what votes) in 0.2.0 and will be removed in 0.3.0. Using it raises a
            ``FutureWarning`` and is honoured.

    Attributes
    ----------
    candidates_ : list of dict
        {candidates_}
    best_index_ : int
        Index of the deployed candidate in ``candidates_``.
    best_candidate_ : dict
        ``candidates_[best_index_]``.
    best_estimator_ : estimator
        The deployed fitted candidate (``predict`` delegates to it). The other
        candidates' ensembles are not kept.
    certificate_ : Certificate
        Ingredients of the deployed candidate's bound (its ``delta`` is the
        candidate's share; ``details["candidate_deltas"]`` every candidate's share, in
        the order of ``candidates_``, and ``details["candidate"]`` the deployed one).
    bound_ : float
        Certified bound on the error rate of ``predict`` at confidence ``1 - delta``.
    class_bounds_ : ndarray of shape (n_classes,)
        With ``per_class=True`` only: the deployed candidate's certified bounds on
        ``P(predict(x) != y | y = classes_[k])``.
    n_iter_ : int
        Training epochs of the deployed candidate.
    {classes_features}

    See Also
    --------
    skpacbayes.HoldOutBoundClassifier : one fold of every fraction, the tightest deployed.
    skpacbayes.model_selection.BoundSelectionClassifier : the tightest of any candidates.

    Notes
    -----
    {certificate_note}

    {shares_note}

    {boosting_note}

    {folds_note}

    {forests_note}

    {small_note}

    {out_of_core_note}

    {selection_note}

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import CertifiedVoteClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CertifiedVoteClassifier(voters=RandomForestClassifier(n_estimators=20),
    ...                               validation_fraction=(0.2, 0.5), random_state=0).fit(X, y)
    >>> [(c["validation_fraction"], c["fold"]) for c in clf.candidates_]
    [(0.2, 0), (0.2, 1), (0.5, 0), (0.5, 1)]
    >>> bool(0 < clf.bound_ < 0.2), [c["delta"] for c in clf.candidates_]
    (True, [0.0125, 0.0125, 0.0125, 0.0125])
    >>> clf.bound_ == min(c["bound"] for c in clf.candidates_)  # the tightest, by default
    True

    The best of a few models of one's own, certified in one call:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> linear = make_pipeline(StandardScaler(), LogisticRegression())
    >>> models = [HistGradientBoostingClassifier(), (linear, 0.5)]
    >>> clf = CertifiedVoteClassifier(candidates=models, n_folds=1, random_state=0).fit(X, y)
    >>> [(c["model"], c["validation_fraction"]) for c in clf.candidates_]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('HistGradientBoostingClassifier', 0.2), ('HistGradientBoostingClassifier', 0.5),
     ('Pipeline', 0.5)]
    >>> bool(clf.bound_ < 0.15)
    True
    """

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset({"n_jobs", "selection", "verbose"})

    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "predict"])],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), "array-like"],
        "n_folds": [Integers(1, None, closed="left")],
        "selection": [
            StrOptions(set(plan.SELECTIONS)),
            Interval(Real, 0, float("inf"), closed="both"),
        ],
        "out_of_bag": [StrOptions({"auto"}), "boolean"],
        "stump_candidate": [StrOptions({"auto"}), "boolean"],
        "delta": DELTA,
        "random_state": ["random_state"],
        "n_jobs": N_JOBS,
        "verbose": ["verbose"],
        "per_class": ["boolean"],
        "train_size": [StrOptions({"auto"}), None, Integers(1, None, closed="left")],
        "candidates": [None, list],
        "estimator": [None, HasMethods(["fit", "predict"]), Hidden(StrOptions({"deprecated"}))],
    }

    def __init__(
        self,
        *,
        voters=None,
        validation_fraction=defaults.CANDIDATE_FRACTIONS,
        n_folds=defaults.DEFAULT_FOLDS,
        selection="tightest_bound",
        out_of_bag="auto",
        stump_candidate="auto",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        verbose=0,
        per_class=False,
        train_size="auto",
        candidates=None,
        estimator="deprecated",
    ):
        self.voters = voters
        self.validation_fraction = validation_fraction
        self.n_folds = n_folds
        self.selection = selection
        self.out_of_bag = out_of_bag
        self.stump_candidate = stump_candidate
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.per_class = per_class
        self.train_size = train_size
        self.candidates = candidates
        self.estimator = estimator

    def _forest(self):
        """The ensemble to grow: ``voters``, or the deprecated ``estimator`` where it is set."""
        return self.voters if _is_deprecated(self.estimator) else self.estimator

    def _check_renamed(self):
        """Refuse both spellings of the ensemble; warn on the deprecated one."""
        if _is_deprecated(self.estimator):
            return
        if self.voters is not None:
            raise ValueError(
                "Both voters and estimator were set; estimator is the deprecated name of "
                "voters: set voters only."
            )
        warnings.warn(
            "CertifiedVoteClassifier: estimator was renamed voters in 0.2.0 and will be "
            "removed in 0.3.0; use voters=... (the ensemble each candidate grows).",
            FutureWarning,
            stacklevel=4,  # the user's call: _check_renamed < fit < scikit-learn's wrapper
        )

    def _models(self):
        """The user's candidates as (unfitted classifier, validation fractions) pairs, or None."""
        if self.candidates is None:
            return None
        if self._forest() is not None:
            raise ValueError(
                "Both voters and candidates were set; candidates=[...] lists every model "
                "certified: set one of them (put the ensemble of voters in the list)."
            )
        if not self.candidates:
            raise ValueError(
                "candidates=[] lists no model; pass unfitted classifiers or (classifier, "
                "validation_fraction) pairs, or candidates=None for the default ones."
            )
        models = []
        for i, entry in enumerate(self.candidates):
            model, fraction = entry, self.validation_fraction
            if isinstance(entry, tuple | list):
                if len(entry) != 2:
                    raise ValueError(
                        f"candidates[{i}] has {len(entry)} items; a candidate is an unfitted "
                        "classifier or a (classifier, validation_fraction) pair."
                    )
                model, fraction = entry
            if not (hasattr(model, "fit") and hasattr(model, "predict")) or hasattr(model, "votes"):
                raise ValueError(
                    f"candidates[{i}] must be an unfitted scikit-learn classifier (with fit "
                    f"and predict, e.g. HistGradientBoostingClassifier()); got "
                    f"{type(model).__name__}."
                )
            try:
                fractions = check_fractions(fraction)
            except ValueError as error:
                raise ValueError(f"candidates[{i}]: {error}") from None
            models.append((model, fractions))
        return models

    def _out_of_bag_estimator(self, bound, voters, seed):
        """An out-of-bag candidate, unfitted: the Categorical vote of ``voters`` certified by
        the bound named ``bound``."""
        return _OutOfBagCandidate(
            bound=bound, posterior="categorical", random_state=seed, voters=voters
        )

    def _spec(self, n_rows, n_classes, seed, train_size):
        """The candidates protocol's specification from this estimator's parameters."""
        forest = self._forest()
        if hasattr(forest, "votes"):
            raise ValueError(
                "voters must be a scikit-learn classifier (e.g. RandomForestClassifier), "
                f"not a voter bank; got {type(forest).__name__}."
            )
        return plan.plan_candidates(
            n_rows,
            seed,
            train_size,
            forest,
            check_fractions(self.validation_fraction),
            self._models(),
            bound=TestSet(),
            fit_specs={
                name: self._out_of_bag_estimator(name, None, seed)._fit_spec(n_classes)
                for name in _OUT_OF_BAG
            },
            label=type(self).__name__,
            **{name: getattr(self, name) for name in plan.PLAN_PARAMETERS},
        )

    @_fit_context(prefer_skip_nested_validation=False)
    @fill_doc()
    def fit(self, X, y, **fit_params):
        """Fit every candidate once at its share of ``delta``; deploy one by the selection rule.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR). A ``dask.array`` is
            never loaded whole: ``train_size`` rows are drawn into memory, every other row
            is read block by block on the workers.
        y : {array-like, dask array} of shape (n_samples,)
            Class labels (at least two classes).
        {fit_params_returns}
        """
        reject_fit_params(self, fit_params)
        warn_if_refit_by_search(self, self._optimisation_params)
        self._check_renamed()
        out_of_core, keep = is_dask_input(X, y), False
        if out_of_core:
            X, y, classes = dask_training_data(self, X, y)
        else:  # the user's own models (no stump or out-of-bag candidate) read X as given
            keep = self._forest() is not None or self.candidates is not None
            keep = keep and not (
                plan.use_stumps(self.stump_candidate, default=False)
                or plan.use_out_of_bag(
                    self.out_of_bag, self.selection, self.per_class, self.candidates is not None
                )
                or plain_numbers(X)
            )
            X, y, classes = validate_training_data(self, X, y, keep_input=keep)
        n_rows = _num_samples(X)
        train_size = resolve_train_size(self.train_size, n_rows, out_of_core)
        seed = plan.candidates_seed(self.random_state)
        spec = self._spec(n_rows, classes.size, seed, train_size)
        result = cands.certify_candidates(spec, X, y, classes)
        self.candidates_ = result.entries
        self.best_index_ = result.best_index
        self.best_candidate_ = result.entries[result.best_index]
        self._shares = result.shares
        best, info = result.outcomes[result.best_index], self.best_candidate_
        if info["kind"] == "out_of_bag":
            from sklearn.frozen import FrozenEstimator

            voters = FrozenEstimator(result.out_of_bag_voters)
            estimator = self._out_of_bag_estimator(info["out_of_bag_bound"], voters, seed)
            best = fitted_vote(estimator.set_params(delta=info["delta"]), best, voters, X)
        else:
            params = {
                "voters": spec.candidates[result.best_index].voters,
                "validation_fraction": info["validation_fraction"],
                "fold": info["fold"],
                "delta": info["delta"],
                "random_state": seed,
                "n_jobs": self.n_jobs,
                "per_class": self.per_class,
            }
            names = getattr(self, "feature_names_in_", None) if keep else None
            best = fitted_fold(params, best, classes, self.n_features_in_, names)
        self.best_estimator_ = best
        self.certificate_ = best.certificate_
        self.bound_ = float(best.bound_)
        self.n_iter_ = int(best.n_iter_)
        self.classes_ = best.classes_
        if self.per_class:
            self.class_bounds_ = best.class_bounds_
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR end to end (the voter banks take it)
        return tags

    def _candidate_deltas(self, delta):
        return cands.candidate_deltas(delta, self._shares)
