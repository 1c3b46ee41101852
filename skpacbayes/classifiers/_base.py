"""The base of the bound classifiers: ``MajorityVoteClassifier`` and what they share."""

import inspect
import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes._utils._keyword_only import KeywordOnlyMixin
from skpacbayes._utils._search_refit import warn_if_refit_by_search
from skpacbayes.classifiers._constraints import (
    DELTA,
    MAX_EPOCHS,
    MAX_TRAIN_ROWS,
    N_JOBS,
    FamilyNames,
    Integers,
    check_delta,
    keyword_init,
)
from skpacbayes.classifiers._docstrings import fill_doc
from skpacbayes.classifiers._vote_predictions import VotePredictions
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.spec import FitSpec
from skpacbayes.engine.vote import vote_shares, weighted_vote_scores
from skpacbayes.objectives import BOUNDS, bound_class
from skpacbayes.voters._base import DocLinkMixin

__all__ = ["SingleVoterWarning", "MajorityVoteClassifier", "validate_training_data"]

# the concrete estimators, named by the error of the abstract base's fit
_NAMED_ESTIMATORS = (
    "FirstOrderBoundClassifier, SecondOrderBoundClassifier, BinomialBoundClassifier, "
    "CBoundClassifier, PartitionBoundClassifier, MarginBoundClassifier, VCDimBoundClassifier, "
    "OccamBoundClassifier"
)


class _TorchDeviceType(type):
    def __instancecheck__(cls, obj):
        kind = type(obj)
        return kind.__module__ == "torch" and kind.__qualname__ == "device"


class _TorchDevice(metaclass=_TorchDeviceType):
    """``torch.device`` in ``_parameter_constraints`` without importing torch at import time."""


# validation messages then read "an instance of 'torch.device'"
_TorchDevice.__module__, _TorchDevice.__qualname__ = "torch", "device"


class _VotersParamsMixin:
    """``set_params(voters__...)`` with ``voters=None``: a clear error, not an AttributeError.

    With ``voters=None`` the default bank is only built inside ``fit``, so there is no object
    whose parameters could be set; scikit-learn would fail on ``None.set_params``.
    """

    def set_params(self, **params):
        """Set the parameters of this estimator, ``voters__...`` included.

        Parameters
        ----------
        **params : dict
            Estimator parameters; ``voters__name`` sets ``name`` on the voter bank.

        Returns
        -------
        self : estimator
            This estimator.

        Raises
        ------
        ValueError
            If a ``voters__...`` parameter is given while ``voters`` is None (the default
            bank only exists inside ``fit``): pass the bank explicitly instead.

        Examples
        --------
        >>> from skpacbayes import OccamBoundClassifier
        >>> from skpacbayes.voters import StumpBank
        >>> clf = OccamBoundClassifier(voters=StumpBank()).set_params(voters__n_thresholds=5)
        >>> clf.voters.n_thresholds
        5
        """
        nested = sorted(k for k in params if k.startswith("voters__"))
        voters = params["voters"] if "voters" in params else self.voters
        if nested and voters is None:
            raise ValueError(
                f"Cannot set {', '.join(nested)} while voters=None: the default voters are "
                "only built at fit time. Pass the voters explicitly, e.g. "
                f"{type(self).__name__}(voters=StumpBank()) or voters=SplitForest(), then "
                f"set or search {nested[0]}=... (for instance in a GridSearchCV grid)."
            )
        return super().set_params(**params)


class SingleVoterWarning(UserWarning):
    """The certified vote of a PAC-Bayes estimator is a single voter among many.

    Raised at the end of ``fit`` when the deployed vote has one effective voter
    (``certificate_.n_effective_voters == 1``) among several: its bound certifies one stump
    or one tree, usually far from the accuracy of a vote.
    :class:`~skpacbayes.HoldOutBoundClassifier` and
    :class:`~skpacbayes.CertifiedVoteClassifier` certify a genuine vote (a forest, a model
    you have). :class:`~skpacbayes.OccamBoundClassifier`, which certifies one voter on
    purpose, never raises it.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import PartitionBoundClassifier, SingleVoterWarning
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = PartitionBoundClassifier(random_state=0).fit(X, y)
    >>> clf.certificate_.n_effective_voters, any(
    ...     issubclass(w.category, SingleVoterWarning) for w in caught)
    (1, True)
    """


class MajorityVoteClassifier(
    KeywordOnlyMixin,
    _VotersParamsMixin,
    VotePredictions,
    ClassifierMixin,
    DocLinkMixin,
    BaseEstimator,
):
    """Base class: a weighted majority vote learned by minimising a PAC-Bayes bound.

    Not meant to be used directly: use one of the named estimators, which
    only differ in the bound they minimise and certify.

    Parameters
    ----------
    voters : voter bank or None, default=None
        A :mod:`skpacbayes.voters` object (cloned at fit). ``None`` uses
        ``StumpBank()`` for binary tasks and ``SplitForest()`` for multi-class
        tasks. An :class:`~skpacbayes.voters.OutOfBagVoters` bank (the full
        bagged ensemble) is certified by :class:`FirstOrderBoundClassifier` and
        :class:`SecondOrderBoundClassifier` with ``posterior="categorical"``;
        the other combinations raise a ``ValueError``.
    posterior : {"categorical", "dirichlet", "gaussian"}, default="categorical"
        Posterior family over the voters' weights (or the name of a family added with
        :func:`~skpacbayes.posteriors.register_family`). Combinations that do not
        give a certificate raise a ``ValueError`` naming the valid ones.
    prior : float or None, default=None
        The prior, fixed before seeing the data: ``None`` is the family's
        default (uniform Categorical, Dirichlet(1, ..., 1), N(0, I)); a float
        ``t`` gives the Gaussian prior N(t 1, I) or the Dirichlet prior
        Dirichlet(t, ..., t) (not available for the Categorical family), with
        ``1e-30 <= t <= 1e8`` (Dirichlet) or ``|t| <= 1e30`` (Gaussian): the
        training runs in float32. To
        try several values validly, split delta over them with
        :class:`~skpacbayes.model_selection.BoundSelectionClassifier`.
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    solver : {"auto", "lbfgs", "adam", "none"}, default="auto"
        How the bound is minimised (see the user guide, "Training").

        - ``"auto"``: where the bound reads the sample only through the error counts
          of the voters (the Categorical posterior with the first-order, tandem,
          C-bound, partition and Occam bounds, and every out-of-bag bank), one pass
          counts them and the optimiser works on the counts: an exact search for the
          first-order and partition bounds (the Gibbs posteriors) and for the tandem
          bound (a convex inner problem, then L-BFGS), L-BFGS from several starts for
          the C-bound. The per-row families (Dirichlet, Gaussian, the binomial bound)
          run ``"lbfgs"`` on the error matrix, or ``"adam"`` when that matrix exceeds
          2 GiB of float32.
        - ``"lbfgs"``: full-batch L-BFGS (scipy) on the counts or on the error matrix
          held once in float32, from the prior and, for the per-row families, also from
          the first-order Gibbs optimum, the best single voter and the vote of least
          cross-entropy, each scaled to its best size; the lowest end is kept.
        - ``"adam"``: the reference paper's protocol, mini-batch Adam over the rows
          (``batch_size``, ``learning_rate``, ``early_stopping_patience``) with a
          ``ReduceLROnPlateau`` schedule, then a full-batch L-BFGS polish; on an
          out-of-bag bank, whose voters each have their own rows, the Adam steps are
          full batch on the counts.
        - ``"none"``: no training: the starting point is deployed and certified, the
          prior plus a ``0.01 N(0, I)`` noise from ``random_state`` (``max_epochs`` is not
          read), for instance as a candidate of a selection over priors.
    max_epochs : int >= 1, default=100
        Budget of the iterative solvers: epochs of ``solver="adam"`` (an epoch is one
        shuffled pass over the sample but at least 10 Adam steps), L-BFGS iterations per
        start otherwise. The exact searches have a fixed resolution and do not read it.
        ``0`` is refused (``InvalidParameterError`` at fit): to deploy the untrained
        start, ask for it by name with ``solver="none"``.
    batch_size : int, default=1024
        Mini-batch size of ``solver="adam"`` (the bound term always uses the full sample
        size). Only used by ``solver="adam"``.
    learning_rate : float, default=0.1
        Adam learning rate (divided by 10 after 2 epochs without improvement; the
        training stops once it is below ``learning_rate * 1e-4``). Only used by
        ``solver="adam"``.
    early_stopping_patience : int, default=25
        Epochs without improvement of the full-sample objective before stopping. Only
        used by ``solver="adam"``.
    device : str or torch.device, default="cpu"
        Torch device used for training (``"cuda"`` when available). The
        certificate is always computed in float64 on CPU.
    random_state : int, RandomState instance or None, default=None
        Seeds the voters and a local ``torch.Generator`` (no global seeding).
    verbose : int, default=0
        Progress lines: when > 0, one per optimiser run (the exact search, each
        L-BFGS start and where it ended, every 10th Adam epoch); when > 1, also every
        L-BFGS iteration.
    n_jobs : int or None, default=None
        Parallel jobs for fitting the default voters, and the threads of the training's
        torch operations (``None``: one, unless in a :func:`joblib.parallel_config`
        context; ``-1``: every core). Its BLAS products keep one thread (two pools of
        several threads each wait for each other's cores). One thread is the robust
        default: threads that wait for a busy core make every operation slow (the
        Dirichlet fit of adult took 4.9 s with two threads beside one busy process, 1.7 s
        with one).
    max_train_rows : int >= 1 or None, default=262144
        Largest number of rows the posterior is trained on where the fit reads the rows
        (the Dirichlet and Gaussian posteriors, the binomial, margin and VC bounds, Adam):
        above it, the training holds that many rows in memory, drawn from ``random_state``
        and the number of rows alone (within each half of split voters), and the
        certificate still reads every row, in float64 (on a dask array by a map-reduce whose
        tasks return sums; the margin bound, which reads every row's margin, is not fitted
        there). Valid because the bound's statement, with a prior fixed before the sample,
        holds for every posterior at once (:ref:`theory-training-sample`). ``None``: train
        on every row (refused on a dask array). The fits on the error counts (the
        Categorical posterior's exact searches) read every row and do not use it.

    Examples
    --------
    Every named estimator is a ``MajorityVoteClassifier``; after ``fit`` they all
    predict with the certified vote and expose its certificate:

    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import MajorityVoteClassifier, OccamBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = OccamBoundClassifier(random_state=0).fit(X, y)
    >>> isinstance(clf, MajorityVoteClassifier)
    True
    >>> clf.predict(X[:3]), clf.decision_function(X[:3]).shape, clf.predict_proba(X[:3]).shape
    (array([0, 0, 0]), (3,), (3, 2))
    >>> 0 < clf.bound_ == clf.certificate_.value < 1
    True
    """

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset(
        "batch_size device early_stopping_patience learning_rate max_epochs max_train_rows "
        "n_jobs solver tighten verbose".split()
    )

    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "votes"])],
        "posterior": [FamilyNames()],
        "prior": [None, Real],
        "delta": DELTA,
        "solver": [StrOptions({"auto", "lbfgs", "adam", "none"})],
        "max_epochs": MAX_EPOCHS,
        "batch_size": [Integers(1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "early_stopping_patience": [Integers(1, None, closed="left")],
        "device": [str, _TorchDevice],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_jobs": N_JOBS,
        "max_train_rows": [None, Integers(1, None, closed="left")],
    }

    #: the bound (a :class:`~skpacbayes.objectives.Bound` subclass), set by subclasses
    _bound_class: ClassVar[type | None] = None

    __init__ = keyword_init(
        voters=None,
        posterior="categorical",
        prior=None,
        delta=0.05,
        solver="auto",
        max_epochs=100,
        batch_size=1024,
        learning_rate=0.1,
        early_stopping_patience=25,
        device="cpu",
        random_state=None,
        verbose=0,
        n_jobs=None,
        max_train_rows=MAX_TRAIN_ROWS,
    )

    # ------------------------------------------------------------------ #
    # The bound and the engine's specification
    # ------------------------------------------------------------------ #
    def _bound(self):
        """The bound, configured with this estimator's parameters of the same names (the
        ``n_draws`` of :class:`~skpacbayes.objectives.Binomial`, ...)."""
        names = inspect.signature(self._bound_class).parameters
        return self._bound_class(**{name: getattr(self, name) for name in names})

    def _valid_posteriors(self, n_classes, split):
        """Posterior families for which this estimator certifies the deployed vote."""
        return self._bound().valid_posteriors(n_classes, split)

    def _fit_spec(self, n_classes):
        """The engine's specification of this estimator's fit."""
        params = self.get_params(deep=False)
        return FitSpec.from_params(self._bound(), n_classes, type(self).__name__, params)

    # ------------------------------------------------------------------ #
    # fit
    # ------------------------------------------------------------------ #
    @_fit_context(prefer_skip_nested_validation=False)
    @fill_doc()
    def fit(self, X, y, **fit_params):
        """Learn the posterior by minimising the bound, then certify it.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR). A ``dask.array`` is
            fitted out of core on ``StumpBank`` or ``PrefitVoters`` (see
            :ref:`scaling-out`): the error counts of the Categorical posterior's exact
            searches, and the certificate of the per-row families (trained on
            ``max_train_rows`` rows held in memory), are sums computed block by block on the
            workers. The margin bound, which reads every row's margin, raises a
            ``ValueError``.
        {fit_y}

        Returns
        -------
        self : object
            Fitted estimator; ``bound_`` holds the certificate.

        Examples
        --------
        {fitted_occam}
        >>> round(clf.bound_, 3)  # the true error rate is at most 17.3 % (probability >= 95 %)
        0.173
        """
        reject_fit_params(self, fit_params)
        warn_if_refit_by_search(self, self._optimisation_params)
        if self._bound_class is None:
            raise TypeError(
                "MajorityVoteClassifier is an abstract base class and cannot be fitted; use "
                f"one of the named estimators: {_NAMED_ESTIMATORS}."
            )
        from skpacbayes.engine.fit import fit_vote
        from skpacbayes.posteriors import get_family

        if self.prior is not None:
            get_family(self.posterior).check_float_prior(self.prior)
        if is_dask_input(X, y):  # more rows than memory: the passes as map-reduces
            from skpacbayes.classifiers._out_of_core import dask_training_data

            X, y, classes = dask_training_data(self, X, y)
        else:
            keep = getattr(self.voters, "_keeps_input", False)
            X, y, classes = validate_training_data(self, X, y, keep_input=keep)
        # the engine grows the voters, checks that the bound certifies the family on them,
        # reads them and certifies the fit
        spec = self._fit_spec(classes.shape[0])
        self._copy_fit(*fit_vote(spec, self.voters, X, y, classes, self.random_state))
        self._warn_single_voter()
        return self

    #: whether one effective voter among many is worth a warning (not for Occam's razor)
    _warns_single_voter: ClassVar[bool] = True

    def _warn_single_voter(self):
        """:class:`SingleVoterWarning` when the deployed vote has one effective voter among
        several."""
        certificate = self.certificate_
        if self._warns_single_voter and certificate.n_voters > 1 == certificate.n_effective_voters:
            warnings.warn(
                f"{type(self).__name__}: the certified vote has 1 effective voter among "
                f"{certificate.n_voters} (certificate_.n_effective_voters): bound_ = "
                f"{self.bound_:.4f} certifies a single voter. To certify a genuine vote, "
                "use CertifiedVoteClassifier(), or HoldOutBoundClassifier(voters=PrefitVoters"
                "(model)) for a model you have.",
                SingleVoterWarning,
                stacklevel=4,
            )

    def _copy_fit(self, fitted, voters):
        """The engine's :class:`~skpacbayes.engine.spec.FitResult` on ``voters``, onto this
        estimator."""
        self.voters_ = voters
        self.classes_ = np.asarray(voters.classes_)
        self.n_classes_ = self.classes_.shape[0]
        self.groups_ = fitted.groups
        self.posterior_params_ = fitted.natural
        self.mixture_weights_ = fitted.mixture_weights
        self.weights_ = fitted.vote_weights
        self.deployed_ = fitted.deployed
        self.history_ = fitted.history
        self.n_iter_ = fitted.n_iter
        self.solver_ = "none" if self.solver == "none" else fitted.solver
        self.certificate_ = fitted.certificate
        self.bound_ = float(fitted.certificate.value)

    @fill_doc()
    def recompute_bound(self, delta):
        """Certificate of the fitted posterior at another confidence level.

        The PAC-Bayes statements behind every bound hold for all posteriors
        simultaneously, so the posterior learned here may be certified at any
        ``delta`` fixed independently of the data, e.g. ``delta / K`` when the
        best of ``K`` candidates is reported (union bound). Uses only the
        statistics stored in ``certificate_``.

        Parameters
        ----------
        delta : float in (0, 1)
            New confidence parameter: the returned bound holds with probability at least
            ``1 - delta``. It must not depend on the training sample.

        Returns
        -------
        bound : float
            Certified upper bound on the true risk of ``predict`` at confidence
            ``1 - delta`` (equal to ``bound_`` when ``delta`` is the fitted one).

        Raises
        ------
        NotImplementedError
            For :class:`MarginBoundClassifier` (its bound splits ``delta`` over a grid
            fixed at fit time).

        Examples
        --------
        {fitted_occam}
        >>> clf.recompute_bound(clf.delta) == clf.bound_
        True
        >>> clf.recompute_bound(clf.delta / 10) > clf.bound_  # more confidence, looser
        True
        """
        check_is_fitted(self)
        check_delta(delta, f"{type(self).__name__}.recompute_bound")
        return float(self._bound().recompute(self.certificate_, delta))

    # ------------------------------------------------------------------ #
    # prediction (NumPy only, no torch on the path except the Gaussian
    # mixture's Bayes classifier on split voters)
    # ------------------------------------------------------------------ #
    def _class_scores(self, votes, decide=False):
        """Weighted vote per class, shape (n_samples, n_classes).

        ``decide=True``: only the arg-max matters (for a Gaussian mixture on split voters,
        the entries that cannot be the maximum are upper bounds, not probabilities).
        """
        if self.deployed_ == "mixture_bayes":
            from skpacbayes.engine.mixture import mixture_win_probabilities

            return mixture_win_probabilities(
                self.posterior,
                self.prior,
                self.groups_,
                self.posterior_params_,
                self.mixture_weights_,
                self.n_classes_,
                votes,
                decide=decide,
            )
        return weighted_vote_scores(votes, self.weights_, self.n_classes_)

    def _shares(self, scores):
        """The vote shares of ``predict_proba`` (:func:`~skpacbayes.engine.vote.vote_shares`)."""
        return vote_shares(scores, self.weights_, mixture=self.deployed_ == "mixture_bayes")

    def __sklearn_is_fitted__(self):
        return hasattr(self, "bound_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True
        if self._bound_class is not None:  # CBound, Margin, VCDim: binary votes only
            tags.classifier_tags.multi_class = not self._bound_class.capabilities.binary_only
        return tags


def fitted_vote(estimator, fitted, voters, X):
    """A bound estimator fitted by the engine on someone else's behalf (CertifiedVote's
    out-of-bag candidates): the :class:`~skpacbayes.engine.spec.FitResult` ``fitted`` of
    ``voters`` on the rows ``X``, copied onto ``estimator``.

    Parameters
    ----------
    estimator : MajorityVoteClassifier
        Unfitted, with the parameters the fit was made with.
    fitted : FitResult
    voters : voter bank
        Fitted on ``X``.
    X : ndarray of shape (n_rows, n_features)
        The rows of the fit (validated).

    Returns
    -------
    estimator : MajorityVoteClassifier
        Fitted.
    """
    estimator.n_features_in_ = int(X.shape[1])
    estimator._copy_fit(fitted, voters)
    return estimator


class _OutOfBagCandidate(MajorityVoteClassifier):
    """An out-of-bag candidate of :class:`~skpacbayes.CertifiedVoteClassifier`: a vote of an
    out-of-bag bank certified by the bound named ``bound`` (``"FO"``: the first-order bound,
    as :class:`~skpacbayes.FirstOrderBoundClassifier`; ``"SO"``: the tandem bound, as
    :class:`~skpacbayes.SecondOrderBoundClassifier`), with its parameters otherwise those of
    :class:`MajorityVoteClassifier`.
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "bound": [StrOptions({b.name for b in BOUNDS if b.capabilities.certifies_out_of_bag})],
    }

    __init__ = keyword_init(MajorityVoteClassifier, bound="FO")

    @property
    def _bound_class(self):
        return bound_class(self.bound)


def _non_numeric_columns(X):
    """The names and dtypes of a DataFrame's columns that do not convert to numbers (strings,
    categories of strings), empty for anything else."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return []
    failing = []
    for name, dtype in zip(X.columns, dtypes, strict=True):
        try:
            np.asarray(X[name], dtype=np.float64)
        except (TypeError, ValueError):
            failing.append(f"{name!r} ({dtype})")
    return failing


def _encode_first_message(estimator, columns):
    """Why a DataFrame of strings or categories cannot be read as numbers, and the fix."""
    return (
        f"{type(estimator).__name__} grows its voters on numbers, and the DataFrame's columns "
        f"{', '.join(columns)} do not convert to numbers. Encode them first, in a pipeline "
        "that reads the DataFrame as given, e.g. pipeline = make_pipeline(make_column_transformer("
        "(OneHotEncoder(handle_unknown='ignore'), [...]), remainder='passthrough'), "
        "RandomForestClassifier()), and certify it: CertifiedVoteClassifier(candidates=[pipeline]) "
        "or HoldOutBoundClassifier(voters=pipeline)."
    )


def validate_training_data(estimator, X, y, keep_input=False):
    """``validate_data`` for ``fit`` plus the classification checks every estimator needs.

    Parameters
    ----------
    estimator : estimator
        Receives ``n_features_in_`` (and feature names).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Class labels.
    keep_input : bool, default=False
        ``X`` reaches fitted models as given (prefit voters): it is not converted (a
        DataFrame keeps its columns, dtypes and categories; a list of dicts stays one), only
        its rows are counted and its feature names recorded, and the models validate it.

    Returns
    -------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        Or ``X`` itself, with ``keep_input``.
    y : ndarray of shape (n_samples,)
    classes : ndarray of shape (n_classes,)
        Sorted distinct labels (at least two).

    Raises
    ------
    ValueError
        If ``y`` holds a single class (or the usual input problems).
    """
    if keep_input:
        X, y = validate_data(estimator, X, y, skip_check_array=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
    else:
        try:
            with np.errstate(invalid="ignore"):  # sklearn's finiteness pre-check sums X
                X, y = validate_data(
                    estimator, X, y, accept_sparse="csr", dtype=[np.float64, np.float32]
                )
        except ValueError as error:
            columns = _non_numeric_columns(X)
            if not columns:
                raise
            raise ValueError(_encode_first_message(estimator, columns)) from error
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.shape[0] < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least 2 classes in the data, "
            f"but the data contains only one class: {classes.tolist()[0]!r}."
        )
    return X, y, classes
