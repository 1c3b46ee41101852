"""The hold-out line: a plain vote certified on rows its voters never saw (test-set bound).

The face of the held-out protocols (:mod:`skpacbayes.engine.protocols.held_out`, chosen by
:mod:`~skpacbayes.engine.protocols.held_out_fit`) and of the stream
(:mod:`~skpacbayes.engine.protocols.stream`): it validates its parameters and rows and
copies the result onto itself.
"""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_consistent_length, column_or_1d, validate_data

from skpacbayes._utils._available_if import available_if
from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes._utils._search_refit import warn_if_refit_by_search
from skpacbayes.classifiers._base import _VotersParamsMixin, validate_training_data
from skpacbayes.classifiers._constraints import Integers, check_fractions
from skpacbayes.classifiers._held_out_vote import HeldOutVote
from skpacbayes.classifiers._out_of_core import dask_training_data
from skpacbayes.engine.dask_passes import is_dask_input
from skpacbayes.engine.protocols import held_out, held_out_fit, stream
from skpacbayes.engine.risks import check_risks
from skpacbayes.objectives import TestSet
from skpacbayes.voters._base import reads_input_as_given

__all__ = ["HoldOutBoundClassifier"]


def _has_fixed_voters(estimator):
    """``partial_fit`` exists only with fixed voters (PrefitVoters): else say why it does not."""
    return stream.check_fixed_voters(type(estimator).__name__, estimator.voters)


class HoldOutBoundClassifier(_VotersParamsMixin, HeldOutVote):
    """Certify a model you have, or a vote grown here, on rows it never saw (test-set bound).

    **Certify a model you have**: ``HoldOutBoundClassifier(voters=PrefitVoters(model))``
    with any fitted scikit-learn classifier (a pipeline on a DataFrame included), fitted on
    other rows. The deployed classifier is the model's own ``predict``, and ``bound_``
    certifies its error rate on every row given to ``fit``: with probability at least
    ``1 - delta``, ``R(h) <= binomial_inv_upper(k, n, delta)`` (the largest ``r`` with
    ``P(Bin(n, r) <= k) >= delta``, ``k`` the errors of ``predict`` on the ``n`` rows).
    ``predict_proba`` and ``decision_function`` are the model's; ``risks`` certifies other
    rates (miss, false-positive, false-discovery), ``groups`` each group's, and
    :meth:`partial_fit` a stream. ``PrefitVoters([model_1, model_2, ...])`` certifies their
    plain vote (ties to the first class).

    The other protocols grow the voters here (:ref:`hold-out-protocols`):

    - **Fraction protocol** (``validation_fraction`` a float or a sequence of ``K``
      floats, the default for a scikit-learn classifier or ``voters=None``): for each
      fraction ``f``, ``ceil(f m)`` rows are held out (drawn from the seed and ``m`` alone,
      :func:`validation_rows`), the voters grown on the others and their unweighted vote
      certified on the held-out rows at ``delta / K``, counting the errors of exactly what
      ``predict`` returns; the fraction of smallest bound is deployed.
    - **Halves protocol** (``validation_fraction=None``, the default for a voter bank): a
      split bank brings its own halves, the vote of one half certified on the other at
      ``delta / 2`` each, the tighter deployed; a bank that is not split (stumps) is
      certified on the whole sample (valid when the bank does not depend on it).
    - **Sample protocol** (``train_size=n``): the voters are grown on ``n`` rows drawn from
      the seed and the number of rows alone (:func:`training_rows`) and certified on every
      other row at ``delta``; with a dask array ``X`` only those ``n`` rows are in memory.

    Parameters
    ----------
    voters : voter bank, scikit-learn classifier or None, default=None
        What is grown on the training rows. A voter bank (any
        :mod:`skpacbayes.voters` object) votes with all of its voters, except
        ``PrefitVoters(model)`` of ONE fitted model, whose own ``predict`` is deployed
        (:meth:`~skpacbayes.voters.PrefitVoters.deployed_voters`). An unfitted
        scikit-learn classifier is cloned and fitted, and its members vote (the
        trees of a forest, as in :class:`~skpacbayes.voters.PrefitVoters`).
        ``None``: ``RandomForestClassifier(n_estimators=200)`` (fraction protocol)
        or ``SplitForest(n_estimators=200)`` (halves protocol, which needs a bank).
    validation_fraction : "auto", float in (0, 1), sequence of floats or None, default="auto"
        Share of the rows held out to certify the vote. A sequence fits one
        ensemble per fraction, each certified at ``delta / K`` (rounded down by one ulp
        where K of them would sum to more than ``delta``), and deploys the
        tightest. ``None`` selects the halves protocol (the behaviour before
        ``validation_fraction`` existed; a bank that is not split, such as
        :class:`~skpacbayes.voters.PrefitVoters` or
        :class:`~skpacbayes.voters.StumpBank`, is then certified on every row).
        ``"auto"``: ``None`` for a voter bank that brings its own evaluation rule
        (split or data-independent), ``(0.1, 0.2, 0.5)`` when ``voters`` is
        ``None``, a scikit-learn classifier or an out-of-bag bank.
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out rows and the voters.
    n_jobs : int or None, default=None
        Parallel jobs for growing the default forest and computing its votes.
    train_size : int or None, default=None
        **Sample protocol**: grow the voters on ``train_size`` rows drawn from the seed
        and the number of rows alone (:func:`training_rows`), held in memory, and certify
        their plain vote on every other row (one statement at ``delta``). Leave
        ``validation_fraction`` at ``"auto"`` with it. This is how a forest is certified
        on data larger than memory: ``X`` a dask array, the forest grown on a sample of
        the size you choose, its error counted block by block on all the remaining rows
        (:ref:`scaling-out`).
    verbose : int, default=0
        When > 0, print a line as each statement (fraction or half) is certified: its
        held-out errors, its bound and the seconds it took (growing a forest on tens of
        thousands of rows takes minutes).
    per_class : bool, default=False
        Also certify, for each class ``k``, the rate at which ``predict`` misses it,
        ``P(predict(x) != y | y = k)`` (``class_bounds_``). The ``K + 1`` statements of each
        held-out statement (the overall error and each class's) share its part of
        ``delta`` evenly, so that ``bound_`` and every class bound hold together with
        probability at least ``1 - delta`` (``bound_`` is a little looser than with
        ``per_class=False``): :ref:`Proposition 5a <theory-per-class>`. The
        ``("miss_rate",)`` case of ``risks``.
    risks : "all", tuple of str or None, default=None
        Also certify these rates of ``predict`` (``risk_bounds_``), on the deployed
        statement's held-out rows: ``"error"`` (the error rate, ``bound_``), ``"miss_rate"``
        (1 - recall, per true class), ``"false_positive_rate"`` (per class, one-vs-rest) and
        ``"false_discovery_rate"`` (1 - precision, per predicted class); ``"all"`` for the
        four. Each held-out statement's part of ``delta`` is split evenly over its error
        statement and the ``M`` distinct statements of the risks (``M`` counts a statement
        once where two risks share it: in a binary task the miss rate of one class is the
        false-positive rate of the other), so that ``bound_`` and every risk bound hold
        together with probability at least ``1 - delta``; the certificate records the split
        (``details["n_risk_statements"]``). A rate whose rows are random (those of a true
        or a predicted class) is certified conditionally on their number
        (:ref:`Proposition 5d <theory-holdout-risks>`). On a stream, the time-uniform bound
        of each.

    Attributes
    ----------
    voters_ : voter bank
        The fitted voters of the deployed vote.
    validation_fraction_ : float or None
        The deployed fraction (None with the halves and sample protocols).
    validation_indices_ : ndarray of int
        Rows (of the ``X`` given to ``fit``) the deployed vote is certified on.
    half_ : int or None
        Index of the deployed half (halves protocol; None otherwise).
    weights_ : ndarray of shape (n_voters,)
        Vote weights over the bank (1 on the deployed voters, 0 elsewhere).
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    class_bounds_ : ndarray of shape (n_classes,)
        With ``per_class=True`` only: certified upper bounds on
        ``P(predict(x) != y | y = classes_[k])`` (1.0 for a class without held-out rows);
        their errors and rows are in ``certificate_.details["class_errors"]`` and
        ``["class_sizes"]``.
    group_labels_ : ndarray
        With ``groups`` given to ``fit`` only: the groups, sorted.
    group_bounds_ : dict
        With ``groups`` only: for ``"error"``, the certified error of ``predict`` on each
        group (an array over ``group_labels_``); for each risk of ``risks``, an array of shape
        ``(n_groups, n_classes)``. 1.0 where a group has no held-out rows in the
        denominator.
    risk_bounds_ : dict
        With ``risks`` or ``per_class=True`` only: each certified risk's upper bound, a float
        for ``"error"`` (``bound_``), an array over ``classes_`` otherwise (1.0 for a class
        without rows in the risk's denominator); the deployed statement's confusion matrix is
        ``certificate_.details["confusion"]`` (true class by predicted class).
    certificate_ : Certificate
        Its ingredients: ``m`` and ``statistics["errors"]`` hold one entry per
        statement (fraction or half), ``details`` the bound of each.
    n_iter_ : int
        0 (nothing is trained).
    n_samples_seen_ : int
        After :meth:`partial_fit` only: the rows of the stream read so far.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.OccamBoundClassifier : the best single voter.
    skpacbayes.CertifiedVoteClassifier : hold-out and out-of-bag candidates, with a
        selection rule that also weighs the deployed vote's expected accuracy.

    Notes
    -----
    Only i.i.d. training examples are assumed; the held-out rows are chosen
    without reading ``X`` or ``y``, so conditionally on the training rows the
    deployed vote is a fixed classifier and its held-out errors are independent
    Bernoulli draws (:ref:`theory-holdout`). With a sequence, all ``K``
    statements hold together with probability at least ``1 - delta``
    (:ref:`theory-selection`), so deploying the tightest one keeps the
    certificate. A fraction trades accuracy for tightness: the vote is grown on
    ``1 - f`` of the rows (more rows, a stronger vote), its bound uses ``f m``
    rows (more rows, a smaller deviation term). No single fraction suits every
    sample size, hence the default sequence; measured against the halves
    protocol in :ref:`strategies`.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HoldOutBoundClassifier(voters=RandomForestClassifier(n_estimators=20),
    ...                              validation_fraction=0.3, random_state=0).fit(X, y)
    >>> clf.validation_indices_.size, bool(clf.bound_ < 0.2)
    (540, True)
    >>> from skpacbayes.voters import SplitForest
    >>> halves = HoldOutBoundClassifier(voters=SplitForest(n_estimators=20),
    ...                                 validation_fraction=None, random_state=0).fit(X, y)
    >>> halves.half_ in (0, 1), int(halves.weights_.sum())
    (True, 10)
    """

    #: parameters that only steer the optimisation or the computation: a search over
    #: them alone keeps the refitted bound_ (warn_if_refit_by_search)
    _optimisation_params: ClassVar[frozenset] = frozenset({"n_jobs", "verbose"})

    _parameter_constraints: ClassVar[dict] = {
        **HeldOutVote._parameter_constraints,
        "validation_fraction": [
            None,
            StrOptions({"auto"}),
            Interval(Real, 0, 1, closed="neither"),
            "array-like",
        ],
        "train_size": [None, Integers(1, None, closed="left")],
        "risks": [None, StrOptions({"all"}), list, tuple],
    }

    def __init__(
        self,
        *,
        voters=None,
        validation_fraction="auto",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        train_size=None,
        verbose=0,
        per_class=False,
        risks=None,
    ):
        self.voters = voters
        self.validation_fraction = validation_fraction
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.train_size = train_size
        self.verbose = verbose
        self.per_class = per_class
        self.risks = risks

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, groups=None, **fit_params):
        """Grow the voters on the training rows and certify their plain vote on the rest.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training data (finite; sparse input is converted to CSR). A ``dask.array`` is
            certified out of core, block by block on the workers: with voters that need no
            pass over the rows (``PrefitVoters``, ``StumpBank``) on every row they may be
            evaluated on, or with ``train_size`` (voters grown on that many rows, held in
            memory). The fraction protocol, which grows the voters on most rows, refuses it.
        y : {array-like, dask array} of shape (n_samples,)
            Class labels (at least two classes).
        groups : array-like of shape (n_samples,), default=None
            Each row's group (any labels; in memory): also certify the error and the risks
            of ``predict`` on each group (``group_bounds_``), for a fairness audit. Half of
            ``delta`` then goes to the statements without groups (``bound_`` and
            ``risk_bounds_``), half to the groups' (split evenly over the groups, the
            error and each risk statement, at every held-out statement), so that every
            statement holds together with probability at least ``1 - delta``
            (:ref:`Proposition 5e <theory-holdout-groups>`). Routed as metadata
            (``set_fit_request(groups=True)``) by meta-estimators when scikit-learn's
            metadata routing is enabled.
        **fit_params : dict
            Not supported: ``sample_weight`` (or any other keyword) raises a ``TypeError``
            naming the estimator, since the certificate assumes unweighted i.i.d. rows.

        Returns
        -------
        self : object
            Fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(voters=RandomForestClassifier(n_estimators=10),
        ...                              validation_fraction=(0.2, 0.4), random_state=0)
        >>> clf.fit(X, y).validation_fraction_ in (0.2, 0.4)
        True
        >>> clf.certificate_.m
        (30, 60)
        """
        reject_fit_params(self, fit_params)
        warn_if_refit_by_search(self, self._optimisation_params)
        fractions = self._validation_fractions()
        sample = self.train_size is not None
        if sample and not (
            isinstance(self.validation_fraction, str) and self.validation_fraction == "auto"
        ):
            raise ValueError(
                "train_size and validation_fraction both choose the rows the voters are grown "
                f"on: set one of them (got train_size={self.train_size!r} and "
                f"validation_fraction={self.validation_fraction!r})."
            )
        # a new fit ends the stream of partial_fit, and forgets an earlier fit's groups
        for name in ("_stream", "n_samples_seen_", "group_labels_", "group_bounds_"):
            self.__dict__.pop(name, None)
        if is_dask_input(X, y):
            if not sample:
                held_out_fit.refuse_grown_out_of_core(fractions)
            X, y, classes = dask_training_data(self, X, y)
        else:
            keep = reads_input_as_given(self.voters, X)  # the models validate what they read
            X, y, classes = validate_training_data(self, X, y, keep_input=keep)
        spec = self._spec(held_out.rows_seed(self.random_state))
        fitted = held_out_fit.certify_held_out(
            spec, X, y, classes, fractions, self.train_size, groups
        )
        self.classes_ = fitted.classes
        if groups is not None:
            self.group_labels_ = fitted.group_labels
        self._copy_result(fitted.result)
        return self

    def _risks(self):
        """The risks certified besides the error rate: ``risks``, and the miss rate with
        ``per_class``."""
        names = (
            () if self.risks is None else check_risks(self.risks, f"{type(self).__name__}: risks")
        )
        return check_risks(set(names) | ({"miss_rate"} if self.per_class else set()))

    def _validation_fractions(self):
        if isinstance(self.validation_fraction, str) and self.validation_fraction == "auto":
            return held_out_fit.auto_fractions(self.voters)
        return check_fractions(self.validation_fraction)

    @available_if(_has_fixed_voters)
    def partial_fit(self, X, y, classes=None, **fit_params):
        """Add labelled rows of a stream and update the time-uniform certificate.

        With fixed voters, ``voters=PrefitVoters(...)`` fitted beforehand on other data (the
        deployed classifier is the one of :meth:`fit`: one model's own ``predict``, or the
        plain vote of a list), each call counts the errors of ``predict`` on the new rows
        and certifies the rows read so far by a confidence sequence
        (:func:`~skpacbayes.bounds.binomial_anytime_upper`): with probability at least
        ``1 - delta``, EVERY ``bound_`` (and ``risk_bounds_``) reported along the stream
        holds at once, so the stream may be read after every batch and stopped whenever
        you like. ``bound_`` is the smallest value reported so far. With ``risks`` (or
        ``per_class=True``) ``delta`` is split evenly over the error statement and the risk
        statements (:ref:`Proposition 5b <theory-streaming>`, :ref:`Proposition 5d
        <theory-holdout-risks>`). The prefit models must stay as they were at the first
        call: a fingerprint of them (:meth:`~skpacbayes.voters.PrefitVoters.fingerprint`)
        is checked at each call.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            New rows, i.i.d. draws from the distribution of the stream, never seen by the
            voters. A dask array is counted in one pass, block by block.
        y : {array-like, dask array} of shape (n_samples,)
            Their labels (among the classes the voters know; one class is enough).
        classes : array-like of shape (n_classes,), default=None
            scikit-learn's argument of a first ``partial_fit``: the classes are those the
            voters know (``PrefitVoters.known_classes``); when given, at any call, it must
            be them (a ``ValueError`` otherwise).
        **fit_params : dict
            Not supported (a ``TypeError`` names the estimator).

        Returns
        -------
        self : object
            The estimator, its certificate updated.

        Raises
        ------
        AttributeError
            If ``voters`` is not a :class:`~skpacbayes.voters.PrefitVoters` (voters grown
            on the rows are not fixed: the estimator then has no ``partial_fit``).
        ValueError
            If ``validation_fraction`` or ``train_size`` is set, if the estimator was
            fitted with :meth:`fit` (its certificate is not a stream's:
            ``sklearn.base.clone`` it first), if ``voters``, ``delta``, ``per_class`` or
            ``risks`` changed since the first call, or if a prefit model was refitted, its
            parameters or fitted attributes set since then. A refused call leaves the
            stream as it was.

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import PrefitVoters
        >>> X, y = make_classification(n_samples=5000, random_state=0)
        >>> model = LogisticRegression().fit(X[:1000], y[:1000])
        >>> clf = HoldOutBoundClassifier(voters=PrefitVoters(model))
        >>> for start in range(1000, 5000, 1000):  # four batches
        ...     _ = clf.partial_fit(X[start : start + 1000], y[start : start + 1000])
        >>> clf.n_samples_seen_, bool(clf.certificate_.train_error < clf.bound_ < 0.2)
        (4000, True)
        """
        from sklearn.utils.multiclass import check_classification_targets

        reject_fit_params(self, fit_params)
        state = getattr(self, "_stream", None)
        settings = {name: getattr(self, name) for name in stream.StreamState.SETTINGS}
        if state is None:
            self._validate_params()
            stream.check_first_batch(
                type(self).__name__,
                hasattr(self, "certificate_"),
                self.validation_fraction,
                self.train_size,
            )
        else:
            stream.check_unchanged(state, settings, classes, self.classes_)
        if is_dask_input(X, y):
            n_features = getattr(self, "n_features_in_", None)
            X, y, labels = dask_training_data(self, X, y, min_classes=1, reset=state is None)
            if state is not None and X.shape[1] != n_features:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                    f"{n_features} features as input."
                )
        else:  # the prefit models' rows, as given (the models validate them)
            X, y = validate_data(self, X, y, reset=state is None, skip_check_array=True)
            y = column_or_1d(y, warn=True)
            check_consistent_length(X, y)
            if state is None:  # later labels are checked against the stream's classes
                check_classification_targets(y)
            labels = np.unique(y)
        deployed = None if state is None else (self.voters_, self.classes_)
        state, self.classes_, result = stream.certify_batch(
            state, TestSet(), settings, self._risks(), X, y, labels, classes, deployed
        )
        self._stream = state
        self._copy_result(result)
        self.n_samples_seen_ = state.n_samples_seen
        return self

    def __setstate__(self, state):
        state.setdefault("risks", None)  # a parameter since 0.2.0
        if state.get("_stream") is not None:  # a stream of 0.1.0, the models' fingerprint
            kept = state["_stream"]
            state["_stream"] = stream.restored_stream(kept, state["certificate_"], state["voters"])
        super().__setstate__(state)
