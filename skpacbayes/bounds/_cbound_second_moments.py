"""The C-bound from the joint PAC-Bayes statement on the Gibbs risk and the disagreement (the
second moment of the vote), PAC-Bound 2 of Germain et al. (2015): a certified supremum in
float64."""

from __future__ import annotations

import math

from ._validation import dual

__all__ = ["cbound_pb2"]

_INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0
_MAX_ITER = 200


def _xlog(a: float, b: float) -> float:
    """a ln(a / b) with 0 ln 0 = 0 and a ln(a / 0) = inf."""
    if a <= 0.0:
        return 0.0
    if b <= 0.0:
        return math.inf
    return a * math.log(a / b)


class _Problem:
    """sup C over the kl3 ball, reduced to a 1-D quasi-concave problem in d.

    In (G, d) coordinates (G = e + d/2) the feasible set F is convex (kl3 is jointly convex,
    the Jensen constraint d <= 2 (sqrt(e) - e) has a concave right side), so
    G_max(d) = max{G : (G, d) in F} is concave, and C(G, d) = 1 - (1 - 2G)^2 / (1 - 2d) is
    increasing in G and has convex super-level sets {G >= (1 - sqrt((1-c)(1-2d)))/2}.
    Hence g(d) = C(G_max(d), d) is quasi-concave (golden-section search is exact) and, by
    concavity of G_max, chords give a certified upper bound of g on the final bracket.
    """

    def __init__(self, e_hat: float, d_hat: float, eps: float):
        self.e_hat, self.d_hat, self.eps = e_hat, d_hat, eps

    def kl3(self, e: float, d: float) -> float:
        eh, dh = self.e_hat, self.d_hat
        return _xlog(eh, e) + _xlog(dh, d) + _xlog(1.0 - eh - dh, 1.0 - e - d)

    @staticmethod
    def e_range(d: float) -> tuple[float, float]:
        """e with d <= 2 (sqrt(e) - e) (lower root) and 2e + d <= 1."""
        s = math.sqrt(max(0.0, 1.0 - 2.0 * d))
        return ((1.0 - s) / 2.0) ** 2, (1.0 - d) / 2.0

    def e_best(self, d: float) -> float:
        """Minimiser of the (convex in e) kl3 at fixed d over e_range(d)."""
        lo, top = self.e_range(d)
        e_star = self.e_hat * (1.0 - d) / (1.0 - self.d_hat)
        return min(max(e_star, lo), top)

    def feasible(self, d: float) -> bool:
        return self.kl3(self.e_best(d), d) <= self.eps

    def g_max(self, d: float) -> float:
        """Upper end (conservative) of max{e + d/2 : kl3 <= eps}; 0.5 when 2e + d = 1 is met."""
        _, top = self.e_range(d)
        lo = self.e_best(d)
        if self.kl3(top, d) <= self.eps:
            return 0.5
        hi = top
        for _ in range(_MAX_ITER):
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:
                break
            if self.kl3(mid, d) <= self.eps:
                lo = mid
            else:
                hi = mid
        return min(0.5, hi + d / 2.0)

    @staticmethod
    def value(g: float, d: float) -> float:
        if g >= 0.5:
            return 1.0
        return 1.0 - (1.0 - 2.0 * g) ** 2 / (1.0 - 2.0 * d)

    def d_end(self, inside: float, outside: float) -> float:
        """Feasible end of the d-domain between a feasible and an infeasible point."""
        for _ in range(_MAX_ITER):
            mid = 0.5 * (inside + outside)
            if mid in (inside, outside):
                break
            if self.feasible(mid):
                inside = mid
            else:
                outside = mid
        return inside


def _upper_on_bracket(prob, pts):
    """Certified sup of g on [a, b] from G_max at a < x1 < x2 < b (concavity of G_max)."""
    (a, ga), (x1, g1), (x2, g2), (b, gb) = pts
    s_a1 = (g1 - ga) / (x1 - a) if x1 > a else 0.0
    s_12 = (g2 - g1) / (x2 - x1) if x2 > x1 else 0.0
    s_2b = (gb - g2) / (b - x2) if b > x2 else 0.0
    left = g1 + max(0.0, -s_12) * (x1 - a)
    middle = min(g1 + max(0.0, s_a1) * (x2 - x1), g2 + max(0.0, -s_2b) * (x2 - x1))
    right = g2 + max(0.0, s_12) * (b - x2)
    # C decreases in d: evaluate each piece at its left end.
    return max(prob.value(left, a), prob.value(middle, x1), prob.value(right, x2))


@dual(gibbs="stat", disagreement="stat", kl="nonneg", m="m", delta="delta")
def cbound_pb2(gibbs, disagreement, kl, m, delta, tol=1e-6):
    """C-bound "PAC-Bound 2" (joint kl3 statement on the tandem risk and the disagreement).

    Parameters
    ----------
    gibbs : float
        Empirical Gibbs risk ``G = mean r``.
    disagreement : float
        Empirical disagreement ``d = mean 2 r (1 - r)``; the empirical joint error is
        ``e = G - d / 2``.
    kl : float
        ``KL(Q||P)`` (the statement uses ``2 KL``).
    m : int
        Sample size (one sample only; not available for split voters).
    delta : float
        Confidence parameter in (0, 1].
    tol : float, default=1e-6
        Absolute accuracy: the result ``v`` satisfies ``sup <= v <= sup + tol``.

    Returns
    -------
    float or torch.Tensor
        ``sup {1 - (1 - 2e - d)^2 / (1 - 2d) : kl3(e_hat, d_hat || e, d) <= eps2,
        0 <= d <= 2 (sqrt(e) - e), 2e + d < 1}`` with
        ``eps2 = (2 KL + ln((2 sqrt(m) + m) / delta)) / m``; 1 if the ball meets
        ``2e + d >= 1``. A tensor input gives a (non-differentiable) tensor.

    Notes
    -----
    PAC-Bound 2 of Germain et al. (2015), the C-bound of :ref:`theory-classical` with a joint
    bound on ``(e, d)``. Computed in float64: a golden-section search over ``d`` of the
    quasi-concave function ``C(G_max(d), d)`` (``G_max`` concave, evaluated on the safe side),
    stopped when a certified upper bound on the remaining bracket (from the concavity of
    ``G_max``) is within ``tol`` of the best value found; that upper bound is returned, so the
    supremum is never under-estimated.

    Examples
    --------
    >>> from skpacbayes.bounds import cbound_pb2
    >>> v = cbound_pb2(0.2, 0.3, 2.0, 1000, 0.05)
    >>> 0.3606426842 <= v <= 0.3606426842 + 1e-6
    True
    """
    if not (isinstance(tol, int | float) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    for name, t in (
        ("gibbs", gibbs),
        ("disagreement", disagreement),
        ("kl", kl),
        ("m", m),
        ("delta", delta),
    ):
        if t.numel() != 1:
            raise ValueError(f"cbound_pb2 takes scalars (one sample only); {name} is not")
    g_hat, d_hat = float(gibbs), float(disagreement)
    kl_, m_, delta_ = float(kl), float(m), float(delta)
    e_hat = g_hat - d_hat / 2.0
    if e_hat < -1e-12 or d_hat > 2.0 * (math.sqrt(max(e_hat, 0.0)) - max(e_hat, 0.0)) + 1e-12:
        raise ValueError(
            "inconsistent statistics: need disagreement <= 2 * gibbs and "
            "gibbs**2 <= gibbs - disagreement / 2 (Jensen), got "
            f"gibbs={g_hat!r}, disagreement={d_hat!r}"
        )
    e_hat = max(e_hat, 0.0)
    d_hat = min(d_hat, 2.0 * (math.sqrt(e_hat) - e_hat))
    result = gibbs.new_tensor(1.0)
    if g_hat >= 0.5:
        return result
    eps = (2.0 * kl_ + math.log((2.0 * math.sqrt(m_) + m_) / delta_)) / m_
    prob = _Problem(e_hat, d_hat, eps)
    if prob.feasible(0.5):  # e = 1/4, d = 1/2 lies on 2e + d = 1
        return result
    d_lo = 0.0 if prob.feasible(0.0) else prob.d_end(d_hat, 0.0)
    d_hi = prob.d_end(d_hat, 0.5)

    def point(d):
        return d, prob.g_max(d)

    a, b = point(d_lo), point(d_hi)
    x1 = point(b[0] - _INV_PHI * (b[0] - a[0]))
    x2 = point(a[0] + _INV_PHI * (b[0] - a[0]))
    best = max(prob.value(g, d) for d, g in (a, b, x1, x2))
    upper = 1.0
    for _ in range(_MAX_ITER):
        if best >= 1.0:
            return result
        upper = max(best, _upper_on_bracket(prob, (a, x1, x2, b)))
        # stop well inside the tolerance (cheap), so that v - sup is typically << tol
        if upper - best <= tol / 16 or not a[0] < x1[0] < x2[0] < b[0]:
            break
        if prob.value(x1[1], x1[0]) < prob.value(x2[1], x2[0]):
            a, x1 = x1, x2
            x2 = point(a[0] + _INV_PHI * (b[0] - a[0]))
            best = max(best, prob.value(x2[1], x2[0]))
        else:
            b, x2 = x2, x1
            x1 = point(b[0] - _INV_PHI * (b[0] - a[0]))
            best = max(best, prob.value(x1[1], x1[0]))
    return gibbs.new_tensor(min(1.0, upper))
