"""The binomial bound classifier."""

from numbers import Integral
from typing import ClassVar

from sklearn.utils._param_validation import Interval

from skpacbayes.objectives import Binomial

from ._base import MajorityVoteClassifier
from ._constraints import MAX_TRAIN_ROWS

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
        "n_draws": [Interval(Integral, 1, None, closed="left")],
    }
    _bound_class = Binomial

    def __init__(
        self,
        *,
        voters=None,
        posterior="categorical",
        prior=None,
        delta=0.05,
        n_draws=100,
        solver="auto",
        max_epochs=100,
        batch_size=1024,
        learning_rate=0.1,
        early_stopping_patience=25,
        device="cpu",
        random_state=None,
        verbose=0,
        n_jobs=None,
        max_train_rows=MAX_TRAIN_ROWS,
    ):
        super().__init__(
            voters=voters,
            posterior=posterior,
            prior=prior,
            delta=delta,
            solver=solver,
            max_epochs=max_epochs,
            batch_size=batch_size,
            learning_rate=learning_rate,
            early_stopping_patience=early_stopping_patience,
            device=device,
            random_state=random_state,
            verbose=verbose,
            n_jobs=n_jobs,
            max_train_rows=max_train_rows,
        )
        self.n_draws = n_draws

    def _bound(self):
        return Binomial(n_draws=self.n_draws)
