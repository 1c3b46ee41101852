"""The partition bound: the Seeger (or cross) bound on the Gibbs risk turned into a bound on the
deployed vote by certified partition terms, and the heuristics that tighten it.

Reads the Gibbs risk (on the counts with a Categorical posterior, where the exact search
finds its optimum; works out of core there). Certifies ``(Lup - b~) / (c~ - b~)``
(:ref:`theory-triple`, :ref:`theory-partition`), where ``b~ <= b`` and ``c~ <= c`` are
certified lower bounds on the mean stochastic loss of correctly / wrongly classified examples,
from a certified solution of the number partitioning problem (:mod:`skpacbayes.partition`).

After training, the tightening heuristics (:ref:`theory-tightening`, ``tighten=True``) move
the weights to enlarge the partition gap. Every candidate posterior is scored with the
partition bound (the partition lower bounds at 16 bits, the Seeger / cross bound with the
full KL and Newton's kl root, a few ulps from the certified one) on the Gibbs risk the engine
computes (from the error counts for a Categorical posterior, from the rows in float32
otherwise), so the values visited only steer the search. Choosing the posterior this way costs
nothing in delta (the PAC-Bayes statement holds for all posteriors of the family
simultaneously and b~, c~ are deterministic functions of the weights); the engine certifies
the returned posterior from scratch in float64, at full resolution, and keeps the lower of
the two certificates.

Moves: H1 clips the smallest weights (a scan over how many), H2 moves single coordinates to
enlarge the partition gap, H3 rescales the L1 norm (Dirichlet and Gaussian, whose objective is
profiled over the scale); finally, Categorical and Dirichlet weights are re-assigned to the
voters by their errors. The search runs in two branches after its first clip scan (its best
and its second best candidate), the lower end kept. The number of objective evaluations is
capped (``max_evaluations``, half of it for the second branch) so that the run time is
bounded and deterministic; the scans are thinned on large supports.
"""

import numpy as np

from skpacbayes.objectives._base import (
    Bound,
    Capabilities,
    CertifiedValue,
    families_where,
    training_upper,
)

__all__ = ["Partition", "PartitionObjective", "tighten", "tighten_partition"]


class Partition(
    Bound, name="Partition", estimator="PartitionBoundClassifier", example="tighten=False"
):
    """The partition bound ``(Lup - b~) / (c~ - b~)``.

    Parameters
    ----------
    tighten : bool
        Run the tightening heuristics after the training.

    {estimator}
    """

    capabilities = Capabilities(  # (the default tighten's)
        reads_counts=True, exact_search="gibbs", follows_last_bits=True, converge_every_start=True
    )

    def __init__(self, tighten=True):
        self.tighten = bool(tighten)
        # the tightening scores partition terms that jump with the weights, and its
        # discontinuous search depends on the last bits of its start
        self.capabilities = Capabilities(
            reads_counts=True,
            exact_search="gibbs",
            follows_last_bits=self.tighten,
            converge_every_start=self.tighten,
        )

    def valid_posteriors(self, n_classes, split):
        return families_where(lambda family: family.has_partition_terms(n_classes, split))

    def training_objective(self, stats, kl, m, weights, delta):
        return training_upper(stats["gibbs"], kl, m, delta, weights)

    def certify(self, inputs):
        from skpacbayes import bounds

        b_tilde, c_tilde = inputs.family.partition_terms(
            inputs.natural, inputs.weights, inputs.vote_weights
        )
        gibbs = inputs.statistics["gibbs"]
        args = (gibbs, inputs.kl, inputs.m, inputs.delta)
        gibbs_bound = float(bounds.pac_bayes_upper(*args, weights=inputs.weights))
        value = bounds.partition_bound(*args, b_tilde, c_tilde, weights=inputs.weights)
        return CertifiedValue(
            value, gibbs_bound=gibbs_bound, b_tilde=float(b_tilde), c_tilde=float(c_tilde)
        )

    def recompute(self, certificate, delta):
        from skpacbayes import bounds

        return float(
            bounds.partition_bound(
                np.asarray(certificate.statistics["gibbs"]),
                np.asarray(certificate.kl),
                list(certificate.m),
                delta,
                certificate.b_tilde,
                certificate.c_tilde,
                weights=np.asarray(certificate.mixture_weights),
            )
        )

    def refine(self, context, natural, mixture):
        if not self.tighten:
            return None
        return tighten_partition(context, natural, mixture)


# ---------------------------------------------------------------------------------------------
# The tightening heuristics
# ---------------------------------------------------------------------------------------------
_SEARCH_BITS = 16
_SCALES = np.exp(np.linspace(-4.0, 6.0, 11))
# budgets of the branches of the search after its first clip scan, in shares of
# max_evaluations (tighten_partition)
_BRANCH_BUDGETS = (1.0, 0.5)


class _Budget(Exception):
    """Raised when the evaluation budget is exhausted."""


class PartitionObjective:
    """Partition bound of a flat weight vector ``theta``, a guide for the search.

    ``theta`` is the deployed parametrisation: non-split, the natural
    parameter of the posterior; split Categorical, the joint weights
    ``(alpha p1, (1 - alpha) p2)``; split Dirichlet, ``(a1, a2)`` with the
    mixture weight kept fixed.

    Parameters
    ----------
    context : RefineContext
        The family, delta, posteriors, sample sizes, groups, Gibbs risks (``gibbs(g,
        nat)``, or ``gibbs(g, nat, scales=ts)`` for those at ``t * nat`` for every ``t``)
        and voter errors of the fit.
    mixture : ndarray
        Mixture weights of the halves.
    max_evaluations : int
        Evaluations after which :class:`_Budget` is raised.
    cache : dict, optional
        Values already computed, by the bytes of ``theta`` (shared between the branches of
        one search; a value read from it is not counted as an evaluation).
    """

    def __init__(self, context, mixture, max_evaluations, cache=None):
        self.posteriors = context.posteriors
        self.m = list(context.m)
        self.gibbs = context.gibbs
        self.errors = context.errors
        self.groups = context.groups
        self.family = context.family
        self.delta = float(context.delta)
        self.mixture = np.asarray(mixture, dtype=np.float64)
        self.offsets = np.cumsum([0] + [g.voters.size for g in self.groups])
        self.evaluations = 0
        self.max_evaluations = max_evaluations
        self.cache = {} if cache is None else cache

    def flatten(self, natural, mixture):
        if len(natural) == 1 or not self.family.scale_free:
            return np.concatenate([np.asarray(n, dtype=np.float64) for n in natural])
        return np.concatenate([a * np.asarray(n) for a, n in zip(mixture, natural, strict=True)])

    def unflatten(self, theta):
        parts = [theta[a:b] for a, b in zip(self.offsets[:-1], self.offsets[1:], strict=True)]
        if not self.family.scale_free:
            return parts, self.mixture
        if len(parts) == 1:
            return [parts[0] / parts[0].sum()], self.mixture
        masses = np.array([p.sum() for p in parts])
        mixture = masses / masses.sum()
        natural = [
            p / s if s > 0 else np.full(p.size, 1.0 / p.size)
            for p, s in zip(parts, masses, strict=True)
        ]
        return natural, mixture

    def sorted_by_errors(self, theta):
        """``theta`` with each half's weights re-assigned, the largest to its best voters.

        Within each half, the weights sorted in decreasing order go to the voters sorted by
        increasing number of errors on that half's rows (ties in voter order). The
        multiset of weights, hence the divergence to the symmetric prior and the partition
        terms, is unchanged; the stochastic losses usually drop.
        """
        out = np.array(theta, dtype=np.float64)
        for g, (a, b) in enumerate(zip(self.offsets[:-1], self.offsets[1:], strict=True)):
            out[a + np.argsort(self.errors[g], kind="stable")] = np.sort(out[a:b])[::-1]
        return out

    def __call__(self, theta):
        return self.profile(theta, (1.0,))[0]

    def profile(self, theta, scales):
        """The values at ``t * theta`` for every ``t`` of ``scales`` (a list).

        Each point counts as one evaluation and is cached as if it were evaluated alone, in
        order: once the budget is spent, the points up to it are cached and :class:`_Budget`
        is raised. The points not cached are evaluated together (:meth:`_values`).
        """
        theta = np.asarray(theta, dtype=np.float64)
        points = [theta if t == 1.0 else t * theta for t in scales]
        keys = [point.tobytes() for point in points]
        missing = []
        for i, key in enumerate(keys):
            if key not in self.cache and key not in (keys[j] for j in missing):
                missing.append(i)
        allowed = missing[: max(0, self.max_evaluations - self.evaluations)]
        if allowed:
            self.evaluations += len(allowed)
            if len(allowed) == 1:  # a point alone: scored as itself
                base, ray = points[allowed[0]], [1.0]
            else:  # the points of the ray through theta
                base, ray = theta, [scales[i] for i in allowed]
            for i, value in zip(allowed, self._values(base, ray), strict=True):
                self.cache[keys[i]] = value
        if len(allowed) < len(missing):
            raise _Budget
        return [self.cache[key] for key in keys]

    def _values(self, theta, scales):
        """The objective at ``t * theta`` for each ``t`` of ``scales`` (a list of floats).

        The whole ray is scored together: the Gibbs risks from the rows' sums of the
        weights formed once (:meth:`~skpacbayes.posteriors.Posterior.scaled_stochastic_losses`),
        the partition terms from one certificate
        (:meth:`~skpacbayes.posteriors.Posterior.ray_partition_terms`),
        the kl roots in one call; each point gets its own KL.
        """
        import torch

        from skpacbayes import bounds
        from skpacbayes.bounds._kl import newton_kl_inv_upper
        from skpacbayes.engine.certificate import raised_kl
        from skpacbayes.engine.deployed import deployed_classifier

        family = self.family
        points = [theta if t == 1.0 else t * theta for t in scales]
        valid = [
            bool(np.all(np.isfinite(x))) and (not family.nonnegative_weights or x.sum() > 0)
            for x in points
        ]
        out = np.full(len(scales), np.inf)
        if not any(valid):
            return out.tolist()
        ray = [t for t, ok in zip(scales, valid, strict=True) if ok]
        direction, mixture = self.unflatten(theta)
        h = len(direction)
        gibbs = np.array([self.gibbs(g, n, scales=ray) for g, n in enumerate(direction)]).T
        weights, _ = deployed_classifier(family, self.posteriors, direction, mixture, self.groups)
        terms = family.ray_partition_terms(direction, mixture, weights, ray, _SEARCH_BITS)
        kl = np.empty((len(ray), h))
        with torch.no_grad():
            for i, t in enumerate(ray):
                for g, (post, n) in enumerate(zip(self.posteriors, direction, strict=True)):
                    nat = torch.from_numpy(n if t == 1.0 else t * n)
                    nat = family.into_domain(nat, torch.float32)
                    kl[i, g] = raised_kl(float(post.kl(nat)))
        # bounds.partition_bound with Newton's kl roots (NumPy, a tenth of the certified
        # search's time): the cross bound over the halves, each at delta / h
        eps = bounds.seeger_epsilon(kl, np.array(self.m, dtype=np.float64), self.delta / h)
        l_up = np.fmin(1.0, newton_kl_inv_upper(gibbs, eps) @ mixture)
        values = [
            bounds.triple_bound(float(u), b, c) for u, (b, c) in zip(l_up, terms, strict=True)
        ]
        out[np.flatnonzero(valid)] = values
        return out.tolist()


def _profiled(objective, theta, scaled, refine=False):
    """Objective profiled over the L1 scale: (best value, best scale).

    A log-spaced grid of scales in [e^-4, e^6]; with ``refine``, a golden-section
    refinement on log t between the best point's neighbours.
    """
    if not scaled:
        return objective(theta), 1.0
    profile = getattr(objective, "profile", None)
    if profile is None:
        values = [objective(t * theta) for t in _SCALES]
    else:  # the whole ray at once (PartitionObjective)
        values = profile(theta, list(_SCALES))
    i = int(np.argmin(values))
    best_value, best_t = values[i], _SCALES[i]
    if not refine:
        return best_value, best_t
    # bounded refinement on log t (golden section) between the neighbours
    lo = np.log(_SCALES[max(i - 1, 0)])
    hi = np.log(_SCALES[min(i + 1, _SCALES.size - 1)])
    golden = (np.sqrt(5) - 1) / 2
    for _ in range(8):
        a = hi - golden * (hi - lo)
        b = lo + golden * (hi - lo)
        fa, fb = objective(np.exp(a) * theta), objective(np.exp(b) * theta)
        for f, x in ((fa, a), (fb, b)):
            if f < best_value:
                best_value, best_t = f, np.exp(x)
        if fa <= fb:
            hi = b
        else:
            lo = a
    return best_value, best_t


def _clip_candidates(theta, family):
    """H1: all but the ``keep`` largest non-zero weights clipped, for a scan over ``keep``
    (what a clipped weight becomes is the family's:
    :meth:`~skpacbayes.posteriors.Posterior.clip_candidates`).

    Every count is tried on small supports; on large ones a geometric grid of kept
    counts (1, 2, 3, 4, 6, 8, 11, ...), fewest first since sparse votes are where the
    partition gap opens.
    """
    nz = np.flatnonzero(theta != 0)
    order = nz[np.argsort(np.abs(theta[nz]), kind="stable")]
    n = order.size
    if n <= 1:
        return
    if n <= 24:
        kept = range(1, n)
    else:
        kept = sorted({int(round(1.4142**i)) for i in range(64) if round(1.4142**i) < n})
    for keep in kept:
        yield from family.clip_candidates(theta, order[: n - keep])


def _heavier_side(theta):
    """Coordinates on the heavier side of a (near-)optimal partition of |theta|."""
    from skpacbayes import partition

    a = np.abs(theta)
    nz = np.flatnonzero(a > 0)
    if nz.size <= 18:
        result = partition.certified_cstar(a[nz])
        chosen = np.zeros(nz.size, dtype=bool)
        chosen[np.asarray(result.subset, dtype=int)] = True
        return set(nz[chosen].tolist())
    totals = [0.0, 0.0]  # greedy: directions only, never a bound
    groups = ([], [])
    for i in nz[np.argsort(-a[nz], kind="stable")]:
        j = 0 if totals[0] <= totals[1] else 1
        groups[j].append(int(i))
        totals[j] += a[i]
    return set(groups[0] if totals[0] >= totals[1] else groups[1])


def tighten(theta, objective, family, *, max_rounds=4, max_coordinates=40, h1_rank=0):
    """Run H1-H3 on ``theta`` and return the best parameters found.

    Parameters
    ----------
    theta : ndarray
        Starting (flat) parameters.
    objective : callable
        Certified bound of a parameter vector; an objective with a ``profile(theta, scales)``
        method (:class:`PartitionObjective`) has each scan over the scale evaluated by it.
    family : str or type
        The posterior family (its name or its class): H3 rescales the families that are not
        scale-free, and H1 clips weights as the family does.
    max_rounds : int
        Rounds of H1 + H2 (+ H3), stopped early when a round gains < 1e-12.
    max_coordinates : int
        H2 visits at most this many of the largest coordinates per pass.
    h1_rank : int, default=0
        Which point the first clip scan moves to: 0, the best of its candidates (below the
        start); ``r``, the ``r``-th best of their distinct values (a second branch of the
        search, :func:`tighten_partition`), or the start where there are fewer.

    Returns
    -------
    theta : ndarray
        Parameters with the lowest certified bound visited (never worse than
        ``theta`` itself: the start is the first point visited).
    value : float
        The objective at the returned parameters (at search resolution).
    """
    from skpacbayes.posteriors import get_family

    family = get_family(family)
    scaled = not family.scale_free

    def J(x):
        """Profiled value of ``x`` and the point it was reached at (``x`` at its best scale)."""
        value, t = _profiled(objective, x, scaled)
        return value, t * x

    # the value kept with ``best`` is always the objective AT ``best`` (the scale included)
    best = np.asarray(theta, dtype=np.float64).copy()
    best_value = np.inf
    try:
        best_value = objective(best)
        for round_ in range(max_rounds):
            start_value = best_value
            # H1: clip scan (the first one of a second branch keeps every candidate)
            branching = round_ == 0 and h1_rank > 0
            scanned = []
            for cand in list(_clip_candidates(best, family)):
                value, point = J(cand)
                if branching:
                    scanned.append((value, point))
                elif value < best_value - 1e-12:
                    best, best_value = point, value
            if branching:
                below = {round(v, 9): (v, p) for v, p in scanned if v < best_value - 1e-12}
                ranked = sorted(below.values(), key=lambda vp: vp[0])
                if len(ranked) > h1_rank:
                    best_value, best = ranked[h1_rank]
            # H2: multiplicative coordinate moves
            eta = 0.5
            while eta >= 1 / 64:
                heavy = _heavier_side(best)
                accepted = False
                nz = np.flatnonzero(best != 0)
                for i in nz[np.argsort(-np.abs(best[nz]), kind="stable")][:max_coordinates]:
                    cand = best.copy()
                    cand[i] *= (1 + eta) if i in heavy else (1 - eta)
                    value, point = J(cand)
                    if value < best_value - 1e-12:
                        best, best_value, accepted = point, value, True
                        heavy = _heavier_side(best)
                if not accepted:
                    eta /= 2
            # H3: rescale
            if scaled:
                value, t = _profiled(objective, best, True, refine=True)
                if value <= best_value:
                    best, best_value = t * best, value
            if best_value > start_value - 1e-12:
                break
    except _Budget:
        pass
    return best, best_value


def tighten_partition(context, natural, mixture, max_evaluations=600):
    """Apply :func:`tighten` to a trained posterior; returns (natural, mixture).

    ``context`` and ``mixture`` are those of :class:`PartitionObjective`. The search runs in
    two branches, with budgets of
    ``max_evaluations`` and half of it (the values of the first are read by the second for
    free, its first clip scan among them): the first clip scan moves to its best candidate,
    then to its second best distinct value (:func:`tighten`'s ``h1_rank``); the lower end is
    kept. The bound is
    discontinuous in the weights (the partition terms), so the greedy descent from the first
    scan's choice depends on the last bits of the start; the second branch makes the result
    at most the first's and less sensitive to them. Categorical and Dirichlet weights found
    are then re-assigned so that the largest go to the voters with the fewest errors
    (:meth:`PartitionObjective.sorted_by_errors`: the same weights, so the same sparsity),
    kept if that scores lower.
    """
    import torch

    cache = {}
    family = context.family

    def objective_of(budget):
        return PartitionObjective(context, mixture, budget, cache)

    objective = objective_of(max_evaluations)
    start = objective.flatten(natural, mixture)
    branches = [
        tighten(start, objective_of(int(share * max_evaluations)), family, h1_rank=r)
        for r, share in enumerate(_BRANCH_BUDGETS)
    ]
    theta, value = min(branches, key=lambda branch: branch[1])  # the first on a tie
    if family.nonnegative_weights:
        final = objective_of(_SCALES.size + 1)
        rearranged = final.sorted_by_errors(theta)
        if not np.array_equal(rearranged, theta):
            new_value, t = _profiled(final, rearranged, not family.scale_free)
            if new_value < value:
                theta = t * rearranged
    theta = family.into_domain(theta, torch.float64)
    new_natural, new_mixture = objective.unflatten(theta)
    return [np.asarray(n, dtype=np.float64) for n in new_natural], np.asarray(new_mixture)
