"""The second-order (tandem) bound: four times the Seeger bound on the tandem risk.

Reads the tandem risk, the mean squared stochastic loss (on the pair counts with a
Categorical posterior, where the exact search finds its optimum); certifies out-of-bag banks;
works out of core.
"""

from skpacbayes.objectives._base import Bound, Capabilities, training_upper

__all__ = ["SecondOrder"]


class SecondOrder(Bound, name="SO", estimator="SecondOrderBoundClassifier"):
    """``4 kl^-1(mean r^2, (2 KL + ln(2 sqrt(m) / delta)) / m)`` (:ref:`theory-classical`).

    {estimator}
    """

    statistic_keys = ("tandem",)
    capabilities = Capabilities(reads_counts=True, exact_search="tandem", certifies_out_of_bag=True)

    def statistics(self, r_lo, r_hi, mean):
        return {"tandem": mean(r_hi * r_hi)}

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import second_order_bound

        return second_order_bound(stats["tandem"], kl, m, delta, weights=weights)

    def training_objective(self, stats, kl, m, weights, delta):
        return 4 * training_upper(stats["tandem"], 2 * kl, m, delta, weights)
