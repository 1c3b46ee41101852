"""Properties, calling convention, gradients and errors of skpacbayes.bounds."""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.special
import torch
from _exact_binomial import exact_lower_tail
from hypothesis import given, settings
from hypothesis import strategies as st

from skpacbayes import bounds as B
from skpacbayes.bounds import (
    binomial_bound,
    binomial_inv_upper,
    binomial_tail,
    cbound_bound,
    cbound_pb2,
    cross_bound,
    first_order_bound,
    kl,
    kl_inv_lower,
    kl_inv_upper,
    margin_bound,
    occam_bound,
    pac_bayes_lower,
    pac_bayes_upper,
    partition_bound,
    second_order_bound,
    seeger_epsilon,
    single_hypothesis_triple_bound,
    triple_bound,
    vc_bound,
)

FAST = settings(max_examples=60, deadline=None)
unit = st.floats(0.0, 1.0)
budget = st.one_of(st.just(0.0), st.floats(1e-8, 20.0))
kl_div = st.floats(0.0, 50.0)
sample = st.integers(1, 100_000)
conf = st.floats(1e-6, 1.0, exclude_min=True)


def test_public_api_is_complete():
    expected = {
        "kl",
        "kl_inv_upper",
        "kl_inv_lower",
        "seeger_epsilon",
        "pac_bayes_upper",
        "pac_bayes_lower",
        "cross_bound",
        "occam_bound",
        "binomial_tail",
        "binomial_inv_upper",
        "binomial_anytime_upper",
        "binomial_anytime_lower",
        "first_order_bound",
        "second_order_bound",
        "binomial_bound",
        "cbound_bound",
        "cbound_pb2",
        "vc_bound",
        "triple_bound",
        "partition_bound",
        "single_hypothesis_triple_bound",
        "margin_bound",
        "margin_tails",
        "binomial_p_value",
        "binomial_critical_count",
        "binomial_inv_lower",
        "fixed_sequence",
    }
    assert set(B.__all__) == expected
    for name in expected:
        fn = getattr(B, name)
        assert "Examples" in fn.__doc__ and "Notes" in fn.__doc__, name


# --- kl and its inverses (theory page, 'The kl inverses') ---------------------------------------
def test_kl_edge_cases():
    assert kl(0.0, 0.0) == 0.0 and kl(1.0, 1.0) == 0.0 and kl(0.3, 0.3) == 0.0
    assert kl(0.5, 0.0) == math.inf and kl(0.5, 1.0) == math.inf
    assert kl(0.0, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert kl(1.0, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert kl(0.1, 0.2) == pytest.approx(0.1 * math.log(0.5) + 0.9 * math.log(0.9 / 0.8), rel=1e-14)


def test_kl_inverse_edge_cases_exact():
    assert kl_inv_upper(0.3, 0.0) == 0.3 and kl_inv_lower(0.3, 0.0) == 0.3
    assert kl_inv_upper(0.3, math.inf) == 1.0 and kl_inv_lower(0.3, math.inf) == 0.0
    assert kl_inv_upper(1.0, 0.7) == 1.0 and kl_inv_lower(0.0, 0.7) == 0.0
    assert kl_inv_upper(0.0, 0.7) == -math.expm1(-0.7)
    assert kl_inv_lower(1.0, 0.7) == math.exp(-0.7)
    assert kl_inv_upper(0.999, 0.5) == 1.0


@FAST
@given(q=unit, eps=budget)
def test_kl_inverse_range_and_conservative(q, eps):
    up, low = kl_inv_upper(q, eps), kl_inv_lower(q, eps)
    assert 0.0 <= low <= q <= up <= 1.0
    if eps == 0.0 or q in (0.0, 1.0):
        return
    # conservative ends: the returned point is outside (or on) the kl ball ...
    assert up == 1.0 or kl(q, up) >= eps * (1 - 1e-12)
    assert low == 0.0 or kl(q, low) >= eps * (1 - 1e-12)
    # ... and the neighbouring float towards q is inside (bisection ran to the end)
    if up < 1.0:
        assert kl(q, np.nextafter(up, 0.0)) <= eps * (1 + 1e-12)
    if low >= q * 2.0**-140:  # final bracket q 2^-200 is below one ulp of low (no cap)
        assert kl(q, np.nextafter(low, 1.0)) <= eps * (1 + 1e-12)


@FAST
@given(q=unit, eps=budget)
def test_kl_inverse_symmetry(q, eps):
    assert kl_inv_lower(q, eps) == pytest.approx(1 - kl_inv_upper(1 - q, eps), abs=1e-12)


@FAST
@given(q=unit, e1=budget, e2=budget)
def test_kl_inverse_monotone_in_eps(q, e1, e2):
    e1, e2 = min(e1, e2), max(e1, e2)
    assert kl_inv_upper(q, e1) <= kl_inv_upper(q, e2)
    assert kl_inv_lower(q, e1) >= kl_inv_lower(q, e2)


@FAST
@given(q1=unit, q2=unit, eps=budget)
def test_kl_inverse_non_decreasing_in_q(q1, q2, eps):
    q1, q2 = min(q1, q2), max(q1, q2)
    assert kl_inv_upper(q1, eps) <= kl_inv_upper(q2, eps) + 1e-14
    assert kl_inv_lower(q1, eps) <= kl_inv_lower(q2, eps) + 1e-14


def test_kl_inverse_vectorised_matches_scalar():
    rng = np.random.default_rng(0)
    q, eps = rng.random(50), rng.exponential(0.2, 50)
    q[:3], eps[3:6] = [0.0, 1.0, 0.5], [0.0, np.inf, 1e-9]
    up, low = kl_inv_upper(q, eps), kl_inv_lower(q, eps)
    assert isinstance(up, np.ndarray) and up.shape == (50,)
    # the same up to the rounding of kl itself: torch evaluates a logarithm with SIMD or
    # scalar code depending on an element's position, which may move an end by one ulp
    for i in range(50):
        assert up[i] == pytest.approx(kl_inv_upper(q[i], eps[i]), rel=1e-15, abs=0)
        assert low[i] == pytest.approx(kl_inv_lower(q[i], eps[i]), rel=1e-15, abs=0)
    # broadcasting
    assert kl_inv_upper(q, 0.1).shape == (50,)
    assert kl_inv_upper([[0.1], [0.2]], [0.1, 0.2, 0.3]).shape == (2, 3)


def test_float32_and_float64_agree():
    rng = np.random.default_rng(1)
    q = rng.random(2000)
    eps = 10 ** rng.uniform(-4, 1, 2000)
    q[:20], q[20:40] = 0.0, 1.0
    for fn in (kl_inv_upper, kl_inv_lower):
        ref = fn(q, eps)
        got = fn(torch.tensor(q, dtype=torch.float32), torch.tensor(eps, dtype=torch.float32))
        assert got.dtype == torch.float32
        np.testing.assert_allclose(got.double().numpy(), ref, atol=1e-5)
    stats = dict(kl=torch.tensor(2.5), m=torch.tensor(800.0), delta=0.05)
    for name, fn, args in [
        ("FO", first_order_bound, (0.17,)),
        ("SO", second_order_bound, (0.09,)),
        ("Bin", lambda s, **k: binomial_bound(s, n_draws=7, **k), (0.12,)),
        ("C", cbound_bound, (0.17, 0.15)),
        ("part", lambda s, **k: partition_bound(s, b_tilde=0.01, c_tilde=0.53, **k), (0.17,)),
    ]:
        ref = fn(*args, kl=2.5, m=800, delta=0.05)
        got = fn(*(torch.tensor(a) for a in args), **stats)
        assert got.dtype == torch.float32, name
        assert float(got) == pytest.approx(ref, abs=1e-5), name


# --- gradients ---------------------------------------------------------------------------------
def test_gradcheck_kl_inverse():
    gen = torch.Generator().manual_seed(0)
    q = (0.02 + 0.96 * torch.rand(12, generator=gen, dtype=torch.float64)).requires_grad_()
    eps = (0.005 + torch.rand(12, generator=gen, dtype=torch.float64)).requires_grad_()
    assert torch.autograd.gradcheck(kl_inv_upper, (q, eps))
    assert torch.autograd.gradcheck(kl_inv_lower, (q, eps))


def test_gradcheck_closed_form_edges():
    eps = torch.tensor([0.05, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda e: kl_inv_upper(torch.zeros(3, dtype=e.dtype), e), (eps,)
    )
    assert torch.autograd.gradcheck(lambda e: kl_inv_lower(torch.ones(3, dtype=e.dtype), e), (eps,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_kl_inverse_edge_gradients_finite(dtype):
    q = torch.tensor([0.0, 1.0, 0.999, 0.3, 0.0, 1.0], dtype=dtype, requires_grad=True)
    eps = torch.tensor([0.1, 0.1, 50.0, 0.0, 0.0, 0.0], dtype=dtype, requires_grad=True)
    for fn in (kl_inv_upper, kl_inv_lower):
        q.grad = eps.grad = None
        fn(q, eps).sum().backward()
        assert torch.isfinite(q.grad).all() and torch.isfinite(eps.grad).all()
        assert (q.grad >= 0).all()
    q.grad = eps.grad = None
    kl_inv_upper(q, eps).sum().backward()
    assert q.grad[0] > 0 and eps.grad[0] == pytest.approx(math.exp(-0.1), rel=1e-5)
    assert q.grad[1] == 0 and eps.grad[1] == 0  # q = 1: p = 1 for every eps
    assert q.grad[2] == 0 and eps.grad[2] == 0  # p saturated at 1
    assert q.grad[3] == 1  # eps = 0: p = q


def test_gradient_matches_finite_difference_through_bounds():
    g = torch.tensor([0.12, 0.2], dtype=torch.float64, requires_grad=True)
    k = torch.tensor([1.5, 3.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.4, 0.6], dtype=torch.float64, requires_grad=True)
    m = torch.tensor([500.0, 700.0], dtype=torch.float64)

    def f(g, k, w):
        return first_order_bound(g, k, m, 0.05, weights=w / w.sum())

    assert torch.autograd.gradcheck(f, (g, k, w))
    assert torch.autograd.gradcheck(
        lambda g, k: cbound_bound(g[0], g[1] / 2, k[0], 700.0, 0.05), (g, k)
    )


def test_gradcheck_binomial_tail():
    r = torch.tensor([0.01, 0.2, 0.45, 0.5, 0.7, 0.99], dtype=torch.float64, requires_grad=True)
    for n in (1, 2, 3, 10, 101):
        assert torch.autograd.gradcheck(lambda x, n=n: binomial_tail(x, n), (r,))


# --- binomial tail ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 100, 999, 1000])
def test_binomial_tail_matches_betainc(n):
    r = np.concatenate(
        [[0.0, 1e-12, 1e-3, 0.25, 0.5, 0.75, 1 - 1e-9, 1.0], np.linspace(0.3, 0.7, 41)]
    )
    k = math.ceil(n / 2)
    ref = scipy.special.betainc(k, n - k + 1, r)
    got = binomial_tail(r, n)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-300)
    assert np.all(np.diff(got) >= -1e-15) or not np.all(np.diff(r) >= 0)
    assert binomial_tail(0.37, n) == pytest.approx(
        scipy.special.betainc(k, n - k + 1, 0.37), rel=1e-10
    )


def test_binomial_tail_n1_is_identity_and_shapes():
    r = np.linspace(0, 1, 11)
    np.testing.assert_allclose(binomial_tail(r, 1), r, atol=1e-15)
    t = binomial_tail(torch.rand(3, 4, dtype=torch.float32), 5)
    assert t.shape == (3, 4) and t.dtype == torch.float32
    assert binomial_tail(np.empty(0), 9).shape == (0,)


@FAST
@given(n=st.integers(1, 60), data=st.data(), delta=st.floats(1e-12, 0.999))
def test_binomial_inv_upper_is_the_exact_limit_on_the_safe_side(n, data, delta):
    k = data.draw(st.integers(0, n))
    b = binomial_inv_upper(k, n, delta)
    assert isinstance(b, float) and 0.0 <= b <= 1.0
    assert b >= k / n or delta > 0.5  # P(Bin(n, k/n) <= k) >= 1/2 (the median is k)
    if k == n:
        assert b == 1.0
        return
    # the exact tail at the returned value is below delta: every risk above it is excluded
    assert exact_lower_tail(k, n, b) < Fraction(delta)
    # tight: a hair below, the exact tail is still at least delta
    assert exact_lower_tail(k, n, b * (1 - 1e-9)) >= Fraction(delta)
    # never looser than Chernoff's test-set bound (up to the start's rounding allowance, for
    # k = 0, where the two coincide)
    assert b <= kl_inv_upper(k / n, math.log(1 / delta) / n) + 1e-11


def test_binomial_inv_upper_closed_forms_and_large_samples():
    # k = 0: (1 - r)^n = delta, where Chernoff's bound is exact too (so only rounding differs)
    for n, delta in [(1, 0.05), (62, 0.05), (10_000, 1e-6)]:
        exact = -math.expm1(math.log(delta) / n)
        assert exact <= binomial_inv_upper(0, n, delta) <= exact * (1 + 1e-9)
    assert binomial_inv_upper(7, 7, 0.05) == 1.0
    assert binomial_inv_upper(3, 10, 1.0) == pytest.approx(0.3)  # delta = 1: nothing certified
    # monotone: more errors or a smaller delta give a larger bound
    assert binomial_inv_upper(10, 100, 0.05) < binomial_inv_upper(11, 100, 0.05)
    assert binomial_inv_upper(10, 100, 0.05) < binomial_inv_upper(10, 100, 0.01)
    # a large test set: against SciPy's incomplete beta (P(Bin(n, r) <= k) = I_{1-r}(n-k, k+1))
    k, n, delta = 30_000, 200_000, 0.01
    b = binomial_inv_upper(k, n, delta)
    assert scipy.special.betainc(n - k, k + 1, 1 - b) < delta
    assert scipy.special.betainc(n - k, k + 1, 1 - b * (1 - 1e-8)) > delta
    # tensor delta: a tensor of its dtype back
    t = binomial_inv_upper(3, 50, torch.tensor(0.05, dtype=torch.float64))
    assert isinstance(t, torch.Tensor) and float(t) == binomial_inv_upper(3, 50, 0.05)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((11, 10, 0.05), "at most n"),
        ((-1, 10, 0.05), "n_errors"),
        ((1, 0, 0.05), "n"),
        ((1.5, 10, 0.05), "n_errors"),
        ((1, 10, 0.0), "delta"),
        ((1, 10, 1.5), "delta"),
    ],
)
def test_binomial_inv_upper_rejects_invalid_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        binomial_inv_upper(*args)


# --- PAC-Bayes statements ---------------------------------------------------------------------
def test_seeger_epsilon_formula():
    assert seeger_epsilon(3.0, 400, 0.1) == pytest.approx(
        (3.0 + math.log(2 * 20 / 0.1)) / 400, rel=1e-15
    )
    assert pac_bayes_upper(0.1, 3.0, 400, 0.1) == kl_inv_upper(0.1, seeger_epsilon(3.0, 400, 0.1))


def test_halves_use_delta_over_h_and_weights():
    q, k, m = [0.1, 0.3], [2.0, 1.0], [600, 400]
    u1 = kl_inv_upper(0.1, seeger_epsilon(2.0, 600, 0.025))
    u2 = kl_inv_upper(0.3, seeger_epsilon(1.0, 400, 0.025))
    assert pac_bayes_upper(q, k, m, 0.05) == pytest.approx((u1 + u2) / 2, rel=1e-15)
    assert pac_bayes_upper(q, k, m, 0.05, weights=[0.8, 0.2]) == pytest.approx(
        0.8 * u1 + 0.2 * u2, rel=1e-15
    )
    l1 = kl_inv_lower(0.1, seeger_epsilon(2.0, 600, 0.025))
    assert pac_bayes_lower(q, k, m, 0.05, weights=[1.0, 0.0]) == pytest.approx(l1, rel=1e-15)
    # a length-1 sequence is the one-sample statement
    assert pac_bayes_upper([0.1], [2.0], [600], 0.05) == pac_bayes_upper(0.1, 2.0, 600, 0.05)
    # scalar m broadcasts over the halves
    assert pac_bayes_upper(q, k, 500, 0.05) == pac_bayes_upper(q, k, [500, 500], 0.05)


def test_cross_safe_never_above_joint_convexity_form():
    for alpha in (0.1, 0.3, 0.5, 0.9):
        safe = cross_bound(0.12, 0.15, 3.0, 4.0, 1400, 600, alpha, 0.05)
        e1 = (3.0 + math.log(4 * math.sqrt(1400) / 0.05)) / 1400
        e2 = (4.0 + math.log(4 * math.sqrt(600) / 0.05)) / 600
        joint = kl_inv_upper(alpha * 0.12 + (1 - alpha) * 0.15, alpha * e1 + (1 - alpha) * e2)
        assert safe <= joint + 1e-12


def test_cbound_delta_split():
    g, d, k, m, delta = 0.2, 0.25, 1.5, 900, 0.05
    # one sample: two statements at delta / 2, i.e. ln(4 sqrt(m) / delta)
    g_up = kl_inv_upper(g, (k + math.log(4 * math.sqrt(m) / delta)) / m)
    d_low = kl_inv_lower(d, (2 * k + math.log(4 * math.sqrt(m) / delta)) / m)
    expected = 1 - (1 - 2 * g_up) ** 2 / (1 - 2 * d_low)
    assert cbound_bound(g, d, k, m, delta) == pytest.approx(expected, rel=1e-14)
    # two halves: four statements at delta / 4
    gs, ds, ks, ms, a = [0.2, 0.25], [0.25, 0.3], [1.5, 2.0], [900, 500], 0.3
    up = [
        kl_inv_upper(gs[i], (ks[i] + math.log(2 * math.sqrt(ms[i]) / (delta / 4))) / ms[i])
        for i in range(2)
    ]
    lo = [
        kl_inv_lower(ds[i], (2 * ks[i] + math.log(2 * math.sqrt(ms[i]) / (delta / 4))) / ms[i])
        for i in range(2)
    ]
    g_up = a * up[0] + (1 - a) * up[1]
    d_low = a * lo[0] + (1 - a) * lo[1]
    expected = 1 - (1 - 2 * g_up) ** 2 / (1 - 2 * d_low)
    got = cbound_bound(gs, ds, ks, ms, delta, weights=[a, 1 - a])
    assert got == pytest.approx(expected, rel=1e-14)
    assert cbound_bound(0.45, 0.4, 1.0, 100, 0.05) == 1.0  # G_up >= 1/2


def test_binomial_bound_halves_weights_rule():
    args = ([0.1, 0.2], [1.0, 1.0], [500, 500], 0.05)
    assert 0 < binomial_bound(*args, n_draws=3) < 1
    assert binomial_bound(*args, n_draws=3, weights=[0.5, 0.5]) == binomial_bound(*args, 3)
    assert 0 < binomial_bound(*args, n_draws=2, weights=[0.3, 0.7]) < 1
    with pytest.raises(ValueError, match="1/2"):
        binomial_bound(*args, n_draws=3, weights=[0.3, 0.7])
    with pytest.raises(ValueError, match="two halves"):
        binomial_bound([0.1, 0.2, 0.3], 1.0, 500, 0.05, n_draws=5)
    # N = 1 is the first-order bound
    assert binomial_bound(0.1, 2.0, 500, 0.05, 1) == first_order_bound(0.1, 2.0, 500, 0.05)


def test_occam_and_margin():
    assert occam_bound(0.1, 20, 1000, 0.05) == pac_bayes_upper(0.1, math.log(20), 1000, 0.05)
    assert occam_bound([0.1, 0.2], 20, [500, 500], 0.05, weights=[1.0, 0.0]) == pytest.approx(
        kl_inv_upper(0.1, seeger_epsilon(math.log(20), 500, 0.025)), rel=1e-15
    )
    # split point s = gamma / 2: exact beta tails (tests/test_margin.py checks them)
    t0 = scipy.special.betaincc(25.0, 25.0, 0.5 + 0.3 / 4) * (1 + 1e-8) + 1e-14
    t1 = scipy.special.betainc(50.0 * 1.3 / 2, 50.0 * 0.7 / 2, 0.5 + 0.3 / 4) * (1 + 1e-8) + 1e-14
    expected = kl_inv_upper(0.1 + t1, seeger_epsilon(2.0, 1000, 0.05)) + t0
    assert margin_bound(0.1, 0.3, 50.0, 2.0, 1000, 0.05) == pytest.approx(expected, rel=1e-12)
    # gamma = 0: both tails are 1/2 (the bound is at least 1/2 + kl^-1(0.6, .) > 1)
    assert margin_bound(0.1, 0.0, 50.0, 2.0, 1000, 0.05) == 1.0


def test_vc_bound_rules():
    assert vc_bound(0.0, 1000, 1000, 0.05) == 1.0
    assert vc_bound(0.1, 5, 1000, 0.05) == pytest.approx(
        0.1 + math.sqrt((5 * (math.log(400) + 1) + math.log(80)) / 1000), rel=1e-14
    )


def test_triple_bound_rules():
    assert triple_bound(0.3, 0.5, 0.5) == 1.0  # c~ not > b~
    assert triple_bound(0.3, 0.6, 0.5) == 1.0
    assert triple_bound(0.6, 0.0, 0.5) == 1.0  # clipped
    assert triple_bound(0.0, 0.1, 0.5) == 0.0  # defensive max(0, .)
    assert triple_bound(0.2, 0.1, 0.6) == pytest.approx(0.2, rel=1e-14)
    # perfect partition (c~ = 1/2, b~ = 0) equals the factor-2 bound
    assert partition_bound(0.1, 2.0, 500, 0.05, 0.0, 0.5) == pytest.approx(
        first_order_bound(0.1, 2.0, 500, 0.05), rel=1e-15
    )


def test_single_hypothesis_empty_side():
    d = (0.01, 0.01, 0.01)
    v = single_hypothesis_triple_bound(0.3, math.nan, 0.6, 1.0, 500, 0, 500, d)
    l_up = kl_inv_upper(0.3, (1.0 + math.log(2 * math.sqrt(500) / 0.01)) / 500)
    c_t = kl_inv_lower(0.6, (1.0 + math.log(2 * math.sqrt(500) / 0.01)) / 500)
    assert v == pytest.approx(l_up / c_t, rel=1e-14)  # b~ = 0
    assert single_hypothesis_triple_bound(0.3, 0.1, math.nan, 1.0, 500, 500, 0, d) == 1.0


def test_cbound_pb2_is_above_brute_force():
    g, d, k, m, delta = 0.2, 0.3, 2.0, 1000, 0.05
    value = cbound_pb2(g, d, k, m, delta, tol=1e-9)
    e_hat = g - d / 2
    eps = (2 * k + math.log((2 * math.sqrt(m) + m) / delta)) / m
    e, dd = np.meshgrid(np.linspace(1e-6, 0.5, 801), np.linspace(1e-6, 0.5, 801))
    with np.errstate(all="ignore"):
        kl3 = (
            e_hat * np.log(e_hat / e)
            + d * np.log(d / dd)
            + (1 - e_hat - d) * np.log((1 - e_hat - d) / (1 - e - dd))
        )
        ok = (kl3 <= eps) & (dd <= 2 * (np.sqrt(e) - e)) & (2 * e + dd < 1)
        c = 1 - (1 - 2 * e - dd) ** 2 / (1 - 2 * dd)
    grid = c[ok].max()
    assert grid <= value <= grid + 2e-3
    assert cbound_pb2(0.45, 0.2, 5.0, 50, 0.05) == 1.0
    assert 0.0 <= cbound_pb2(0.0, 0.0, 0.0, 100, 0.05) < 1.0


# --- every bound in [0, 1] and basic orderings ----------------------------------------------
@FAST
@given(
    g=st.floats(0, 0.6),
    frac=unit,
    k=kl_div,
    m=sample,
    delta=conf,
    bt=st.floats(0, 0.3),
    ct=st.floats(0.31, 1.0),
)
def test_bounds_are_probabilities(g, frac, k, m, delta, bt, ct):
    tandem = g * g + frac * (g - g * g)  # G^2 <= tandem <= G
    dis = 2 * (g - tandem)
    values = {
        "FO": first_order_bound(g, k, m, delta),
        "SO": second_order_bound(tandem, k, m, delta),
        "Bin": binomial_bound(g, k, m, delta, 5),
        "C": cbound_bound(g, dis, k, m, delta),
        "VC": vc_bound(min(1.0, 2 * g), 7, m, delta),
        "part": partition_bound(g, k, m, delta, bt, ct),
        "occam": occam_bound(g, 13, m, delta),
        "margin": margin_bound(g, 0.1, 30.0, k, m, delta),
        "triple": triple_bound(g, bt, ct),
    }
    for name, v in values.items():
        assert isinstance(v, float) and 0.0 <= v <= 1.0, (name, v)
    assert values["FO"] >= min(1.0, 2 * g) - 1e-15
    assert values["SO"] >= min(1.0, 4 * tandem) - 1e-15
    assert values["part"] >= min(1.0, max(0.0, (g - bt) / (ct - bt))) - 1e-12
    assert pac_bayes_lower(g, k, m, delta) <= g <= pac_bayes_upper(g, k, m, delta)


@FAST
@given(q1=unit, q2=unit, k1=kl_div, k2=kl_div, m1=sample, m2=sample, a=unit, delta=conf)
def test_cross_bound_between_stats_and_one(q1, q2, k1, k2, m1, m2, a, delta):
    v = cross_bound(q1, q2, k1, k2, m1, m2, a, delta)
    assert a * q1 + (1 - a) * q2 - 1e-12 <= v <= 1.0 + 1e-12


# --- calling convention -----------------------------------------------------------------------
def test_tensor_in_tensor_out_with_dtype():
    for dtype in (torch.float32, torch.float64):
        g = torch.tensor(0.2, dtype=dtype, requires_grad=True)
        out = first_order_bound(g, 1.0, 1000, 0.05)
        assert isinstance(out, torch.Tensor) and out.dtype == dtype and out.requires_grad
        out.backward()
        assert g.grad is not None and g.grad > 0
    out = pac_bayes_upper(0.2, torch.tensor(1.0, dtype=torch.float64), 1000, 0.05)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float64
    # a list of tensors (two halves) is tensor mode too
    a = torch.tensor(0.3, requires_grad=True)
    out = pac_bayes_upper(
        [torch.tensor(0.1), torch.tensor(0.2)], [1.0, 2.0], [300, 400], 0.05, weights=[a, 1 - a]
    )
    out.backward()
    assert a.grad is not None
    assert isinstance(first_order_bound(0.2, 1.0, 1000, 0.05), float)
    assert isinstance(kl_inv_upper(np.float32(0.2), 0.1), float)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_device_kept():
    g = torch.tensor([0.1, 0.2], device="cuda")
    out = first_order_bound(g, torch.tensor([1.0, 1.0], device="cuda"), [400, 400], 0.05)
    assert out.device.type == "cuda"
    assert float(out) == pytest.approx(
        first_order_bound([0.1, 0.2], [1, 1], [400, 400], 0.05), abs=1e-5
    )


# --- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pac_bayes_upper(0.1, 1.0, 100, 0.0), "delta"),
        (lambda: pac_bayes_upper(0.1, 1.0, 100, 1.5), "delta"),
        (lambda: first_order_bound(0.1, -1.0, 100, 0.05), "kl"),
        (lambda: first_order_bound(0.1, math.nan, 100, 0.05), "kl"),
        (lambda: first_order_bound(0.1, 1.0, 0, 0.05), "m"),
        (lambda: first_order_bound(math.nan, 1.0, 100, 0.05), "gibbs"),
        (lambda: first_order_bound(1.2, 1.0, 100, 0.05), "gibbs"),
        (lambda: kl_inv_upper(-0.1, 0.1), "q"),
        (lambda: kl_inv_upper(0.1, -0.1), "eps"),
        (lambda: kl_inv_lower(math.nan, 0.1), "q"),
        (lambda: kl_inv_upper(0.1, math.nan), "eps"),
        (lambda: kl(0.1, 1.5), "p"),
        (lambda: kl_inv_upper(torch.tensor([0.1, math.nan]), 0.1), "q"),
        (lambda: first_order_bound(torch.tensor(0.1), torch.tensor(-2.0), 100, 0.05), "kl"),
        (lambda: binomial_tail(0.3, 0), "n_draws"),
        (lambda: binomial_tail(0.3, 2.5), "n_draws"),
        (lambda: binomial_bound(0.1, 1.0, 100, 0.05, 0), "n_draws"),
        (lambda: pac_bayes_upper([0.1, 0.2], 1.0, 100, 0.05, weights=[0.5, 0.6]), "sum to 1"),
        (lambda: pac_bayes_upper([0.1, 0.2], 1.0, 100, 0.05, weights=[1.5, -0.5]), ">= 0"),
        (lambda: pac_bayes_upper([0.1, 0.2], 1.0, 100, 0.05, weights=[1.0]), "one entry per half"),
        (lambda: pac_bayes_upper([0.1, 0.2], [1.0, 2.0, 3.0], 100, 0.05), "same length"),
        (lambda: cross_bound(0.1, 0.2, 1, 1, 100, 200, 0.5, 0.05, mode="paper"), "m1 == m2"),
        (lambda: cross_bound(0.1, 0.2, 1, 1, 100, 100, 0.3, 0.05, mode="paper"), "alpha"),
        (lambda: cross_bound(0.1, 0.2, 1, 1, 100, 100, 0.3, 0.05, mode="bogus"), "mode"),
        (lambda: single_hypothesis_triple_bound(0.2, 0.1, 0.6, 1, 100, 50, 40, (0.01,) * 3), "m0"),
        (lambda: single_hypothesis_triple_bound(0.2, 0.1, 0.6, 1, 100, 50, 50, (0.5,) * 3), "sum"),
        (
            lambda: single_hypothesis_triple_bound(0.2, 1.1, 0.6, 1, 100, 50, 50, (0.01,) * 3),
            "b_hat",
        ),
        (lambda: cbound_pb2(0.1, 0.4, 1.0, 100, 0.05), "inconsistent"),
        (lambda: cbound_pb2(0.2, 0.3, 1.0, 100, 0.05, tol=0), "tol"),
        (lambda: margin_bound(0.1, 0.1, 0.0, 1.0, 100, 0.05), "concentration"),
        (lambda: vc_bound(0.1, 0, 100, 0.05), "n_voters"),
        (lambda: occam_bound(0.1, 5, 100, 0.05, weights=[0.5]), "weights"),
        (lambda: pac_bayes_upper("a", 1.0, 100, 0.05), "number"),
    ],
)
def test_invalid_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()
