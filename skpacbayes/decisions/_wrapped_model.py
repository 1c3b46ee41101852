"""The fitted model a certified decision wraps, and what the decision reads of it.

The base of :class:`~skpacbayes.CertifiedThresholdClassifier` and
:class:`~skpacbayes.CertifiedSelectiveClassifier`: the model is used as fitted (its rows
must be other rows than those given to ``fit``) or, unfitted, fitted on part of the rows
drawn from the seed and the number of rows alone (the hold-out's
:func:`~skpacbayes.engine.protocols.held_out.validation_rows`), the rest certifying the
decision. Either way the model is a function fixed before the certifying rows are read. Its
``predict_proba``, ``predict_log_proba`` and ``decision_function`` are the wrapper's.
"""

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
from scipy import sparse
from scipy.special import expit, logit
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, _fit_context, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import _safe_indexing, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _estimator_has,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    indexable,
    validate_data,
)

from skpacbayes._utils._fit_params import reject_fit_params
from skpacbayes.classifiers._constraints import DELTA
from skpacbayes.engine.certify import certify
from skpacbayes.engine.protocols.decisions import probability_grid
from skpacbayes.engine.risks import check_risks
from skpacbayes.voters._base import DocLinkMixin

__all__ = ["DecisionClassifier", "logit_grid", "margin_confidence", "risk_bounds"]


#: the docstring text both decisions share, by placeholder (filled by ``fill_doc``)
DECISION_DOCS = {
    "delta_doc": """\
delta : float in (0, 1), default=0.05
    Every statement holds, all together, with probability at least ``1 - delta``.""",
    "random_state_doc": """\
random_state : int, RandomState instance or None, default=None
    Seeds the rows held out when a clone is fitted (unused otherwise).""",
    "fitted_model_doc": """\
estimator_ : classifier
    The fitted model: ``estimator`` itself, or the clone fitted on the other rows.
classes_ : ndarray of shape (n_classes,)
    The model's classes.""",
    "fitted_rows_doc": """\
calibration_indices_ : ndarray of int or None
    The rows (of the ``X`` given to ``fit``) that certify the decision (None: every row).
n_features_in_ : int
    Number of features seen during fit.
feature_names_in_ : ndarray of str
    Names of the features, when ``X`` has them.""",
}


def _is_fitted(estimator):
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


def _delegated(method, what, returns):
    """The wrapper's ``method``: the fitted model's own."""

    def delegate(self, X):
        check_is_fitted(self)
        return getattr(self.estimator_, method)(X)

    delegate.__name__ = delegate.__qualname__ = method
    delegate.__doc__ = f"""The wrapped model's {what}.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
            Input samples, as the model takes them.

        Returns
        -------
        {returns}
            ``estimator_.{method}(X)``.
        """
    return available_if(_estimator_has(method))(delegate)


def risk_bounds(certificate, names):
    """``risk_bounds_`` of a decision's certificate: each name's bound (a float for
    ``"error"``, an array over ``classes_`` otherwise), for ``names`` in order."""
    bounds = certificate.details["risk_bounds"]
    return {
        name: bounds[name] if isinstance(bounds[name], float) else np.array(bounds[name])
        for name in names
    }


class DecisionClassifier(ClassifierMixin, MetaEstimatorMixin, DocLinkMixin, BaseEstimator):
    """Shared parts of the certified decisions (see the module docstring).

    ``fit`` resolves the model and its rows (:meth:`_model_and_rows`), reads its responses
    (:meth:`_response`), lets the subclass choose (``_choose``: a
    :class:`~skpacbayes.engine.protocols.decisions.DecisionChoice`), certifies the choice
    through the door and sets the attributes every decision has (``_certified`` sets the
    subclass's own and names the risks of ``risk_bounds_``); the probability and score
    methods are the model's.
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "max_risk": [Interval(Real, 0, 1, closed="neither")],
        "delta": DELTA,
        "thresholds": [None, "array-like"],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "risks": [StrOptions({"all"}), list, tuple],
        "validation_fraction": [
            None,
            StrOptions({"auto"}),
            Interval(Real, 0, 1, closed="neither"),
        ],
        "random_state": ["random_state"],
    }

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, **fit_params):
        """Choose and certify the decision on rows the model never saw.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows, as the model takes them.
        y : array-like of shape (n_samples,)
            Their labels.
        **fit_params : dict
            Not supported: ``sample_weight`` (or any other keyword) raises a ``TypeError``
            naming the estimator, since the certificate assumes unweighted i.i.d. rows.

        Returns
        -------
        self : object
            Fitted estimator.

        Raises
        ------
        ValueError
            When no threshold of the grid is certified at ``max_risk`` (for a reject option,
            with a certified coverage of at least its ``min_coverage``): the message names
            the smallest ``max_risk`` these rows could certify.
        """
        reject_fit_params(self, fit_params)
        model, X, y_idx = self._model_and_rows(X, y)
        values, method = self._response(model, X)
        risks = check_risks(self.risks)
        choice = self._choose(model, X, y_idx, values, method, risks)
        self.certificate_ = certify(choice.statement).certificate
        self.response_method_ = method
        self.threshold_ = choice.threshold
        self.certified_thresholds_ = choice.certified
        self.bound_ = self.certificate_.value
        self.risk_bounds_ = risk_bounds(self.certificate_, self._certified(risks))
        return self

    def _model_and_rows(self, X, y):
        """The fitted model and the rows that certify the decision: ``(model, X, y)``.

        Sets ``estimator_``, ``classes_``, ``calibration_indices_`` (None when every row
        certifies), ``n_features_in_`` (and ``feature_names_in_``).
        """
        from skpacbayes.engine.protocols.held_out import rows_seed, validation_rows

        check_risks(self.risks)
        X, y = indexable(X, y)
        validate_data(self, X, skip_check_array=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        check_classification_targets(y)
        fraction = self.validation_fraction
        if fraction == "auto":
            fraction = None if _is_fitted(self.estimator) else 0.5
        if fraction is None:
            if not _is_fitted(self.estimator):
                raise ValueError(
                    f"validation_fraction=None certifies the decision of a fitted estimator on "
                    f"every row given to fit, but the {type(self.estimator).__name__} given is "
                    "not fitted: fit it on other rows first, or set validation_fraction to fit "
                    "it on part of these rows."
                )
            model, rows = self.estimator, None
        else:
            train, rows = validation_rows(len(y), fraction, rows_seed(self.random_state))
            model = clone(self.estimator).fit(_safe_indexing(X, train), y[train])
            X, y = _safe_indexing(X, rows), y[rows]
        classes = np.asarray(model.classes_)
        unknown = np.setdiff1d(np.unique(y), classes)
        if unknown.size:
            raise ValueError(
                f"y holds labels the estimator does not know: {unknown.tolist()!r} (its "
                f"classes_ are {classes.tolist()!r})."
            )
        if y.size == 0:
            raise ValueError("No row is left to certify the decision on.")
        if rows is None:
            self._check_other_rows(model, X, y)
        self.estimator_, self.classes_, self.calibration_indices_ = model, classes, rows
        return model, X, np.searchsorted(classes, y)

    def _check_other_rows(self, model, X, y):
        """:class:`~skpacbayes.voters.SampleReuseWarning` when the fitted model looks trained
        on these rows (the checks of :class:`~skpacbayes.voters.PrefitVoters`), for the rows
        those checks read (a NumPy array or a sparse matrix)."""
        from skpacbayes.voters import PrefitVoters

        if isinstance(X, np.ndarray) or sparse.issparse(X):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                PrefitVoters(model).fit(X, y)

    def _response(self, model, X):
        """``(values, method)``: the model's ``predict_proba`` or ``decision_function``."""
        methods = (
            ("predict_proba", "decision_function")
            if self.response_method == "auto"
            else (self.response_method,)
        )
        for method in methods:
            if hasattr(model, method):
                return np.asarray(getattr(model, method)(X), dtype=np.float64), method
        raise ValueError(
            f"response_method={self.response_method!r}: the {type(model).__name__} has no "
            f"{' or '.join(methods)}."
        )

    def _grid(self, logistic=False):
        """The thresholds of the test: the user's, or the fixed default
        (:func:`~skpacbayes.engine.protocols.decisions.probability_grid`; with ``logistic``,
        its logits, for the score of a ``decision_function``)."""
        if self.thresholds is None:
            return logit_grid(probability_grid()) if logistic else probability_grid()
        grid = np.asarray(self.thresholds, dtype=np.float64).ravel()
        if grid.size == 0 or np.isnan(grid).any():
            raise ValueError(
                "thresholds must be a non-empty array of numbers (no NaN); got "
                f"{self.thresholds!r}."
            )
        return grid

    predict_proba = _delegated(
        "predict_proba", "class probabilities", "proba : ndarray of shape (n_samples, n_classes)"
    )
    predict_log_proba = _delegated(
        "predict_log_proba",
        "log class probabilities",
        "log_proba : ndarray of shape (n_samples, n_classes)",
    )
    decision_function = _delegated(
        "decision_function",
        "decision function",
        "scores : ndarray of shape (n_samples,) or (n_samples, n_classes)",
    )

    def _checked_rows(self, X):
        """``X`` for the model, its number of features checked (rows of another shape are
        left to the model, whose error says what it takes)."""
        check_is_fitted(self)
        ndim = len(X.shape) if hasattr(X, "shape") else np.asarray(X, dtype=object).ndim
        if ndim == 2:
            validate_data(self, X, skip_check_array=True, reset=False)
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags


def logit_grid(grid):
    """A probability grid as thresholds of a logistic score (``logit``, with +-inf at 0, 1)."""
    with np.errstate(divide="ignore"):
        return logit(grid)


def margin_confidence(values, method):
    """The confidence of each row: the top-class probability, or for a decision function the
    logistic of its margin (``|d|`` for a binary score, the top score minus the second)."""
    if method == "predict_proba":
        return values.max(axis=1)
    if values.ndim == 1:
        return expit(np.abs(values))
    top_two = np.sort(values, axis=1)[:, -2:]
    return expit(top_two[:, 1] - top_two[:, 0])
