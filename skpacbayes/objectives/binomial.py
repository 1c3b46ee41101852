"""The binomial bound: the risk of the vote of ``N`` voters drawn from the posterior.

Reads the binomial tail of each row's stochastic loss (per row: trained on the error
matrix, with a table of knots in float32; certified with the exact tail in float64).
"""

from skpacbayes.objectives._base import Bound, Capabilities, training_upper

__all__ = ["Binomial"]


class Binomial(Bound, name="Bin", estimator="BinomialBoundClassifier", example="n_draws=10"):
    """``2 kl^-1(mean psi_N(r), (N KL + ln(2 sqrt(m) / delta)) / m)`` (:ref:`theory-classical`).

    Parameters
    ----------
    n_draws : int
        The number ``N`` of voters drawn.

    {estimator}
    """

    statistic_keys = ("binomial",)
    capabilities = Capabilities(fixed_mixture_weight=0.5)  # (the default n_draws's)

    def __init__(self, n_draws=100):
        self.n_draws = int(n_draws)
        # on split voters, the factor 2 of N >= 3 draws needs the halves mixed 1/2 each
        self.capabilities = Capabilities(fixed_mixture_weight=0.5 if self.n_draws >= 3 else None)

    def details(self):
        return {"n_draws": self.n_draws}

    def statistics(self, r_lo, r_hi, mean):
        import torch

        if torch.is_tensor(r_hi):  # the training: the tail read off a table of knots
            from skpacbayes._special import binomial_tail_table

            psi = binomial_tail_table(self.n_draws, r_hi.dtype, r_hi.device)
            return {"binomial": mean(psi(r_hi))}
        from skpacbayes.bounds import binomial_tail  # the certificate: exact, float64

        return {"binomial": mean(binomial_tail(r_hi, self.n_draws))}

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import binomial_bound

        return binomial_bound(stats["binomial"], kl, m, delta, self.n_draws, weights=weights)

    def training_objective(self, stats, kl, m, weights, delta):
        return 2 * training_upper(stats["binomial"], self.n_draws * kl, m, delta, weights)

    def recompute(self, certificate, delta):
        certified = Binomial(certificate.details["n_draws"])  # the N that was certified
        return super(Binomial, certified).recompute(certificate, delta)
