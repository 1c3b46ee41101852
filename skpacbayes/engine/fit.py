"""Fit-time engine: the statistics, the optimiser, and the float64 certificate.

Imported lazily by :mod:`skpacbayes.classifiers` inside ``fit``: a fitted
estimator predicts with NumPy only (except the Gaussian mixture's Bayes
classifier on split voters, see :func:`mixture_win_probabilities`).

Two paths, one certificate (:ref:`theory-statistics`):

* **counts** -- a Categorical posterior with a bound that reads the sample only through the
  error counts of the voters and pairs of voters (first order, tandem, C-bound, the
  partition bound's Gibbs term, Occam), and every out-of-bag bank: one chunked pass counts
  them (:mod:`skpacbayes.engine.statistics`), the optimiser works on the counts (the exact
  searches of :mod:`skpacbayes.engine.exact_search`, or L-BFGS), the certificate reads the
  same counts;
* **rows** -- the per-row families (Dirichlet, Gaussian, the binomial bound, the VC
  baseline's cross-entropy): the 0/1 error matrix is held once in float32 and minimised
  full batch by L-BFGS from up to four starts, the lowest end kept (or by mini-batch Adam, the
  reference paper's protocol, and when the matrix exceeds a memory budget); the
  certificate recomputes every stochastic loss in float64.
"""

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np
import torch
from joblib import effective_n_jobs

from skpacbayes.engine.certificate import _KL_SLACK, _STAT_SLACK, Certificate, effective_voters
from skpacbayes.engine.deployed import deployed_classifier, partition_terms
from skpacbayes.engine.exact_search import gibbs_search, tandem_search
from skpacbayes.engine.optimisers import minimize_lbfgs, polish, resolve_device, to_device, train
from skpacbayes.engine.parallel import thread_limit
from skpacbayes.engine.statistics import (
    EvaluationGroup,
    certified_statistics,
    column_sums,
    count_statistic_tensors,
    needs_pairs,
    shared_value,
    statistics_of,
)
from skpacbayes.engine.vote import _strict_argmax_is, vote_errors, weighted_vote_scores
from skpacbayes.posteriors._base import ClassVotes, ErrorMask

_R_CHUNK = 16384
_INDEX_BYTES = 2**30  # largest int64 vote indices the multi-class Gaussian training holds
#: largest error matrix the full-batch solver holds with ``solver="auto"`` (else Adam)
ERROR_MATRIX_BYTES = 2**31
# Optimiser settings (documented in the user guide, "Training"): the fewest Adam steps per
# epoch, the full-batch L-BFGS iterations of the polish after Adam, the relative decrease
# below which L-BFGS stops, and the scales scanned for the starts of the per-row families.
MIN_STEPS_PER_EPOCH = 10
POLISH_MAX_ITER = 50
LBFGS_FTOL = 1e-7
_CAUGHT_UP_TOL = 1e-5  # a later run within this of an earlier end, and as slow, stops
_START_SCALES = np.logspace(-1.0, 3.0, 9)
_START_MIX = 1e-3  # weight of the prior in the mapped starts (every coordinate stays > 0)
_VOTE_START_ITER = 50  # L-BFGS iterations of the vote start's cross-entropy
# Box of the coordinates L-BFGS searches (a line-search step stays representable: square
# roots of probabilities, see _to_search, log-concentrations within the float32 training
# range, Gaussian means) and of the mixture's logit.
_SEARCH_BOUNDS = {"categorical": (-1e3, 1e3), "dirichlet": (-69.0, 18.0), "gaussian": (-1e6, 1e6)}
_ALPHA_BOUNDS = (-50.0, 50.0)
#: bounds that read the sample only through the error counts (Categorical posterior)
COUNT_BOUNDS = ("FO", "SO", "CBound", "Partition", "Occam")


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
    solver: str


def _log(estimator, message):
    if estimator.verbose:
        print(f"[{type(estimator).__name__}] {message}", flush=True)


def uses_counts(estimator, scheme):
    """Whether the fit runs on the error counts (the count path) rather than on the rows."""
    if scheme.out_of_bag:
        return True
    if estimator.posterior != "categorical" or estimator._bound_name not in COUNT_BOUNDS:
        return False
    return estimator._bound_name == "Occam" or estimator.solver != "adam"


def fit_posteriors(estimator, passes, y_idx, scheme, seed, bank=None):
    """Optimise the posterior on the statistics or the rows, then certify it.

    Parameters
    ----------
    estimator : MajorityVoteClassifier
        The estimator being fitted (``n_classes_`` set).
    passes : VotePasses
        The votes of the training rows, in chunks.
    y_idx : ndarray of shape (n_rows,)
        True class indices.
    scheme : EvaluationScheme
        Which voter may be evaluated on which row.
    seed : int
        Seed of the local torch generator (starting noise, mini-batches).
    bank : voter bank, optional
        The fitted bank (an out-of-bag bank's draws go into the certificate's details).

    Returns
    -------
    FitResult
    """
    device = resolve_device(estimator.device)
    # threads of torch (OpenMP): n_jobs (None: one), of BLAS: one (see thread_limit). Two
    # threads beside other work wait for a core at every operation: adult's Dirichlet fit
    # took 4.9 s with two threads and one busy core, 1.7 s with one thread.
    with thread_limit(effective_n_jobs(estimator.n_jobs)):
        if uses_counts(estimator, scheme):
            return _fit_on_counts(estimator, passes, y_idx, scheme, seed, bank, device)
        return _fit_on_rows(estimator, passes.whole(), y_idx, scheme, seed, device)


# ---------------------------------------------------------------------------------------------
# The count path
# ---------------------------------------------------------------------------------------------
class _Counts:
    """The counts of each group, their rates as tensors, and the statements' sample sizes."""

    def __init__(self, estimator, statistics, scheme, keys):
        self.keys = keys
        self.groups = [statistics.group(g.voters) for g in scheme.groups]
        self.m = [gs.sample_size(keys) for gs in self.groups]
        self.posteriors = [
            make_posterior("categorical", g.voters.size, estimator.n_classes_)
            for g in scheme.groups
        ]

    def tensors(self, dtype, device):
        return [count_statistic_tensors(gs, self.keys, dtype, device) for gs in self.groups]


def _fit_on_counts(estimator, passes, y_idx, scheme, seed, bank, device):
    keys = estimator._statistic_keys
    statistics = passes.statistics(y_idx, scheme, pairs=needs_pairs(keys), device=device)
    counts = _Counts(estimator, statistics, scheme, keys)
    with thread_limit(1):  # small arrays: threads would only wait (see _exact)
        natural, mixture, history, n_iter, solver = _optimise_counts(estimator, counts, seed)
    _log(estimator, f"{solver} optimiser on the error counts: {n_iter} iterations")

    def group_statistics(g, nat):
        return certified_statistics(nat / nat.sum(), counts.groups[g], keys)

    def certify(natural, mixture):
        return _certify(
            estimator,
            counts.posteriors,
            natural,
            mixture,
            scheme,
            counts.m,
            group_statistics,
            lambda natural, mixture, weights, deployed, rows: passes.vote_errors(
                y_idx, weights, estimator.n_classes_, rows
            ),
            _out_of_bag_details(bank, statistics) if scheme.out_of_bag else {},
        )

    certified = certify(natural, mixture)
    if _tightened(estimator):
        from skpacbayes.engine.tightening import tighten_partition

        def gibbs(g, nat, scales=None):  # the Gibbs risk does not change with the scale
            p = np.asarray(nat, dtype=np.float64)
            risk = min(1.0, float(p @ counts.groups[g].rates / p.sum()) + _STAT_SLACK)
            return risk if scales is None else np.full(len(scales), risk)

        errors = [gs.errors for gs in counts.groups]
        tightened = tighten_partition(
            estimator, counts.posteriors, counts.m, scheme.groups, gibbs, errors, natural, mixture
        )
        certified = _better(certified, certify(*tightened))
    return _result(certified, mixture, history, n_iter, solver)


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


def _optimise_counts(estimator, counts, seed):
    """Natural parameters, mixture, history, iterations and solver name on the counts."""
    name, h = estimator._bound_name, len(counts.groups)
    delta = float(estimator.delta)
    if name == "Occam":
        natural, mixture = _select_single_voter(estimator, counts)
        return natural, mixture, [], 0, "exact"
    generator = torch.Generator(device="cpu").manual_seed(seed)
    prior_start = [
        post.init_raw(generator=generator, dtype=torch.float64).detach()
        for post in counts.posteriors
    ]
    if estimator.max_epochs == 0:  # the starting point, as the documentation says
        natural = [
            post.natural(raw).numpy().copy()
            for post, raw in zip(counts.posteriors, prior_start, strict=True)
        ]
        return natural, _free_mixture(h), [], 0, "none"
    if estimator.solver == "adam":  # out-of-bag banks: full-batch Adam steps on the counts
        return (*_adam_on_counts(estimator, counts, prior_start, seed), "adam")
    if estimator.solver == "auto" and name in ("FO", "Partition", "SO"):
        # the exact searches reach the optimum (up to their resolution): nothing to refine
        natural, mixture, groups = _exact_search(counts, delta, tandem=name == "SO")
        return natural, mixture, [], groups, "exact"

    def raws(natural):
        return [torch.log(torch.from_numpy(q).clamp_min(1e-300)) for q in natural]

    if estimator.solver == "auto":  # C-bound: from the tandem optimum (second order too)
        start = raws(_exact_search(counts, delta, tandem=True)[0])
    else:
        start = prior_start
    objective = _count_objective(estimator, counts)
    natural, mixture, history, n_iter = _run_lbfgs(estimator, counts.posteriors, objective, start)
    return natural, mixture, history, n_iter, "lbfgs"


def _free_mixture(h):
    return np.array([1.0]) if h == 1 else np.full(h, 1.0 / h)


def _exact_search(counts, delta, tandem):
    """Per-group exact search; a free mixture goes to the group of the lowest bound."""
    h = len(counts.groups)
    natural, values, evaluations = [], [], 0
    for gs, m in zip(counts.groups, counts.m, strict=True):
        q, value = (
            tandem_search(gs.tandem, m, delta / h)
            if tandem
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


def _count_objective(estimator, counts, dtype=torch.float64, device="cpu"):
    """The estimator's training objective of the Categorical weights on the counts."""
    tensors = counts.tensors(dtype, device)
    m = torch.tensor(counts.m, dtype=dtype).to(device)
    delta = float(estimator.delta)

    def objective(raws, weights):
        stats, kls = [], []
        for post, raw, t in zip(counts.posteriors, raws, tensors, strict=True):
            q = post.natural(raw)
            stats.append(statistics_of(q, t, counts.keys))
            kls.append(post.kl(q))
        return estimator._training_objective(
            _stack_stats(stats), torch.stack(kls), m, weights, delta
        )

    return objective


def _adam_on_counts(estimator, counts, raws, seed):
    """Full-batch Adam on the counts (out-of-bag banks with ``solver="adam"``).

    An epoch is ``max(10, ceil(m / batch_size))`` steps, as many as a mini-batch epoch over
    the ``m`` rows takes, so that ``max_epochs``, ``learning_rate`` and the schedule keep
    their meaning.
    """
    device = resolve_device(estimator.device)
    objective = _count_objective(estimator, counts, torch.float32, device)
    raws = [raw.to(device, torch.float32).requires_grad_(True) for raw in raws]
    weights = torch.ones(1, dtype=torch.float32, device=device)
    n_rows = max(int(gs.sizes.max()) for gs in counts.groups)
    steps = max(MIN_STEPS_PER_EPOCH, math.ceil(n_rows / int(estimator.batch_size)))
    generator = torch.Generator(device="cpu").manual_seed(seed)

    def full_objective():
        with torch.no_grad():
            return float(objective(raws, weights))

    result = train(
        raws,
        lambda index: objective(raws, weights),
        full_objective,
        steps,
        max_epochs=estimator.max_epochs,
        batch_size=1,
        learning_rate=estimator.learning_rate,
        early_stopping_patience=estimator.early_stopping_patience,
        generator=generator,
        verbose=estimator.verbose,
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


def _select_single_voter(estimator, counts):
    """Occam: the voter with the smallest Seeger bound, KL = ln(n_half), delta / h per half."""
    from skpacbayes.bounds import kl_inv_upper, seeger_epsilon

    h = len(counts.groups)
    best = (np.inf, 0, 0)
    for g, (gs, m) in enumerate(zip(counts.groups, counts.m, strict=True)):
        n_g = gs.rates.size
        eps = seeger_epsilon(np.log(n_g), m, float(estimator.delta) / h)
        values = np.asarray(kl_inv_upper(np.clip(gs.rates + _STAT_SLACK, 0, 1), eps))
        i = int(np.argmin(values))
        if values[i] < best[0]:
            best = (values[i], g, i)
    _, g_best, i_best = best
    natural = []
    for g, gs in enumerate(counts.groups):
        n_g = gs.rates.size
        p = np.zeros(n_g) if g == g_best else np.full(n_g, 1.0 / n_g)
        if g == g_best:
            p[i_best] = 1.0
        natural.append(p)
    mixture = np.array([1.0]) if h == 1 else np.eye(h)[g_best]
    return natural, mixture


# ---------------------------------------------------------------------------------------------
# Multi-start L-BFGS (both paths)
# ---------------------------------------------------------------------------------------------
def _caught_up(history, level):
    """Whether a run has arrived where an earlier one ended, at ``level``: its last iterate is
    within ``_CAUGHT_UP_TOL`` (relative) of it and gained less than that over the one before.

    Multi-start runs mostly end at the same point (measured: the four runs of mnist's
    second-order Gaussian fit all at 0.156385, the three of adult's first-order Dirichlet fit
    at 0.402351); the later ones spend their last third creeping down the last ``1e-5``. A
    run that goes on below the level does not stop.
    """
    if len(history) < 2 or not math.isfinite(level):
        return False
    tol = _CAUGHT_UP_TOL * max(1.0, abs(history[-1]))
    return abs(history[-1] - level) <= tol and history[-2] - history[-1] <= tol


def _square_root_search(estimator, post):
    """Whether L-BFGS searches ``post`` in the square roots of its probabilities
    (:func:`_to_search`): a Categorical posterior under a PAC-Bayes objective.

    In these coordinates the KL's curvature is the Fisher metric of the family, four times
    the identity; in the logits it is ``p_i`` along coordinate ``i``, so that the many small
    weights of a trained posterior make the objective ill-conditioned (measured on adult,
    binomial bound: condition number 7e4 at the optimum in the logits) and L-BFGS creeps
    through them (91 iterations against 30 from the same start, to the same point). The VC
    baseline's cross-entropy has no KL term: it keeps the logits (in the square roots its
    descents end elsewhere, tictactoe's bound 1.3 points higher on one seed, lower on others).
    """
    return post.name == "categorical" and estimator._bound_name != "VC"


def _to_search(raw, square_root):
    """The coordinates L-BFGS searches for the raw parameter ``raw``: ``raw`` itself, or with
    ``square_root`` (a Categorical posterior, :func:`_square_root_search`) the square roots
    ``x = sqrt(softmax(raw))`` of its probabilities."""
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


def _run_lbfgs(estimator, posteriors, objective, start, rank=None, level=math.inf):
    """L-BFGS from ``start`` (raw tensors, one per group), at most ``max_epochs`` iterations.

    ``objective(raws, weights)`` is minimised over the raws, in the coordinates of
    :func:`_to_search`, and, on split voters with a free mixture weight, over
    ``alpha = sigmoid(alpha_raw)`` (from 1/2); with ``rank(raws)``, the evaluated point of
    lowest rank is kept (:func:`minimize_lbfgs`). The run stops once it has caught up with
    ``level``, the lowest end of the runs before it (:func:`_caught_up`). Returns float64
    natural parameters, the mixture, the history and the iterations.
    """
    h = len(posteriors)
    fixed = estimator._fixed_mixture_weight()
    free_alpha = h > 1 and fixed is None
    bounds = [_SEARCH_BOUNDS[post.name] for post in posteriors]
    bounds += [_ALPHA_BOUNDS] if free_alpha else []
    logger = (lambda line: _log(estimator, line)) if estimator.verbose > 1 else None
    roots = [_square_root_search(estimator, post) for post in posteriors]
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
        return objective(raws(), _mixture(alpha_raw, fixed, h, dtype, device))

    result = minimize_lbfgs(
        params,
        value,
        max_iter=int(estimator.max_epochs),
        ftol=LBFGS_FTOL,
        bounds=bounds,
        logger=logger,
        rank=None if rank is None else (lambda: rank(raws())),
        stop=lambda history: _caught_up(history, level),
    )
    _log(estimator, f"L-BFGS: objective {result.value:.6f} after {result.n_iter} iterations")
    with torch.no_grad():
        natural = [
            post.natural(_from_search(x.detach().to("cpu", torch.float64), root)).numpy().copy()
            for post, x, root in zip(posteriors, params[:h], roots, strict=True)
        ]
    alpha = float(torch.sigmoid(alpha_raw.detach().double())) if free_alpha else fixed
    mixture = np.array([1.0]) if h == 1 else np.array([alpha, 1.0 - alpha])
    return natural, mixture, result.history, result.n_iter


def _mixture(alpha_raw, fixed, n_groups, dtype, device):
    if n_groups == 1:
        return torch.ones(1, dtype=dtype, device=device)
    if fixed is not None:  # a fill on the device, not a copy from the host (capturable)
        a = torch.full((), fixed, dtype=dtype, device=device)
    else:
        a = torch.sigmoid(alpha_raw)
    return torch.stack([a, 1 - a])


def _stack_stats(per_group):
    keys = per_group[0].keys()
    return {k: torch.stack([s[k] for s in per_group]) for k in keys}


# ---------------------------------------------------------------------------------------------
# The row path
# ---------------------------------------------------------------------------------------------
class _Problem:
    """Votes, labels and posteriors of each half, on one device and dtype."""

    def __init__(self, estimator, votes, y_idx, groups, device, dtype, hold_errors=True):
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
            self.votes.append(torch.from_numpy(_block(votes, g)).to(device))
            self.labels.append(torch.from_numpy(y_idx[g.samples].astype(np.int64)).to(device))
            rows = np.full(self.n_samples, -1, dtype=np.int64)
            rows[g.samples] = np.arange(g.samples.size)
            self.rows.append(torch.from_numpy(rows).to(device))
        self.m = [int(g.samples.size) for g in groups]
        self.n_groups = len(groups)
        self._digests = [None] * self.n_groups
        # The 0/1 error matrix of each half, once, in the training dtype (the losses then
        # skip forming and converting it at every evaluation), its equal and complementary
        # columns folded (ErrorMask.folded: the default stumps come with their opposites,
        # which halves every product), but where the search follows the last bits of the
        # objective (_follows_last_bits: the folded products round differently; measured,
        # over five seeds: tictactoe's VC bounds up to 1.0 point higher, adult's tightened
        # Dirichlet partition bounds 0 to 0.16 point higher; breast cancer's margin bound
        # 0.2 point higher). Certificates (float64) and the multi-class Gaussian (which
        # needs the votes) do not use it.
        self.errors = None
        uses_votes = estimator.posterior == "gaussian" and self.n_classes > 2
        if dtype != torch.float64 and not uses_votes and hold_errors:
            mask = ErrorMask if _follows_last_bits(estimator) else ErrorMask.folded
            self.errors = [
                mask(_error_matrix(v, lab, dtype))
                for v, lab in zip(self.votes, self.labels, strict=True)
            ]
        # The multi-class Gaussian's votes as int64 indices with their vote counts, once, in
        # chunks of rows (the class sums then skip both at every evaluation); within a budget
        self.class_votes = self._indices = None
        if uses_votes and hold_errors and 8 * sum(v.numel() for v in self.votes) <= _INDEX_BYTES:
            self._indices = [v.long() for v in self.votes]
            self.class_votes = [  # views of the int64 indices
                [ClassVotes(ix[s : s + _R_CHUNK], self.n_classes, dtype) for s in _starts(ix)]
                for ix in self._indices
            ]

    def digest(self, g):
        """A hash of the votes and labels of half ``g`` (computed once): with their shape,
        it identifies what the values shared between fits (:func:`shared_value`) read."""
        if self._digests[g] is None:
            h = hashlib.blake2b(digest_size=16)
            for a in (self.votes[g], self.labels[g]):
                h.update(np.ascontiguousarray(a.cpu().numpy()).data)
            self._digests[g] = (h.hexdigest(), tuple(self.votes[g].shape))
        return self._digests[g]

    def error_mask(self, g, rows=None):
        """The held errors of half ``g`` (an :class:`ErrorMask`), of the rows ``rows`` when
        given; ``None`` where the errors are not held."""
        if self.errors is None:
            return None
        return self.errors[g] if rows is None else self.errors[g].take(rows)

    def held(self, g):
        """How the training reads half ``g``: ``"votes"``, or its error matrix ``"plain"`` or
        ``"folded"`` (the products round differently: values shared between fits are keyed
        by it)."""
        if self.errors is None:
            return "votes"
        return "plain" if self.errors[g].columns is None else "folded"

    def shared_losses(self, g, nat, scales=None):
        """:meth:`losses` of half ``g`` at ``nat`` (with ``scales``: at ``t * nat`` for each
        ``t``), without gradient; within a :func:`~skpacbayes.engine.statistics.shared_votes`
        block, computed once for every fit of the block on the same votes (a stochastic loss
        is a function of the votes, the labels and the natural parameters alone, not of the
        prior or the bound: the candidates of a selection scan the same start points)."""

        def compute():
            with torch.no_grad():
                return self.losses(g, nat, scales=scales)

        def key():
            values = nat.detach().cpu().numpy()
            return (
                "losses",
                self.digest(g),
                type(self.posteriors[g]).__name__,
                self.n_classes,
                str(values.dtype),
                values.tobytes(),
                str(self.device),
                self.held(g),
                None if scales is None else tuple(float(t) for t in scales),
            )

        if torch.device(self.device).type != "cpu":
            return compute()
        return shared_value(key, compute)

    def voter_errors(self, g):
        """Errors of each voter of half ``g`` on its rows (int64 NumPy)."""
        votes, labels = self.votes[g], self.labels[g][:, None].to(self.votes[g].dtype)
        if votes.device.type == "cpu":  # NumPy's byte sums: ten times torch's bool sums
            return column_sums(votes.numpy() != labels.numpy())
        return (votes != labels).sum(dim=0).cpu().numpy().astype(np.int64)

    def gibbs(self, g, nat, scales=None):
        """Gibbs risk of half ``g`` at the natural parameters ``nat`` (NumPy), as a float.

        Raised by the loss tolerance and the statistic allowance of a certificate; in
        float32 it only guides a search (the partition tightening). With ``scales``, the
        risks at ``t * nat`` for every ``t`` of them, as an array (the losses' sums are
        formed once for the ray: :meth:`~skpacbayes.posteriors.Posterior.scaled_stochastic_losses`).
        """
        with torch.no_grad():
            values = torch.from_numpy(np.asarray(nat)).to(self.dtype)
            if self.estimator.posterior == "dirichlet":  # concentrations stay > 0
                values = values.clamp_min(torch.finfo(values.dtype).tiny)
            r = self.losses(g, values, scales=scales)
        allowance = self.posteriors[g].loss_tolerance + _STAT_SLACK
        if scales is None:
            return min(1.0, float(r.mean()) + allowance)
        return np.fmin(1.0, r.mean(dim=1).double().cpu().numpy() + allowance)

    def losses(self, g, nat, rows=None, scales=None):
        """Stochastic losses of half ``g`` (all its rows, in chunks, or ``rows``); with
        ``scales``, those at ``t * nat`` for each ``t``, one row per scale."""
        post, votes, labels = self.posteriors[g], self.votes[g], self.labels[g]

        def loss(chunk, y):
            if scales is None:
                return post.stochastic_loss(nat, chunk, y)
            return post.scaled_stochastic_losses(nat, chunk, y, scales)

        if self.errors is not None:  # one call: the losses chunk their own temporaries
            return loss(self.error_mask(g, rows), None)
        if rows is not None:
            return loss(votes[rows], labels[rows])
        if self.class_votes is None:
            chunks = [votes[s : s + _R_CHUNK] for s in _starts(votes)]
        else:
            chunks = self.class_votes[g]
        parts = [
            loss(chunk, labels[s : s + _R_CHUNK])
            for s, chunk in zip(_starts(votes), chunks, strict=True)
        ]
        return torch.cat(parts, dim=-1)

    def indices(self, g):
        """The votes of half ``g`` as int64 class indices (the held ones where there are)."""
        return self.votes[g].long() if self._indices is None else self._indices[g]


def _tightened(estimator):
    """Whether the fit ends with the partition bound's tightening search."""
    return estimator._bound_name == "Partition" and bool(getattr(estimator, "tighten", False))


def _follows_last_bits(estimator):
    """Whether the estimator's bound follows the last bits of its training objective: the VC
    baseline keeps the point with the fewest training errors and the margin bound reads the
    margin errors of the trained point, counts that jump, and the partition tightening
    scores partition terms that jump with the weights."""
    return estimator._bound_name in ("VC", "Margin") or _tightened(estimator)


def _block(votes, group):
    """The votes of ``group`` (its rows, its voters) as a C-contiguous copy.

    Every voter in order (one group, or out-of-bag): a take of the rows, about twenty times
    faster than the fancy indexing ``np.ix_`` needs for a subset of the columns.
    """
    n_voters = votes.shape[1]
    if group.voters.size == n_voters and np.array_equal(group.voters, np.arange(n_voters)):
        return np.take(votes, group.samples, axis=0)
    return np.ascontiguousarray(votes[np.ix_(group.samples, group.voters)])


def _error_matrix(votes, labels, dtype):
    """The 0/1 errors ``votes != labels`` in ``dtype``, on the device of the tensors.

    On the CPU one NumPy comparison writes them in place, on views of the tensors (torch's
    comparison, then its conversion from bool, took about ten times as long on a million
    rows); elsewhere the device compares.
    """
    if votes.device.type != "cpu":
        return (votes != labels[:, None].to(votes.dtype)).to(dtype)
    errors = torch.empty(votes.shape, dtype=dtype)
    v = votes.numpy()
    np.not_equal(v, labels.numpy().astype(v.dtype)[:, None], out=errors.numpy(), casting="unsafe")
    return errors


def _starts(votes):
    """First row of each chunk of ``_R_CHUNK`` rows."""
    return range(0, votes.shape[0], _R_CHUNK)


def _error_matrix_bytes(groups):
    """Bytes of the float32 error matrices the full-batch solver holds."""
    return 4 * sum(g.voters.size * g.samples.size for g in groups)


def _fit_on_rows(estimator, votes, y_idx, scheme, seed, device):
    groups = scheme.groups
    solver = estimator.solver
    if solver == "auto":
        too_large = _error_matrix_bytes(groups) > ERROR_MATRIX_BYTES
        solver = "adam" if too_large else "lbfgs"
    train_problem = _Problem(
        estimator,
        votes,
        y_idx,
        groups,
        device,
        torch.float32,
        hold_errors=_error_matrix_bytes(groups) <= ERROR_MATRIX_BYTES or solver == "lbfgs",
    )
    natural, mixture, history, n_iter, kept = _train_rows(estimator, train_problem, seed, solver)
    _log(
        estimator,
        f"{solver} on the {votes.shape[0]} x {votes.shape[1]} votes: {n_iter} "
        f"{'epochs' if solver == 'adam' else 'iterations'}",
    )
    cv_details = None
    if estimator._bound_name == "VC" and estimator.cv is not None:
        natural, cv_details = _vc_cross_validation(
            estimator, votes, y_idx, groups[0], natural, device, seed, solver, kept
        )
    cert_problem = _Problem(estimator, votes, y_idx, groups, torch.device("cpu"), torch.float64)

    def group_statistics(g, nat):
        with torch.no_grad():
            r = cert_problem.losses(g, torch.from_numpy(np.asarray(nat, dtype=np.float64)))
        tol = cert_problem.posteriors[g].loss_tolerance
        r_lo = torch.clamp(r - tol, 0.0, 1.0).numpy()
        r_hi = torch.clamp(r + tol, 0.0, 1.0).numpy()
        stats = estimator._statistics(r_lo, r_hi, np.mean)
        sign = {"disagreement": -1.0}
        return {
            k: min(1.0, max(0.0, float(v) + sign.get(k, 1.0) * _STAT_SLACK))
            for k, v in stats.items()
        }

    def deployed_errors(natural, mixture, weights, deployed, rows):
        if deployed == "mixture_bayes":
            scores = _mixture_scores(
                cert_problem.posteriors, natural, mixture, groups, votes, decide=True
            )
            wrong = ~_strict_argmax_is(scores, y_idx)
        else:
            wrong = vote_errors(votes, y_idx, weights, estimator.n_classes_)
        return int(np.count_nonzero(wrong & rows)), int(np.count_nonzero(rows))

    def certify(natural, mixture):
        return _certify(
            estimator,
            cert_problem.posteriors,
            natural,
            mixture,
            scheme,
            cert_problem.m,
            group_statistics,
            deployed_errors,
            {},
            margin_problem=cert_problem,
        )

    certified = certify(natural, mixture)
    if cv_details is not None:
        certificate, *rest = certified
        certified = (replace(certificate, details={**certificate.details, **cv_details}), *rest)
    if _tightened(estimator):
        from skpacbayes.engine.tightening import tighten_partition

        # The search scores its candidates in float32 on the training rules (on CPU, where
        # it reads its weights): its values only steer it. The posterior it returns is
        # certified from scratch below.
        search = train_problem
        if search.device.type != "cpu" or search.errors is None:
            search = _Problem(estimator, votes, y_idx, groups, torch.device("cpu"), torch.float32)
        errors = [search.voter_errors(g) for g in range(search.n_groups)]
        tightened = tighten_partition(
            estimator, search.posteriors, search.m, groups, search.gibbs, errors, natural, mixture
        )
        certified = _better(certified, certify(*tightened))
    return _result(certified, mixture, history, n_iter, solver)


def _better(certified, candidate):
    """The certification of lower bound: the PAC-Bayes statement holds for every posterior at
    once, so choosing between two after looking at both bounds costs nothing in delta."""
    return candidate if candidate[0].value < certified[0].value else certified


def _result(certified, mixture, history, n_iter, solver):
    certificate, natural, vote_weights, deployed = certified
    return FitResult(
        natural=natural,
        mixture_weights=np.asarray(certificate.mixture_weights, dtype=np.float64),
        vote_weights=vote_weights,
        deployed=deployed,
        history=history,
        n_iter=n_iter,
        certificate=certificate,
        solver=solver,
    )


def _row_objective(estimator, problem):
    """``objective(raws, weights, rows_list=None)``: the training objective on the rows."""
    h = problem.n_groups
    delta = float(estimator.delta)
    # constants of the objective, on the device once (a copy per step would wait for it)
    m = torch.tensor(problem.m, dtype=torch.float32).to(problem.device)
    mean = torch.mean

    def objective(raws, weights, rows_list=None, shared=False, losses=None):
        rows_list = [None] * h if rows_list is None else rows_list
        nats = [post.natural(raw) for post, raw in zip(problem.posteriors, raws, strict=True)]
        if estimator._bound_name == "VC":
            return _vote_cross_entropy(problem, nats, rows_list)
        stats = []
        for g in range(h):
            if losses is not None:  # computed by the caller (a scan along a ray)
                r = losses[g]
            elif shared:  # no gradient; the losses of the other fits of a block, where there are
                r = problem.shared_losses(g, nats[g])
            else:
                r = problem.losses(g, nats[g], rows_list[g])
            stats.append(estimator._statistics(r, r, mean))
        kl = torch.stack([post.kl(nat) for post, nat in zip(problem.posteriors, nats, strict=True)])
        return estimator._training_objective(_stack_stats(stats), kl, m, weights, delta)

    return objective


def _train_rows(estimator, problem, seed, solver, start=None):
    """Minimise the estimator's objective on ``problem`` (float32 :class:`_Problem`).

    L-BFGS runs from the prior and from each start of :func:`_row_starts`, or from
    ``start`` alone (one of their names; a Gibbs start dropped on this problem, as the best
    voter's, is the best voter's). Returns float64 natural parameters, the mixture weights,
    the history, the iterations and the name of the start whose run was kept (``"prior"``
    for Adam).
    """
    generator = torch.Generator(device="cpu").manual_seed(seed)
    prior = [
        post.init_raw(generator=generator, dtype=torch.float32, device=problem.device)
        for post in problem.posteriors
    ]
    if estimator.max_epochs == 0 or solver == "adam":
        return (*_train_adam(estimator, problem, prior, generator), "prior")
    objective = _row_objective(estimator, problem)
    from skpacbayes._sync import trusted_inputs

    def checked_free(raws, weights, **kwargs):
        with trusted_inputs():
            return objective(raws, weights, **kwargs)

    starts = {"prior": ([raw.detach() for raw in prior], None)}
    # L-BFGS from the prior and from every mapped start, the lowest end kept: a start's
    # objective does not tell where its descent ends (measured: a best-voter start at 0.506
    # ended at 0.439 and the prior's, at 1.52, at 0.383; on adult, the binomial bound with a
    # Gaussian posterior, the vote start at 0.637 and the prior end on the constant vote at
    # 0.518 and the best voter's start, at 0.720, at 0.477)
    fixed = estimator._fixed_mixture_weight()
    alpha_raw = torch.zeros((), device=problem.device)
    weights = _mixture(alpha_raw, fixed, problem.n_groups, torch.float32, problem.device)
    if start != "prior":
        wanted = None if start is None else {start}
        starts.update(_row_starts(estimator, problem, checked_free, weights, wanted))
    if start is not None:  # a Gibbs start dropped here comes back as the best voter's
        name = start if start in starts else "best voter"
        starts = {name: starts[name]}
    rank = None
    if estimator._bound_name == "VC":
        # the bound reads the vote's training errors, which the cross-entropy only steers:
        # each run keeps its evaluated point with the fewest, and the run that ends with the
        # fewest is kept (the bound holds for every weight vector at once, so the choice
        # keeps it; measured on tictactoe, Gaussian: 31 errors from the prior, 14 from the
        # best voter)
        def rank(raws):
            nats = [post.natural(raw) for post, raw in zip(problem.posteriors, raws, strict=True)]
            return _vote_training_errors(problem, nats)

    # A run that arrives where an earlier one ended stops there and counts at that end (the
    # earlier run, which went on to converge, is kept). Not with a rank, whose runs are judged
    # by the training errors of their points, nor before the partition tightening, whose
    # discontinuous search depends on the last bits of the point it starts from (measured on
    # mnist, Dirichlet: the kept point of a run that would have ended 1e-7 lower moved the
    # tightened bounds of the seeds by -1.8 to +2.2 points): there every run converges.
    stops = rank is None and not _tightened(estimator)
    runs, ends = {}, {}
    for name, (raws, _) in starts.items():
        # (the histories hold finite values or +inf: minimize_lbfgs maps the others to +inf)
        level = min((min(run[2]) for run in runs.values()), default=math.inf)
        level = level if stops else math.inf
        run = runs[name] = _run_lbfgs(
            estimator, problem.posteriors, checked_free, raws, rank=rank, level=level
        )
        end = min(run[2], default=math.inf)
        ends[name] = max(end, level) if _caught_up(run[2], level) else end
    if rank is not None:
        ends = {
            name: _vote_training_errors(
                problem, [torch.from_numpy(nat).to(problem.device, problem.dtype) for nat in run[0]]
            )
            for name, run in runs.items()
        }
    name = min(ends, key=ends.get)  # the first on a tie
    _log(
        estimator,
        "starts: "
        + ", ".join(f"{k} {v:.6f}" for k, (_, v) in starts.items() if v is not None)
        + ("; L-BFGS ends: " if rank is None else "; L-BFGS ends (training errors): ")
        + ", ".join(f"{k} {v:.6f}" if rank is None else f"{k} {int(v)}" for k, v in ends.items())
        + f"; kept the {name}",
    )
    return (*runs[name], name)


def _row_starts(estimator, problem, objective, weights, names=None):
    """Starts beyond the prior: the first-order Gibbs optimum, the best single voter and the
    vote of least cross-entropy (those of ``names`` only, when given; a Gibbs start asked
    for and dropped is replaced by the best voter's).

    The first two come from the error counts of each half (the Gibbs start is dropped when it
    is the best voter's, to 0.99 in cosine), the third from the rows (:func:`_vote_target`:
    a good vote whose Gibbs risk is high, a basin the other starts can miss; measured on
    mushroom, first order, Gaussian: both other descents end at 0.1638, this one at 0.1594,
    with a third of their test error). A Gaussian start is the target weights (mixed with
    ``_START_MIX`` of uniform weights) times a scale chosen on ``_START_SCALES`` by the
    objective, a Dirichlet start the prior's concentrations plus such a scaled target, a
    Categorical start the target mixed with the uniform weights at the share (``scale /
    1000``, at most 1) chosen on the same grid. Returns ``{name: (raws, objective)}``.
    """
    h = problem.n_groups
    delta = float(estimator.delta)
    names = ("gibbs", "best voter", "vote") if names is None else names
    targets = {"gibbs": [], "best voter": [], "vote": []}
    for g in range(h):
        if "vote" in names:
            targets["vote"].append(_vote_target(problem, g))
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
    family = estimator.posterior
    starts = {}
    for name, target in targets.items():
        mixed = [(1 - _START_MIX) * q + _START_MIX / q.size for q in target]

        def raws_at(scale, mixed=mixed):
            out = []
            for post, q in zip(problem.posteriors, mixed, strict=True):
                if family == "dirichlet":  # the prior's concentrations plus the target's
                    nat = post.prior.numpy() + scale * q.size * q
                elif family == "gaussian":
                    nat = scale * np.sqrt(q.size) * q
                else:  # the target mixed with the uniform prior (scales above 1: none)
                    share = min(1.0, scale / _START_SCALES[-1])
                    nat = share * q + (1.0 - share) / q.size
                out.append(
                    post.raw_from_natural(torch.from_numpy(nat))
                    .to(device=problem.device, dtype=torch.float32)
                    .detach()
                )
            return out

        with torch.no_grad():
            if family == "gaussian" and estimator._bound_name != "VC":
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


def _train_adam(estimator, problem, raws, generator):
    """Mini-batch Adam (the reference paper's protocol), then a full-batch L-BFGS polish."""
    device = problem.device
    h = problem.n_groups
    fixed_alpha = estimator._fixed_mixture_weight()
    alpha_raw = torch.zeros((), dtype=torch.float32, device=device, requires_grad=True)
    params = raws + ([alpha_raw] if h > 1 and fixed_alpha is None else [])
    objective = _row_objective(estimator, problem)
    fixed_weights = None
    if h == 1 or fixed_alpha is not None:
        fixed_weights = _mixture(alpha_raw, fixed_alpha, h, torch.float32, device)

    def weights():
        if fixed_weights is not None:
            return fixed_weights
        return _mixture(alpha_raw, fixed_alpha, h, torch.float32, device)

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


def _vc_cross_validation(estimator, votes, y_idx, group, natural, device, seed, solver, start):
    """The VC baseline's choice between its trained vote and its best single voter.

    A stratified ``estimator.cv``-fold cross-validation on the rows the certificate uses
    (fewer folds when a class has fewer rows; none below two): each fold trains the vote
    as ``fit`` does on the other folds, from the start (:func:`_train_rows`) whose run
    ``fit`` kept on all the rows (one run instead of one per start), and takes the voter
    with the fewest errors there. The trained vote is kept only when its held-out errors,
    summed over the folds, are fewer than the single voters' by more than one standard
    error of that paired difference (the one-standard-error rule, which prefers the simpler
    model); otherwise the voter with the fewest errors on all the rows is deployed. Both
    are weighted votes of the same fixed voters, and the VC bound holds for every weight
    vector at once, so the choice keeps the certificate.

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
            estimator,
            votes,
            y_idx,
            [EvaluationGroup(voters, samples[fit_rows])],
            device,
            torch.float32,
        )
        fold_natural = _train_rows(estimator, fold, seed, solver, start)[0]
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


def _vote_cross_entropy(problem, nats, rows_list):
    """Cross-entropy of the weighted vote (training objective of the VC baseline)."""
    total = 0.0
    for g in range(problem.n_groups):
        w = _unit_vote_weights(problem, g, nats[g])
        total = total + _vote_loss(problem, g, w, rows_list[g])
    return total


def _vote_training_errors(problem, nats):
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


def _vote_loss(problem, g, w, rows=None):
    """Cross-entropy of the vote of half ``g`` with weights ``w`` (summing to one in absolute
    value), on all its rows or on ``rows``: ``softmax(20 scores)`` against the labels (two
    classes: ``softplus(20 (s_other - s_true))``)."""
    scores, labels = _vote_scores(problem, g, w, rows)
    if labels is None:
        return torch.nn.functional.softplus(20.0 * scores).mean()
    return torch.nn.functional.cross_entropy(20.0 * scores, labels)


def _vote_target(problem, g):
    """Weights on the simplex (NumPy float64) of the vote of half ``g`` of least
    cross-entropy: :func:`_vote_loss` minimised over ``softmax(z)`` by L-BFGS from the
    uniform weights, at most ``_VOTE_START_ITER`` iterations.

    It depends on the votes and labels of the half only: the candidates of a selection on
    the same votes (a :func:`~skpacbayes.engine.statistics.shared_votes` block, on the CPU)
    compute it once (measured: 0.6 s of a Gaussian fit on a half of mnist's split forest).
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
            lambda: _vote_loss(problem, g, torch.softmax(z, 0)),
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


# ---------------------------------------------------------------------------------------------
# The certificate (both paths)
# ---------------------------------------------------------------------------------------------
def _certify(
    estimator,
    posteriors,
    natural,
    mixture,
    scheme,
    m,
    group_statistics,
    deployed_errors,
    details,
    margin_problem=None,
):
    """Recompute the bound from scratch in float64 for the final posterior.

    ``group_statistics(g, nat)`` gives the safe-side float64 statistics of half ``g`` (from
    the counts or from the stochastic losses of the rows) and ``deployed_errors(natural,
    mixture, weights, deployed, rows)`` the errors of the deployed classifier on the
    training rows of the boolean mask ``rows`` and their number.
    """
    groups = scheme.groups
    h = len(groups)
    natural = [np.asarray(nat, dtype=np.float64) for nat in natural]
    nats = [torch.from_numpy(nat) for nat in natural]
    vote_weights, deployed = deployed_classifier(estimator, posteriors, natural, mixture, groups)
    rows = np.zeros(scheme.n_rows, dtype=bool)
    if scheme.out_of_bag:
        rows[:] = True
    elif estimator._bound_name == "VC":  # the rows of the bound
        rows[groups[0].samples] = True
    else:
        for g in groups:
            rows[g.samples] = True
    wrong, used = deployed_errors(natural, mixture, vote_weights, deployed, rows)
    train_error = wrong / used

    kl = np.array([float(post.kl(nat)) for post, nat in zip(posteriors, nats, strict=True)])
    kl = kl * (1 + _KL_SLACK) + _KL_SLACK
    stats = [group_statistics(g, natural[g]) for g in range(h)]
    statistics = {key: np.array([float(s[key]) for s in stats]) for key in stats[0]}
    delta = float(estimator.delta)
    m = list(m)
    weights = np.asarray(mixture, dtype=np.float64)
    name = estimator._bound_name
    gibbs_bound = b_tilde = c_tilde = None
    details = {**({"n_draws": int(estimator.n_draws)} if name == "Bin" else {}), **details}

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
        details = {"n_voters": int(g.voters.size)}
        value = float(bounds.vc_bound(train_error, g.voters.size, g.samples.size, delta))
    elif name == "Margin":
        value, certified, details = _margin_certificate(estimator, margin_problem, vote_weights)
        if certified is not None:
            natural = certified
            kl = np.array([float(posteriors[0].kl(torch.from_numpy(natural[0])))])
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
        n_voters=int(scheme.n_voters),
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


def mixture_win_probabilities(estimator, votes, decide=False):
    """Mixture's win probabilities P_Q(y wins) of a Gaussian posterior on split voters.

    Used by ``predict`` (``decide=True``: only the entries that decide the arg-max are
    exact, see :func:`_mixture_scores`), ``predict_proba`` and ``decision_function`` of
    split Gaussian estimators (the deployed classifier is the mixture's Bayes classifier,
    :ref:`theory-split`).
    """
    groups = [EvaluationGroup(v, s) for v, s in estimator.groups_]
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
