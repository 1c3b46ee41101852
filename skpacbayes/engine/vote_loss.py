"""The vote's cross-entropy: the training objective of a bound on the vote's training errors
(:attr:`~skpacbayes.objectives.Capabilities.trains_vote`) and the target of the per-row fits' vote
start; and the vote's training errors, which judge the runs of such a bound."""

import torch

from skpacbayes.engine.optimisers import LBFGS_FTOL, minimize_lbfgs
from skpacbayes.engine.sharing import shared_value

__all__ = ["vote_cross_entropy", "vote_loss", "vote_target", "vote_training_errors"]

_VOTE_START_ITER = 50  # L-BFGS iterations of the vote start's cross-entropy


def vote_cross_entropy(problem, nats, rows_list):
    """Cross-entropy of the weighted vote (training objective of the VC baseline)."""
    total = 0.0
    for g in range(problem.n_groups):
        w = _unit_vote_weights(problem, g, nats[g])
        total = total + vote_loss(problem, g, w, rows_list[g])
    return total


def vote_training_errors(problem, nats):
    """Training errors of the weighted vote of natural parameters ``nats``, summed over the
    halves (ties count as errors; in the training dtype, for the choice among trained
    points only: the certificate counts the deployed vote's errors again in exact
    arithmetic)."""
    wrong = 0
    with torch.no_grad():
        for g, nat in enumerate(nats):
            scores, labels = _vote_scores(problem, g, _unit_vote_weights(problem, g, nat))
            if labels is None:  # s_other - s_true
                wrong += int(torch.count_nonzero(scores >= 0))
            else:  # another class at least as high as the true one
                true = scores.gather(1, labels[:, None])
                wrong += int(torch.count_nonzero((scores >= true).sum(dim=1) > 1))
    return wrong


def _unit_vote_weights(problem, g, nat):
    w = problem.posteriors[g].vote_weights(nat)
    return w / w.abs().sum().clamp_min(1e-12)


def _vote_scores(problem, g, w, rows=None):
    """Scores of the vote of half ``g`` with weights ``w``, on all its rows or on ``rows``.

    Two classes with the error matrix held: ``(s_other - s_true, None)``, read off the errors
    ``e`` as ``2 e.w - sum(w)``; otherwise ``(scores, labels)`` with ``scores`` of shape
    ``(b, n_classes)``.
    """
    if problem.errors is not None and problem.n_classes == 2:
        return torch.sub(2.0 * problem.error_mask(g, rows).matvec(w), w.sum()), None
    votes = problem.indices(g) if rows is None else problem.indices(g)[rows]
    labels = problem.labels[g] if rows is None else problem.labels[g][rows]
    scores = torch.zeros(votes.shape[0], problem.n_classes, dtype=w.dtype, device=w.device)
    scores.scatter_add_(1, votes, w.expand(votes.shape[0], -1))
    return scores, labels


def vote_loss(problem, g, w, rows=None):
    """Cross-entropy of the vote of half ``g`` with weights ``w`` (summing to one in absolute
    value), on all its rows or on ``rows``: ``softmax(20 scores)`` against the labels (two
    classes: ``softplus(20 (s_other - s_true))``)."""
    scores, labels = _vote_scores(problem, g, w, rows)
    if labels is None:
        return torch.nn.functional.softplus(20.0 * scores).mean()
    return torch.nn.functional.cross_entropy(20.0 * scores, labels)


def vote_target(problem, g):
    """Weights on the simplex (NumPy float64) of the vote of half ``g`` of least
    cross-entropy: :func:`vote_loss` minimised over ``softmax(z)`` by L-BFGS from the
    uniform weights, at most ``_VOTE_START_ITER`` iterations.

    It depends on the votes and labels of the half only: the candidates of a selection on
    the same votes (a :func:`~skpacbayes.engine.sharing.shared_votes` block, on the CPU)
    compute it once.
    """

    def compute():
        z = torch.zeros(
            problem.votes[g].shape[1],
            dtype=problem.dtype,
            device=problem.device,
            requires_grad=True,
        )
        minimize_lbfgs(
            [z],
            lambda: vote_loss(problem, g, torch.softmax(z, 0)),
            max_iter=_VOTE_START_ITER,
            ftol=LBFGS_FTOL,
        )
        return torch.softmax(z.detach().to("cpu", torch.float64), 0).numpy()

    if torch.device(problem.device).type != "cpu":
        return compute()

    def key():
        # the loss reads the error matrix (two classes) or the class indices
        held = problem.held(g)
        return ("vote target", problem.digest(g), problem.n_classes, held, problem.dtype)

    return shared_value(key, compute).copy()
