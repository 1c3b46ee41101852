"""The Occam bound: the best single voter, chosen on the counts, certified by Occam's razor.

A point mass on one voter has ``KL = ln(n)`` from the uniform prior: the voter of smallest
Seeger bound at that KL is chosen (no optimiser) and certified.
"""

import numpy as np

from skpacbayes.objectives._base import Bound, register

__all__ = ["Occam"]


@register
class Occam(Bound):
    """``kl^-1(r_i, (ln n + ln(2 sqrt(m) / delta)) / m)`` for the chosen voter ``i``.

    The bound of :class:`~skpacbayes.OccamBoundClassifier`.

    Examples
    --------
    >>> from skpacbayes import OccamBoundClassifier
    >>> from skpacbayes.objectives import Occam
    >>> Occam().name
    'Occam'
    """

    name = "Occam"
    reads_counts = True

    def valid_posteriors(self, n_classes, split):
        return ("categorical",)

    def uses_counts(self, posterior, solver, out_of_bag=False):
        return out_of_bag or posterior == "categorical"  # a choice on the counts, any solver

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import pac_bayes_upper

        return pac_bayes_upper(stats["gibbs"], kl, m, delta, weights=weights)

    def choose_on_counts(self, counts, delta):
        """The voter with the smallest Seeger bound, KL = ln(n_half), delta / h per half."""
        from skpacbayes.bounds import kl_inv_upper, seeger_epsilon
        from skpacbayes.engine.certificate import _STAT_SLACK

        h = len(counts.groups)
        best = (np.inf, 0, 0)
        for g, (gs, m) in enumerate(zip(counts.groups, counts.m, strict=True)):
            n_g = gs.rates.size
            eps = seeger_epsilon(np.log(n_g), m, float(delta) / h)
            values = np.asarray(kl_inv_upper(np.clip(gs.rates + _STAT_SLACK, 0, 1), eps))
            i = int(np.argmin(values))
            if values[i] < best[0]:
                best = (values[i], g, i)
        _, g_best, i_best = best
        natural = []
        for g, gs in enumerate(counts.groups):
            n_g = gs.rates.size
            p = np.zeros(n_g) if g == g_best else np.full(n_g, 1.0 / n_g)
            if g == g_best:
                p[i_best] = 1.0
            natural.append(p)
        mixture = np.array([1.0]) if h == 1 else np.eye(h)[g_best]
        return natural, mixture
