"""Fit-time engine: torch training of the posterior(s) and the float64 certificate.

Imported lazily by :mod:`skpacbayes.classifiers` inside ``fit``: a fitted
estimator predicts with NumPy only (except the Gaussian mixture's Bayes
classifier on split voters, see :func:`mixture_win_probabilities`).
"""

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from skpacbayes._certificate import _KL_SLACK, _STAT_SLACK, Certificate, effective_voters
from skpacbayes._deployed import deployed_classifier, partition_terms
from skpacbayes._training import polish, resolve_device, to_device, train
from skpacbayes._vote import _strict_argmax_is, weighted_vote_scores
from skpacbayes.posteriors._base import ErrorMask

_R_CHUNK = 16384
_ERROR_MATRIX_BYTES = 2**30  # largest error matrix the training keeps (1 GiB)
# Optimiser settings of the training (documented in the user guide, "Training"): the fewest
# Adam steps per epoch, and the full-batch L-BFGS iterations of the polish after Adam.
MIN_STEPS_PER_EPOCH = 10
POLISH_MAX_ITER = 50


def make_posterior(name, n_voters, n_classes, prior=None):
    """Instantiate the posterior family ``name`` (``prior``: None or a float, broadcast)."""
    from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian

    family = {"categorical": Categorical, "dirichlet": Dirichlet, "gaussian": Gaussian}[name]
    try:
        return family(n_voters, n_classes, prior=None if prior is None else float(prior))
    except ValueError as exc:
        raise ValueError(f"Invalid prior={prior!r} for the {name} posterior: {exc}") from exc


@dataclass
class FitResult:
    natural: list
    mixture_weights: np.ndarray
    vote_weights: np.ndarray
    deployed: str
    history: list
    n_iter: int
    certificate: Certificate


class _Problem:
    """Votes, labels and posteriors of each half, on one device and dtype."""

    def __init__(self, estimator, votes, y_idx, groups, device, dtype):
        self.estimator = estimator
        self.n_classes = estimator.n_classes_
        self.n_samples = votes.shape[0]
        self.device = device
        self.dtype = dtype
        self.posteriors = []
        self.votes = []
        self.labels = []
        self.rows = []  # position in the full sample -> row of the half (-1: not used)
        for g in groups:
            post = make_posterior(
                estimator.posterior, len(g.voters), self.n_classes, estimator.prior
            )
            self.posteriors.append(post)
            self.votes.append(
                torch.from_numpy(np.ascontiguousarray(votes[np.ix_(g.samples, g.voters)])).to(
                    device
                )
            )
            self.labels.append(torch.from_numpy(y_idx[g.samples].astype(np.int64)).to(device))
            rows = np.full(self.n_samples, -1, dtype=np.int64)
            rows[g.samples] = np.arange(g.samples.size)
            self.rows.append(torch.from_numpy(rows).to(device))
        self.m = [int(g.samples.size) for g in groups]
        self.n_groups = len(groups)
        # Training fast path: the 0/1 error matrix of each half, once, in the training dtype
        # (the losses then skip forming and converting it at every step). Certificates
        # (float64) and the multi-class Gaussian (which needs the votes) do not use it.
        self.errors = self.correct = None
        uses_votes = estimator.posterior == "gaussian" and self.n_classes > 2
        size = sum(v.numel() for v in self.votes) * torch.finfo(dtype).bits // 8
        if dtype != torch.float64 and not uses_votes and size <= _ERROR_MATRIX_BYTES:
            self.errors = [
                (v != lab[:, None].to(v.dtype)).to(dtype)
                for v, lab in zip(self.votes, self.labels, strict=True)
            ]
            # the Dirichlet loss also sums the right weights: keep 1 - errors when it fits
            if estimator.posterior == "dirichlet" and 2 * size <= _ERROR_MATRIX_BYTES:
                self.correct = [torch.sub(1.0, e) for e in self.errors]

    def losses(self, g, nat, rows=None):
        """Stochastic losses of half ``g`` (all its rows, in chunks, or ``rows``)."""
        post, votes, labels = self.posteriors[g], self.votes[g], self.labels[g]
        if self.errors is not None:
            errors = self.errors[g]
            correct = None if self.correct is None else self.correct[g]
            if rows is not None:  # a mini-batch: the complement is formed from its rows
                return post.stochastic_loss(nat, ErrorMask(errors[rows]), None)
            parts = [
                post.stochastic_loss(
                    nat,
                    ErrorMask(
                        errors[s : s + _R_CHUNK],
                        None if correct is None else correct[s : s + _R_CHUNK],
                    ),
                    None,
                )
                for s in range(0, errors.shape[0], _R_CHUNK)
            ]
            return torch.cat(parts)
        if rows is not None:
            return post.stochastic_loss(nat, votes[rows], labels[rows])
        parts = [
            post.stochastic_loss(nat, votes[s : s + _R_CHUNK], labels[s : s + _R_CHUNK])
            for s in range(0, votes.shape[0], _R_CHUNK)
        ]
        return torch.cat(parts)


def _mixture(alpha_raw, fixed, n_groups, dtype, device):
    if n_groups == 1:
        return torch.ones(1, dtype=dtype, device=device)
    if fixed is not None:
        a = torch.tensor(fixed, dtype=dtype, device=device)
    else:
        a = torch.sigmoid(alpha_raw)
    return torch.stack([a, 1 - a])


def _stack_stats(per_group):
    keys = per_group[0].keys()
    return {k: torch.stack([s[k] for s in per_group]) for k in keys}


def fit_posteriors(estimator, votes, y_idx, groups, seed):
    """Train, optionally tighten, and certify. Returns a :class:`FitResult`."""
    cert_problem = _Problem(estimator, votes, y_idx, groups, torch.device("cpu"), torch.float64)
    train_problem = None
    if estimator._bound_name == "Occam":
        natural, mixture = _select_single_voter(estimator, cert_problem)
        history, n_iter = [], 0
    else:
        device = resolve_device(estimator.device)
        train_problem = _Problem(estimator, votes, y_idx, groups, device, torch.float32)
        natural, mixture, history, n_iter = _train_posteriors(estimator, train_problem, seed)
    cv_details = None
    if estimator._bound_name == "VC" and estimator.cv is not None:
        natural, cv_details = _vc_cross_validation(
            estimator, votes, y_idx, groups[0], natural, device, seed
        )
    certified = _certify(estimator, cert_problem, natural, mixture, votes, y_idx, groups)
    if cv_details is not None:
        certificate, *rest = certified
        certified = (replace(certificate, details={**certificate.details, **cv_details}), *rest)
    if estimator._bound_name == "Partition" and getattr(estimator, "tighten", False):
        from skpacbayes._tightening import tighten_partition

        # The search scores its candidates in float32 on the training problem (error matrix,
        # training rules; on CPU, where it reads its weights): its values only steer it. The
        # posterior it returns is certified from scratch below.
        search_problem = train_problem
        if search_problem.device.type != "cpu":
            cpu = torch.device("cpu")
            search_problem = _Problem(estimator, votes, y_idx, groups, cpu, torch.float32)
        tightened = tighten_partition(estimator, search_problem, groups, natural, mixture)
        # Keep whichever of the trained and the tightened posterior certifies lower: the
        # PAC-Bayes statement holds for every posterior at once, so choosing between the
        # two after looking at both bounds costs nothing in delta.
        candidate = _certify(estimator, cert_problem, *tightened, votes, y_idx, groups)
        if candidate[0].value < certified[0].value:
            certified = candidate
    certificate, natural, vote_weights, deployed = certified
    return FitResult(
        natural=natural,
        mixture_weights=mixture,
        vote_weights=vote_weights,
        deployed=deployed,
        history=history,
        n_iter=n_iter,
        certificate=certificate,
    )


def _select_single_voter(estimator, problem):
    """Occam: the voter with the smallest Seeger bound, KL = ln(n_half), delta / h per half."""
    from skpacbayes.bounds import kl_inv_upper, seeger_epsilon

    h = problem.n_groups
    best = (np.inf, 0, 0)
    for g in range(h):
        errors = (problem.votes[g] != problem.labels[g][:, None]).double().mean(dim=0).numpy()
        n_g = errors.size
        eps = seeger_epsilon(np.log(n_g), problem.m[g], float(estimator.delta) / h)
        values = np.asarray(kl_inv_upper(np.clip(errors + _STAT_SLACK, 0, 1), eps))
        i = int(np.argmin(values))
        if values[i] < best[0]:
            best = (values[i], g, i)
    _, g_best, i_best = best
    natural = []
    for g in range(h):
        n_g = problem.votes[g].shape[1]
        p = np.zeros(n_g) if g == g_best else np.full(n_g, 1.0 / n_g)
        if g == g_best:
            p[i_best] = 1.0
        natural.append(p)
    mixture = np.array([1.0]) if h == 1 else np.eye(h)[g_best]
    return natural, mixture


def _vc_cross_validation(estimator, votes, y_idx, group, natural, device, seed):
    """The VC baseline's choice between its trained vote and its best single voter.

    A stratified ``estimator.cv``-fold cross-validation on the rows the certificate uses
    (fewer folds when a class has fewer rows; none below two): each fold trains the vote
    exactly as ``fit`` does on the other folds, and takes the voter with the fewest errors
    there. The trained vote is kept only when its held-out errors, summed over the folds,
    are fewer than the single voters' by more than one standard error of that paired
    difference (the one-standard-error rule, which prefers the simpler model); otherwise
    the voter with the fewest errors on all the rows is deployed. Both are weighted votes
    of the same fixed voters, and the VC bound holds for every weight vector at once, so
    the choice keeps the certificate.

    Returns the natural parameters of the deployed weights and the counts behind the
    choice (``Certificate.details``).
    """
    from sklearn.model_selection import StratifiedKFold

    samples, voters = group.samples, group.voters
    y = y_idx[samples]
    n_splits = min(int(estimator.cv), int(np.bincount(y, minlength=2).min()))
    if n_splits < 2:
        return natural, {"cv_folds": 0, "cv_choice": "vote"}
    errors = votes[np.ix_(samples, voters)] != y[:, None]
    vote_wrong = np.zeros(samples.size, dtype=bool)
    single_wrong = np.zeros(samples.size, dtype=bool)
    folds = StratifiedKFold(n_splits, shuffle=True, random_state=seed)
    for fit_rows, test in folds.split(samples, y):
        fold = _Problem(
            estimator, votes, y_idx, [_Group(voters, samples[fit_rows])], device, torch.float32
        )
        fold_natural = _train_posteriors(estimator, fold, seed)[0]
        w = fold.posteriors[0].vote_weights(torch.from_numpy(fold_natural[0])).numpy()
        scores = weighted_vote_scores(votes[np.ix_(samples[test], voters)], w, estimator.n_classes_)
        vote_wrong[test] = ~_strict_argmax_is(scores, y[test])
        single_wrong[test] = errors[test, np.argmin(errors[fit_rows].sum(axis=0))]
    # one-standard-error rule: the vote must beat the single voter by more than the
    # standard error of the summed paired differences
    gain = int(single_wrong.sum()) - int(vote_wrong.sum())
    diff = single_wrong.astype(np.float64) - vote_wrong
    std_error = float(np.sqrt(np.sum((diff - diff.mean()) ** 2)))
    details = {
        "cv_folds": n_splits,
        "cv_errors_vote": int(vote_wrong.sum()),
        "cv_errors_single_voter": int(single_wrong.sum()),
        "cv_standard_error": std_error,
        "cv_choice": "vote",
    }
    if gain > std_error:
        return natural, details
    details["cv_choice"] = "single voter"
    best, n = int(np.argmin(errors.sum(axis=0))), voters.size
    if estimator.posterior == "dirichlet":  # alpha > 0: the others share less than half
        single = np.full(n, 1.0 / (2 * n))
        single[best] = 1.0
    else:  # categorical probabilities, Gaussian mean
        single = np.zeros(n)
        single[best] = 1.0
    return [single], details


def _train_posteriors(estimator, problem, seed):
    """Minimise the estimator's objective with Adam on ``problem`` (float32 :class:`_Problem`).

    Returns float64 natural parameters, the mixture weights, the history and the epochs.
    """
    device = problem.device
    generator = torch.Generator(device="cpu").manual_seed(seed)
    h = problem.n_groups
    fixed_alpha = estimator._fixed_mixture_weight()

    raws = [
        post.init_raw(generator=generator, dtype=torch.float32, device=device)
        for post in problem.posteriors
    ]
    alpha_raw = torch.zeros((), dtype=torch.float32, device=device, requires_grad=True)
    params = raws + ([alpha_raw] if h > 1 and fixed_alpha is None else [])
    delta = float(estimator.delta)
    mean = torch.mean
    # constants of the objective, on the device once (a copy per step would wait for it)
    m = torch.tensor(problem.m, dtype=torch.float32).to(device)
    fixed_weights = None
    if h == 1 or fixed_alpha is not None:
        fixed_weights = _mixture(alpha_raw, fixed_alpha, h, torch.float32, device)

    def objective(raw_list, rows_list):
        nats = [post.natural(raw) for post, raw in zip(problem.posteriors, raw_list, strict=True)]
        weights = fixed_weights
        if weights is None:
            weights = _mixture(alpha_raw, fixed_alpha, h, torch.float32, device)
        if estimator._bound_name == "VC":
            return _vote_cross_entropy(problem, nats, rows_list)
        stats = []
        for g in range(h):
            r = problem.losses(g, nats[g], rows_list[g])
            stats.append(estimator._statistics(r, r, mean))
        kl = torch.stack([post.kl(nat) for post, nat in zip(problem.posteriors, nats, strict=True)])
        return estimator._training_objective(_stack_stats(stats), kl, m, weights, delta)

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
        return objective(raws, rows_list)

    def full_objective():
        with torch.no_grad():
            return objective(raws, [None] * h).detach()

    result = train(
        params,
        batch_objective,
        full_objective,
        problem.n_samples,
        max_epochs=estimator.max_epochs,
        batch_size=estimator.batch_size,
        learning_rate=estimator.learning_rate,
        early_stopping_patience=estimator.early_stopping_patience,
        min_steps_per_epoch=MIN_STEPS_PER_EPOCH,
        generator=generator,
        verbose=estimator.verbose,
        prepare_epoch=prepare_epoch,
    )
    best = result.params
    # no polish for the VC baseline (it minimises a cross-entropy) nor for max_epochs=0 (the
    # starting point is deployed as is)
    if estimator._bound_name != "VC" and estimator.max_epochs > 0:
        with torch.no_grad():
            for p, b in zip(params, best, strict=True):
                p.copy_(b)
        before, after = polish(
            params, lambda: objective(params[:h], [None] * h), max_iter=POLISH_MAX_ITER
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


def _vote_cross_entropy(problem, nats, rows_list):
    """Cross-entropy of the weighted vote (training objective of the VC baseline)."""
    total = 0.0
    for g in range(problem.n_groups):
        rows = rows_list[g]
        w = problem.posteriors[g].vote_weights(nats[g])
        w = w / w.abs().sum().clamp_min(1e-12)
        if problem.errors is not None and problem.n_classes == 2:
            # two classes: the cross-entropy is softplus(20 (s_other - s_true)) with
            # s_other - s_true = 2 e.w - sum(w) (e the 0/1 errors), read off the error matrix
            errors = problem.errors[g] if rows is None else problem.errors[g][rows]
            gap = torch.sub(2.0 * (errors @ w), w.sum())
            total = total + torch.nn.functional.softplus(20.0 * gap).mean()
            continue
        votes = problem.votes[g] if rows is None else problem.votes[g][rows]
        labels = problem.labels[g] if rows is None else problem.labels[g][rows]
        scores = torch.zeros(votes.shape[0], problem.n_classes, dtype=w.dtype, device=w.device)
        scores.scatter_add_(1, votes.long(), w.expand(votes.shape[0], -1))
        total = total + torch.nn.functional.cross_entropy(20.0 * scores, labels)
    return total


def _certify(estimator, problem, natural, mixture, votes, y_idx, groups):
    """Recompute the bound from scratch in float64 for the final posterior."""
    h = problem.n_groups
    nats = [torch.from_numpy(np.asarray(nat, dtype=np.float64)) for nat in natural]
    vote_weights, deployed = deployed_classifier(estimator, problem, natural, mixture, groups)
    # the deployed classifier's errors on the examples each half uses
    if deployed == "mixture_bayes":
        scores = _mixture_scores(problem.posteriors, natural, mixture, groups, votes, decide=True)
    else:
        scores = weighted_vote_scores(votes, vote_weights, problem.n_classes)
    wrong = ~_strict_argmax_is(scores, y_idx)
    used = np.unique(np.concatenate([g.samples for g in groups]))
    train_error = float(wrong[used].mean())

    kl = np.array([float(post.kl(nat)) for post, nat in zip(problem.posteriors, nats, strict=True)])
    kl = kl * (1 + _KL_SLACK) + _KL_SLACK
    stats = []
    with torch.no_grad():
        for g in range(h):
            r = problem.losses(g, nats[g])
            tol = problem.posteriors[g].loss_tolerance
            r_lo = torch.clamp(r - tol, 0.0, 1.0).numpy()
            r_hi = torch.clamp(r + tol, 0.0, 1.0).numpy()
            stats.append(estimator._statistics(r_lo, r_hi, np.mean))
    statistics = {}
    for key in stats[0]:
        values = np.array([float(s[key]) for s in stats])
        if key == "disagreement":
            values = np.clip(values - _STAT_SLACK, 0.0, 1.0)
        else:
            values = np.clip(values + _STAT_SLACK, 0.0, 1.0)
        statistics[key] = values
    delta = float(estimator.delta)
    m = list(problem.m)
    weights = np.asarray(mixture, dtype=np.float64)
    name = estimator._bound_name
    gibbs_bound = b_tilde = c_tilde = None
    details = {"n_draws": int(estimator.n_draws)} if name == "Bin" else {}

    from skpacbayes import bounds

    if name == "Partition":
        b_tilde, c_tilde = partition_terms(
            estimator.posterior, natural, mixture, vote_weights, groups
        )
        gibbs_bound = float(
            bounds.pac_bayes_upper(statistics["gibbs"], kl, m, delta, weights=weights)
        )
        value = float(
            bounds.partition_bound(
                statistics["gibbs"], kl, m, delta, b_tilde, c_tilde, weights=weights
            )
        )
    elif name == "VC":
        g = groups[0]
        train_error = float(wrong[g.samples].mean())
        details = {"n_voters": int(g.voters.size)}
        value = float(bounds.vc_bound(train_error, g.voters.size, g.samples.size, delta))
    elif name == "Margin":
        value, certified, details = _margin_certificate(estimator, problem, vote_weights)
        if certified is not None:
            natural = certified
            kl = np.array([float(problem.posteriors[0].kl(torch.from_numpy(natural[0])))])
            kl = kl * (1 + _KL_SLACK) + _KL_SLACK
    else:
        if "gibbs" in statistics:
            gibbs_bound = float(
                bounds.pac_bayes_upper(statistics["gibbs"], kl, m, delta, weights=weights)
            )
        value = float(estimator._bound_value(statistics, kl, m, weights, delta))
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise RuntimeError(f"Internal error: certified bound {value!r} outside [0, 1].")
    certificate = Certificate(
        bound=name,
        posterior=estimator.posterior,
        value=value,
        delta=delta,
        m=tuple(m),
        kl=tuple(float(k) for k in kl),
        mixture_weights=tuple(float(a) for a in weights),
        statistics={k: tuple(float(x) for x in v) for k, v in statistics.items()},
        gibbs_bound=gibbs_bound,
        b_tilde=None if b_tilde is None else float(b_tilde),
        c_tilde=None if c_tilde is None else float(c_tilde),
        train_error=train_error,
        n_voters=int(votes.shape[1]),
        details=details,
        n_effective_voters=_effective_voters(vote_weights, deployed, mixture, groups),
    )
    return certificate, natural, vote_weights, deployed


def _effective_voters(vote_weights, deployed, mixture, groups):
    """``Certificate.n_effective_voters`` of the deployed classifier (see there)."""
    weights = np.asarray(vote_weights, dtype=np.float64)
    if deployed == "mixture_bayes":  # the posterior means, each half's by its weight
        weights = np.abs(weights)
        for g, a in zip(groups, mixture, strict=True):
            weights[g.voters] *= a
        return effective_voters(weights, vote=False)
    return effective_voters(weights)


def _mixture_scores(posteriors, natural, mixture, groups, votes, decide=False):
    """Mixture's win probabilities ``P_Q(y wins)``, shape (n_samples, n_classes).

    See :ref:`theory-split`.

    With ``decide=True`` (multi-class) only the entries that can be the row's maximum are
    computed: every other entry is a closed-form upper bound below it (see
    :func:`_mixture_decision_scores`), so the strict arg-max is the same at a fraction of
    the cost (most rows need one integral instead of one per class).
    """
    halves = [
        (post, torch.from_numpy(np.asarray(nat)), a, np.ascontiguousarray(votes[:, g.voters]))
        for post, nat, a, g in zip(posteriors, natural, mixture, groups, strict=True)
    ]
    parts = []
    with torch.no_grad():
        for s in range(0, votes.shape[0], _R_CHUNK):
            rows = slice(s, s + _R_CHUNK)
            chunk = [(post, nat, a, torch.from_numpy(v[rows])) for post, nat, a, v in halves]
            if decide and posteriors[0].n_classes > 2:
                parts.append(_mixture_decision_scores(chunk))
            else:
                parts.append(sum(a * post.win_probabilities(nat, v) for post, nat, a, v in chunk))
    return torch.cat(parts).numpy()


_DECISION_MARGIN = 1e-9  # far above the certified integrals' error (about 1e-11)


def _mixture_decision_scores(halves):
    """Win probabilities of the entries that can be each row's maximum, upper bounds elsewhere.

    Each half's :meth:`~skpacbayes.posteriors.Gaussian.win_probability_upper_bounds`
    (closed form, valid for the exact values) mixes into ``U``. The class with the largest
    ``U`` gets its certified win probability ``V``; every other class whose ``U`` reaches
    ``V - 1e-9`` gets its certified value too. A class left at ``U < V - 1e-9`` is below
    the evaluated maximum, so the strict arg-max (and a tie among evaluated entries) is the
    same as on the full matrix of certified win probabilities.
    """
    upper = sum(a * post.win_probability_upper_bounds(nat, v) for post, nat, a, v in halves)
    b = upper.shape[0]
    rows = torch.arange(b)
    lead = upper.argmax(dim=1)

    def certified(r, t):
        return sum(a * post.win_probability(nat, v[r], t) for post, nat, a, v in halves)

    scores = upper.clone()
    scores[rows, lead] = certified(slice(None), lead)  # every row: no copy of the votes
    ahead = scores[rows, lead] - _DECISION_MARGIN
    close = upper >= ahead[:, None]
    close[rows, lead] = False
    r, t = torch.nonzero(close, as_tuple=True)
    if r.numel():
        scores[r, t] = certified(r, t)
    return scores


def mixture_win_probabilities(estimator, votes, decide=False):
    """Mixture's win probabilities P_Q(y wins) of a Gaussian posterior on split voters.

    Used by ``predict`` (``decide=True``: only the entries that decide the arg-max are
    exact, see :func:`_mixture_scores`), ``predict_proba`` and ``decision_function`` of
    split Gaussian estimators (the deployed classifier is the mixture's Bayes classifier,
    :ref:`theory-split`).
    """
    groups = [_Group(v, s) for v, s in estimator.groups_]
    posteriors = [
        make_posterior(estimator.posterior, g.voters.size, estimator.n_classes_, estimator.prior)
        for g in groups
    ]
    return _mixture_scores(
        posteriors,
        estimator.posterior_params_,
        estimator.mixture_weights_,
        groups,
        votes,
        decide=decide,
    )


class _Group:
    def __init__(self, voters, samples):
        self.voters = voters
        self.samples = samples


def _margin_certificate(estimator, problem, vote_weights):
    """Margin bound of the deployed vote (theory page, margin section).

    ``theta`` is the deployed weight vector (what ``predict`` uses); the certified posterior
    is ``Dir(K theta)`` for the best ``K`` of a fixed grid (free: the PAC-Bayes statement holds
    for every posterior at once), at the best margin of the fixed grid of ``n_margins``
    values (``delta`` split evenly over it). Returns the value, the certified posterior's
    natural parameters and the details.
    """
    from skpacbayes import bounds

    post = problem.posteriors[0]
    theta = np.asarray(vote_weights, dtype=np.float64)
    votes = problem.votes[0].numpy()
    labels = problem.labels[0].numpy()
    correct = (votes == labels[:, None]).astype(np.float64)
    # margin of the deployed vote, y theta.f(x) = (right weight) - (wrong weight); a float64
    # sum of n terms of total weight 1 is within n 2^-52 of the exact value: count a row as a
    # margin error as soon as its computed margin is within 4 n 2^-52 of gamma (safe side)
    margins = correct @ theta - (1.0 - correct) @ theta
    tol = 4.0 * theta.size * np.finfo(np.float64).eps
    m = problem.m[0]
    gammas = _margin_grid(estimator.n_margins)
    delta_gamma = float(estimator.delta) / gammas.size
    concentrations = np.logspace(0, 7, 57)
    kls = np.array([float(post.kl(torch.from_numpy(k * theta))) for k in concentrations])
    kls = kls * (1 + _KL_SLACK) + _KL_SLACK
    best = (1.0, None, None, None)
    for gamma in gammas:
        margin_error = min(1.0, float(np.mean(margins <= gamma + tol)) + _STAT_SLACK)
        values = bounds.margin_bound(
            margin_error, float(gamma), concentrations, kls, m, delta_gamma
        )
        j = int(np.argmin(values))
        if values[j] < best[0]:
            best = (float(values[j]), float(gamma), float(concentrations[j]), margin_error)
    value, gamma, k, margin_error = best
    if gamma is None:  # vacuous everywhere: report 1 for the trained posterior
        return 1.0, None, {"gamma": None, "concentration": None, "n_margins": gammas.size}
    t0, t1 = bounds.margin_tails(gamma, k)
    details = {
        "gamma": gamma,
        "concentration": k,
        "n_margins": gammas.size,
        "margin_error": margin_error,
        "t0": float(t0),
        "t1": float(t1),
    }
    return value, [k * theta], details


def _margin_grid(n_margins):
    """The margins of the bound's grid, fixed before the sample: log-spaced in [1e-3, 1]."""
    return np.logspace(-3, 0, n_margins)
