"""The deployed classifier of a trained posterior, and its certified partition terms.

Used by the certify step (:mod:`skpacbayes.engine.certify`) and by the partition bound's
tightening (:mod:`skpacbayes.objectives.partition`), which both read the vote that ``predict``
uses.
"""

import numpy as np
import torch

__all__ = ["deployed_classifier", "partition_terms"]


# ---------------------------------------------------------------------- #
# Deployed classifier and certificate (float64, CPU)
# ---------------------------------------------------------------------- #
def deployed_classifier(family, posteriors, natural, mixture, groups):
    """Weights over all voters of the vote ``predict`` uses, and its kind."""
    n_voters = sum(g.voters.size for g in groups)
    weights = np.zeros(n_voters)
    if len(groups) > 1 and family == "gaussian":
        for g, nat in zip(groups, natural, strict=True):
            weights[g.voters] = nat
        return weights, "mixture_bayes"
    for g, post, nat, a in zip(groups, posteriors, natural, mixture, strict=True):
        w = post.vote_weights(torch.from_numpy(nat)).numpy()
        weights[g.voters] = a * w if len(groups) > 1 else w
    return weights, "weighted_vote"


def partition_terms(family, natural, mixture, vote_weights, groups, bits=24, scales=None):
    """Certified (b~, c~) of the deployed vote (:ref:`theory-split`, :ref:`theory-partition`).

    With ``scales``, a list of the terms of the natural parameters ``t natural`` for every
    ``t`` of them, for a search along a ray (the partition tightening): the unsplit
    Dirichlet and Gaussian terms are then those of the exact multiples, from one partition
    certificate for the whole ray (:func:`~skpacbayes.partition._terms.dirichlet_ray_terms`).
    """
    from skpacbayes import partition

    if scales is not None:
        return _ray_terms(family, natural, mixture, vote_weights, groups, bits, list(scales))
    if family == "categorical":
        # the deployed (joint, on split voters) weight vector, exactly as predict uses it
        return partition.categorical_partition_terms(vote_weights, bits=bits)
    if family == "dirichlet":
        if len(natural) == 1:
            return partition.dirichlet_partition_terms(natural[0], bits=bits)
        c = partition.dirichlet_split_c_tilde(natural[0], natural[1], float(mixture[0]), bits=bits)
        return 0.0, c
    if family == "gaussian" and len(natural) == 1:
        return partition.gaussian_partition_terms(natural[0], natural[0].size, bits=bits)
    raise ValueError(f"No partition bound for posterior {family!r} here.")


def _ray_terms(family, natural, mixture, vote_weights, groups, bits, scales):
    """:func:`partition_terms` of ``t natural`` for every ``t`` of ``scales``."""
    from skpacbayes.partition._terms import dirichlet_ray_terms, gaussian_ray_terms

    if family in ("dirichlet", "gaussian") and len(natural) == 1:
        vector = np.asarray(natural[0], dtype=np.float64)
        if family == "dirichlet":
            return dirichlet_ray_terms(vector, scales, bits)
        return gaussian_ray_terms(vector, vector.size, scales, bits)
    if family == "categorical":  # the vote's weights do not change with the scale
        return [partition_terms(family, natural, mixture, vote_weights, groups, bits)] * len(scales)
    return [
        partition_terms(family, [t * n for n in natural], mixture, vote_weights, groups, bits)
        for t in scales
    ]
