"""The binomial bound classifier."""

from typing import ClassVar

from skpacbayes.objectives import Binomial

from ._base import MajorityVoteClassifier
from ._constraints import Integers, keyword_init

__all__ = ["BinomialBoundClassifier"]


class BinomialBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the binomial bound with ``n_draws`` voters.

    ``bound_ = 2 kl^-1(mean P(Bin(N, r) >= ceil(N/2)), (N KL + ln(2 sqrt(m)/delta)) / m)``
    (:ref:`theory-classical`). ``N`` is fixed before seeing the data; on split voters with
    ``N >= 3`` the halves are mixed with weight 1/2 each (:ref:`theory-split`).

    Parameters
    ----------
    voters, posterior, prior, delta
        See :class:`MajorityVoteClassifier`.
    n_draws : int, default=100
        The number ``N`` of independent voter draws.
    solver, max_epochs, batch_size, learning_rate, early_stopping_patience, device, \
random_state, verbose, n_jobs, max_train_rows
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
    >>> from skpacbayes import BinomialBoundClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = BinomialBoundClassifier(n_draws=10, max_epochs=5, random_state=0).fit(X, y)
    >>> 0 < clf.bound_ <= 1
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "n_draws": [Integers(1, None, closed="left")],
    }
    _bound_class = Binomial

    __init__ = keyword_init(MajorityVoteClassifier, after="delta", n_draws=100)

    def _bound(self):
        return Binomial(n_draws=self.n_draws)
