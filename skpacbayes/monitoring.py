"""Watching a certified classifier in production: has it become worse than its certificate?

A certificate bounds the error of a classifier on the distribution it was certified on. Once
deployed, the rows may drift. :class:`RiskMonitor` reads labelled production batches, counts the
losses of the monitored classifier and raises an alarm as soon as an anytime-valid lower bound
on its current risk exceeds the certified reference plus a tolerance. When nothing changed
(every row's conditional loss probability at most the reference plus the tolerance), the
probability of ever raising a false alarm is at most ``delta`` (the theory page,
:ref:`Proposition 5c <theory-monitoring>`).
"""

from numbers import Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import (
    _num_samples,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from skpacbayes.bounds import binomial_anytime_lower, binomial_anytime_upper
from skpacbayes.bounds._sequence import anytime_lower_log_evidence
from skpacbayes.voters._base import keep_parameters

__all__ = ["RiskMonitor"]


def _restart_delta(delta, k):
    """The share of ``delta`` of the window started at batch ``k`` (0, 1, ...): ``delta /
    ((k + 1) (k + 2))``, shares that sum to ``delta`` over every batch there will be."""
    return delta / ((k + 1.0) * (k + 2.0))


class RiskMonitor(BaseEstimator):
    """Detect that a deployed, certified classifier has become worse than its certificate.

    Each :meth:`partial_fit` reads a labelled production batch, counts the losses of the
    monitored estimator (by default the errors of its ``predict``) and updates anytime-valid
    lower bounds on its current risk: one over the rows since each batch's start (a window
    restarted at every batch, so that a change late in the stream is seen as fast as an
    early one, up to a logarithmic price). The alarm ``shift_detected_`` is raised the first
    time one of these lower bounds exceeds ``reference + tolerance``.

    If no row's conditional loss probability given the past exceeds ``reference +
    tolerance``, the probability of ever raising the alarm, over the whole stream and however
    many batches it has, is at most ``delta`` (the window of batch ``k`` is tested at
    ``delta / ((k + 1) (k + 2))``; :ref:`Proposition 5c <theory-monitoring>`). Each batch
    opens a window, so feed batches rather than single rows: an update costs one array
    operation over every window opened so far, and a change after ``k`` batches is detected
    at ``delta / ((k + 1)(k + 2))``, a price in nats of about ``2 ln k``.

    Parameters
    ----------
    estimator : fitted estimator
        The monitored classifier: a fitted, certified estimator of this package (its
        ``bound_`` is the reference unless ``reference`` is given), or any fitted estimator
        with ``predict`` together with ``reference``. It is not refitted nor changed.
    reference : float in [0, 1) or None, default=None
        The certified risk the stream is compared with; ``None`` reads ``estimator.bound_``.
    tolerance : float in [0, 1), default=0.0
        How much worse than ``reference`` the risk may become before it is a shift: the
        alarm tests the threshold ``reference + tolerance``.
    delta : float in (0, 1), default=0.05
        The probability of a false alarm allowed over the whole stream.
    risk : callable or None, default=None
        The per-row 0/1 loss: ``risk(estimator, X, y)`` returns the losses of the rows, an
        array of shape (n_samples,) of 0/1 (or booleans), or a pair ``(losses, counted)``
        with ``counted`` a boolean mask of the rows the risk is about (the rows of one class
        for its miss rate); ``None`` is the error rate, ``estimator.predict(X) != y``.

    Attributes
    ----------
    reference_ : float
        The reference in force.
    threshold_ : float
        ``reference_ + tolerance``.
    n_samples_seen_ : int
        Rows read so far (every row of every batch).
    n_counted_ : int
        Rows the risk counted (``n_samples_seen_`` for the error rate).
    n_losses_ : int
        Their losses.
    shift_detected_ : bool
        Whether the alarm was raised (it stays raised).
    detected_at_ : int or None
        ``n_samples_seen_`` at the end of the batch where the alarm was first raised (the
        lower bounds are read after each batch), or ``None``.
    risk_lower_ : float
        The anytime lower bound of the risk over the window with the strongest evidence of a
        shift (at that window's share of ``delta``).
    window_start_ : int
        The row (among all rows read) where that window starts.
    risk_upper_ : float
        The anytime upper bound of the risk over every row read so far, at ``delta`` (a
        statement on a stationary stream, of its own: with the alarm's guarantee they hold
        together with probability at least ``1 - 2 delta``).

    See Also
    --------
    skpacbayes.bounds.binomial_anytime_lower : The lower sequence the alarm reads.
    skpacbayes.HoldOutBoundClassifier.partial_fit : Certifying a stream from its first row.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> from skpacbayes.monitoring import RiskMonitor
    >>> from skpacbayes.voters import PrefitVoters
    >>> X, y = make_classification(n_samples=9000, flip_y=0.05, random_state=0)
    >>> model = LogisticRegression().fit(X[:1000], y[:1000])
    >>> certified = HoldOutBoundClassifier(voters=PrefitVoters(model))
    >>> certified = certified.fit(X[1000:3000], y[1000:3000])
    >>> monitor = RiskMonitor(certified, tolerance=0.02)
    >>> for start in range(3000, 6000, 500):  # production as certified
    ...     _ = monitor.partial_fit(X[start : start + 500], y[start : start + 500])
    >>> monitor.shift_detected_
    False
    >>> flipped = np.where(np.arange(3000) % 4 == 0, 1 - y[6000:], y[6000:])  # labels drift
    >>> for start in range(0, 3000, 500):
    ...     _ = monitor.partial_fit(X[6000 + start : 6500 + start], flipped[start : start + 500])
    >>> monitor.shift_detected_, monitor.detected_at_
    (True, 3500)

    The miss rate of class 1 instead of the error rate: the loss of its rows only.

    >>> def miss_rate_of_class_1(estimator, X, y):
    ...     return estimator.predict(X) != y, y == 1
    >>> monitor = RiskMonitor(certified, reference=0.1, risk=miss_rate_of_class_1)
    >>> monitor = monitor.partial_fit(X[3000:4000], y[3000:4000])
    >>> monitor.n_counted_ == int((y[3000:4000] == 1).sum())
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["predict"])],
        "reference": [Interval(Real, 0, 1, closed="left"), None],
        "tolerance": [Interval(Real, 0, 1, closed="left")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "risk": [callable, None],
    }

    def __init__(self, estimator, *, reference=None, tolerance=0.0, delta=0.05, risk=None):
        keep_parameters(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # the rows reach the monitored estimator as given
        tags.target_tags.required = True
        return tags

    def __sklearn_is_fitted__(self):
        return hasattr(self, "n_samples_seen_")

    def partial_fit(self, X, y):
        """Read a labelled production batch and update the bounds and the alarm.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch's rows, as the monitored estimator's ``predict`` takes them.
        y : array-like of shape (n_samples,)
            Their true labels (among the monitored classifier's classes).

        Returns
        -------
        self : object
            The monitor, updated.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the monitored estimator is not fitted.
        ValueError
            If ``reference`` is ``None`` and the estimator has no certificate (``bound_``),
            if ``y`` holds labels the classifier does not know, if ``X`` and ``y`` do not
            match or ``X`` has another number of features than the first batch, or if
            ``risk`` returns anything but 0/1 losses (and a mask) of one per row.
        """
        first = not hasattr(self, "n_samples_seen_")
        if first:
            self._validate_params()
            self._start()
        # X reaches the estimator as given (a DataFrame to a pipeline, a list of dicts)
        X, y = validate_data(self, X, y, reset=first, skip_check_array=True)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        classes = getattr(self.estimator, "classes_", None)
        if classes is not None:
            unknown = np.setdiff1d(np.unique(y), np.asarray(classes))
            if unknown.size:
                raise ValueError(
                    f"y contains labels {unknown[:5].tolist()!r} that the monitored estimator "
                    f"does not know (its classes_ are {np.asarray(classes).tolist()!r})."
                )
        if _num_samples(X) == 0:
            return self  # nothing read: no window opened
        losses, counted = self._losses(X, y)
        # the window of this batch starts before its rows
        self._windows.append((self.n_losses_, self.n_counted_, self.n_samples_seen_))
        self.n_samples_seen_ += len(y)
        self.n_counted_ += int(counted.sum())
        self.n_losses_ += int(losses[counted].sum())
        self._read()
        return self

    def _start(self):
        """The reference and the empty state, at the first batch."""
        check_is_fitted(self.estimator)
        if self.reference is None:
            if not hasattr(self.estimator, "bound_"):
                raise ValueError(
                    f"{type(self.estimator).__name__} has no certificate (bound_): fit a "
                    "certified estimator of skpacbayes, or give the reference risk "
                    "(RiskMonitor(estimator, reference=...))."
                )
            self.reference_ = float(self.estimator.bound_)
        else:
            self.reference_ = float(self.reference)
        self.threshold_ = self.reference_ + float(self.tolerance)
        self.n_samples_seen_ = self.n_counted_ = self.n_losses_ = 0
        self.shift_detected_, self.detected_at_ = False, None
        self._windows = []

    def _losses(self, X, y):
        """The batch's 0/1 losses and the mask of the rows the risk counts."""
        if self.risk is None:
            out = np.asarray(self.estimator.predict(X)) != y
        else:
            out = self.risk(self.estimator, X, y)
        losses, counted = out if isinstance(out, tuple) else (out, np.ones(len(y), dtype=bool))
        losses, counted = np.asarray(losses), np.asarray(counted)
        if losses.shape != (len(y),) or counted.shape != (len(y),) or counted.dtype != bool:
            raise ValueError(
                "risk must return one 0/1 loss per row (shape (n_samples,)) or a pair "
                "(losses, counted) with counted a boolean mask of shape (n_samples,); got "
                f"shapes {losses.shape} and {counted.shape} for {len(y)} rows."
            )
        if not np.isin(losses, (0, 1)).all():
            raise ValueError("risk must return 0/1 losses (or booleans), one per row.")
        return losses.astype(np.int64), counted

    def _read(self):
        """The bounds of every window and the alarm, after a batch."""
        starts = np.array(self._windows, dtype=np.int64)
        errors = self.n_losses_ - starts[:, 0]
        rows = self.n_counted_ - starts[:, 1]
        shares = np.array([_restart_delta(self.delta, k) for k in range(len(starts))])
        r0 = self.threshold_
        if r0 < 1.0:
            significance = anytime_lower_log_evidence(errors, rows, r0) + np.log(shares)
        else:
            significance = np.full(len(starts), -np.inf)  # no rate exceeds 1
        strongest = int(np.argmax(significance))
        self.window_start_ = int(starts[strongest, 2])
        self.risk_lower_ = binomial_anytime_lower(
            int(errors[strongest]), int(rows[strongest]), shares[strongest]
        )
        self.risk_upper_ = binomial_anytime_upper(self.n_losses_, self.n_counted_, self.delta)
        if self.shift_detected_:
            return
        # a lower end above r0 needs the evidence at r0 past the level: invert those only
        for k in np.flatnonzero(significance >= 0.0):
            if binomial_anytime_lower(int(errors[k]), int(rows[k]), shares[k]) > r0:
                self.shift_detected_, self.detected_at_ = True, self.n_samples_seen_
                return
