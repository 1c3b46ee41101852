"""The deployed classifier of a family that deploys the mixture's Bayes classifier on split
voters (the Gaussian's, :attr:`~skpacbayes.posteriors.Posterior.split_deployment`), whose class
scores are the win probabilities ``P_Q(y wins)`` (:ref:`theory-split`)."""

import math

import numpy as np
import torch

from skpacbayes.engine.problem import ROW_CHUNK
from skpacbayes.engine.spec import make_posterior
from skpacbayes.engine.statistics import EvaluationGroup

__all__ = ["mixture_scores", "mixture_win_probabilities"]


def mixture_scores(posteriors, natural, mixture, groups, votes, decide=False):
    """Mixture's win probabilities ``P_Q(y wins)``, shape (n_samples, n_classes).

    See :ref:`theory-split`.

    With ``decide=True`` (multi-class) only the entries that can be the row's maximum are
    computed, and only on the rows where the closed-form bounds leave it in doubt (see
    :func:`_mixture_decision_scores`): the strict arg-max is the same at a fraction of the
    cost (most rows need no integral, the others one instead of one per class).
    """
    halves = [
        (post, torch.from_numpy(np.asarray(nat)), a, np.ascontiguousarray(votes[:, g.voters]))
        for post, nat, a, g in zip(posteriors, natural, mixture, groups, strict=True)
    ]
    parts = []
    with torch.no_grad():
        for s in range(0, votes.shape[0], ROW_CHUNK):
            rows = slice(s, s + ROW_CHUNK)
            chunk = [(post, nat, a, torch.from_numpy(v[rows])) for post, nat, a, v in halves]
            if decide and posteriors[0].n_classes > 2:
                parts.append(_mixture_decision_scores(chunk))
            else:
                parts.append(sum(a * post.win_probabilities(nat, v) for post, nat, a, v in chunk))
    return torch.cat(parts).numpy()


_DECISION_MARGIN = 1e-9  # far above the certified integrals' error (about 1e-11)


def _mixture_decision_scores(halves):
    """Scores with the strict arg-max of the mixture's win probabilities, at a fraction of
    their cost: certified values where a row's maximum is in doubt, closed-form bounds
    elsewhere.

    Each half's :meth:`~skpacbayes.posteriors.Gaussian.win_probability_bounds` (closed
    form, valid for the exact values) mixes into lower and upper bounds ``L`` and ``U``;
    the class of largest ``U`` leads. Where the leader's ``L`` exceeds every other class's
    ``U`` by more than ``1e-9`` (a clear vote: most rows), the leader's entry is ``L`` and
    the others' their ``U``: the leader is the strict arg-max of the exact win probabilities,
    and no integral is computed. On the other rows the leader gets its certified win
    probability ``V``, and every other class whose ``U`` reaches ``V - 1e-9`` its certified
    value too; a class left at ``U < V - 1e-9`` is below the evaluated maximum. The strict
    arg-max (and a tie among evaluated entries) is thus that of the full matrix of
    certified win probabilities.
    """
    lower = upper = 0.0
    for post, nat, a, v in halves:
        low, up = post.win_probability_bounds(nat, v)
        lower, upper = lower + a * low, upper + a * up
    b = upper.shape[0]
    rows = torch.arange(b)
    lead = upper.argmax(dim=1)
    scores = upper.clone()
    scores[rows, lead] = -math.inf
    clear = lower[rows, lead] - _DECISION_MARGIN > scores.amax(dim=1)
    scores[rows, lead] = torch.where(clear, lower[rows, lead], upper[rows, lead])

    def certified(r, t):
        return sum(a * post.win_probability(nat, v[r], t) for post, nat, a, v in halves)

    doubt = torch.nonzero(~clear).reshape(-1)
    if doubt.numel() == 0:
        return scores
    every = doubt.numel() == b  # every row: no copy of the votes
    scores[doubt, lead[doubt]] = certified(slice(None) if every else doubt, lead[doubt])
    ahead = scores[rows, lead] - _DECISION_MARGIN
    close = (upper >= ahead[:, None]) & ~clear[:, None]
    close[rows, lead] = False
    r, t = torch.nonzero(close, as_tuple=True)
    if r.numel():
        scores[r, t] = certified(r, t)
    return scores


def mixture_win_probabilities(
    posterior, prior, groups, natural, mixture, n_classes, votes, decide=False
):
    """Mixture's win probabilities P_Q(y wins) of a posterior on split voters.

    Used by ``predict`` (``decide=True``: only the entries that decide the arg-max are
    exact, see :func:`mixture_scores`), ``predict_proba`` and ``decision_function`` of
    the split estimators whose family deploys the mixture's Bayes classifier (the
    Gaussian's, :ref:`theory-split`).

    Parameters
    ----------
    posterior : str
        The posterior family's name.
    prior : float or None
        The prior's parameter.
    groups : list of (ndarray, ndarray)
        The voters and rows of each half.
    natural : list of ndarray
        The posterior means of each half.
    mixture : ndarray
        The mixture weights of the halves.
    n_classes : int
        Number of classes.
    votes : ndarray of shape (n_samples, n_voters)
        Class indices voted.
    decide : bool, default=False
        Only the entries that decide the arg-max are exact.
    """
    groups = [EvaluationGroup(v, s) for v, s in groups]
    posteriors = [make_posterior(posterior, g.voters.size, n_classes, prior) for g in groups]
    return mixture_scores(posteriors, natural, mixture, groups, votes, decide=decide)
