"""The C-bound (PAC-Bound 1): the Gibbs risk and the disagreement, binary tasks only.

Reads the Gibbs risk and the disagreement (on the pair counts with a Categorical posterior,
where L-BFGS starts from the tandem bound's exact optimum); works out of core.
"""

from skpacbayes.objectives._base import Bound, Capabilities, training_upper

__all__ = ["CBound"]


def _minimum(a, b):
    """Elementwise minimum for NumPy arrays and torch tensors alike."""
    if hasattr(a, "clamp"):
        import torch

        return torch.minimum(a, b)
    import numpy as np

    return np.minimum(a, b)


class CBound(Bound, name="CBound", estimator="CBoundClassifier"):
    """``1 - (1 - 2 G)^2 / (1 - 2 D)`` with certified ``G`` and ``D`` (:ref:`theory-classical`).

    {estimator}
    """

    statistic_keys = ("gibbs", "disagreement")
    # on the counts, L-BFGS starts from the tandem optimum (the C-bound is below the
    # second-order bound)
    capabilities = Capabilities(binary_only=True, reads_counts=True, exact_start="tandem")

    def statistics(self, r_lo, r_hi, mean):
        # 2 r (1 - r) is concave: its minimum over [r_lo, r_hi] is at an end.
        d_lo = 2 * r_lo * (1 - r_lo)
        d_hi = 2 * r_hi * (1 - r_hi)
        return {"gibbs": mean(r_hi), "disagreement": mean(_minimum(d_lo, d_hi))}

    def value(self, stats, kl, m, weights, delta):
        from skpacbayes.bounds import cbound_bound

        return cbound_bound(stats["gibbs"], stats["disagreement"], kl, m, delta, weights=weights)

    def training_objective(self, stats, kl, m, weights, delta):
        # where the Gibbs bound is >= 1/2 the C-bound is flat at 1: descend the Gibbs bound
        import torch

        # (a torch.where, not a test of the value: no host synchronisation in the training)
        g_up = training_upper(stats["gibbs"], kl, m, delta / 2, weights)
        bound = self.value(stats, kl, m, weights, delta)
        return torch.where(g_up.detach() >= 0.5, 1 + g_up, bound)
