"""The first-order ("factor 2") bound: twice the Seeger bound on the Gibbs risk.

Reads the Gibbs risk, the mean stochastic loss (on the counts with a Categorical posterior,
where the exact search finds its optimum); certifies out-of-bag banks; works out of core.
"""

from skpacbayes.objectives._base import Bound, Capabilities, training_upper

__all__ = ["FirstOrder"]


class FirstOrder(Bound, name="FO", estimator="FirstOrderBoundClassifier"):
    """``2 kl^-1(mean r, (KL + ln(2 sqrt(m) / delta)) / m)`` (:ref:`theory-classical`).

    {estimator}
    """

    capabilities = Capabilities(reads_counts=True, exact_search="gibbs", certifies_out_of_bag=True)

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import first_order_bound

        return first_order_bound(stats["gibbs"], kl, m, delta, weights=weights)

    def training_objective(self, stats, kl, m, weights, delta):
        # the bound without its clipping at 1 (whose gradient vanishes)
        return 2 * training_upper(stats["gibbs"], kl, m, delta, weights)
