"""The estimator to reach for first: a certified vote of trees, strong and tight.

Candidates that can win, each fitted once and certified at ``delta / K``: the
plain vote of a forest grown on ``1 - f`` of the rows, certified on the held-out
``f`` (one candidate per validation fraction ``f``). All ``K`` statements hold
together with probability at least ``1 - delta`` (union bound), so the deployed
candidate may be chosen by any rule without losing the certificate: the
tightest bound, the best expected accuracy, or (the default) a balance of both.
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from skpacbayes._holdout import HoldOutBoundClassifier, _fractions
from skpacbayes.classifiers import validate_training_data
from skpacbayes.model_selection import validated_for_predict

__all__ = ["CertifiedVoteClassifier"]

SELECTIONS = ("balanced", "bound", "accuracy")


def _selection_key(selection, bound, estimate):
    """Sort key of a candidate under a selection rule (smaller is preferred)."""
    if selection == "bound":
        return (bound, estimate)
    if selection == "accuracy":
        return (estimate, bound)
    return (bound + estimate, bound)


class CertifiedVoteClassifier(ClassifierMixin, BaseEstimator):
    """A vote of trees grown on (almost) every row, with a certificate that holds.

    Every candidate is a certified classifier fitted once, at ``delta / K``
    (``K`` candidates): for each validation fraction ``f``, the plain vote of
    ``estimator`` grown on ``1 - f`` of the rows, certified on the held-out
    ``f`` by the test-set bound (:class:`~skpacbayes.HoldOutBoundClassifier`).
    One candidate is deployed by the ``selection`` rule; ``bound_`` certifies
    it at confidence ``1 - delta`` whatever the rule.

    Parameters
    ----------
    estimator : scikit-learn classifier or None, default=None
        The ensemble each candidate grows (unfitted; cloned per candidate). Its
        members vote (the trees of a forest). ``None``:
        ``RandomForestClassifier(n_estimators=200)``.
    validation_fraction : float or sequence of float in (0, 1), default=(0.1, 0.2, 0.35, 0.5)
        One hold-out candidate per fraction (fixed before the data). Small
        fractions give a stronger vote, large ones a tighter bound on small
        samples.
    selection : {"balanced", "bound", "accuracy"}, default="balanced"
        Which certified candidate is deployed (see Notes).
    delta : float in (0, 1], default=0.05
        Total confidence budget, split evenly over the candidates.
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out rows and the ensembles.
    n_jobs : int or None, default=None
        Parallel jobs for growing the ensembles and computing their votes.
    verbose : int, default=0
        Print one line per candidate when > 0.

    Attributes
    ----------
    candidates_ : list of dict
        One entry per candidate, in the order fitted: ``kind`` ("holdout"),
        ``validation_fraction``, ``bound`` (at ``delta / K``), ``estimated_error``
        (the candidate's error on rows its voters never saw: an estimate of its
        accuracy, not part of the certificate) and ``fit_time`` (seconds).
    best_index_ : int
        Index of the deployed candidate in ``candidates_``.
    best_candidate_ : dict
        ``candidates_[best_index_]``.
    best_estimator_ : estimator
        The deployed fitted candidate (``predict`` delegates to it). The other
        candidates' ensembles are not kept.
    certificate_ : Certificate
        Ingredients of the deployed candidate's bound (its ``delta`` is the
        share ``delta / K``).
    bound_ : float
        Certified bound on the error rate of ``predict`` at confidence ``1 - delta``.
    n_iter_ : int
        Training epochs of the deployed candidate.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.HoldOutBoundClassifier : one hold-out candidate.
    skpacbayes.model_selection.BoundSelectionClassifier : the tightest of any candidates.

    Notes
    -----
    **Certificate.** Candidate ``c`` states ``R(h_c) <= B_c`` with probability at
    least ``1 - delta / K``; by the union bound all ``K`` statements hold
    together with probability at least ``1 - delta``, so ``R(h) <= B`` holds for
    the deployed pair ``(h, B)`` whichever way it was chosen, from any data
    (:ref:`theory-selection`). Only i.i.d. training examples are assumed; the
    candidate list is fixed before seeing the data.

    **Selection.** Each candidate has its bound ``B_c`` and an estimate ``E_c``
    of its error: its error on the rows its voters never saw (the held-out rows).
    ``selection="bound"`` deploys the smallest ``B_c`` (ties: smallest ``E_c``);
    ``"accuracy"`` the smallest ``E_c`` (ties: smallest ``B_c``), the most
    accurate vote whatever its certificate; ``"balanced"`` the smallest
    ``B_c + E_c`` (ties: smallest ``B_c``): it gives up one point of bound only
    for at least one point of estimated error. The estimates are themselves
    noisy; they never enter ``bound_``.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skpacbayes import CertifiedVoteClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=20),
    ...                               validation_fraction=(0.2, 0.5), random_state=0).fit(X, y)
    >>> [c["validation_fraction"] for c in clf.candidates_], bool(0 < clf.bound_ < 0.2)
    ([0.2, 0.5], True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [None, HasMethods(["fit", "predict"])],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), "array-like"],
        "selection": [StrOptions(set(SELECTIONS))],
        "delta": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        estimator=None,
        validation_fraction=(0.1, 0.2, 0.35, 0.5),
        selection="balanced",
        delta=0.05,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.validation_fraction = validation_fraction
        self.selection = selection
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _candidates(self, seed):
        """(description, unfitted certified estimator) per candidate, in a fixed order."""
        if hasattr(self.estimator, "votes"):
            raise ValueError(
                "estimator must be a scikit-learn classifier (e.g. RandomForestClassifier), "
                f"not a voter bank; got {type(self.estimator).__name__}."
            )
        return [
            (
                {"kind": "holdout", "validation_fraction": f},
                HoldOutBoundClassifier(
                    voters=self.estimator,
                    validation_fraction=f,
                    random_state=seed,
                    n_jobs=self.n_jobs,
                ),
            )
            for f in _fractions(self.validation_fraction)
        ]

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit every candidate once at ``delta / K`` and deploy one by the selection rule.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (dense, finite).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            Fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               selection="bound", random_state=0).fit(X, y)
        >>> clf.bound_ == min(c["bound"] for c in clf.candidates_)
        True
        """
        import time

        X, y, _ = validate_training_data(self, X, y)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        candidates = self._candidates(seed)
        share = float(self.delta) / len(candidates)
        self.candidates_, best, best_key = [], None, None
        for index, (info, est) in enumerate(candidates):
            start = time.perf_counter()
            est.set_params(delta=share).fit(X, y)
            entry = {
                **info,
                "bound": float(est.bound_),
                "estimated_error": float(est.certificate_.train_error),
                "fit_time": time.perf_counter() - start,
            }
            self.candidates_.append(entry)
            if self.verbose:
                print(
                    f"candidate {index} {info}: bound {entry['bound']:.4f}, estimated error "
                    f"{entry['estimated_error']:.4f} ({entry['fit_time']:.1f} s)"
                )
            key = _selection_key(self.selection, entry["bound"], entry["estimated_error"])
            if best_key is None or key < best_key:
                best, best_key = (index, est), key  # the other candidates are dropped
        self.best_index_, self.best_estimator_ = best
        self.best_candidate_ = self.candidates_[self.best_index_]
        self.certificate_ = self.best_estimator_.certificate_
        self.bound_ = float(self.best_estimator_.bound_)
        self.n_iter_ = int(self.best_estimator_.n_iter_)
        self.classes_ = self.best_estimator_.classes_
        return self

    def recompute_bound(self, delta):
        """Certificate of the fitted classifier at another total confidence level.

        The deployed candidate is re-certified at ``delta / K`` from its stored
        statistics (K candidates: the union bound still covers the choice made at
        fit). Use it when this estimator is itself one of several strategies
        compared with ``delta`` split over them.

        Parameters
        ----------
        delta : float in (0, 1]
            Total confidence parameter, fixed independently of the data.

        Returns
        -------
        bound : float
            Certified upper bound on the risk of ``predict`` at confidence
            ``1 - delta`` (equal to ``bound_`` at the fitted ``delta``).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               random_state=0).fit(X, y)
        >>> clf.recompute_bound(clf.delta) == clf.bound_
        True
        """
        check_is_fitted(self)
        if not 0 < delta <= 1:
            raise ValueError(f"delta must be in (0, 1], got {delta!r}.")
        return self.best_estimator_.recompute_bound(delta / len(self.candidates_))

    def predict(self, X):
        """Predict with the deployed candidate (the classifier ``bound_`` certifies).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               random_state=0).fit(X, y)
        >>> clf.predict(X[:3])
        array([0, 0, 0])
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        """Decision function of the deployed candidate.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: one score per sample (positive for ``classes_[1]``);
            multi-class: one score per class.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               random_state=0).fit(X, y)
        >>> clf.decision_function(X[:2]).shape
        (2, 3)
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.decision_function(X)

    def predict_proba(self, X):
        """Class scores of the deployed candidate, normalised to sum to one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            See :meth:`~skpacbayes.MajorityVoteClassifier.predict_proba`.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.ensemble import RandomForestClassifier
        >>> from skpacbayes import CertifiedVoteClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = CertifiedVoteClassifier(RandomForestClassifier(n_estimators=10),
        ...                               random_state=0).fit(X, y)
        >>> clf.predict_proba(X[:2]).sum(axis=1).round(6)
        array([1., 1.])
        """
        X = validated_for_predict(self, X)
        return self.best_estimator_.predict_proba(X)
