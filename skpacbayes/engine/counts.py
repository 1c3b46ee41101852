"""The count path: a posterior fitted and certified on the voters' error counts.

For a bound that reads the sample only through the error counts of the voters and pairs of
voters (:attr:`~skpacbayes.objectives.Capabilities.reads_counts`) with a family whose
statistics are functions of them (:attr:`~skpacbayes.posteriors.Posterior.counts_suffice`,
the Categorical), and for every out-of-bag bank, one chunked pass counts them
(:mod:`skpacbayes.engine.statistics`); the optimiser works on the counts (the exact search the
bound declares, :mod:`skpacbayes.engine.exact_search`, its choice in closed form, or L-BFGS)
and the certificate reads the same counts (:ref:`theory-statistics`).
"""

import math

import numpy as np
import torch

from skpacbayes.engine.certificate import raised_statistic
from skpacbayes.engine.certify import PosteriorStatement, better, certify, result
from skpacbayes.engine.descent import run_lbfgs, stack_stats
from skpacbayes.engine.exact_search import gibbs_search, tandem_search
from skpacbayes.engine.optimisers import (
    MIN_STEPS_PER_EPOCH,
    POLISH_MAX_ITER,
    polish,
    resolve_device,
    train,
)
from skpacbayes.engine.parallel import thread_limit
from skpacbayes.engine.spec import RefineContext, make_posterior
from skpacbayes.engine.statistics import (
    certified_statistics,
    count_statistic_tensors,
    needs_pairs,
    statistics_of,
)

__all__ = ["Counts", "count_objective", "fit_on_counts", "uses_counts"]


def uses_counts(spec, out_of_bag=False):
    """Whether the fit of ``spec`` runs on the error counts (the count path) rather than on
    the rows.

    Every out-of-bag bank does (each voter has its own rows); otherwise a bound that reads
    the counts (:attr:`~skpacbayes.objectives.Capabilities.reads_counts`) with a family whose
    statistics are functions of them (:attr:`~skpacbayes.posteriors.Posterior.counts_suffice`),
    unless Adam is asked for (it steps over the rows), except for a bound that chooses its
    posterior on the counts in closed form whatever the solver.

    Parameters
    ----------
    spec : FitSpec
        The fit's specification.
    out_of_bag : bool, default=False
        Whether the bank is out of bag.

    Returns
    -------
    bool
        True for the count path.
    """
    if out_of_bag:
        return True
    capabilities = spec.bound.capabilities
    if not (capabilities.reads_counts and spec.family.counts_suffice):
        return False
    return capabilities.chooses_on_counts or spec.solver != "adam"


class Counts:
    """The counts of each group, their rates as tensors, and the statements' sample sizes."""

    def __init__(self, statistics, scheme, spec):
        self.keys = spec.bound.statistic_keys
        self.groups = [statistics.group(g.voters) for g in scheme.groups]
        self.m = [gs.sample_size(self.keys) for gs in self.groups]
        self.posteriors = [
            make_posterior(spec.posterior, g.voters.size, spec.n_classes, spec.prior)
            for g in scheme.groups
        ]

    def tensors(self, dtype, device):
        return [count_statistic_tensors(gs, self.keys, dtype, device) for gs in self.groups]

    def exact_search(self, delta, kind):
        """Per-group exact search of the optimum of the Gibbs (``kind="gibbs"``) or the tandem
        (``"tandem"``) bound; a free mixture goes to the group of the lowest bound. Returns the
        natural parameters, the mixture and the number of groups searched."""
        h = len(self.groups)
        natural, values, evaluations = [], [], 0
        for gs, m in zip(self.groups, self.m, strict=True):
            q, value = (
                tandem_search(gs.tandem, m, delta / h)
                if kind == "tandem"
                else gibbs_search(gs.rates, m, delta / h)
            )
            natural.append(q)
            values.append(value)
            evaluations += 1
        mixture = np.array([1.0])
        if h > 1:  # the bound is linear in the free mixture weight: its minimum is at a vertex
            mixture = np.zeros(h)
            mixture[int(np.argmin(values))] = 1.0
        return natural, mixture, evaluations


def fit_on_counts(spec, passes, y_idx, scheme, seed, bank, device):
    """The count path: one pass counts the errors, the optimiser and the certificate read
    the counts; returns a :class:`~skpacbayes.engine.spec.FitResult`."""
    keys = spec.bound.statistic_keys
    statistics = passes.statistics(y_idx, scheme, pairs=needs_pairs(keys), device=device)
    counts = Counts(statistics, scheme, spec)
    with thread_limit(1):  # small arrays: threads would only wait (see exact_search)
        natural, mixture, history, n_iter, solver = _optimise_counts(spec, counts, seed)
    spec.log(f"{solver} optimiser on the error counts: {n_iter} iterations")

    evidence = _CountEvidence(counts, passes, y_idx, spec.n_classes)
    details = _out_of_bag_details(bank, statistics) if scheme.out_of_bag else {}

    def certify_at(natural, mixture):
        return certify(
            PosteriorStatement(
                spec, counts.posteriors, natural, mixture, scheme, counts.m, evidence, details
            )
        )

    certified = certify_at(natural, mixture)

    def gibbs(g, nat, scales=None):  # the Gibbs risk does not change with the scale
        p = np.asarray(nat, dtype=np.float64)
        risk = float(raised_statistic(float(p @ counts.groups[g].rates / p.sum())))
        return risk if scales is None else np.full(len(scales), risk)

    context = RefineContext(
        spec.family,
        spec.delta,
        scheme.groups,
        lambda: (counts.posteriors, counts.m, gibbs, [gs.errors for gs in counts.groups]),
    )
    refined = spec.bound.refine(context, natural, mixture)
    if refined is not None:
        certified = better(certified, certify_at(*refined))
    return result(certified, mixture, history, n_iter, solver, scheme.groups)


class _CountEvidence:
    """What the certificate reads on the count path: each half's statistics from its counts,
    the deployed vote's errors from one more pass over the votes."""

    rows = None  # the counts only

    def __init__(self, counts, passes, y_idx, n_classes):
        self.counts, self.passes, self.y_idx, self.n_classes = counts, passes, y_idx, n_classes

    def group_statistics(self, g, nat):
        return certified_statistics(nat / nat.sum(), self.counts.groups[g], self.counts.keys)

    def deployed_errors(self, natural, mixture, weights, deployed, rows):
        return self.passes.vote_errors(self.y_idx, weights, self.n_classes, rows)


def _out_of_bag_details(bank, statistics):
    sizes = statistics.sizes
    details = {
        "scheme": "out_of_bag",
        "sampling": "bootstrap" if bank.bootstrap_ else "subsample without replacement",
        "n_drawn": int(bank.n_drawn_),
        "n_fit_samples": int(bank.n_fit_samples_),
        "r": int(sizes.min()),
        "mean_oob_size": float(sizes.mean()),
    }
    if statistics.pair_sizes is not None:
        pair = statistics.pair_sizes
        n = pair.shape[0]
        details["r2"] = int(pair.min())
        off_diagonal = pair[~np.eye(n, dtype=bool)]
        details["mean_pair_oob_size"] = float(off_diagonal.mean() if n > 1 else pair.mean())
    return details


def _optimise_counts(spec, counts, seed):
    """Natural parameters, mixture, history, iterations and solver name on the counts."""
    h, delta = len(counts.groups), float(spec.delta)
    capabilities = spec.bound.capabilities
    if capabilities.chooses_on_counts:
        chosen = spec.bound.choose_on_counts([gs.rates for gs in counts.groups], counts.m, delta)
        return *chosen, [], 0, "exact"
    generator = torch.Generator(device="cpu").manual_seed(seed)
    prior_start = [
        post.init_raw(generator=generator, dtype=torch.float64).detach()
        for post in counts.posteriors
    ]
    if spec.max_epochs == 0:  # the starting point, as the documentation says
        natural = [
            post.natural(raw).numpy().copy()
            for post, raw in zip(counts.posteriors, prior_start, strict=True)
        ]
        return natural, _free_mixture(h), [], 0, "none"
    if spec.solver == "adam":  # out-of-bag banks: full-batch Adam steps on the counts
        return (*_adam_on_counts(spec, counts, prior_start, seed), "adam")
    if spec.solver == "auto" and capabilities.exact_search is not None:
        # an exact search reaches the optimum (up to its resolution): nothing to refine
        natural, mixture, groups = counts.exact_search(delta, capabilities.exact_search)
        return natural, mixture, [], groups, "exact"
    start = prior_start
    if spec.solver == "auto" and capabilities.exact_start is not None:
        natural = counts.exact_search(delta, capabilities.exact_start)[0]
        start = [torch.log(torch.from_numpy(q).clamp_min(1e-300)) for q in natural]
    objective = count_objective(spec, counts)
    natural, mixture, history, n_iter = run_lbfgs(spec, counts.posteriors, objective, start)
    return natural, mixture, history, n_iter, "lbfgs"


def _free_mixture(h):
    return np.array([1.0]) if h == 1 else np.full(h, 1.0 / h)


def count_objective(spec, counts, dtype=torch.float64, device="cpu"):
    """The bound's training objective of the Categorical weights on the counts."""
    tensors = counts.tensors(dtype, device)
    m = torch.tensor(counts.m, dtype=dtype).to(device)
    delta = float(spec.delta)

    def objective(raws, weights):
        stats, kls = [], []
        for post, raw, t in zip(counts.posteriors, raws, tensors, strict=True):
            q = post.natural(raw)
            stats.append(statistics_of(q, t, counts.keys))
            kls.append(post.kl(q))
        return spec.bound.training_objective(
            stack_stats(stats), torch.stack(kls), m, weights, delta
        )

    return objective


def _adam_on_counts(spec, counts, raws, seed):
    """Full-batch Adam on the counts (out-of-bag banks with ``solver="adam"``).

    An epoch is ``max(10, ceil(m / batch_size))`` steps, as many as a mini-batch epoch over
    the ``m`` rows takes, so that ``max_epochs``, ``learning_rate`` and the schedule keep
    their meaning.
    """
    device = resolve_device(spec.device)
    objective = count_objective(spec, counts, torch.float32, device)
    raws = [raw.to(device, torch.float32).requires_grad_(True) for raw in raws]
    weights = torch.ones(1, dtype=torch.float32, device=device)
    n_rows = max(int(gs.sizes.max()) for gs in counts.groups)
    steps = max(MIN_STEPS_PER_EPOCH, math.ceil(n_rows / int(spec.batch_size)))
    generator = torch.Generator(device="cpu").manual_seed(seed)

    def full_objective():
        with torch.no_grad():
            return float(objective(raws, weights))

    result = train(
        raws,
        lambda index: objective(raws, weights),
        full_objective,
        steps,
        max_epochs=spec.max_epochs,
        batch_size=1,
        learning_rate=spec.learning_rate,
        early_stopping_patience=spec.early_stopping_patience,
        generator=generator,
        verbose=spec.verbose,
    )
    with torch.no_grad():
        for raw, best in zip(raws, result.params, strict=True):
            raw.copy_(best)
    polish(raws, lambda: objective(raws, weights), max_iter=POLISH_MAX_ITER)
    natural = [
        post.natural(raw.detach().to("cpu", torch.float64)).numpy().copy()
        for post, raw in zip(counts.posteriors, raws, strict=True)
    ]
    return natural, np.array([1.0]), result.history, result.n_iter
