"""The margin bound of the deployed vote (binary tasks, Dirichlet posterior).

Trained as the Seeger bound on the Gibbs risk (on the rows); certified on the margins of the
deployed weights ``theta``: the certified posterior is ``Dir(K theta)`` for the best ``K`` of a
fixed grid (free: the PAC-Bayes statement holds for every posterior at once), at the best
margin of a fixed grid of ``n_margins`` values (``delta`` split evenly over it).
"""

import numpy as np

from skpacbayes.objectives._base import (
    Bound,
    Capabilities,
    CertifiedValue,
    families_where,
    training_upper,
)

__all__ = ["Margin", "margin_grid"]

#: the concentrations ``K`` of the certified posterior ``Dir(K theta)``, fixed in advance
_CONCENTRATIONS = np.logspace(0, 7, 57)


def margin_grid(n_margins):
    """The margins of the bound's grid, fixed before the sample: log-spaced in [1e-3, 1]."""
    return np.logspace(-3, 0, n_margins)


class Margin(Bound, name="Margin", estimator="MarginBoundClassifier", example="n_margins=20"):
    """Margin bound of the deployed vote (theory page, margin section).

    Parameters
    ----------
    n_margins : int
        Size of the grid of margins ``delta`` is split over.

    {estimator}
    """

    # the certificate reads the margins of every row, whose errors jump with the weights
    capabilities = Capabilities(binary_only=True, certifies_from_sums=False, follows_last_bits=True)

    def __init__(self, n_margins=20):
        self.n_margins = int(n_margins)

    def valid_posteriors(self, n_classes, split):
        if split or n_classes != 2:
            return ()
        return families_where(lambda family: family.certifies_margins)

    def training_objective(self, stats, kl, m, weights, delta):
        return training_upper(stats["gibbs"], kl, m, delta, weights)

    def certify(self, inputs):
        import torch

        from skpacbayes import bounds
        from skpacbayes.engine.certificate import raised_kl, raised_statistic

        post = inputs.posteriors[0]
        theta = np.asarray(inputs.vote_weights, dtype=np.float64)
        votes, labels = inputs.rows[0]
        correct = (votes == labels[:, None]).astype(np.float64)
        # margin of the deployed vote, y theta.f(x) = (right weight) - (wrong weight); a
        # float64 sum of n terms of total weight 1 is within n 2^-52 of the exact value: count
        # a row as a margin error as soon as its computed margin is within 4 n 2^-52 of gamma
        margins = correct @ theta - (1.0 - correct) @ theta
        tol = 4.0 * theta.size * np.finfo(np.float64).eps
        m = inputs.m[0]
        gammas = margin_grid(self.n_margins)
        delta_gamma = float(inputs.delta) / gammas.size
        kls = np.array([float(post.kl(torch.from_numpy(k * theta))) for k in _CONCENTRATIONS])
        kls = raised_kl(kls)
        best = (1.0, None, None, None)
        for gamma in gammas:
            margin_error = float(raised_statistic(float(np.mean(margins <= gamma + tol))))
            values = bounds.margin_bound(
                margin_error, float(gamma), _CONCENTRATIONS, kls, m, delta_gamma
            )
            j = int(np.argmin(values))
            if values[j] < best[0]:
                best = (float(values[j]), float(gamma), float(_CONCENTRATIONS[j]), margin_error)
        value, gamma, k, margin_error = best
        if gamma is None:  # vacuous everywhere: report 1 for the trained posterior
            details = {"gamma": None, "concentration": None, "n_margins": gammas.size}
            return CertifiedValue(1.0, details=details)
        t0, t1 = bounds.margin_tails(gamma, k)
        details = {
            "gamma": gamma,
            "concentration": k,
            "n_margins": gammas.size,
            "margin_error": margin_error,
            "t0": float(t0),
            "t1": float(t1),
        }
        natural = [k * theta]
        kl = raised_kl(np.array([float(post.kl(torch.from_numpy(natural[0])))]))
        return CertifiedValue(value, details=details, natural=natural, kl=kl)

    def recompute(self, certificate, delta):
        raise NotImplementedError("recompute_bound is not available for the margin bound.")
