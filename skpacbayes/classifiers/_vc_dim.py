"""The VC-dimension bound classifier (binary)."""

from ._base import POSTERIORS, MajorityVoteClassifier

__all__ = ["VCDimBoundClassifier"]


class VCDimBoundClassifier(MajorityVoteClassifier):
    """Binary majority vote certified by the VC-dimension bound (no PAC-Bayes).

    ``bound_ = train error + sqrt((v (ln(2 m / v) + 1) + ln(4 / delta)) / m)``
    with ``v = n_voters``, the VC dimension of weighted votes of ``n`` fixed
    binary voters (:ref:`theory-pac-bayes`). The weights are learned by minimising
    the cross-entropy of the weighted vote; the posterior family only sets the
    parametrisation of the weights. The voters must be data-independent or
    grown on one half only (``SplitForest(split="single")``); the bound then
    uses the other half. Two classes only: more than two raise a ``ValueError``.

    Parameters
    ----------
    voters, posterior, prior, delta, max_epochs, batch_size, learning_rate, \
early_stopping_patience, device, random_state, verbose, n_jobs
        See :class:`MajorityVoteClassifier`.

    Attributes
    ----------
    bound_ : float
        Certified upper bound on the true risk of ``predict``.
    certificate_ : Certificate
        Its ingredients. Other attributes as :class:`FirstOrderBoundClassifier`.

    Notes
    -----
    Binary only. For more than two classes the reference paper keeps ``v = n``,
    which is not a proven capacity of multi-class votes (the relevant notion is the
    Natarajan dimension), so no multi-class value is reported.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skpacbayes import VCDimBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = VCDimBoundClassifier(max_epochs=5, random_state=0).fit(X, y)
    >>> 0 < clf.bound_ <= 1
    True
    """

    _bound_name = "VC"
    _binary_only = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _valid_posteriors(self, n_classes, split):
        return () if (split or n_classes != 2) else POSTERIORS
