"""Tests of skpacbayes._special: I_{1/2}(a, b) with its gradients, Gaussian tails, quadrature."""

import math

import mpmath
import numpy as np
import pytest
import scipy.special
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from skpacbayes._special import (
    _betainc,
    betainc_half,
    digamma_minus_log,
    gauss_legendre,
    gaussian_cdf,
    gaussian_sf,
    stirling_remainder,
)

F64 = torch.float64

# Dirichlet loss I_{1/2}(a_T, a_F): reference values (mpmath, 50 digits; rel 1e-9, abs 1e-12)
DIRICHLET_R = [
    (3, 2, 0.3125),
    (2, 3, 0.6875),
    (0.5, 0.7, 0.60036423213300152),
    (10.3, 9.1, 0.39031935692931041),
    (100, 95, 0.35985604690023193),
    (0.001, 2.0, 0.99980674653694775),
    (5, 0, 0.0),
    (0, 5, 1.0),
    (1.5, 1.5, 0.5),
    (3.3, 4.3, 0.64953706945257955),
]


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def mp_betainc_half(a, b):
    """mpmath reference I_{1/2}(a, b) (hypergeometric series; fine for a + b < 200)."""
    return mpmath.betainc(a, b, 0, mpmath.mpf(1) / 2, regularized=True)


def mp_betainc_half_large(a, b):
    """mpmath reference for large a, b: the Beta density integrated around its mode."""
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    log_b = mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)

    def density(t):
        return mpmath.exp((a - 1) * mpmath.log(t) + (b - 1) * mpmath.log(1 - t) - log_b)

    mode = (a - 1) / (a + b - 2)
    sd = mpmath.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    half = mpmath.mpf(1) / 2
    lo = max(mpmath.mpf(0), mode - 60 * sd)
    if half <= lo:
        return mpmath.mpf(0)
    pts = [lo] + [mode + j * sd for j in range(-57, 60, 3) if lo < mode + j * sd < half] + [half]
    return mpmath.quad(density, pts)


# ---------------------------------------------------------------------------------------------
# betainc_half: values
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "expected"), DIRICHLET_R)
def test_dirichlet_r_vectors(a, b, expected):
    got = float(betainc_half(float(a), float(b)))
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_edge_cases_spec0():
    a = t64([5.0, 1e-300, 1e8, 0.0, 0.0, 0.0, math.inf, 2.0, math.inf, -1.0, 1.0, math.nan])
    b = t64([0.0, 0.0, 0.0, 5.0, 1e-300, 0.0, 2.0, math.inf, math.inf, 1.0, -1.0, 1.0])
    got = betainc_half(a, b).numpy()
    np.testing.assert_array_equal(got[:5], [0.0, 0.0, 0.0, 1.0, 1.0])
    assert math.isnan(got[5])  # I(0, 0) undefined
    np.testing.assert_array_equal(got[6:8], [0.0, 1.0])
    assert np.isnan(got[8:]).all()


def test_symmetry_and_diagonal():
    rng = np.random.default_rng(0)
    a = 10 ** rng.uniform(-8, 8, 1500)
    b = 10 ** rng.uniform(-8, 8, 1500)
    s = betainc_half(t64(a), t64(b)) + betainc_half(t64(b), t64(a))
    np.testing.assert_allclose(s.numpy(), 1.0, atol=1e-14)
    d = betainc_half(t64(a), t64(a)).numpy()
    np.testing.assert_allclose(d, 0.5, atol=1e-14)


def test_against_scipy_wide_range():
    rng = np.random.default_rng(1)
    n = 10_000
    a = 10 ** rng.uniform(-8, 8, n)
    b = 10 ** rng.uniform(-8, 8, n)
    # near the diagonal, where I is neither 0 nor 1 and cancellations hurt most
    a2 = 10 ** rng.uniform(-8, 8, n)
    b2 = np.abs(a2 * (1 + rng.normal(0, 1, n) * np.minimum(1, 3 / np.sqrt(a2 + 1))))
    a, b = np.concatenate([a, a2]), np.concatenate([b, b2])
    got = betainc_half(t64(a), t64(b)).numpy()
    ref = scipy.special.betainc(a, b, 0.5)
    # scipy itself is off by up to ~7e-14 near a = b = 1e8 (checked against mpmath)
    assert np.abs(got - ref).max() <= 1e-12
    small = np.maximum(a, b) < 1e4
    assert np.abs(got - ref)[small].max() <= 2e-14


@pytest.mark.parametrize(
    ("a", "b"),
    [(3e-6, 3.06), (0.5, 0.7), (5.0, 0.01), (0.01, 5.0), (9.9, 9.95), (12.0, 11.0), (30.0, 31.0),
     (100.0, 95.0), (20.0, 3.0), (0.3, 40.0), (1e-8, 1e-8), (2e-8, 1e-8)],
)  # fmt: skip
def test_value_and_gradients_against_mpmath(a, b):
    mpmath.mp.dps = 30
    ref = mp_betainc_half(a, b)
    ref_a = mpmath.diff(lambda x: mp_betainc_half(x, b), a)
    ref_b = mpmath.diff(lambda y: mp_betainc_half(a, y), b)
    ta = torch.tensor(a, dtype=F64, requires_grad=True)
    tb = torch.tensor(b, dtype=F64, requires_grad=True)
    value = betainc_half(ta, tb)
    value.backward()
    assert value.item() == pytest.approx(float(ref), abs=1e-14, rel=1e-13)
    assert float(ta.grad) == pytest.approx(float(ref_a), abs=1e-13, rel=1e-12)
    assert float(tb.grad) == pytest.approx(float(ref_b), abs=1e-13, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("a", "b"),
    [(97243367.07646292, 97245758.6056246), (1e8, 1e8 + 5000), (3e7, 3e7 - 3000), (1e6, 1e6 + 700),
     (1e4, 1e4 + 50), (1e10, 1e10 + 1e5), (1e12, 1e12 - 1e6)],
)  # fmt: skip
def test_large_parameters_against_mpmath(a, b):
    mpmath.mp.dps = 40
    ref = float(mp_betainc_half_large(a, b))
    assert float(betainc_half(a, b)) == pytest.approx(ref, abs=1e-14)


def test_large_parameters_stay_finite_and_monotone():
    a = t64(np.full(7, 1e8))
    b = t64(1e8 + np.array([-3e4, -1e4, -1e3, 0.0, 1e3, 1e4, 3e4]))
    v = betainc_half(a, b).numpy()
    assert np.isfinite(v).all()
    assert (np.diff(v) > 0).all()  # increasing in b
    assert v[3] == pytest.approx(0.5, abs=1e-14)


def test_float32_matches_float64():
    rng = np.random.default_rng(2)
    a = (10 ** rng.uniform(-3, 6, 5000)).astype(np.float32)
    b = (a * np.exp(rng.normal(0, 0.3, a.size))).astype(np.float32)
    v32 = betainc_half(torch.from_numpy(a), torch.from_numpy(b))
    v64 = betainc_half(t64(a), t64(b))
    assert v32.dtype == torch.float32
    assert (v32.double() - v64).abs().max() <= 1e-6


def test_training_quadrature_matches_float64_rule():
    # float32 arguments use 12 nodes and a shorter K (float64 arithmetic) for
    # min(a, b) >= 10 and a + b <= 1e8: value within 1e-8, derivatives within 1e-7 of
    # their scale 0.4 sqrt(a + b) / a (resp. / b); measured 9e-9 and 7e-8
    rng = np.random.default_rng(11)
    n = 20_000
    a = 10 ** rng.uniform(1, 7.7, n)
    b = np.where(
        rng.random(n) < 0.5,
        10 ** rng.uniform(1, 7.7, n),
        np.abs(a * (1 + rng.normal(0, 1, n) * np.minimum(1, 3 / np.sqrt(a + 1)))),
    )
    a = np.concatenate([a, 10 + rng.uniform(0, 5, 2000)])
    b = np.concatenate([np.clip(b, 10, 5e7), 10 + rng.uniform(0, 5, 2000)])
    ta, tb = t64(a), t64(b)
    ref = _betainc._betainc_half_quad(ta, tb, F64)
    got = _betainc._betainc_half_quad_train(ta, tb)
    s = ta + tb
    assert (got[0] - ref[0]).abs().max() <= 1e-8
    assert ((got[1] - ref[1]).abs() * ta / (0.4 * s.sqrt())).max() <= 1e-7
    assert ((got[2] - ref[2]).abs() * tb / (0.4 * s.sqrt())).max() <= 1e-7


def test_training_continued_fraction_matches_adaptive_one():
    # fixed 18 steps for every element (b < 10 <= ... a >= b): measured 2e-13 relative
    rng = np.random.default_rng(12)
    n = 20_000
    b = 10 ** rng.uniform(-8, 1, n)
    a = np.concatenate([b * 10 ** rng.uniform(0, 9, n), b * (1 + rng.uniform(0, 0.2, n))])
    b = np.concatenate([b, b])
    a, b = np.maximum(a, b), np.minimum(np.minimum(a, b), np.nextafter(10, 0))
    ta, tb = t64(a), t64(b)
    ref = _betainc._betainc_half_cf(ta, tb)
    got = _betainc._betainc_half_cf_train(ta, tb)
    scale = ref[0].abs() + ref[1].abs() + ref[2].abs()
    for g, r in zip(got, ref, strict=True):
        assert ((g - r).abs() <= 1e-11 * scale).all()


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_value_only_path_matches_the_differentiable_one(dtype):
    # without gradients (no_grad, or no input requiring them) betainc_half skips the
    # derivatives: the values must be the very same numbers
    rng = np.random.default_rng(13)
    a = np.concatenate([10 ** rng.uniform(-6, 8, 4000), [0.0, 5.0, np.inf, 3.0, 12.0]])
    b = np.concatenate(
        [
            a[:2000] * np.exp(rng.normal(0, 0.5, 2000)),
            10 ** rng.uniform(-6, 8, 2000),
            [5.0, 0.0, 2.0, np.inf, 11.0],
        ]
    )
    ta = torch.tensor(a, dtype=dtype, requires_grad=True)
    tb = torch.tensor(b, dtype=dtype)
    with_grad = betainc_half(ta, tb)
    assert with_grad.requires_grad
    with torch.no_grad():
        value_only = betainc_half(ta, tb)
    assert not value_only.requires_grad
    assert torch.equal(value_only, with_grad.detach())
    assert torch.equal(betainc_half(ta.detach(), tb), value_only)


def test_training_quadrature_shortcut_matches_the_masked_path():
    # every element on the training quadrature takes a shortcut without masks; one element
    # on the continued fraction sends the same values through the masked dispatch
    rng = np.random.default_rng(14)
    a = (10 ** rng.uniform(1, 5, 3000)).astype(np.float32)
    b = (a * np.exp(rng.normal(0, 0.2, a.size))).clip(10, None).astype(np.float32)
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    betainc_half(ta, tb).sum().backward()
    ma = torch.tensor(np.append(a, 2.0), dtype=torch.float32, requires_grad=True)
    mb = torch.tensor(np.append(b, 3.0), dtype=torch.float32, requires_grad=True)
    masked = betainc_half(ma, mb)
    masked.sum().backward()
    with torch.no_grad():
        assert torch.equal(betainc_half(ta, tb), masked[:-1])
    assert torch.equal(ta.grad, ma.grad[:-1]) and torch.equal(tb.grad, mb.grad[:-1])


def test_float32_beyond_the_training_quadrature_range():
    # a + b > 1e8 in float32: the careful float32 rule (16 nodes)
    a = torch.tensor([3e8, 1e9, 5e10, 1e12], dtype=torch.float32)
    b = a * torch.tensor([1.0, 1.00001, 0.99999, 1.000001])
    v32 = betainc_half(a, b)
    v64 = betainc_half(a.double(), b.double())
    assert (v32.double() - v64).abs().max() <= 1e-6


def test_float32_gradients_match_float64():
    rng = np.random.default_rng(13)
    a = (10 ** rng.uniform(-3, 5, 4000)).astype(np.float32)
    b = (a * np.exp(rng.normal(0, 0.3, a.size))).astype(np.float32)
    a32 = torch.from_numpy(a).requires_grad_(True)
    b32 = torch.from_numpy(b).requires_grad_(True)
    a64 = a32.detach().double().requires_grad_(True)
    b64 = b32.detach().double().requires_grad_(True)
    betainc_half(a32, b32).sum().backward()
    betainc_half(a64, b64).sum().backward()
    s = a64.detach() + b64.detach()
    scale_a = 0.4 * s.sqrt() / a64.detach() + a64.grad.abs()
    scale_b = 0.4 * s.sqrt() / b64.detach() + b64.grad.abs()
    assert ((a32.grad.double() - a64.grad).abs() / scale_a).max() <= 1e-5
    assert ((b32.grad.double() - b64.grad).abs() / scale_b).max() <= 1e-5


# ---------------------------------------------------------------------------------------------
# betainc_half: gradients
# ---------------------------------------------------------------------------------------------
def test_gradcheck_moderate():
    a = t64([0.7, 2.5, 9.0, 12.0, 40.0, 150.0]).requires_grad_(True)
    b = t64([1.3, 2.0, 11.0, 9.5, 38.0, 160.0]).requires_grad_(True)
    assert torch.autograd.gradcheck(betainc_half, (a, b), eps=1e-6, atol=1e-8, rtol=1e-6)


def test_gradients_against_central_differences_wide_range():
    rng = np.random.default_rng(3)
    n = 3000
    a = 10 ** rng.uniform(-2, 7, n)
    b = np.abs(a * (1 + rng.normal(0, 1, n) * np.minimum(1, 3 / np.sqrt(a + 1)))) + 1e-2
    ta, tb = t64(a).requires_grad_(True), t64(b).requires_grad_(True)
    betainc_half(ta, tb).sum().backward()
    ha = 1e-4 * np.sqrt(a) * np.minimum(1, np.sqrt(a))
    hb = 1e-4 * np.sqrt(b) * np.minimum(1, np.sqrt(b))
    fa = (scipy.special.betainc(a + ha, b, 0.5) - scipy.special.betainc(a - ha, b, 0.5)) / (2 * ha)
    fb = (scipy.special.betainc(a, b + hb, 0.5) - scipy.special.betainc(a, b - hb, 0.5)) / (2 * hb)
    # truncation O(h^2) and rounding O(eps/h) of the differences, relative to the scale
    scale_a = np.abs(fa) + 1e-6 / np.sqrt(a)
    scale_b = np.abs(fb) + 1e-6 / np.sqrt(b)
    assert (np.abs(ta.grad.numpy() - fa) / scale_a).max() < 1e-3
    assert (np.abs(tb.grad.numpy() - fb) / scale_b).max() < 1e-3


def test_gradient_broadcasting_and_scalars():
    a = t64([2.0, 3.0, 4.0]).requires_grad_(True)
    b = torch.tensor(2.5, dtype=F64, requires_grad=True)
    betainc_half(a, b).sum().backward()
    assert a.grad.shape == (3,) and b.grad.shape == ()
    ref_b = sum(
        (betainc_half(float(x), 2.5 + 1e-6) - betainc_half(float(x), 2.5 - 1e-6)) / 2e-6
        for x in (2.0, 3.0, 4.0)
    )
    assert float(b.grad) == pytest.approx(float(ref_b), rel=1e-6)


def test_gradient_at_zero_parameter_is_the_one_sided_limit():
    # d/db I(a, b) at b = 0+ is finite: I(a, b) ~ b * I'(a, 0)
    b = torch.tensor(0.0, dtype=F64, requires_grad=True)
    betainc_half(torch.tensor(3.0, dtype=F64), b).backward()
    h = 1e-9
    assert float(b.grad) == pytest.approx(float(betainc_half(3.0, h)) / h, rel=1e-6)


def test_residual_correction():
    # residuals of one ulp (a + res exactly representable): second-order terms negligible
    a, b = t64([2.0**26, 3.0, 48.0]), t64([2.0**26 + 2**13, 2.0, 49.0])
    res_a, res_b = t64([2.0**-26, 2.0**-51, -(2.0**-47)]), t64([-(2.0**-26), 0.0, 2.0**-47])
    corrected = betainc_half(a, b, a_residual=res_a, b_residual=res_b)
    shifted = betainc_half(a + res_a, b + res_b)
    assert (corrected - shifted).abs().max() <= 4e-15
    assert not torch.equal(corrected, betainc_half(a, b))
    # no correction where the derivative is not finite (edge cases), values stay in [0, 1]
    edge = betainc_half(t64([0.0, 5.0]), t64([5.0, 0.0]), a_residual=t64([1e-300, 0.0]))
    assert torch.isfinite(edge).all() and ((edge >= 0) & (edge <= 1)).all()


def test_python_numbers_give_float64():
    assert betainc_half(2.0, 3.0).dtype == F64
    assert betainc_half(torch.tensor(2.0), 3.0).dtype == torch.float32


@settings(max_examples=60, deadline=None)
@given(
    st.floats(min_value=1e-6, max_value=1e6),
    st.floats(min_value=1e-6, max_value=1e6),
    st.floats(min_value=1e-3, max_value=0.5),
)
def test_monotonicity_property(a, b, step):
    # P(Beta(a, b) <= 1/2) decreases in a and increases in b
    base = float(betainc_half(a, b))
    assert 0.0 <= base <= 1.0
    assert float(betainc_half(a * (1 + step), b)) <= base + 1e-14
    assert float(betainc_half(a, b * (1 + step))) >= base - 1e-14


# ---------------------------------------------------------------------------------------------
# Gaussian tails, quadrature, series helpers
# ---------------------------------------------------------------------------------------------
def test_gaussian_tails_relative_accuracy():
    t = np.concatenate([np.linspace(-8, 8, 161), [10.0, 20.0, 30.0, 37.0]])
    sf = gaussian_sf(t64(t)).numpy()
    cdf = gaussian_cdf(t64(-t)).numpy()
    ref = scipy.special.ndtr(-t)
    np.testing.assert_allclose(sf, ref, rtol=1e-13, atol=0)
    np.testing.assert_array_equal(sf, cdf)
    assert float(gaussian_sf(torch.tensor(10.0))) == pytest.approx(7.6198530241604e-24, rel=1e-5)


def test_gaussian_gradients():
    t = t64([-3.0, -0.5, 0.0, 1.0, 4.0]).requires_grad_(True)
    gaussian_sf(t).sum().backward()
    pdf = np.exp(-0.5 * t.detach().numpy() ** 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(t.grad.numpy(), -pdf, rtol=1e-13)


def test_gauss_legendre():
    x, w = gauss_legendre(10, torch.float32)
    assert x.dtype == torch.float32 and x.shape == (10,)
    x, w = gauss_legendre(10)
    for degree in range(20):
        exact = (1 - (-1) ** (degree + 1)) / (degree + 1)
        assert float((w * x**degree).sum()) == pytest.approx(exact, abs=1e-14)


def test_series_helpers():
    x = t64(10 ** np.linspace(-3, 8, 60))
    mpmath.mp.dps = 40
    ref_s = [
        float(mpmath.loggamma(v) - ((v - 0.5) * mpmath.log(v) - v + mpmath.log(2 * mpmath.pi) / 2))
        for v in map(mpmath.mpf, x.tolist())
    ]
    ref_d = [float(mpmath.digamma(v) - mpmath.log(v)) for v in map(mpmath.mpf, x.tolist())]
    np.testing.assert_allclose(stirling_remainder(x).numpy(), ref_s, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(digamma_minus_log(x).numpy(), ref_d, rtol=1e-12, atol=1e-15)
    # both differentiable (used inside the Dirichlet KL)
    y = t64([0.5, 50.0]).requires_grad_(True)
    (stirling_remainder(y).sum() + digamma_minus_log(y).sum()).backward()
    assert torch.isfinite(y.grad).all()


# ---------------------------------------------------------------------------------------------
# Training-only interpolation tables
# ---------------------------------------------------------------------------------------------
_DEVICES = [
    "cpu",
    pytest.param(
        "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
    ),
]


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("half", [0.5, 0.31, 0.05, 1.7e-3, 2.3e-5])
def test_table_interval_is_the_search_of_the_knots(dtype, half, device):
    from skpacbayes._special._tables import _interval, _knots

    half_t = torch.tensor(half, dtype=dtype, device=device)
    knots = _knots(half_t, dtype, device)
    gen = torch.Generator().manual_seed(0)
    near = 0.5 + 3 * half * (2 * torch.rand(20_000, generator=gen, dtype=dtype) - 1)
    on_host = knots.cpu()
    x = torch.cat(
        [
            torch.rand(20_000, generator=gen, dtype=dtype),
            near.clamp(0, 1),
            on_host,  # every knot, and its neighbours either side
            torch.nextafter(on_host, torch.full_like(on_host, -1.0)),
            torch.nextafter(on_host, torch.full_like(on_host, 2.0)),
            torch.tensor([-0.5, 0.0, 1.0, 1.5], dtype=dtype),
        ]
    ).to(device)
    expected = (torch.searchsorted(knots, x, right=True) - 1).clamp(0, knots.numel() - 2)
    torch.testing.assert_close(_interval(x, knots, half_t), expected, rtol=0, atol=0)
    inside = (x >= 0) & (x < 1)  # an interval of positive width that holds x
    k = expected[inside]
    assert bool(torch.all(knots[k] <= x[inside])) and bool(torch.all(x[inside] < knots[k + 1]))


def test_table_chunks_do_not_change_the_interpolant(monkeypatch):
    """The interpolation runs on the CPU in chunks of rows: the values and both slopes are
    the same numbers whatever the chunk (every step is elementwise)."""
    import skpacbayes._special._tables as tables

    gen = torch.Generator().manual_seed(3)
    total = torch.tensor(2_500.0, requires_grad=True)
    x = (0.5 + 0.1 * torch.randn(10_001, generator=gen)).clamp(0, 1)
    x[:4] = torch.tensor([0.0, 0.5, 1.0, 0.25])

    def values_and_slopes():
        a_f = (x * total.detach()).requires_grad_(True)
        total.grad = None
        r = tables.dirichlet_loss_table(a_f, total)
        (r * torch.linspace(0.5, 1.5, r.numel())).sum().backward()
        return r.detach(), a_f.grad, total.grad

    monkeypatch.setattr(tables, "_CPU_ROWS", 2**20)
    whole = values_and_slopes()
    monkeypatch.setattr(tables, "_CPU_ROWS", 777)
    for a, b in zip(whole, values_and_slopes(), strict=True):
        assert torch.equal(a, b)


def test_dirichlet_loss_table_matches_the_function():
    from skpacbayes._special._tables import dirichlet_loss_table

    gen = torch.Generator().manual_seed(1)
    for total in (0.7, 3.0, 40.0, 2_500.0, 1e6):
        a_f = total * torch.rand(5_000, generator=gen, dtype=torch.float64)
        a_f[:3] = torch.tensor([0.0, total / 2, total])  # all voters wrong: t = 1
        a_f = a_f.float().double()  # the float32 inputs, exactly
        table = dirichlet_loss_table(a_f.float(), torch.tensor(total, dtype=torch.float32))
        exact = betainc_half(total - a_f, a_f)
        torch.testing.assert_close(table.double(), exact, rtol=0, atol=2e-5)
        # the values alone (no gradient wanted: the derivatives are skipped) are the same
        x = a_f.float().requires_grad_(True)
        with_grad = dirichlet_loss_table(x, torch.tensor(total, dtype=torch.float32))
        assert with_grad.requires_grad and torch.equal(with_grad.detach(), table)


def test_binomial_tail_table_matches_the_function():
    from skpacbayes._special._tables import binomial_tail_table
    from skpacbayes.bounds import binomial_tail

    r = torch.cat([torch.linspace(0, 1, 10_001, dtype=torch.float64), torch.rand(5_000).double()])
    for n in (1, 4, 25, 100, 1_001):
        table = binomial_tail_table(n, torch.float32, torch.device("cpu"))(r.float())
        exact = torch.as_tensor(binomial_tail(r.numpy(), n))
        torch.testing.assert_close(table.double(), exact, rtol=0, atol=2e-5)
