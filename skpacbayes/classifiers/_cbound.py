"""The C-bound classifier (binary)."""

from skpacbayes.objectives import CBound

from ._base import MajorityVoteClassifier

__all__ = ["CBoundClassifier"]


class CBoundClassifier(MajorityVoteClassifier):
    """Binary majority vote certified by the C-bound (PAC-Bound 1, :ref:`theory-classical`).

    Two PAC-Bayes statements at ``delta / 2`` each: an upper bound on the
    Gibbs risk and a lower bound on the expected disagreement, combined by
    Chebyshev-Cantelli.

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
    >>> from skpacbayes import CBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = CBoundClassifier(max_epochs=5, random_state=0).fit(X, y)
    >>> 0 < clf.bound_ <= 1
    True
    """

    _bound_class = CBound

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
