"""The Occam bound: the best single voter, chosen on the counts, certified by Occam's razor.

A point mass on one voter has ``KL = ln(n)`` from the uniform prior: the voter of smallest
Seeger bound at that KL is chosen (no optimiser) and certified.
"""

import numpy as np

from skpacbayes.objectives._base import Bound, Capabilities, families_where

__all__ = ["Occam"]


class Occam(Bound, name="Occam", estimator="OccamBoundClassifier"):
    """``kl^-1(r_i, (ln n + ln(2 sqrt(m) / delta)) / m)`` for the chosen voter ``i``.

    {estimator}
    """

    # a choice on the counts, whatever the solver
    capabilities = Capabilities(reads_counts=True, chooses_on_counts=True)

    def valid_posteriors(self, n_classes, split):
        # a point mass on one voter, of a family the counts certify
        return families_where(lambda family: family.counts_suffice)

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import pac_bayes_upper

        return pac_bayes_upper(stats["gibbs"], kl, m, delta, weights=weights)

    def choose_on_counts(self, rates, m, delta):
        """The voter with the smallest Seeger bound, KL = ln(n_half), delta / h per half."""
        from skpacbayes.bounds import kl_inv_upper, seeger_epsilon
        from skpacbayes.engine.certificate import raised_statistic

        h = len(rates)
        best = (np.inf, 0, 0)
        for g, (r, m_g) in enumerate(zip(rates, m, strict=True)):
            eps = seeger_epsilon(np.log(r.size), m_g, float(delta) / h)
            values = np.asarray(kl_inv_upper(raised_statistic(r), eps))
            i = int(np.argmin(values))
            if values[i] < best[0]:
                best = (values[i], g, i)
        _, g_best, i_best = best
        natural = []
        for g, r in enumerate(rates):
            p = np.zeros(r.size) if g == g_best else np.full(r.size, 1.0 / r.size)
            if g == g_best:
                p[i_best] = 1.0
            natural.append(p)
        mixture = np.array([1.0]) if h == 1 else np.eye(h)[g_best]
        return natural, mixture
