"""The row path: a posterior trained on the 0/1 error matrix, certified on every row in float64.

The per-row families (Dirichlet, Gaussian, the binomial bound, a bound that trains the vote's
cross-entropy) hold the error matrix once in float32 (:class:`~skpacbayes.engine.problem.
RowProblem`) and minimise the training objective full batch by L-BFGS from up to four starts,
the lowest end kept (or by mini-batch Adam, the reference paper's protocol, and when the matrix
exceeds a memory budget); the certificate recomputes every stochastic loss in float64.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from skpacbayes._sync import trusted_inputs
from skpacbayes.engine.certify import PosteriorStatement, better, certify, result
from skpacbayes.engine.counts import uses_counts
from skpacbayes.engine.descent import caught_up, mixture_weights, run_lbfgs, stack_stats
from skpacbayes.engine.exact_search import gibbs_search
from skpacbayes.engine.mixture import mixture_scores
from skpacbayes.engine.optimisers import (
    MIN_STEPS_PER_EPOCH,
    POLISH_MAX_ITER,
    polish,
    to_device,
    train,
)
from skpacbayes.engine.problem import RowProblem, error_matrix_bytes, take_rows
from skpacbayes.engine.row_statistics import loss_sums, safe_statistics
from skpacbayes.engine.sampling import training_groups
from skpacbayes.engine.spec import RefineContext, make_posterior
from skpacbayes.engine.statistics import EvaluationGroup
from skpacbayes.engine.vote import _strict_argmax_is, vote_errors
from skpacbayes.engine.vote_loss import (
    vote_cross_entropy,
    vote_target,
    vote_training_errors,
)

__all__ = [
    "ERROR_MATRIX_BYTES",
    "RowContext",
    "fit_on_rows",
    "out_of_core_refusal",
    "row_objective",
    "train_rows",
]

#: largest error matrix the full-batch solver holds with ``solver="auto"`` (else Adam)
ERROR_MATRIX_BYTES = 2**31
_START_SCALES = np.logspace(-1.0, 3.0, 9)  # the scales scanned for the per-row starts
_START_MIX = 1e-3  # weight of the prior in the mapped starts (every coordinate stays > 0)


def out_of_core_refusal(spec):
    """Why the fit of ``spec`` cannot run on a dask array, or None where it can: the one list
    of those refusals (the estimators add what works).

    The count path always can (its passes are sums). On a dask array the row path trains on
    an in-memory sample of the rows (``max_train_rows``) and certifies every row by a
    map-reduce of sums: a bound whose certificate reads every row, or a fit asked to train on
    every row, is refused.

    Parameters
    ----------
    spec : FitSpec
        The fit's specification.

    Returns
    -------
    reason : str or None
        The refusal (it names ``spec.label``, the estimator), or None.
    """
    if uses_counts(spec):
        return None
    if not spec.bound.capabilities.certifies_from_sums:
        return (
            f"{spec.label} cannot fit on a dask array: the certificate of its {spec.bound.name} "
            "bound reads every row (no map-reduce of sums certifies it), which a dask array "
            "does not hold in memory."
        )
    if spec.max_train_rows is None:
        return (
            f"{spec.label}(posterior={spec.posterior!r}, max_train_rows=None) cannot fit on a "
            "dask array: it would train on every row in memory. Give max_train_rows, the size "
            "of the in-memory training sample."
        )
    return None


def fit_on_rows(spec, passes, y_idx, scheme, seed, device):
    """The row path: train on the error matrix in float32, certify every stochastic loss in
    float64; returns a :class:`~skpacbayes.engine.spec.FitResult`.

    A half of more than ``spec.max_train_rows`` rows trains on that many of them, drawn from
    the seed and its size alone (:func:`~skpacbayes.engine.sampling.training_groups`), held
    in memory; the certificate reads every row of every half (:ref:`theory-training-sample`),
    in the process or, on a dask array, by a map-reduce whose tasks return sums.
    """
    groups = scheme.groups
    refusal = out_of_core_refusal(spec) if passes.out_of_core else None
    if refusal is not None:
        raise ValueError(refusal)
    sampled = training_groups(groups, spec.max_train_rows, seed)
    if sampled is None and not passes.out_of_core:  # every row trains (and certifies)
        votes = passes.whole()
        train_votes, train_y, train_groups = votes, y_idx, groups
    else:
        train_groups = groups if sampled is None else sampled
        rows = np.unique(np.concatenate([g.samples for g in train_groups]))
        if passes.out_of_core:  # the sample's votes from the workers; the rest stays there
            votes = None
            train_votes, train_y = passes.rows(rows, y_idx)
        else:
            votes = passes.whole()
            train_votes, train_y = take_rows(votes, rows), y_idx[rows]
        train_groups = [
            EvaluationGroup(g.voters, np.searchsorted(rows, g.samples)) for g in train_groups
        ]
    solver = spec.solver
    if solver == "auto":
        too_large = error_matrix_bytes(train_groups) > ERROR_MATRIX_BYTES
        solver = "adam" if too_large else "lbfgs"
    train_problem = RowProblem(
        spec,
        train_votes,
        train_y,
        train_groups,
        device,
        torch.float32,
        hold_errors=error_matrix_bytes(train_groups) <= ERROR_MATRIX_BYTES or solver == "lbfgs",
    )
    # the objective's sample sizes are the statements' (every row), its empirical terms the
    # training sample's: the bound the certificate will compute, estimated on the sample
    statement_m = [int(g.samples.size) for g in groups]
    natural, mixture, history, n_iter, kept = train_rows(
        spec, train_problem, seed, solver, statement_m=statement_m
    )
    spec.log(
        f"{solver} on the {train_votes.shape[0]} x {train_votes.shape[1]} votes: {n_iter} "
        f"{'epochs' if solver == 'adam' else 'iterations'}"
    )

    def vote_weights_trained_on(voters, samples):
        fold = RowProblem(
            spec,
            train_votes,
            train_y,
            [EvaluationGroup(voters, samples)],
            device,
            torch.float32,
        )
        natural = train_rows(spec, fold, seed, solver, kept)[0]
        return fold.posteriors[0].vote_weights(torch.from_numpy(natural[0])).numpy()

    context = RowContext(
        train_votes,
        train_y,
        train_groups,
        seed,
        spec.n_classes,
        spec.family,
        vote_weights_trained_on,
    )
    natural, trained_details = spec.bound.after_training(context, natural)
    if votes is None:
        certifier = _MapReduceCertifier(spec, passes, y_idx, groups)
    else:
        certifier = _InMemoryCertifier(spec, votes, y_idx, groups)

    def certify_at(natural, mixture, details=None):
        return certify(
            PosteriorStatement(
                spec,
                certifier.posteriors,
                natural,
                mixture,
                scheme,
                certifier.m,
                certifier,
                {} if details is None else details,
            )
        )

    certified = certify_at(natural, mixture, trained_details)

    def search_inputs():
        # The search scores its candidates in float32 on the training rules (on CPU, where
        # it reads its weights): its values only steer it. The posterior it returns is
        # certified from scratch.
        search = train_problem
        if search.device.type != "cpu" or search.errors is None:
            search = RowProblem(
                spec, train_votes, train_y, train_groups, torch.device("cpu"), torch.float32
            )
        errors = [search.voter_errors(g) for g in range(search.n_groups)]
        return search.posteriors, statement_m, search.gibbs, errors

    refined = spec.bound.refine(
        RefineContext(spec.family, spec.delta, train_groups, search_inputs), natural, mixture
    )
    if refined is not None:
        certified = better(certified, certify_at(*refined))
    return result(certified, mixture, history, n_iter, solver, groups)


class _InMemoryCertifier:
    """The certificate's reads of every row held in the process (a float64 row problem)."""

    def __init__(self, spec, votes, y_idx, groups):
        self.spec, self.votes, self.y_idx, self.groups = spec, votes, y_idx, groups
        self.problem = RowProblem(spec, votes, y_idx, groups, torch.device("cpu"), torch.float64)
        self.posteriors, self.m = self.problem.posteriors, self.problem.m

    @property
    def rows(self):
        """The votes and labels of each half (NumPy views of the row problem's)."""
        pairs = zip(self.problem.votes, self.problem.labels, strict=True)
        return [(votes.numpy(), labels.numpy()) for votes, labels in pairs]

    def group_statistics(self, g, nat):
        sums = loss_sums(self.problem, self.spec.bound, g, nat)
        return safe_statistics(sums, self.m[g])

    def deployed_errors(self, natural, mixture, weights, deployed, rows):
        votes, y_idx = self.votes, self.y_idx
        if deployed == "mixture_bayes":
            scores = mixture_scores(
                self.posteriors, natural, mixture, self.groups, votes, decide=True
            )
            wrong = ~_strict_argmax_is(scores, y_idx)
        else:
            wrong = vote_errors(votes, y_idx, weights, self.spec.n_classes)
        return int(np.count_nonzero(wrong & rows)), int(np.count_nonzero(rows))


class _MapReduceCertifier:
    """The certificate's reads of the rows of a dask array: one pass per statistic and for
    the deployed vote's errors, the workers returning sums only."""

    rows = None  # no bound that reads the rows themselves is certified here

    def __init__(self, spec, passes, y_idx, groups):
        self.spec, self.passes, self.y_idx, self.groups = spec, passes, y_idx, groups
        self.posteriors = [
            make_posterior(spec.posterior, len(g.voters), spec.n_classes, spec.prior)
            for g in groups
        ]
        self.m = [int(g.samples.size) for g in groups]

    def group_statistics(self, g, nat):
        sums = self.passes.loss_sums(self.spec, self.y_idx, self.groups[g], nat)
        return safe_statistics(sums, self.m[g])

    def deployed_errors(self, natural, mixture, weights, deployed, rows):
        if deployed == "mixture_bayes":  # split voters, which a dask array does not grow
            raise ValueError("The Gaussian mixture of split voters is not certified out of core.")
        return self.passes.vote_errors(self.y_idx, weights, self.spec.n_classes, rows)


@dataclass(frozen=True)
class RowContext:
    """What a bound reads after the training on the rows
    (:meth:`~skpacbayes.objectives.Bound.after_training`): plain data, and one way to train
    again.

    Attributes
    ----------
    votes : ndarray of shape (n_rows, n_voters)
        The training rows' votes (class indices).
    y_idx : ndarray of shape (n_rows,)
        Their true class indices.
    groups : list of EvaluationGroup
        The halves (their voters and rows).
    seed : int
        The fit's seed.
    n_classes : int
        Number of classes.
    family : type
        The posterior family (its class in :mod:`skpacbayes.posteriors`).
    vote_weights_trained_on : callable
        ``vote_weights_trained_on(voters, samples)``: the vote weights (NumPy) of the
        posterior trained as the fit was, on the rows ``samples`` and the voters ``voters``,
        from the start whose run the fit kept.
    """

    votes: np.ndarray
    y_idx: np.ndarray
    groups: list
    seed: int
    n_classes: int
    family: type
    vote_weights_trained_on: Any


def row_objective(spec, problem, statement_m=None):
    """``objective(raws, weights, rows_list=None)``: the training objective on the rows
    (``statement_m``: the sample sizes of the bound, when the problem holds a training
    sample of the rows; else the problem's)."""
    h = problem.n_groups
    delta = float(spec.delta)
    # constants of the objective, on the device once (a copy per step would wait for it)
    m = problem.m if statement_m is None else statement_m
    m = torch.tensor(m, dtype=torch.float32).to(problem.device)
    mean = torch.mean

    def objective(raws, weights, rows_list=None, shared=False, losses=None):
        rows_list = [None] * h if rows_list is None else rows_list
        nats = [post.natural(raw) for post, raw in zip(problem.posteriors, raws, strict=True)]
        if spec.bound.capabilities.trains_vote:
            return vote_cross_entropy(problem, nats, rows_list)
        stats = []
        for g in range(h):
            if losses is not None:  # computed by the caller (a scan along a ray)
                r = losses[g]
            elif shared:  # no gradient; the losses of the other fits of a block, where there are
                r = problem.shared_losses(g, nats[g])
            else:
                r = problem.losses(g, nats[g], rows_list[g])
            stats.append(spec.bound.statistics(r, r, mean))
        kl = torch.stack([post.kl(nat) for post, nat in zip(problem.posteriors, nats, strict=True)])
        return spec.bound.training_objective(stack_stats(stats), kl, m, weights, delta)

    return objective


def train_rows(spec, problem, seed, solver, start=None, statement_m=None):
    """Minimise the bound's training objective on ``problem`` (a float32 :class:`RowProblem`).

    L-BFGS runs from the prior and from each start of :func:`_row_starts`, or from
    ``start`` alone (one of their names; a Gibbs start dropped on this problem, as the best
    voter's, is the best voter's). Returns float64 natural parameters, the mixture weights,
    the history, the iterations and the name of the start whose run was kept (``"prior"``
    for Adam). ``statement_m``: the bound's sample sizes when ``problem`` holds a training
    sample of the rows (:func:`row_objective`).
    """
    generator = torch.Generator(device="cpu").manual_seed(seed)
    prior = [
        post.init_raw(generator=generator, dtype=torch.float32, device=problem.device)
        for post in problem.posteriors
    ]
    if spec.max_epochs == 0 or solver == "adam":
        return (*_train_adam(spec, problem, prior, generator, statement_m), "prior")
    objective = row_objective(spec, problem, statement_m)

    def checked_free(raws, weights, **kwargs):
        with trusted_inputs():
            return objective(raws, weights, **kwargs)

    starts = {"prior": ([raw.detach() for raw in prior], None)}
    # L-BFGS from the prior and from every mapped start, the lowest end kept: a start's
    # objective does not tell where its descent ends
    fixed = spec.bound.capabilities.fixed_mixture_weight
    alpha_raw = torch.zeros((), device=problem.device)
    weights = mixture_weights(alpha_raw, fixed, problem.n_groups, torch.float32, problem.device)
    if start != "prior":
        wanted = None if start is None else {start}
        starts.update(_row_starts(spec, problem, checked_free, weights, wanted))
    if start is not None:  # a Gibbs start dropped here comes back as the best voter's
        name = start if start in starts else "best voter"
        starts = {name: starts[name]}
    rank = None
    if spec.bound.capabilities.trains_vote:
        # the bound reads the vote's training errors, which the cross-entropy only steers:
        # each run keeps its evaluated point with the fewest, and the run that ends with the
        # fewest is kept (the bound holds for every weight vector at once, so the choice
        # keeps it)
        def rank(raws):
            nats = [post.natural(raw) for post, raw in zip(problem.posteriors, raws, strict=True)]
            return vote_training_errors(problem, nats)

    # A run that arrives where an earlier one ended stops there and counts at that end (the
    # earlier run, which went on to converge, is kept). Not with a rank, whose runs are judged
    # by the training errors of their points, nor where the bound asks every run to converge.
    stops = rank is None and not spec.bound.capabilities.converge_every_start
    runs, ends = {}, {}
    for name, (raws, _) in starts.items():
        # (the histories hold finite values or +inf: minimize_lbfgs maps the others to +inf)
        level = min((min(run[2]) for run in runs.values()), default=math.inf)
        level = level if stops else math.inf
        run = runs[name] = run_lbfgs(
            spec, problem.posteriors, checked_free, raws, rank=rank, level=level
        )
        end = min(run[2], default=math.inf)
        ends[name] = max(end, level) if caught_up(run[2], level) else end
    if rank is not None:
        ends = {
            name: vote_training_errors(
                problem, [torch.from_numpy(nat).to(problem.device, problem.dtype) for nat in run[0]]
            )
            for name, run in runs.items()
        }
    name = min(ends, key=ends.get)  # the first on a tie
    spec.log(
        "starts: "
        + ", ".join(f"{k} {v:.6f}" for k, (_, v) in starts.items() if v is not None)
        + ("; L-BFGS ends: " if rank is None else "; L-BFGS ends (training errors): ")
        + ", ".join(f"{k} {v:.6f}" if rank is None else f"{k} {int(v)}" for k, v in ends.items())
        + f"; kept the {name}"
    )
    return (*runs[name], name)


def _row_starts(spec, problem, objective, weights, names=None):
    """Starts beyond the prior: the first-order Gibbs optimum, the best single voter and the
    vote of least cross-entropy (those of ``names`` only, when given; a Gibbs start asked
    for and dropped is replaced by the best voter's).

    The first two come from the error counts of each half (the Gibbs start is dropped when it
    is the best voter's, to 0.99 in cosine), the third from the rows
    (:func:`~skpacbayes.engine.vote_loss.vote_target`: a good vote whose Gibbs risk is high,
    a basin the other starts can miss). A Gaussian start is the target weights (mixed with
    ``_START_MIX`` of uniform weights) times a scale chosen on ``_START_SCALES`` by the
    objective, a Dirichlet start the prior's concentrations plus such a scaled target, a
    Categorical start the target mixed with the uniform weights at the share (``scale /
    1000``, at most 1) chosen on the same grid: each family's
    :meth:`~skpacbayes.posteriors.Posterior.start_natural`. Returns ``{name: (raws,
    objective)}``.
    """
    h = problem.n_groups
    delta = float(spec.delta)
    names = ("gibbs", "best voter", "vote") if names is None else names
    targets = {"gibbs": [], "best voter": [], "vote": []}
    for g in range(h):
        if "vote" in names:
            targets["vote"].append(vote_target(problem, g))
        rates = problem.voter_errors(g) / problem.m[g]
        targets["gibbs"].append(gibbs_search(rates, problem.m[g], delta / h)[0])
        one_hot = np.zeros(rates.size)
        one_hot[int(np.argmin(rates))] = 1.0
        targets["best voter"].append(one_hot)
    # a Gibbs optimum that is (nearly) the best voter alone adds nothing: one start
    if all(q @ b > 0.99 for q, b in zip(targets["gibbs"], targets["best voter"], strict=True)):
        del targets["gibbs"]
        names = {*names, "best voter"} if "gibbs" in names else names
    targets = {name: target for name, target in targets.items() if name in names}
    starts = {}
    for name, target in targets.items():
        mixed = [(1 - _START_MIX) * q + _START_MIX / q.size for q in target]

        def raws_at(scale, mixed=mixed):
            out = []
            for post, q in zip(problem.posteriors, mixed, strict=True):
                nat = post.start_natural(q, scale, _START_SCALES[-1])
                out.append(
                    post.raw_from_natural(torch.from_numpy(nat))
                    .to(device=problem.device, dtype=torch.float32)
                    .detach()
                )
            return out

        with torch.no_grad():
            linear = problem.posteriors[0].start_scales_linearly
            if linear and not spec.bound.capabilities.trains_vote:
                # the points are the scales times the point at scale 1: the losses of the ray
                # at once (the sums of the weights formed once, scaled_stochastic_losses)
                scales = [float(t) for t in _START_SCALES]
                unit = raws_at(1.0)
                rays = [
                    problem.shared_losses(g, post.natural(raw), scales=scales)
                    for g, (post, raw) in enumerate(zip(problem.posteriors, unit, strict=True))
                ]
                values = [
                    float(objective(raws_at(t), weights, losses=[ray[i] for ray in rays]))
                    for i, t in enumerate(_START_SCALES)
                ]
            else:
                values = [float(objective(raws_at(t), weights, shared=True)) for t in _START_SCALES]
        values = [v if math.isfinite(v) else math.inf for v in values]
        best = int(np.argmin(values))
        starts[name] = (raws_at(_START_SCALES[best]), values[best])
    return starts


def _train_adam(spec, problem, raws, generator, statement_m=None):
    """Mini-batch Adam (the reference paper's protocol), then a full-batch L-BFGS polish."""
    device = problem.device
    h = problem.n_groups
    fixed_alpha = spec.bound.capabilities.fixed_mixture_weight
    alpha_raw = torch.zeros((), dtype=torch.float32, device=device, requires_grad=True)
    params = raws + ([alpha_raw] if h > 1 and fixed_alpha is None else [])
    objective = row_objective(spec, problem, statement_m)
    fixed_weights = None
    if h == 1 or fixed_alpha is not None:
        fixed_weights = mixture_weights(alpha_raw, fixed_alpha, h, torch.float32, device)

    def weights():
        if fixed_weights is not None:
            return fixed_weights
        return mixture_weights(alpha_raw, fixed_alpha, h, torch.float32, device)

    rows_cpu = [rows.cpu() for rows in problem.rows]

    def prepare_epoch(batches):
        """Rows of each half in each mini-batch, found on the host, sent in one copy."""
        plans, pieces, size = [], [], 0
        for index in batches:
            plan = []
            for g in range(h):
                rows = rows_cpu[g][index]
                rows = rows[rows >= 0]
                if rows.numel() == 0:
                    plan = None  # a half without rows: a constant objective, no step
                    break
                plan.append((size, size + rows.numel()))
                pieces.append(rows)
                size += rows.numel()
            plans.append(plan)
        flat = to_device(torch.cat(pieces), device) if pieces else None
        return [None if plan is None else [flat[a:b] for a, b in plan] for plan in plans]

    def batch_objective(rows_list):
        if rows_list is None:
            return torch.zeros((), device=device)
        return objective(raws, weights(), rows_list)

    def full_objective():
        with torch.no_grad():
            return objective(raws, weights()).detach()

    result = train(
        params,
        batch_objective,
        full_objective,
        problem.n_samples,
        max_epochs=spec.max_epochs,
        batch_size=spec.batch_size,
        learning_rate=spec.learning_rate,
        early_stopping_patience=spec.early_stopping_patience,
        min_steps_per_epoch=MIN_STEPS_PER_EPOCH,
        generator=generator,
        verbose=spec.verbose,
        prepare_epoch=prepare_epoch,
    )
    best = result.params
    # no polish for a bound that trains the vote's cross-entropy, nor for max_epochs=0 (the
    # starting point is deployed as is)
    if not spec.bound.capabilities.trains_vote and spec.max_epochs > 0:
        with torch.no_grad():
            for p, b in zip(params, best, strict=True):
                p.copy_(b)
        before, after = polish(
            params, lambda: objective(params[:h], weights()), max_iter=POLISH_MAX_ITER
        )
        if after < before:
            best = [p.detach().clone() for p in params]
    with torch.no_grad():
        nats = [
            post.natural(raw.detach().to("cpu", torch.float64))
            for post, raw in zip(problem.posteriors, best[:h], strict=True)
        ]
        if h > 1 and fixed_alpha is None:
            alpha = float(torch.sigmoid(best[h].double()))
        else:
            alpha = 0.5 if fixed_alpha is None else fixed_alpha
    natural = [nat.numpy().copy() for nat in nats]
    mixture = np.array([1.0]) if h == 1 else np.array([alpha, 1.0 - alpha])
    return natural, mixture, result.history, result.n_iter
