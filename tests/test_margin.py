"""The margin bound's tails against exact beta tails, and the margin certificate.

The tails ``t0 = P(M' > s | M = 0)`` and ``t1 = P(M' <= s | M = gamma)`` at ``s = gamma / 2``
(theory page, margin section) are compared with 40-digit mpmath values; the certificate of
:class:`~skpacbayes.MarginBoundClassifier` is recomputed from its details with those values.
"""

import math

import mpmath
import numpy as np
import pytest
from sklearn.datasets import make_classification

from skpacbayes import MarginBoundClassifier
from skpacbayes.bounds import kl_inv_upper, margin_bound, margin_tails, seeger_epsilon

mpmath.mp.dps = 40


def _lower_tail(a, b, x):
    """Exact ``I_x(a, b)`` for ``x`` below the mean (the series converges geometrically)."""
    a, b, x = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(x)
    log_pre = (
        a * mpmath.log(x)
        + b * mpmath.log1p(-x)
        + mpmath.loggamma(a + b)
        - mpmath.loggamma(a + 1)
        - mpmath.loggamma(b)
    )
    return mpmath.exp(log_pre) * mpmath.hyp2f1(a + b, 1, a + 1, x, maxterms=10**7)


def exact_tails(gamma, k, s=None):
    """Exact ``(P(M' > s | M = 0), P(M' <= s | M = gamma))``, default ``s = gamma / 2``."""
    gamma, k = mpmath.mpf(gamma), mpmath.mpf(k)
    s = gamma / 2 if s is None else mpmath.mpf(s)
    x = (1 + s) / 2
    t0 = _lower_tail(k / 2, k / 2, 1 - x)  # P(B > x) = I_{1-x}(K/2, K/2) by symmetry
    t1 = _lower_tail(k * (1 + gamma) / 2, k * (1 - gamma) / 2, x)
    return t0, t1


def requirement(gamma, k):
    """``min_s max(t0(s), t1(s))`` over ``s`` in [0, gamma] (t0 decreases, t1 increases)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(gamma)
    for _ in range(60):
        mid = (lo + hi) / 2
        t0, t1 = exact_tails(gamma, k, mid)
        lo, hi = (mid, hi) if t0 > t1 else (lo, mid)
    return max(exact_tails(gamma, k, lo))


@pytest.mark.parametrize("k", [1.0, 2.0, 10.0, 100.0, 1000.0, 1e5])
@pytest.mark.parametrize("gamma", [0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9])
def test_tails_never_below_exact(k, gamma):
    t0, t1 = margin_tails(gamma, k)
    e0, e1 = exact_tails(gamma, k)
    assert t0 >= e0 and t1 >= e1
    # and not needlessly loose: the allowance is relative 1e-8 plus 1e-14
    assert t0 <= float(e0) * (1 + 2e-8) + 2e-14
    assert t1 <= float(e1) * (1 + 2e-8) + 2e-14
    closed = mpmath.exp(-(k + 1) * mpmath.mpf(gamma) ** 2 / 8)
    assert max(e0, e1) <= closed  # the closed form is valid, never below the exact tails
    assert max(t0, t1) <= max(float(closed), 1e-14)  # and caps the computed ones


def test_tails_array_and_degenerate_margins():
    t0, t1 = margin_tails([0.0, 1.0, 3.0], [10.0, 10.0, 10.0])
    assert t0[0] == pytest.approx(0.5, rel=1e-7) and t1[0] == pytest.approx(0.5, rel=1e-7)
    assert t1[1] == pytest.approx(0.0, abs=1e-13)  # every margin is <= 1
    assert t0[2] == pytest.approx(0.0, abs=1e-13)  # s = 1.5: M' <= 1 < s always
    assert np.all(t0 >= 0) and np.all(t1 <= 1)


@pytest.mark.parametrize(("k", "gamma", "needed"), [(100, 0.2, 0.156), (1000, 0.05, 0.214)])
def test_old_constant_fails_the_requirement_new_tails_meet_it(k, gamma, needed):
    # any two-step argument 1[M <= 0] <= E l + t, E l <= 1[M <= gamma] + t needs
    # t >= min_s max(t0(s), t1(s)); the former constant exp(-(K+1) gamma^2) is far below
    req = float(requirement(gamma, k))
    assert req == pytest.approx(needed, abs=1e-3)
    assert math.exp(-(k + 1) * gamma**2) < req
    t0, t1 = margin_tails(gamma, k)
    assert t0 >= req or t1 >= req  # s = gamma / 2 is one admissible split point
    assert max(t0, t1) >= req


def test_margin_bound_uses_safe_tails():
    # fails on the former t = exp(-(K+1) gamma^2): 0.0176 instead of t0 ~ 0.159, t1 ~ 0.154
    e0, e1 = exact_tails(0.2, 100.0)
    eps = seeger_epsilon(3.0, 1000, 0.05)
    exact = kl_inv_upper(0.1 + float(e1), eps) + float(e0)
    value = margin_bound(0.1, 0.2, 100.0, 3.0, 1000, 0.05)
    assert value >= exact
    assert value == pytest.approx(exact, rel=1e-7)


def test_certificate_is_the_deployed_votes_margin_bound():
    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    clf = MarginBoundClassifier(max_epochs=10, n_margins=8, random_state=0).fit(X, y)
    cert = clf.certificate_
    d = cert.details
    gamma, k = d["gamma"], d["concentration"]
    assert gamma in np.logspace(-3, 0, 8)
    # the margin error of the DEPLOYED vote (what predict uses), from decision_function
    used = clf.groups_[0][1]  # the rows the bound uses (not the stump bank's build rows)
    X, y = X[used], y[used]
    sign = np.where(y == clf.classes_[1], 1.0, -1.0)
    margins = sign * clf.decision_function(X)
    observed = float(np.mean(margins <= gamma))
    assert observed <= d["margin_error"] <= observed + 1e-9
    assert cert.train_error == pytest.approx(np.mean(margins <= 0))
    # the certified posterior is Dir(K theta) with theta the deployed weights
    alpha = clf.posterior_params_[0]
    assert alpha.sum() == pytest.approx(k, rel=1e-12)
    np.testing.assert_allclose(alpha / alpha.sum(), clf.weights_, rtol=1e-12)
    # recompute the value with exact tails (40 digits) and an independent formula
    e0, e1 = exact_tails(gamma, k)
    eps = (cert.kl[0] + math.log(2 * math.sqrt(cert.m[0]) / (clf.delta / 8))) / cert.m[0]
    expected = min(1.0, kl_inv_upper(min(1.0, observed + float(e1)), eps) + float(e0))
    assert clf.bound_ >= expected
    assert clf.bound_ == pytest.approx(expected, rel=1e-6)
    assert d["t0"] >= e0 and d["t1"] >= e1
