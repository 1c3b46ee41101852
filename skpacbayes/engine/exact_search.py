"""Exact optimisers of the Categorical bounds that are functions of the error counts.

For a Categorical posterior ``q`` over the ``n`` voters of one evaluation group (prior ``pi``),
the first-order bound is a nondecreasing function of the Gibbs risk ``<q, e>`` and of
``KL(q || pi)``, and the tandem bound a nondecreasing function of the tandem risk ``q^T T q``
and of ``KL(q || pi)`` (:ref:`theory-statistics`). At a minimiser, the statistic must be
minimal among the posteriors of no larger divergence, which reduces both to one-dimensional
searches:

* :func:`gibbs_search`: the minimisers of ``<q, e>`` at a given divergence are the Gibbs
  posteriors ``q_beta(i) ~ pi_i exp(-beta e_i)``, ``beta in [0, +inf]``; the sign of the
  bound's slope along them has a closed form, scanned on a log-grid of ``beta`` and located
  where it turns positive;
* :func:`tandem_search`: the minimisers of the convex quadratic ``q^T T q`` at a given
  divergence are the minimisers of ``q^T T q + lambda KL(q || pi)``, ``lambda >= 0`` (a
  strictly convex problem for ``lambda > 0`` when ``T`` is positive semidefinite, as it is on
  one common row set); the outer search runs over ``lambda``, each inner problem is solved by
  L-BFGS (:func:`scipy.optimize.minimize`) from the previous solution.

Both work in float64 on the rates, never on the rows, and return the weights with the value
of the objective they minimise (``kl_inv_upper(statistic, (t KL + ln(2 sqrt(m) / delta)) /
m)``, ``t = 1`` or ``2``); the estimator certifies the weights from scratch afterwards.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize

from skpacbayes._docstrings import fill_doc
from skpacbayes.bounds import seeger_epsilon
from skpacbayes.bounds._kl import kl_shifted, newton_kl_inv_upper, newton_kl_root
from skpacbayes.engine.parallel import thread_limit
from skpacbayes.posteriors import categorical_kl

#: the statement's parameters and the result of both searches (docstring text)
_SEARCH_STATEMENT = """\
m : int
    Sample size of the statement.
delta : float
    Confidence of the statement (already divided among the groups).
prior : ndarray of shape (n,), optional
    Prior weights (uniform by default).

Returns
-------
q : ndarray of shape (n,)
    The minimising posterior.
value : float
    Its objective."""

__all__ = ["gibbs_posterior", "gibbs_search", "tandem_search"]

_SCAN_PER_DECADE = 4  # sign of the first-order slope, points per decade of beta
_ZOOM_POINTS = 64  # points of the cell where the sign changes
_STATIONARY_NEWTON_STEPS = 3
_LAMBDA_ZOOM = 8
_LAMBDA_PER_DECADE = 2
_INNER_MAX_ITER = 200
_NEWTON_MAX_ITER = 50
_NEWTON_TOL = 1e-13  # Newton decrement, relative to the objective
_LOG_STEP_MAX = 50.0
_NEWTON_MAX_VOTERS = 1000


def _log_prior(n, prior):
    if prior is None:
        return np.full(n, -np.log(n))
    prior = np.asarray(prior, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(prior / prior.sum())


def _softmax_rows(logits):
    logits = logits - logits.max(axis=-1, keepdims=True)
    q = np.exp(logits)
    return q / q.sum(axis=-1, keepdims=True)


def _objective(stat, kl, m, delta, t):
    """``kl_inv_upper(stat, (t KL + ln(2 sqrt(m) / delta)) / m)``, elementwise (float64).

    The inverse is Newton's root, without the bracketed search that makes a certificate
    conservative: the value only steers the search (the estimator certifies its result from
    scratch), and a root within a few ulps ranks the candidates as the exact one does."""
    stat = np.clip(np.asarray(stat, dtype=np.float64), 0.0, 1.0)
    eps = seeger_epsilon(t * np.asarray(kl, dtype=np.float64), float(m), float(delta))
    return newton_kl_inv_upper(stat, eps)


def gibbs_posterior(rates, beta, prior=None):
    """The Gibbs posteriors ``q_beta(i) ~ pi_i exp(-beta rates_i)``.

    Parameters
    ----------
    rates : ndarray of shape (n,)
        Error rate of each voter.
    beta : float or ndarray of shape (G,)
        Inverse temperatures, ``>= 0``; ``np.inf`` gives the prior restricted to the voters
        of smallest rate.
    prior : ndarray of shape (n,), optional
        Prior weights (uniform by default).

    Returns
    -------
    q : ndarray of shape (n,) or (G, n)

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.exact_search import gibbs_posterior
    >>> gibbs_posterior(np.array([0.1, 0.2, 0.1]), np.inf)
    array([0.5, 0. , 0.5])
    """
    rates = np.asarray(rates, dtype=np.float64)
    log_prior = _log_prior(rates.size, prior)
    beta = np.asarray(beta, dtype=np.float64)
    shifted = rates - rates.min()
    with np.errstate(invalid="ignore"):
        logits = log_prior - np.multiply.outer(beta, shifted)
    # beta = inf: the minimal rates keep their prior weight (inf * 0 is nan there)
    logits = np.where(np.isnan(logits), log_prior, logits)
    return _softmax_rows(logits)


def _single_threaded(search):
    """Run ``search`` with one BLAS and one OpenMP thread (torch's): its arrays are small (a
    row of ``n`` voters, an ``n x n`` matrix), where threads only add their synchronisation,
    and on a busy machine wait for a core."""

    def wrapped(*args, **kwargs):
        with thread_limit(1):
            return search(*args, **kwargs)

    wrapped.__name__, wrapped.__doc__ = search.__name__, search.__doc__
    wrapped.__wrapped__ = search
    return wrapped


def _zoom(values_at, grid, levels, points):
    """Minimise over a grid, then ``levels`` times over ``points`` points between the best
    point's neighbours; ``values_at(points)`` evaluates a whole grid at once. Returns the
    best (point, value)."""
    values = values_at(grid)
    best = int(np.argmin(values))
    point, value = grid[best], float(values[best])
    for _ in range(levels):
        a, b = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
        if a == b:
            break
        grid = np.linspace(a, b, points)  # in the direction of the previous grid
        values = values_at(grid)
        best = int(np.argmin(values))
        if values[best] < value:
            point, value = grid[best], float(values[best])
    return point, value


class _GibbsPath:
    """The Gibbs posteriors ``q_beta`` of one group and the slope of the first-order objective
    along them, on a vector of ``log beta`` at once.

    With ``s = <q_beta, e>``, ``K = KL(q_beta || pi)``, ``eps = (K + ln(2 sqrt(m) / delta)) / m``
    and ``p = kl_inv_upper(s, eps)``, the derivatives ``ds / dbeta = -Var`` and ``dK / dbeta =
    beta Var`` (``Var`` the variance of the rates under ``q_beta``) give

        dp / dbeta = Var p (1 - p) / (p - s) * (beta / m - (logit p - logit s)).

    Write ``p_u = expit(logit s + u)``: ``kl(s || p_u) = ln(1 - s + s e^u) - s u`` (the
    cumulant generating function of a Bernoulli(s) at ``u``, less its mean), which increases
    with ``u > 0``, and ``p = p_u`` at the ``u > 0`` where it equals ``eps``. So the slope has
    the sign of ``kl(s || p_{beta / m}) - eps`` (:meth:`slope_sign`), a closed form without a
    kl inverse; at a stationary point ``u = beta / m`` and the objective is ``p_u``.
    """

    def __init__(self, rates, log_prior, m, delta):
        self.best = float(rates.min())
        self.shifted = rates - self.best
        self.log_prior = log_prior
        self.m = float(m)
        # eps = this + K / m
        self.eps_at_zero = float(seeger_epsilon(0.0, self.m, float(delta)))

    def statistics(self, log_betas):
        """``(s, eps, beta / m)`` at each ``log beta`` (float64 arrays)."""
        beta = np.exp(log_betas)
        logits = self.log_prior - beta[:, None] * self.shifted
        top = logits.max(axis=1)
        weights = np.exp(logits - top[:, None])
        total = weights.sum(axis=1)
        # <q_beta, e> - min e; einsum, not BLAS, whose threads would only wait on these sizes
        shift = np.einsum("gi,i->g", weights, self.shifted) / total
        # KL(q_beta || pi) = -beta <q_beta, e - min e> - ln sum_i pi_i exp(-beta (e_i - min e))
        divergence = np.maximum(-beta * shift - (np.log(total) + top), 0.0)
        return self.best + shift, self.eps_at_zero + divergence / self.m, beta / self.m

    @staticmethod
    def _gap(s, eps, u):
        """``kl(s || p_u) - eps`` (``s = 0``: ``p_u = 0``, ``-eps``)."""
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(s > 0, kl_shifted(s, u), 0.0) - eps

    def slope_sign(self, log_betas):
        """A number of the sign of the objective's slope at each ``log beta``."""
        return self._gap(*self.statistics(log_betas))

    def stationary_value(self, log_beta):
        """The objective at a stationary ``log beta`` (near one, at an interpolated root):
        ``p_u`` with ``u`` the root of ``kl(s || p_u) = eps``, by Newton's method from ``u =
        beta / m`` (the derivative in ``u`` is ``p_u - s``; the function is convex)."""
        s, eps, u = self.statistics(np.array([log_beta]))
        with np.errstate(all="ignore"):
            return float(newton_kl_root(s, eps, u, _STATIONARY_NEWTON_STEPS)[0])


def _crossings(x, h):
    """Where ``h`` (sampled at the increasing ``x``) crosses from negative to non-negative:
    the linear interpolation of each crossing, with its bracket."""
    at = np.flatnonzero((h[:-1] < 0) & (h[1:] >= 0))
    roots = x[at] - h[at] * (x[at + 1] - x[at]) / (h[at + 1] - h[at])
    return [(float(r), float(x[i]), float(x[i + 1])) for r, i in zip(roots, at, strict=True)]


@fill_doc(search_statement=_SEARCH_STATEMENT)
def gibbs_search(rates, m, delta, prior=None):
    """The Gibbs posterior minimising the first-order objective ``kl_inv_upper(<q, e>, eps)``.

    ``eps = (KL(q || pi) + ln(2 sqrt(m) / delta)) / m``. The minimum over every posterior of
    the simplex is reached on the Gibbs family (:ref:`theory-statistics`), and along it the
    objective decreases exactly where ``beta < m (logit p - logit <q_beta, e>)``, ``p`` the
    objective (:class:`_GibbsPath`): its local minima are where the sign of that comparison
    turns from negative to positive, and the sign needs no kl inverse. The sign is evaluated
    on a log-grid of ``beta`` (4 points per decade) from ``0.01 / spread`` to ``50 / gap``
    (``spread`` and ``gap`` the largest and the smallest positive difference of a rate to the
    smallest one; at the top every voter but the best carries less than ``e^-50`` of their
    weight); each change of sign is located on 64 points of its cell and interpolated, and the
    lowest of these minima is kept, against ``beta = 0`` (the prior) where the slope is
    already positive at the bottom of the grid and ``beta = +inf`` where it is still negative
    at its top. Two vectorised evaluations in the usual case of one minimum, in NumPy without
    BLAS (no thread pool takes part, so none is limited).

    Parameters
    ----------
    rates : ndarray of shape (n,)
        Error rates ``e_i`` of the voters (float64).
    {search_statement}

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.exact_search import gibbs_search
    >>> rates = np.array([0.30, 0.32, 0.45, 0.50])
    >>> q, value = gibbs_search(rates, 1000, 0.05)
    >>> bool(q[0] > q[1] > q[2] > q[3]), round(value, 4)
    (True, 0.3619)
    """
    rates = np.asarray(rates, dtype=np.float64)
    log_prior = _log_prior(rates.size, prior)
    shifted = rates - rates.min()
    positive = shifted[(shifted > 0) & np.isfinite(log_prior)]
    if positive.size == 0:  # every voter of the prior's support has the same rate: the prior
        q = gibbs_posterior(rates, 0.0, prior)
        return q, float(_objective(q @ rates, categorical_kl(q, log_prior), m, delta, 1))

    def values_at(log_betas):
        q = gibbs_posterior(rates, np.exp(log_betas), prior)
        return _objective(q @ rates, categorical_kl(q, log_prior), m, delta, 1)

    path = _GibbsPath(rates, log_prior, m, delta)
    lo, hi = np.log(0.01 / positive.max()), np.log(50.0 / positive.min())
    grid = np.linspace(lo, hi, max(8, int(np.ceil((hi - lo) / np.log(10.0) * _SCAN_PER_DECADE))))
    signs = path.slope_sign(grid)
    candidates = []  # (value, log beta)
    for _, a, b in _crossings(grid, signs):
        zoom = np.linspace(a, b, _ZOOM_POINTS)
        for root, _, _ in _crossings(zoom, path.slope_sign(zoom)):
            candidates.append((path.stationary_value(root), root))
    ends = [-np.inf] if not signs[0] < 0 else []  # increasing from the start: the prior
    ends += [np.inf] if signs[-1] < 0 else []  # still decreasing at the top: beta = inf
    if ends or not candidates:
        ends = np.array(ends or [-np.inf, np.inf])
        candidates += list(zip(values_at(ends).tolist(), ends.tolist(), strict=True))
    value, log_beta = min(candidates)
    return gibbs_posterior(rates, np.exp(log_beta), prior), value


class _TandemPath:
    """Solutions of ``min_q q^T T q + lambda KL(q || pi)`` over the simplex.

    Newton's method on the simplex (the equality-constrained Newton direction of
    ``2 T + lambda diag(1 / q)``, followed multiplicatively with Armijo backtracking) up to
    ``_NEWTON_MAX_VOTERS`` voters, where its Cholesky factorisations are cheap; L-BFGS on
    ``q = softmax(z)`` beyond, or where ``T`` is not positive semidefinite (out-of-bag
    tandem rates, each pair on its own rows) so that the Newton matrix is not positive
    definite.
    """

    def __init__(self, tandem, log_prior):
        self.tandem = np.asarray(tandem, dtype=np.float64)
        self.log_prior = np.where(np.isfinite(log_prior), log_prior, -745.0)
        self.newton = self.tandem.shape[0] <= _NEWTON_MAX_VOTERS

    def value(self, q, lam):
        log_ratio = np.log(np.maximum(q, 1e-300)) - self.log_prior
        return float(q @ self.tandem @ q + lam * (q @ log_ratio))

    def solve(self, lam, q0):
        """``q_lambda``, from the starting weights ``q0`` (positive, summing to one)."""
        if self.newton:
            q = self._newton(lam, q0)
            if q is not None:
                return q
        return self._lbfgs(lam, q0)

    def _newton(self, lam, q):
        T, ones = self.tandem, np.ones(self.tandem.shape[0])
        f = self.value(q, lam)
        for _ in range(_NEWTON_MAX_ITER):
            log_ratio = np.log(np.maximum(q, 1e-300)) - self.log_prior
            g = 2.0 * (T @ q) + lam * (log_ratio + 1.0)
            try:
                factor = cho_factor(2.0 * T + np.diag(lam / np.maximum(q, 1e-300)))
            except np.linalg.LinAlgError:
                return None
            a, b = cho_solve(factor, g), cho_solve(factor, ones)
            d = -(a - (a.sum() / b.sum()) * b)  # the Newton step with sum(d) = 0
            decrement = -float(g @ d)
            if not decrement > _NEWTON_TOL * max(1.0, abs(f)):
                return q
            # Move multiplicatively along the Newton direction: log q += s d / q. Its
            # derivative at s = 0 is the Newton step itself (sum(d) = 0), so the step is
            # Newton's near the solution, while a weight bound for e^-50 gets there in one
            # step instead of a hundredfold shrink per step.
            relative = np.clip(d / np.maximum(q, 1e-300), -_LOG_STEP_MAX, _LOG_STEP_MAX)
            step = 1.0
            while step > 1e-12:
                candidate = q * np.exp(step * relative)
                candidate /= candidate.sum()
                f_new = self.value(candidate, lam)
                if f_new <= f - 1e-4 * step * decrement:
                    break
                step /= 2.0
            else:
                return q
            q, f = candidate, f_new
        return q

    def _lbfgs(self, lam, q0):
        T, log_prior = self.tandem, self.log_prior

        def fun(z):
            q = _softmax_rows(z)
            tq = T @ q
            log_ratio = np.log(np.maximum(q, 1e-300)) - log_prior
            g_q = 2.0 * tq + lam * (log_ratio + 1.0)
            return q @ tq + lam * float(q @ log_ratio), q * (g_q - q @ g_q)

        options = {"maxiter": _INNER_MAX_ITER, "gtol": 1e-9, "ftol": 1e-12}
        z0 = np.log(np.maximum(q0, 1e-300))
        return _softmax_rows(minimize(fun, z0, jac=True, method="L-BFGS-B", options=options).x)


@_single_threaded
@fill_doc(search_statement=_SEARCH_STATEMENT)
def tandem_search(tandem, m, delta, prior=None):
    """The posterior minimising the tandem objective ``kl_inv_upper(q^T T q, eps)``.

    ``eps = (2 KL(q || pi) + ln(2 sqrt(m) / delta)) / m``. The minimisers ``q_lambda`` of
    ``q^T T q + lambda KL(q || pi)`` trace the posteriors of least tandem risk at each
    divergence (:ref:`theory-statistics`). The objective is evaluated along them for
    ``lambda`` from 10 down to ``0.1 / m`` (two per decade, each inner problem solved from the
    previous solution), then twice on 8 points between the neighbours of the best one (a
    resolution of about 3 % in ``lambda``); each grid's objectives are one vectorised
    evaluation.

    Parameters
    ----------
    tandem : ndarray of shape (n, n)
        Tandem (joint error) rates ``T``.
    {search_statement}

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.engine.exact_search import tandem_search
    >>> T = np.array([[0.30, 0.05, 0.05], [0.05, 0.30, 0.05], [0.05, 0.05, 0.30]])
    >>> q, value = tandem_search(T, 1000, 0.05)
    >>> np.round(q, 3), round(value, 4)
    (array([0.333, 0.333, 0.333]), 0.1774)
    """
    tandem = np.asarray(tandem, dtype=np.float64)
    log_prior = _log_prior(tandem.shape[0], prior)
    path = _TandemPath(tandem, log_prior)
    solutions = {}
    start = [_softmax_rows(path.log_prior)]  # q = pi, the solution at lambda = +inf

    def values_at(log_lams):
        qs = []
        for log_lam in log_lams:  # decreasing or increasing: each from the last solution
            if log_lam not in solutions:
                solutions[log_lam] = path.solve(np.exp(log_lam), start[0])
            start[0] = solutions[log_lam]
            qs.append(solutions[log_lam])
        qs = np.array(qs)
        stats = np.einsum("gi,ij,gj->g", qs, tandem, qs)
        return _objective(stats, categorical_kl(qs, log_prior), m, delta, 2)

    top, bottom = np.log(10.0), np.log(0.1 / m)
    n_grid = max(2, int(np.ceil((top - bottom) / np.log(10.0) * _LAMBDA_PER_DECADE)))
    log_lam, value = _zoom(values_at, np.linspace(top, bottom, n_grid), 2, _LAMBDA_ZOOM)
    prior_q = _softmax_rows(path.log_prior)
    prior_value = float(
        _objective(prior_q @ tandem @ prior_q, categorical_kl(prior_q, log_prior), m, delta, 2)
    )
    if prior_value <= value:
        return prior_q, prior_value
    return solutions[log_lam], value
