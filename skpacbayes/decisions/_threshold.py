"""A certified operating point: the decision threshold of a fitted classifier whose miss rate
(or false-positive rate) is certified below a target (issue 55, item 2)."""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import StrOptions

from skpacbayes._docstrings import fill_doc
from skpacbayes.decisions._wrapped_model import DECISION_DOCS, DecisionClassifier
from skpacbayes.engine.protocols.decisions import choose_threshold
from skpacbayes.voters._base import keep_parameters

__all__ = ["CertifiedThresholdClassifier"]


def _positive_scores(values, method, pos):
    """The score of class ``pos`` on each row and the class predicted below the threshold
    (the other class, or the model's best class but ``pos``)."""
    if values.ndim == 1:  # a binary decision function: the score of classes_[1]
        return (values if pos == 1 else -values), np.full(values.shape, 1 - pos)
    others = values.copy()
    others[:, pos] = -np.inf
    return values[:, pos], np.argmax(others, axis=1)


@fill_doc(**DECISION_DOCS)
class CertifiedThresholdClassifier(DecisionClassifier):
    """A fitted classifier's decision threshold, with its miss rate certified below a target.

    In the spirit of scikit-learn's :class:`~sklearn.model_selection.FixedThresholdClassifier`
    and :class:`~sklearn.model_selection.TunedThresholdClassifierCV`, for a screening test:
    ``predict`` answers ``pos_label`` when the model's score of that class reaches
    ``threshold_``, and ``fit``, on rows the model never saw, chooses the threshold so that,
    with probability at least ``1 - delta`` over those rows, the true ``risk`` of the positive
    class (by default its **miss rate**, ``P(predict(x) != pos | y = pos)``, one minus the
    sensitivity) is at most ``max_risk`` and, among the thresholds certified so, the other
    error (the false-positive rate) is the lowest.

    The choice is a fixed-sequence test (Learn-then-Test, Angelopoulos et al., 2021) over a
    grid of thresholds fixed before the rows are read: from the safe end (every row positive
    for the miss rate, none for the false-positive rate), each threshold's exact binomial
    test of ``risk > max_risk`` at level ``delta/2`` in turn, up to the first it cannot
    reject; the last threshold certified is deployed. No correction for the number of
    thresholds is needed (:ref:`Proposition D2 <theory-decisions>`), so the grid is fine.
    ``bound_`` certifies the risk at the deployed threshold, and ``risk_bounds_`` every risk of
    ``risks`` there, all statements holding together with probability at least ``1 - delta``.

    Parameters
    ----------
    estimator : classifier
        The model, with ``predict_proba`` or ``decision_function``. Fitted: used as it is,
        and every row given to ``fit`` certifies the threshold (they must be rows it was not
        fitted on; a cheap check warns with :class:`~skpacbayes.voters.SampleReuseWarning`
        when it looks fitted on them). Not fitted: see ``validation_fraction``. Wrap a fitted
        model in :class:`~sklearn.frozen.FrozenEstimator` to keep it fitted through
        ``clone`` (cross-validation, searches).
    risk : {"miss_rate", "false_positive_rate"}, default="miss_rate"
        The controlled risk of the positive class: its miss rate (the deployed threshold is
        then the highest certified one, of fewest false positives), or its false-positive
        rate ``P(predict(x) = pos | y != pos)`` (the lowest certified one, of fewest misses).
    max_risk : float in (0, 1), default=0.05
        The target of ``risk``.
    pos_label : int, float, bool, str or None, default=None
        The positive class. None: ``classes_[1]`` for two classes; with more, required (the
        decision is then one-vs-rest: ``pos_label`` when its score reaches the threshold,
        else the model's most likely other class).
    {delta_doc}
    thresholds : array-like of float or None, default=None
        The grid, fixed before the rows are read (never a function of them, labels or
        scores: :ref:`theory-decisions`). None: 1113 values of [0, 1], every multiple of
        0.001 and ``10^-x``, ``1 - 10^-x`` for ``x`` in 3.125 ... 10 (for a
        ``decision_function``, their logits).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        The model's score: ``"auto"`` tries ``predict_proba``, then ``decision_function``.
    risks : "all" or tuple of str, default="all"
        The risks certified at the deployed threshold in ``risk_bounds_``, among
        ``"error"``, ``"miss_rate"``, ``"false_positive_rate"`` and ``"false_discovery_rate"``
        (``"all"``: the four); ``risk`` of the positive class is always certified (by the
        test). They share half of ``delta``, the test keeps the other half (all of it with
        ``risks=()``: ``risk_bounds_[risk]`` then certifies the positive class only, 1.0
        standing for the others).
    validation_fraction : "auto", float in (0, 1) or None, default="auto"
        With a fraction, a clone of ``estimator`` is fitted on the other rows and the
        threshold certified on ``ceil(f m)`` rows drawn from the seed and the number of rows
        alone (never stratified). None: ``estimator`` must be fitted, every row certifies.
        ``"auto"``: None for a fitted estimator, 0.5 otherwise.
    {random_state_doc}

    Attributes
    ----------
    {fitted_model_doc}
    pos_label_ : object
        The positive class.
    response_method_ : str
        The model's method the score is read from.
    threshold_ : float
        The deployed threshold: ``predict`` answers ``pos_label_`` where the score is at least
        this.
    certified_thresholds_ : ndarray of float
        Every threshold of the grid the test certified, increasing (``threshold_`` among them).
    bound_ : float
        Certified upper bound of ``risk`` at ``threshold_``, at most ``max_risk``.
    risk_bounds_ : dict
        Certified upper bounds at ``threshold_``: a float for ``"error"``, an array over
        ``classes_`` for the other risks.
    certificate_ : Certificate
        Its ingredients: ``details["statements"]`` holds each statement's counts, share of
        ``delta`` and bound, ``details["delta_used"]`` their total.
    {fitted_rows_doc}

    See Also
    --------
    skpacbayes.CertifiedSelectiveClassifier : a certified reject option.
    skpacbayes.HoldOutBoundClassifier : the error rate of a fitted model's own ``predict``.

    Notes
    -----
    The guarantee needs the certifying rows to be i.i.d. draws of the distribution the
    classifier meets, and the model and the grid fixed before they are read; the proofs are
    Propositions D2 and D3 of :ref:`theory-decisions`. The statements that read no row the
    test read (in a binary task, the false-positive rate, when the miss rate is controlled)
    are exact at their share of ``delta``; the others hold at every threshold of the grid at
    once (their share split over the grid).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skpacbayes import CertifiedThresholdClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_fit, X_cal, y_fit, y_cal = train_test_split(X, y, test_size=0.5, random_state=0)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_fit, y_fit)
    >>> clf = CertifiedThresholdClassifier(model, pos_label=0, max_risk=0.1).fit(X_cal, y_cal)
    >>> bool(clf.bound_ <= 0.1), bool(clf.threshold_ in clf.certified_thresholds_)
    (True, True)
    >>> sorted(clf.risk_bounds_)
    ['error', 'false_discovery_rate', 'false_positive_rate', 'miss_rate']
    """

    _parameter_constraints: ClassVar[dict] = {
        **DecisionClassifier._parameter_constraints,
        "risk": [StrOptions({"miss_rate", "false_positive_rate"})],
        "pos_label": [Real, str, "boolean", None],
    }

    def __init__(
        self,
        estimator,
        *,
        risk="miss_rate",
        max_risk=0.05,
        pos_label=None,
        delta=0.05,
        thresholds=None,
        response_method="auto",
        risks="all",
        validation_fraction="auto",
        random_state=None,
    ):
        keep_parameters(self, locals())

    def _choose(self, model, X, y_idx, values, method, risks):
        pos = self._positive_index()
        self.pos_label_ = self.classes_[pos]
        scores, below = _positive_scores(values, method, pos)
        return choose_threshold(
            scores,
            y_idx,
            below,
            pos,
            self.classes_.size,
            risk=self.risk,
            max_risk=self.max_risk,
            delta=self.delta,
            risks=risks,
            grid=self._grid(logistic=method == "decision_function"),
        )

    def _certified(self, risks):
        return dict.fromkeys((*risks, self.risk))

    def _positive_index(self):
        if self.pos_label is None:
            if self.classes_.size != 2:
                raise ValueError(
                    "Only binary classification is supported without pos_label: set pos_label "
                    "to one of the classes for a one-vs-rest decision (the classes are "
                    f"{self.classes_.tolist()!r})."
                )
            return 1
        found = np.flatnonzero(self.classes_ == self.pos_label)
        if found.size == 0:
            raise ValueError(
                f"pos_label={self.pos_label!r} is not a class of the estimator "
                f"({self.classes_.tolist()!r})."
            )
        return int(found[0])

    def predict(self, X):
        """``pos_label_`` where the model's score of it reaches ``threshold_``, else the other
        class (with more than two classes, the model's most likely class but ``pos_label_``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples, as the model takes them.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels; ``bound_`` and ``risk_bounds_`` certify their rates.
        """
        X = self._checked_rows(X)
        values, method = self._response(self.estimator_, X)
        pos = int(np.flatnonzero(self.classes_ == self.pos_label_)[0])
        scores, below = _positive_scores(values, method, pos)
        return self.classes_[np.where(scores >= self.threshold_, pos, below)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self.pos_label is not None
        return tags
