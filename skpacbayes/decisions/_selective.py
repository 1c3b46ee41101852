"""A certified reject option: a fitted classifier that answers only when it is confident, with
the error rate among the rows it answers certified below a target (issue 55, item 3)."""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from skpacbayes._docstrings import fill_doc
from skpacbayes.decisions._wrapped_model import (
    DECISION_DOCS,
    DecisionClassifier,
    margin_confidence,
)
from skpacbayes.engine.protocols.decisions import choose_abstention
from skpacbayes.voters._base import keep_parameters

__all__ = ["CertifiedSelectiveClassifier"]


@fill_doc(**DECISION_DOCS)
class CertifiedSelectiveClassifier(DecisionClassifier):
    """A fitted classifier with a certified reject option: it answers when it is confident.

    ``predict`` returns the model's prediction where its confidence (the top-class
    probability, or the logistic of its decision margin) reaches ``threshold_``, and
    ``reject_label_`` elsewhere (refer the row to a person). ``fit``, on rows the model never
    saw, chooses the threshold so that, with probability at least ``1 - delta`` over those
    rows, the **selective risk** (the error rate among the rows it answers,
    ``P(predict(x) != y | answered)``) is at most ``max_risk``, and certifies a lower bound on
    the rate at which it answers (``coverage_lower_``).

    The choice is the fixed-sequence test of :class:`CertifiedThresholdClassifier` from the
    safe end, the most confident threshold, down: each threshold's exact binomial test of a
    selective risk above ``max_risk`` (on the rows it answers) at level ``0.45 delta``, up to
    the first it cannot reject; the last certified, the one that answers most, is deployed.
    The thresholds that answer fewer rows than a coverage of ``min_coverage`` would are passed
    over (at a price of ``0.05 delta``): they would not be deployed, and below a few tens of
    rows no test can pass. Geifman and El-Yaniv's SGR (2017) tests ``ceil(log2 m)`` thresholds
    of a binary search, each at ``delta / ceil(log2 m)``; the fixed-sequence test needs no such
    union (:ref:`Proposition D4 <theory-decisions>`), so at the same target and ``delta`` it
    answers at least as many rows where the risk grows as the confidence falls.

    Parameters
    ----------
    estimator : classifier
        The model, with ``predict`` and ``predict_proba`` or ``decision_function``. Fitted:
        used as it is, every row given to ``fit`` certifies the rule (rows it was not fitted
        on; a cheap check warns with :class:`~skpacbayes.voters.SampleReuseWarning` when it
        looks fitted on them). Not fitted: see ``validation_fraction``.
    max_risk : float in (0, 1), default=0.05
        The target of the selective risk.
    {delta_doc}
    min_coverage : float in [0, 1), default=0.1
        The smallest rate of answered rows worth deploying: the deployed threshold's
        certified coverage reaches it, and the test passes over the thresholds that answer
        fewer rows (0: it starts at the most confident threshold, and stops there if that
        one answers too few rows).
    thresholds : array-like of float or None, default=None
        The grid of confidence thresholds, fixed before the rows are read. None: the 1113
        values of [0, 1] of :class:`CertifiedThresholdClassifier` (the confidences lie in
        ``[1 / n_classes, 1]``).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        The model's confidence: ``"auto"`` tries ``predict_proba``, then
        ``decision_function``.
    reject_label : "auto", int, float, str or None, default="auto"
        What ``predict`` returns on a row it does not answer: any value that is not a class.
        ``"auto"``: -1 for numeric labels that do not include -1, None otherwise (the
        predictions are then an array of objects).
    risks : "all" or tuple of str, default="all"
        The risks certified among the answered rows in ``risk_bounds_``, beside the error
        rate: ``"miss_rate"``, ``"false_positive_rate"``, ``"false_discovery_rate"``
        (``"all"``: every one). Half of ``delta`` is shared evenly by them, the error and
        the coverage, each holding at every threshold of the grid at once.
    validation_fraction : "auto", float in (0, 1) or None, default="auto"
        With a fraction, a clone of ``estimator`` is fitted on the other rows and the rule
        certified on ``ceil(f m)`` rows drawn from the seed and the number of rows alone.
        None: ``estimator`` must be fitted. ``"auto"``: None for a fitted estimator, 0.5
        otherwise.
    {random_state_doc}

    Attributes
    ----------
    {fitted_model_doc}
    reject_label_ : object
        What ``predict`` returns where it does not answer.
    response_method_ : str
        The model's method the confidence is read from.
    threshold_ : float
        The deployed confidence threshold: rows of confidence at least this are answered.
    certified_thresholds_ : ndarray of float
        Every threshold of the grid the test certified, increasing.
    bound_ : float
        Certified upper bound of the selective risk at ``threshold_``, at most ``max_risk``.
    coverage_lower_ : float
        Certified lower bound of the rate of answered rows, at least ``min_coverage``.
    risk_bounds_ : dict
        Certified upper bounds among the answered rows: a float for ``"error"`` (equal to
        ``bound_``), an array over ``classes_`` for the other risks.
    certificate_ : Certificate
        Its ingredients: ``details["statements"]`` holds each statement's counts, share of
        ``delta`` and bound.
    {fitted_rows_doc}

    See Also
    --------
    skpacbayes.CertifiedThresholdClassifier : a certified decision threshold.

    Notes
    -----
    The rows must be i.i.d. draws of the distribution the classifier meets, the model and the
    grid fixed before they are read. Proofs: Propositions D4 and D5 of :ref:`theory-decisions`.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import train_test_split
    >>> from skpacbayes import CertifiedSelectiveClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X_fit, X_cal, y_fit, y_cal = train_test_split(X, y, test_size=0.5, random_state=0)
    >>> model = LogisticRegression(max_iter=2000).fit(X_fit / 16, y_fit)
    >>> clf = CertifiedSelectiveClassifier(model, max_risk=0.02).fit(X_cal / 16, y_cal)
    >>> bool(clf.bound_ <= 0.02), bool(0.5 < clf.coverage_lower_ < 1)
    (True, True)
    >>> y_pred = clf.predict(X_cal / 16)
    >>> answered = y_pred != clf.reject_label_
    >>> clf.reject_label_, bool((y_pred[answered] == y_cal[answered]).mean() > 0.98)
    (-1, True)
    """

    _parameter_constraints: ClassVar[dict] = {
        **DecisionClassifier._parameter_constraints,
        "min_coverage": [Interval(Real, 0, 1, closed="left")],
        "reject_label": [StrOptions({"auto"}), None, Real, str],
    }

    def __init__(
        self,
        estimator,
        *,
        max_risk=0.05,
        delta=0.05,
        min_coverage=0.1,
        thresholds=None,
        response_method="auto",
        reject_label="auto",
        risks="all",
        validation_fraction="auto",
        random_state=None,
    ):
        keep_parameters(self, locals())

    def _choose(self, model, X, y_idx, values, method, risks):
        self.reject_label_ = self._reject_label()
        return choose_abstention(
            margin_confidence(values, method),
            y_idx,
            self._predicted_index(model.predict(X)),
            self.classes_.size,
            max_risk=self.max_risk,
            delta=self.delta,
            risks=risks,
            grid=self._grid(),
            min_coverage=self.min_coverage,
        )

    def _certified(self, risks):
        self.coverage_lower_ = self.certificate_.details["coverage_lower"]
        return ("error", *risks)

    def _reject_label(self):
        classes = self.classes_
        if isinstance(self.reject_label, str) and self.reject_label == "auto":
            numeric = np.issubdtype(classes.dtype, np.number) and classes.dtype != bool
            return -1 if numeric and not (classes == -1).any() else None
        if self.reject_label is not None and (classes == self.reject_label).any():
            raise ValueError(
                f"reject_label={self.reject_label!r} is a class of the estimator: it must be "
                "a value predict never returns for an answered row."
            )
        return self.reject_label

    def _predicted_index(self, labels):
        labels = np.asarray(labels)
        idx = np.searchsorted(self.classes_, labels).clip(0, self.classes_.size - 1)
        if not (self.classes_[idx] == labels).all():
            raise ValueError("The estimator's predict returns labels outside its classes_.")
        return idx

    def predict(self, X):
        """The model's prediction where its confidence reaches ``threshold_``, else
        ``reject_label_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples, as the model takes them.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The answered rows' labels (``bound_`` certifies their error rate) and
            ``reject_label_`` elsewhere (an array of objects when it is None).
        """
        X = self._checked_rows(X)
        values, method = self._response(self.estimator_, X)
        answered = margin_confidence(values, method) >= self.threshold_
        labels = np.asarray(self.estimator_.predict(X))
        if self.reject_label_ is None:
            labels = labels.astype(object)
            labels[~answered] = None
            return labels
        return np.where(answered, labels, np.asarray(self.reject_label_))
