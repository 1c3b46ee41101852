"""The hold-out line: a plain vote of one half's voters, certified on the other half.

With split voters (:class:`~skpacbayes.voters.SplitForest`), the unweighted
vote of the trees grown on one half of the sample is a classifier fixed
before the other half was seen; its errors there are independent Bernoulli
draws, and the Chernoff bound ``kl(k/m || R) <= ln(h / delta) / m`` (``h``
halves, union bound) certifies its true risk ``R``. This is the PAC-Bayes
bound of a point mass equal to the prior (KL = 0), i.e. the Occam bound of a
bank holding one voter: the line any learned posterior has to beat, and, on
the reference data sets, often the tightest certificate of a genuine vote.
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from skpacbayes.classifiers import (
    Certificate,
    _evaluation_groups,
    effective_voters,
    resolve_voters,
    validate_training_data,
    weighted_vote_scores,
)

__all__ = ["HoldOutBoundClassifier"]


def _holdout_bound(n_errors, m, delta):
    """Chernoff test-set bound ``sup{R : kl(k/m || R) <= ln(1/delta)/m}`` (certified float64)."""
    from skpacbayes.bounds import kl_inv_upper

    return float(kl_inv_upper(n_errors / m, np.log(1.0 / delta) / m))


class HoldOutBoundClassifier(ClassifierMixin, BaseEstimator):
    """Unweighted vote of one half's voters, certified on the other half (test-set bound).

    For each half ``g`` of a split voter bank, the classifier ``h_g`` is the
    plain (unweighted) vote of the voters grown on half ``g``; it is fixed
    before the other half's examples are seen, so its error count ``k_g`` on
    those ``m_g`` examples is binomial and, with probability at least
    ``1 - delta / h`` (``h`` halves), ``R(h_g) <= kl^{-1}(k_g / m_g, ln(h / delta) / m_g)``.
    The half with the smaller bound is deployed. Ties of the vote count as
    errors in ``k_g``. For a bank that is not split (e.g. stumps), ``h = 1``
    and the vote of the whole bank is certified on the whole sample (valid
    when the bank does not depend on the training sample).

    Parameters
    ----------
    voters : voter bank or None, default=None
        ``None`` uses ``SplitForest(n_estimators=200)``.
    delta : float in (0, 1], default=0.05
        The bound holds with probability at least ``1 - delta``.
    random_state : int, RandomState instance or None, default=None
        Seeds the voters.
    n_jobs : int or None, default=None
        Parallel jobs for fitting the default forest.

    Attributes
    ----------
    voters_ : voter bank
        The fitted voters.
    half_ : int
        Index of the deployed half (position in the bank's groups).
    weights_ : ndarray of shape (n_voters,)
        Vote weights over the whole bank (1 on the deployed half's voters, 0 elsewhere).
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    certificate_ : Certificate
        Its ingredients (``statistics["errors"]`` holds each half's error count).
    n_iter_ : int
        0 (nothing is trained).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    skpacbayes.OccamBoundClassifier : the best single voter.
    skpacbayes.CertifiedVoteClassifier : learned Gaussian votes, with this bound as a candidate.

    Notes
    -----
    Only i.i.d. training examples are assumed. The deployed vote uses half of
    the voters; the other half's voters only serve to certify the first.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> from skpacbayes.voters import SplitForest
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HoldOutBoundClassifier(voters=SplitForest(n_estimators=20), random_state=0)
    >>> bool(clf.fit(X, y).bound_ < 0.2)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "voters": [None, HasMethods(["fit", "votes"])],
        "delta": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(self, voters=None, delta=0.05, random_state=None, n_jobs=None):
        self.voters = voters
        self.delta = delta
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the voters and certify each half's plain vote on the other half.

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
        """
        from skpacbayes._fitting import _strict_argmax_is
        from skpacbayes.voters import SplitForest

        X, y, _ = validate_training_data(self, X, y)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        default = SplitForest(n_estimators=200)
        self.voters_ = resolve_voters(self.voters, default, seed, self.n_jobs).fit(X, y)
        self.classes_ = np.asarray(self.voters_.classes_)
        y_idx = np.searchsorted(self.classes_, y)
        votes = self.voters_.votes(X)
        groups = _evaluation_groups(self.voters_)
        share = float(self.delta) / len(groups)
        errors, sizes, values = [], [], []
        for g in groups:
            scores = weighted_vote_scores(
                votes[np.ix_(g.samples, g.voters)], np.ones(g.voters.size), self.classes_.size
            )
            n_errors = int(np.sum(~_strict_argmax_is(scores, y_idx[g.samples])))  # ties: errors
            errors.append(n_errors)
            sizes.append(int(g.samples.size))
            values.append(_holdout_bound(n_errors, g.samples.size, share))
        self.half_ = int(np.argmin(values))
        self.weights_ = np.zeros(votes.shape[1])
        self.weights_[groups[self.half_].voters] = 1.0
        self.bound_ = float(values[self.half_])
        self.n_iter_ = 0
        self.certificate_ = Certificate(
            bound="HoldOut",
            posterior="point mass (the prior)",
            value=self.bound_,
            delta=float(self.delta),
            m=tuple(sizes),
            kl=tuple(0.0 for _ in groups),
            mixture_weights=tuple(float(i == self.half_) for i in range(len(groups))),
            statistics={"errors": tuple(errors)},
            gibbs_bound=None,
            b_tilde=None,
            c_tilde=None,
            train_error=errors[self.half_] / sizes[self.half_],
            n_voters=int(votes.shape[1]),
            details={"half": self.half_, "bounds_per_half": tuple(values)},
            n_effective_voters=effective_voters(self.weights_),
        )
        return self

    def recompute_bound(self, delta):
        """Certificate of the deployed vote at another confidence level.

        Parameters
        ----------
        delta : float in (0, 1]
            New confidence parameter, fixed independently of the data.

        Returns
        -------
        bound : float
            Certified upper bound on the risk of ``predict`` at confidence ``1 - delta``
            (the union bound over the halves is kept: the choice of half stays covered).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(SplitForest(n_estimators=10), random_state=0).fit(X, y)
        >>> clf.recompute_bound(clf.delta) == clf.bound_
        True
        """
        check_is_fitted(self)
        if not 0 < delta <= 1:
            raise ValueError(f"delta must be in (0, 1], got {delta!r}.")
        cert = self.certificate_
        share = delta / len(cert.m)
        return min(
            _holdout_bound(k, m, share)
            for k, m in zip(cert.statistics["errors"], cert.m, strict=True)
        )

    def _scores(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return weighted_vote_scores(self.voters_.votes(X), self.weights_, self.classes_.size)

    def decision_function(self, X):
        """Number of the deployed half's voters voting for each class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: votes for ``classes_[1]`` minus votes for ``classes_[0]``;
            multi-class: the votes of every class.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(SplitForest(n_estimators=10), random_state=0).fit(X, y)
        >>> clf.decision_function(X[:1])
        array([[5., 0., 0.]])
        """
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X):
        """Plain vote of the deployed half's voters (ties go to the first class).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels; ``bound_`` certifies their error rate (ties were
            counted as errors).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(SplitForest(n_estimators=10), random_state=0).fit(X, y)
        >>> clf.predict(X[:2])
        array([0, 0])
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Vote shares of the deployed half's voters.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples, with the features seen during ``fit``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Fraction of the deployed voters voting for each class.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from skpacbayes import HoldOutBoundClassifier
        >>> from skpacbayes.voters import SplitForest
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = HoldOutBoundClassifier(SplitForest(n_estimators=10), random_state=0).fit(X, y)
        >>> clf.predict_proba(X[:1])
        array([[1., 0., 0.]])
        """
        scores = self._scores(X)
        return scores / self.weights_.sum()
