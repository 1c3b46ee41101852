"""The second-order (tandem) bound classifier."""

from skpacbayes.objectives import SecondOrder

from ._base import MajorityVoteClassifier

__all__ = ["SecondOrderBoundClassifier"]


class SecondOrderBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the second-order (tandem) bound.

    ``bound_ = 4 kl^-1(mean r^2, (2 KL + ln(2 sqrt(m) / delta)) / m)``
    (:ref:`theory-classical`, :ref:`theory-split`). With
    ``voters=OutOfBagVoters(...)`` (Categorical posterior only), the out-of-bag
    tandem bound of the vote of ALL the members: each pair of members is
    evaluated on the rows out of bag for both, and ``m`` is the smallest such set
    (:ref:`theory-out-of-bag`; Masegosa et al., 2020).

    Parameters
    ----------
    voters, posterior, prior, delta, solver, max_epochs, batch_size, learning_rate, \
early_stopping_patience, device, random_state, verbose, n_jobs, max_train_rows
        See :class:`MajorityVoteClassifier`.

    Attributes
    ----------
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    certificate_ : Certificate
        Its ingredients. Other attributes as :class:`FirstOrderBoundClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import SecondOrderBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = SecondOrderBoundClassifier(max_epochs=5, random_state=0).fit(X, y)
    >>> 0 < clf.bound_ <= 1
    True
    """

    _bound_class = SecondOrder
