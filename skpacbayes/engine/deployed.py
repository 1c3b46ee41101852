"""The deployed classifier of a trained posterior: the vote ``predict`` uses.

Used by the certify step (:mod:`skpacbayes.engine.certify`) and by the partition bound's
tightening (:mod:`skpacbayes.objectives.partition`), which both read the vote that ``predict``
uses; its certified partition terms are the family's
(:meth:`~skpacbayes.posteriors.Posterior.partition_terms`).
"""

import numpy as np
import torch

from skpacbayes._docstrings import fill_doc
from skpacbayes.engine.certificate import HALVES

__all__ = ["deployed_classifier"]


@fill_doc(halves=HALVES)
def deployed_classifier(family, posteriors, natural, mixture, groups):
    """Weights over all voters of the vote ``predict`` uses, and its kind.

    Parameters
    ----------
    family : type
        The posterior family: on split voters it deploys the mixture's mean vote, or the
        mixture's Bayes classifier (its :attr:`~skpacbayes.posteriors.Posterior.split_deployment`,
        whose weights are then the posterior means).
    {halves}
    groups : list of EvaluationGroup
        The halves.

    Returns
    -------
    weights : ndarray of shape (n_voters,)
        The deployed weights.
    deployed : {"weighted_vote", "mixture_bayes"}
        The kind of the deployed classifier.
    """
    n_voters = sum(g.voters.size for g in groups)
    weights = np.zeros(n_voters)
    if len(groups) > 1 and family.split_deployment == "mixture_bayes":
        for g, nat in zip(groups, natural, strict=True):
            weights[g.voters] = nat
        return weights, "mixture_bayes"
    for g, post, nat, a in zip(groups, posteriors, natural, mixture, strict=True):
        w = post.vote_weights(torch.from_numpy(nat)).numpy()
        weights[g.voters] = a * w if len(groups) > 1 else w
    return weights, "weighted_vote"
