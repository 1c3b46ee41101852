"""One L-BFGS descent of a posterior's parameters, in the coordinates it is searched in.

Shared by both paths (:mod:`skpacbayes.engine.counts`, :mod:`skpacbayes.engine.rows`): the
search coordinates (the square roots of the probabilities of a family that asks for them), the
box L-BFGS-B keeps them in (the family's), the mixture weight of split voters, and the early
stop of a run that arrives where an earlier one ended.
"""

import math

import numpy as np
import torch

from skpacbayes.engine.optimisers import LBFGS_FTOL, minimize_lbfgs

__all__ = ["caught_up", "mixture_weights", "run_lbfgs", "stack_stats"]

_CAUGHT_UP_TOL = 1e-5  # a later run within this of an earlier end, and as slow, stops
# Box of the mixture's logit (those of the posteriors' coordinates are their families':
# Posterior.search_bounds).
_ALPHA_BOUNDS = (-50.0, 50.0)


def caught_up(history, level):
    """Whether a run has arrived where an earlier one ended, at ``level``: its last iterate is
    within ``_CAUGHT_UP_TOL`` (relative) of it and gained less than that over the one before.

    Multi-start runs mostly end at the same point; the later ones would spend their last
    third creeping down the last ``1e-5``. A run that goes on below the level does not stop.
    """
    if len(history) < 2 or not math.isfinite(level):
        return False
    tol = _CAUGHT_UP_TOL * max(1.0, abs(history[-1]))
    return abs(history[-1] - level) <= tol and history[-2] - history[-1] <= tol


def _square_root_search(spec, post):
    """Whether L-BFGS searches ``post`` in the square roots of its probabilities
    (:func:`_to_search`): a family that asks for them
    (:attr:`~skpacbayes.posteriors.Posterior.square_root_search`, the Categorical) under a
    PAC-Bayes objective.

    In these coordinates the KL's curvature is the Fisher metric of the family, four times
    the identity; in the logits it is ``p_i`` along coordinate ``i``, so that the many small
    weights of a trained posterior make the objective ill-conditioned and L-BFGS creeps
    through them. A bound that trains the vote's cross-entropy (no KL term) keeps the logits.
    """
    return post.square_root_search and not spec.bound.capabilities.trains_vote


def _to_search(raw, square_root):
    """The coordinates L-BFGS searches for the raw parameter ``raw``: ``raw`` itself, or with
    ``square_root`` (a Categorical posterior, :func:`_square_root_search`) the square roots
    ``x = sqrt(softmax(raw))`` of its probabilities (its family's ``raw`` are logits)."""
    if not square_root:
        return raw
    return torch.exp(0.5 * (raw - torch.logsumexp(raw, dim=-1, keepdim=True)))


def _from_search(x, square_root):
    """The raw parameter of the L-BFGS coordinates ``x`` (see :func:`_to_search`): with
    ``square_root`` the logits ``2 ln|x|``, whose ``softmax`` is ``x**2 / sum(x**2)`` for any
    ``x`` (a zero stays a zero, with a zero gradient)."""
    if not square_root:
        return x
    return 2.0 * torch.log(x.abs().clamp_min(torch.finfo(x.dtype).tiny))


def run_lbfgs(spec, posteriors, objective, start, rank=None, level=math.inf):
    """L-BFGS from ``start`` (raw tensors, one per group), at most ``max_epochs`` iterations.

    ``objective(raws, weights)`` is minimised over the raws, in the coordinates of
    :func:`_to_search`, and, on split voters with a free mixture weight, over
    ``alpha = sigmoid(alpha_raw)`` (from 1/2); with ``rank(raws)``, the evaluated point of
    lowest rank is kept (:func:`minimize_lbfgs`). The run stops once it has caught up with
    ``level``, the lowest end of the runs before it (:func:`caught_up`). Returns float64
    natural parameters, the mixture, the history and the iterations.
    """
    h = len(posteriors)
    fixed = spec.bound.capabilities.fixed_mixture_weight
    free_alpha = h > 1 and fixed is None
    bounds = [post.search_bounds for post in posteriors]
    bounds += [_ALPHA_BOUNDS] if free_alpha else []
    logger = spec.log if spec.verbose > 1 else None
    roots = [_square_root_search(spec, post) for post in posteriors]
    params = [
        _to_search(raw.detach(), root).clone().requires_grad_(True)
        for raw, root in zip(start, roots, strict=True)
    ]
    dtype, device = params[0].dtype, params[0].device
    alpha_raw = torch.zeros((), dtype=dtype, device=device, requires_grad=free_alpha)
    params += [alpha_raw] if free_alpha else []

    def raws():
        return [_from_search(x, root) for x, root in zip(params[:h], roots, strict=True)]

    def value():
        return objective(raws(), mixture_weights(alpha_raw, fixed, h, dtype, device))

    result = minimize_lbfgs(
        params,
        value,
        max_iter=int(spec.max_epochs),
        ftol=LBFGS_FTOL,
        bounds=bounds,
        logger=logger,
        rank=None if rank is None else (lambda: rank(raws())),
        stop=lambda history: caught_up(history, level),
    )
    spec.log(f"L-BFGS: objective {result.value:.6f} after {result.n_iter} iterations")
    with torch.no_grad():
        natural = [
            post.natural(_from_search(x.detach().to("cpu", torch.float64), root)).numpy().copy()
            for post, x, root in zip(posteriors, params[:h], roots, strict=True)
        ]
    alpha = float(torch.sigmoid(alpha_raw.detach().double())) if free_alpha else fixed
    mixture = np.array([1.0]) if h == 1 else np.array([alpha, 1.0 - alpha])
    return natural, mixture, result.history, result.n_iter


def mixture_weights(alpha_raw, fixed, n_groups, dtype, device):
    """The mixture weights of the halves as a tensor: ``[1]`` for one group, else ``(a, 1 - a)``
    with ``a`` the fixed weight or ``sigmoid(alpha_raw)``."""
    if n_groups == 1:
        return torch.ones(1, dtype=dtype, device=device)
    if fixed is not None:  # a fill on the device, not a copy from the host (capturable)
        a = torch.full((), fixed, dtype=dtype, device=device)
    else:
        a = torch.sigmoid(alpha_raw)
    return torch.stack([a, 1 - a])


def stack_stats(per_group):
    """Per-group statistics (dicts of tensors) stacked into one dict of tensors."""
    keys = per_group[0].keys()
    return {k: torch.stack([s[k] for s in per_group]) for k in keys}
