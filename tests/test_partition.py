"""Tests of skpacbayes.partition: certified partition values, family terms, two-set scan."""

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special

from skpacbayes.partition import (
    DirichletSplitScan,
    _solvers,
    _split_scan,
    categorical_partition_terms,
    certified_cstar,
    certified_pbar,
    cstar_lower,
    dirichlet_partition_terms,
    dirichlet_split_c_tilde,
    gaussian_partition_terms,
    scaled_cstar_lower,
    scaled_pbar_lower,
)
from skpacbayes.partition import _exact as P_exact
from skpacbayes.partition import _solvers as P_solvers

VECTORS = Path(__file__).resolve().parent / "data"
HYP = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Reference partition values cstar (exact rationals of the DECIMAL inputs) and two-set scan
# values (exact rational constraint, 40-digit mpmath), as in tests/data/test_vectors*.json
PARTITIONS = [
    ([0.5, 0.3, 0.2], "1/2", "0"),
    ([0.4, 0.35, 0.25], "3/5", "1/5"),
    ([0.7, 0.2, 0.1], "7/10", "2/5"),
    ([1, 1, 1], "2", "1"),
    ([3, 1, 1, 1], "3", "0"),
    ([0.35, 0.25, 0.2, 0.12, 0.08], "53/100", "3/50"),
    ([5, 4, 3, 3, 3], "9", "0"),
    ([0.9], "9/10", "9/10"),
    ([0.3, 0, 0.3, 0.4], "3/5", "1/5"),
    ([8, 7, 6, 5, 4], "15", "0"),
    ([10, 3, 2], "10", "5"),
    ([2.0, 1.5, 1.0, 0.5, 0.3], "14/5", "3/10"),
]
TWOSET = [
    ([3.5, 2.5, 2.0], [1.2, 0.8], 0.5, "0.49561186160384742"),
    ([1.0, 1.0, 1.0, 1.0], [2.0, 1.0, 1.0], 0.5, "0.5"),
    ([0.1, 0.1, 0.1], [101.0, 100.0, 100.0], 0.5, "0.33528540005516831"),
    ([5.0, 4.0, 3.0, 3.0, 3.0], [0.5, 0.3, 0.2], 0.3, "0.4906999085109633"),
    ([0.001, 0.002, 0.003], [1000.0, 2000.0, 4000.0], 0.7, "0.46666819023502277"),
    ([2.0, 1.5, 1.0, 0.5, 0.3], [3.0, 1.0], 0.9, "0.49949484862477242"),
    ([0.35, 0.25, 0.2, 0.12, 0.08], [0.35, 0.25, 0.2, 0.12, 0.08], 0.5, "0.5"),
    ([7.0], [1.0, 1.0], 0.25, "0.625"),
]


# ----------------------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------------------
def exact_cstar(a, relax=Fraction(0)):
    """Brute force over all subsets in exact rationals (the float inputs, as dyadics)."""
    vals = [Fraction(float(x)) for x in a if x > 0]
    total = sum(vals, Fraction(0))
    level = total * (Fraction(1, 2) - relax)
    sums = {Fraction(0)}
    for v in vals:
        sums |= {s + v for s in sums}
    return min(s for s in sums if s >= level)


def float_sandwich(a):
    """Interval certainly containing cstar(a) from a float64 enumeration (n <= 20)."""
    x = np.asarray([v for v in a if v > 0], dtype=np.float64)
    sums = np.zeros(1)
    for v in x:
        sums = np.concatenate((sums, sums + v))
    total = float(math.fsum(x))
    tol = 4 * (x.size + 2) * 2.0**-53 * total
    lo = sums[sums >= total / 2 - tol].min()
    hi = sums[sums >= total / 2 + tol].min()
    return lo - tol, hi + tol


def check_certificate(a, res):
    """Invariants every certificate must satisfy (brute force independent)."""
    arr = np.asarray(a, dtype=np.float64)
    total = sum((Fraction(float(v)) for v in arr), Fraction(0))
    assert res.total_exact == total
    assert res.lower_exact <= res.upper_exact
    assert Fraction(res.lower) <= res.lower_exact
    assert Fraction(res.upper) >= res.upper_exact
    sub = sum((Fraction(float(arr[i])) for i in res.subset), Fraction(0))
    assert sub == res.upper_exact
    assert sub >= res.threshold
    assert res.exact == (res.lower_exact == res.upper_exact)
    assert len(set(res.subset.tolist())) == res.subset.size


# ----------------------------------------------------------------------------------------
# strategies (adversarial weight vectors)
# ----------------------------------------------------------------------------------------
def _weights(max_n):
    pos = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
    equal = st.builds(lambda v, n: [v] * n, pos, st.integers(1, max_n))
    dominant = st.builds(
        lambda rest, f: rest + [f * sum(rest) + 1e-300],
        st.lists(pos, min_size=0, max_size=max_n - 1),
        st.sampled_from([0.5, 0.999999, 1.0, 1.000001, 3.0]),
    )
    mixed = st.lists(
        st.builds(
            lambda m, e: math.ldexp(m, e),
            st.floats(0.5, 1.0, exclude_max=True),
            st.integers(-250, 250),
        ),
        min_size=1,
        max_size=max_n,
    )
    zeros = st.lists(st.one_of(st.just(0.0), pos), min_size=0, max_size=max_n)
    dupes = st.builds(
        lambda pool, idx: [pool[i % len(pool)] for i in idx],
        st.lists(pos, min_size=1, max_size=3),
        st.lists(st.integers(0, 2), min_size=1, max_size=max_n),
    )
    single = st.lists(pos, min_size=1, max_size=1)
    f32 = st.lists(st.floats(min_value=0.0, max_value=1.0, width=32), min_size=1, max_size=max_n)
    ints = st.lists(st.integers(0, 7).map(float), min_size=1, max_size=max_n)
    return st.one_of(equal, dominant, mixed, zeros, dupes, single, f32, ints)


SETTINGS = [
    {},
    {"bits": 16},
    {"max_exact_log2": 0, "rtol": 0.0},
    {"max_exact_log2": 0, "bits": 8, "max_nodes": 0, "rtol": 0.0},
]


# ----------------------------------------------------------------------------------------
# test vectors
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, cstar, dstar", PARTITIONS)
def test_partition_vectors(a, cstar, dstar):
    res = certified_cstar(a)
    check_certificate(a, res)
    assert res.exact
    assert res.lower_exact == exact_cstar(a)  # exact on the float (dyadic) inputs
    # the decimal rational of the vector: equal up to the representation of the inputs
    q = Fraction(cstar)
    assert Fraction(res.lower) <= q * (1 + Fraction(1, 2**48))
    assert Fraction(res.upper) >= q * (1 - Fraction(1, 2**48))
    assert res.lower == pytest.approx(float(q), rel=1e-12, abs=1e-12)
    pb = certified_pbar(a)
    assert pb.exact
    assert pb.lower == pytest.approx(float(Fraction(dstar)), rel=1e-9, abs=1e-12)
    assert pb.lower_exact == 2 * res.lower_exact - res.total_exact


def test_vectors_match_reference_files():
    path = VECTORS / "test_vectors.json"
    path36 = VECTORS / "test_vectors_3_6.json"
    data = json.loads(path.read_text())
    shared = [(p["a"], p["cstar"], p["Dstar"]) for p in data["partitions"]]
    assert shared == PARTITIONS
    groups = [v for v in data["vectors"] if v["group"] == "partition_cstar"]
    assert [v["inputs"]["a"] for v in groups] == [p[0] for p in PARTITIONS]
    scan = json.loads(path36.read_text())["twoset_scan"]
    assert [(v["a1"], v["a2"], v["alpha"], v["c_exact"]) for v in scan] == TWOSET


@pytest.mark.parametrize("a1, a2, mix, c_exact", TWOSET)
def test_twoset_vectors(a1, a2, mix, c_exact):
    exact = Fraction(c_exact)
    scan = DirichletSplitScan(a1, a2)
    for bits, tol in ((24, 1e-6), (16, 1e-4)):
        c = dirichlet_split_c_tilde(a1, a2, mix, bits=bits)
        assert Fraction(c) <= exact
        assert float(exact) - c <= tol
    assert scan.c_tilde(mix) == dirichlet_split_c_tilde(a1, a2, mix)


def test_error_table_family_terms():
    b, c = categorical_partition_terms([0.35, 0.25, 0.2, 0.12, 0.08])
    assert b == 0.0
    assert c == pytest.approx(0.53, rel=1e-12)
    exact = exact_cstar([0.35, 0.25, 0.2, 0.12, 0.08]) / sum(
        Fraction(v) for v in [0.35, 0.25, 0.2, 0.12, 0.08]
    )
    assert Fraction(c) <= exact
    b, c = dirichlet_partition_terms([3.5, 2.5, 2.0, 1.2, 0.8])
    assert b == 0.0
    assert 0.57845586414799297 - 1e-9 <= c <= 0.57845586414799297
    b, c = gaussian_partition_terms([2.0, 1.5, 1.0, 0.5, 0.3], 5)
    assert 0.0088884619212144614 - 1e-9 <= b <= 0.0088884619212144614
    assert 0.55336358492889409 - 1e-9 <= c <= 0.55336358492889409
    # bits = 16 is still a valid (and here equal) lower bound
    assert categorical_partition_terms([0.35, 0.25, 0.2, 0.12, 0.08], bits=16)[1] == pytest.approx(
        0.53, rel=1e-12
    )


# ----------------------------------------------------------------------------------------
# properties of certified_cstar
# ----------------------------------------------------------------------------------------
@HYP
@given(_weights(12), st.sampled_from(SETTINGS))
def test_cstar_against_fraction_brute_force(a, kw):
    res = certified_cstar(a, **kw)
    check_certificate(a, res)
    exact = exact_cstar(a)
    assert res.lower_exact <= exact <= res.upper_exact
    if res.exact:
        assert res.lower_exact == exact
    if not kw:
        assert res.exact  # the default portfolio is exact up to 40 distinct weights


@settings(max_examples=25, deadline=None)
@given(
    st.one_of(
        st.lists(st.floats(1e-3, 1.0), min_size=13, max_size=20),
        st.lists(st.floats(0.0, 1.0, width=32), min_size=13, max_size=20),
        st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1.3]), min_size=13, max_size=20),
    ),
    st.sampled_from(SETTINGS),
)
def test_cstar_against_float_enumeration(a, kw):
    res = certified_cstar(a, **kw)
    check_certificate(a, res)
    if not any(v > 0 for v in a):
        assert res.upper == 0.0
        return
    lo, hi = float_sandwich(a)
    assert float(res.lower_exact) <= hi
    assert float(res.upper_exact) >= lo
    if not kw:
        assert res.exact and lo <= float(res.lower_exact) <= hi


@HYP
@given(_weights(10), st.randoms(use_true_random=False))
def test_permutation_invariance(a, rnd):
    perm = list(range(len(a)))
    rnd.shuffle(perm)
    b = [a[i] for i in perm]
    for kw in ({}, {"max_exact_log2": 0, "bits": 10, "rtol": 0.0}):
        r1, r2 = certified_cstar(a, **kw), certified_cstar(b, **kw)
        assert (r1.lower_exact, r1.upper_exact) == (r2.lower_exact, r2.upper_exact)
        assert r1.exact == r2.exact


@HYP
@given(
    st.lists(st.floats(1e-200, 1e200), min_size=1, max_size=10),
    st.integers(-60, 60),
)
def test_power_of_two_scaling_invariance(a, k):
    scaled = [math.ldexp(v, k) for v in a]
    for kw in ({}, {"max_exact_log2": 0, "bits": 10, "rtol": 0.0}):
        r1, r2 = certified_cstar(a, **kw), certified_cstar(scaled, **kw)
        f = Fraction(2) ** k
        assert r2.lower_exact == f * r1.lower_exact
        assert r2.upper_exact == f * r1.upper_exact
        assert r2.exact == r1.exact
        assert r2.lower == math.ldexp(r1.lower, k)
        assert r2.upper == math.ldexp(r1.upper, k)


@HYP
@given(_weights(9), st.sampled_from([Fraction(0), Fraction(1, 2**40), Fraction(1, 1000)]))
def test_relaxed_threshold(a, relax):
    res = certified_cstar(a, relax=float(relax))
    check_certificate(a, res)
    assert res.lower_exact <= exact_cstar(a, Fraction(float(relax))) <= res.upper_exact


@HYP
@given(_weights(10), st.floats(1e-3, 1e3))
def test_scaled_reuse_rule(a, t):
    cert = certified_cstar(a)
    deployed = [t * v for v in a]  # float products, as a heuristic would deploy them
    low = scaled_cstar_lower(cert, t)
    assert Fraction(low) <= exact_cstar(deployed)
    assert Fraction(scaled_cstar_lower(cert, t, rounded=False)) <= Fraction(t) * cert.lower_exact
    assert scaled_cstar_lower(cert, 0.5) == cert.lower * 0.5 or cert.lower * 0.5 < 2.0**-1000
    pb = certified_pbar(a)
    brute = min(
        abs(sum(s * Fraction(v) for s, v in zip(signs, deployed, strict=True)))
        for signs in itertools.product((1, -1), repeat=len(deployed))
    )
    assert Fraction(scaled_pbar_lower(pb, t)) <= brute


@HYP
@given(st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=9))
def test_pbar_against_brute_force(p):
    res = certified_pbar(p)
    brute = min(
        abs(sum(s * Fraction(v) for s, v in zip(signs, p, strict=True)))
        for signs in itertools.product((1, -1), repeat=len(p))
    )
    assert res.lower_exact <= brute <= res.upper_exact
    assert res.exact and res.lower_exact == brute
    side = sum((abs(Fraction(p[i])) for i in res.subset), Fraction(0))
    assert 2 * side - res.l1_exact == res.upper_exact
    assert Fraction(res.l1) >= res.l1_exact


# ----------------------------------------------------------------------------------------
# internal engines agree (all exact meet-in-the-middle variants, DP and grid bounds)
# ----------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.integers(8, 22),
    st.sampled_from(["unit", "spread", "decimal", "dupes", "huge"]),
    st.integers(0, 2**32 - 1),
)
def test_exact_engines_agree(n, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "unit":
        a = rng.random(n)
    elif kind == "spread":
        a = rng.random(n) * 10.0 ** rng.integers(-12, 12, n)
    elif kind == "decimal":
        a = np.round(rng.random(n), 3) + 0.001
    elif kind == "dupes":
        a = rng.choice(rng.random(3), n) * (1 + 1e-12 * rng.integers(0, 2, n))
    else:
        a = rng.random(n) * 10.0 ** rng.integers(-120, 120, n)
    w, _ = P_exact._exact_ints(np.sort(a)[::-1])
    g = math.gcd(*w)
    w = [x // g for x in w]
    target = (sum(w) + 1) // 2
    halves, _ = P_solvers._split_groups(P_solvers._groups(w))
    ref, chosen = P_solvers._mitm_python(halves, target)
    assert sum(w[i] for i in chosen) == ref >= target
    value, chosen = P_solvers._mitm(w, target, 1 << 12)
    assert value == ref == sum(w[i] for i in chosen)
    pairs = P_solvers._mitm_pairs(halves, target, sum(w), len(w))
    if pairs is not None:
        assert pairs[0] == ref == sum(w[i] for i in pairs[1])
    for bits in (6, 12, 20):
        low, _ = P_solvers._dp_lower(w, target, bits)
        assert low <= ref
    for shift in (8, 16):
        low = P_solvers._grid_lower(w, target, max(1, sum(w) >> shift), 3, 1 << 24)
        assert low is not None and low <= ref


def test_window_fallback_to_exact_pairs(monkeypatch):
    rng = np.random.default_rng(0)
    a = np.round(rng.random(20), 3) + 0.001  # clustered sums: many window candidates
    w, _ = P_exact._exact_ints(np.sort(a)[::-1])
    g = math.gcd(*w)
    w = [x // g for x in w]
    target = (sum(w) + 1) // 2
    halves, _ = P_solvers._split_groups(P_solvers._groups(w))
    ref = P_solvers._mitm_python(halves, target)[0]
    monkeypatch.setattr(_solvers, "_CAND_CAP", 0)
    assert P_solvers._mitm(w, target, 1 << 12)[0] == ref


def test_grid_and_dp_paths_on_structured_input():
    # 3-decimal weights beyond the exact range: the decimal-grid DP closes the gap
    rng = np.random.default_rng(1)
    a = np.round(rng.random(120), 3)
    res = certified_cstar(a)
    check_certificate(a, res)
    assert float(res.gap / res.total_exact) < 1e-12
    # one dominant block of equal weights plus tiny ones: the floor DP certifies cstar >> S/2
    a = np.concatenate([np.ones(41), np.full(9, 1e-9)])
    res = certified_cstar(a, max_exact_log2=0, rtol=0.0)
    check_certificate(a, res)
    assert res.lower > 20.9 and res.upper <= 21.0 + 1e-7
    res = certified_cstar(a)  # equal weights are grouped: exact enumeration
    assert res.exact and res.lower_exact == 21


def test_top_k_bound_with_tiny_tail():
    rng = np.random.default_rng(2)
    big = rng.integers(1, 2**20, 30).astype(float)
    tail = rng.integers(1, 4, 30) * 2.0**-30
    a = np.concatenate([big, tail])
    res = certified_cstar(a, bits=8, max_nodes=0, rtol=0.0)
    check_certificate(a, res)
    assert "top" in res.method
    assert float(res.gap) <= tail.sum() + 1e-12


# ----------------------------------------------------------------------------------------
# family terms are per-example lower bounds (r >= c~ on errors, r >= b~ on correct examples)
# ----------------------------------------------------------------------------------------
@HYP
@given(st.lists(st.floats(0.0, 10.0), min_size=1, max_size=8).filter(lambda v: sum(v) > 0))
def test_categorical_terms_are_lower_bounds(p):
    b, c = categorical_partition_terms(p)
    q = [Fraction(v) for v in p]
    tot = sum(q)
    worst = min(
        sum(x for x, e in zip(q, err, strict=True) if e) / tot
        for err in itertools.product((0, 1), repeat=len(p))
        if 2 * sum(x for x, e in zip(q, err, strict=True) if e) >= tot
    )
    assert b == 0.0 and Fraction(c) <= worst and c >= 0.5 - 1e-12


@HYP
@given(st.lists(st.floats(0.01, 50.0), min_size=1, max_size=7))
def test_dirichlet_terms_are_lower_bounds(alpha):
    b, c = dirichlet_partition_terms(alpha)
    q = [Fraction(v) for v in alpha]
    big_a = sum(q)
    worst = 1.0
    for err in itertools.product((0, 1), repeat=len(alpha)):
        a_f = sum(x for x, e in zip(q, err, strict=True) if e)
        if 2 * a_f >= big_a:
            a_t = big_a - a_f
            r = 1.0 if a_t == 0 else float(special.betainc(float(a_t), float(a_f), 0.5))
            worst = min(worst, r)
    assert b == 0.0 and c <= worst + 1e-15
    assert worst - c <= 1e-9


@HYP
@given(
    st.lists(st.floats(-4.0, 4.0), min_size=1, max_size=8),
    st.integers(0, 5),
)
def test_gaussian_terms_are_lower_bounds(p, extra):
    n = len(p) + extra  # zero-weight voters count in n
    b, c = gaussian_partition_terms(p, n)
    worst_err, worst_ok = 1.0, 1.0
    for signs in itertools.product((1, -1), repeat=len(p)):
        margin = float(sum(s * Fraction(v) for s, v in zip(signs, p, strict=True)))
        r = float(special.ndtr(-margin / math.sqrt(n)))
        if margin <= 0:
            worst_err = min(worst_err, r)
        else:
            worst_ok = min(worst_ok, r)
    assert c <= worst_err + 1e-15 and worst_err - c <= 1e-9
    assert b <= worst_ok + 1e-15
    assert b <= float(special.ndtr(-sum(abs(v) for v in p) / math.sqrt(n)))


def test_gaussian_zero_mean_and_validation():
    assert gaussian_partition_terms(np.zeros(4), 4) == (0.5, 0.5)
    with pytest.raises(ValueError, match="ALL voters"):
        gaussian_partition_terms([1.0, 2.0, 0.0], 2)
    with pytest.raises(ValueError):
        gaussian_partition_terms([1.0, np.nan], 2)
    with pytest.raises(ValueError):
        gaussian_partition_terms([1.0], 1.5)


# ----------------------------------------------------------------------------------------
# two-set scan
# ----------------------------------------------------------------------------------------
def scan_brute(a1, a2, mix):
    f1 = [Fraction(float(x)) for x in a1]
    f2 = [Fraction(float(x)) for x in a2]
    t1, t2, m = sum(f1), sum(f2), Fraction(mix)

    def g(total, s):
        if s == 0:
            return 0.0
        if s == total:
            return 1.0
        return float(special.betainc(float(total - s), float(s), 0.5))

    best = 2.0
    for e1 in itertools.product((0, 1), repeat=len(f1)):
        s1 = sum(x for x, e in zip(f1, e1, strict=True) if e)
        for e2 in itertools.product((0, 1), repeat=len(f2)):
            s2 = sum(x for x, e in zip(f2, e2, strict=True) if e)
            if 2 * (m * s1 / t1 + (1 - m) * s2 / t2) >= 1:
                best = min(best, mix * g(t1, s1) + (1 - mix) * g(t2, s2))
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.05, 20.0), min_size=1, max_size=5),
    st.lists(st.floats(0.05, 20.0), min_size=1, max_size=5),
    st.sampled_from([0.0, 1e-3, 0.25, 1 / 3, 0.5, 0.75, 1 - 1e-3, 1.0]),
    st.sampled_from([1.0, 1e-3, 1e3]),
    st.booleans(),
)
def test_twoset_scan_against_brute_force(a1, a2, mix, scale, use_dp):
    a2 = [scale * v for v in a2]
    brute = scan_brute(a1, a2, mix)
    enum = _split_scan._ENUM_MAX
    try:
        if use_dp:
            _split_scan._ENUM_MAX = 0  # force the floor-scaled bitset path on small halves
        for bits in (12, 16, 24):
            c = dirichlet_split_c_tilde(a1, a2, mix, bits=bits)
            assert 0.0 <= c <= brute + 1e-14  # never above (tightness: see the vectors)
    finally:
        _split_scan._ENUM_MAX = enum


def test_twoset_scan_large_halves_and_reuse():
    rng = np.random.default_rng(3)
    a1, a2 = rng.random(40) * 5, rng.random(30) * 2
    c16 = DirichletSplitScan(a1, a2, bits=16)
    c24 = DirichletSplitScan(a1, a2, bits=24)
    for mix in (0.1, 0.5, 0.9):
        lo, hi = c16.c_tilde(mix), c24.c_tilde(mix)
        assert 0.0 <= lo <= hi + 1e-12 <= 1.0
    with pytest.raises(ValueError):
        c16.c_tilde(1.5)
    with pytest.raises(ValueError):
        DirichletSplitScan([0.0], [1.0])


# ----------------------------------------------------------------------------------------
# input validation and edge cases
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [[1.0, np.nan], [1.0, np.inf], [1.0, -0.5], [[1.0, 2.0]], 3.0])
def test_invalid_weights(bad):
    with pytest.raises(ValueError):
        certified_cstar(bad)


@pytest.mark.parametrize(
    "kw",
    [
        {"bits": 3},
        {"bits": 31},
        {"bits": 2.5},
        {"relax": 0.5},
        {"rtol": -1.0},
        {"max_exact_log2": -2},
    ],
)
def test_invalid_arguments(kw):
    with pytest.raises(ValueError):
        certified_cstar([1.0, 2.0], **kw)


def test_empty_and_zero_inputs():
    for a in ([], [0.0, 0.0], np.zeros(5, dtype=np.float32)):
        res = certified_cstar(a)
        assert res.exact and res.lower == res.upper == 0.0 and res.subset.size == 0
        assert res.method == "empty"
    assert cstar_lower([]) == 0.0
    with pytest.raises(ValueError, match="positive sum"):
        categorical_partition_terms([0.0, 0.0])
    with pytest.raises(ValueError, match="positive sum"):
        dirichlet_partition_terms([])
    assert gaussian_partition_terms([], 3) == (0.5, 0.5)


def test_float32_input_is_exact():
    a = np.array([0.1, 0.2, 0.3, 0.15, 0.25], dtype=np.float32)
    res = certified_cstar(a)
    assert res.exact and res.lower_exact == exact_cstar(a.astype(np.float64))
    # float32 values are not decimals: the minimum difference is 2**-27, not 0
    pb = certified_pbar(a)
    assert pb.exact and pb.lower_exact == Fraction(1, 2**27)


def test_trivial_cases():
    res = certified_cstar([0.0, 5.0, 0.0])
    assert res.exact and res.lower == 5.0 and res.subset.tolist() == [1]
    res = certified_cstar([1.0, 3.0])
    assert res.exact and res.lower == 3.0 and res.method == "dominant"
    res = certified_cstar([1.0, 1.0])
    assert res.exact and res.lower == 1.0
    # overflowing totals stay finite and on the safe side
    res = certified_cstar([1e308, 1e308, 1e308])
    assert res.exact and res.lower <= 2e308 and res.upper == math.inf
    # denormals are not zeros
    res = certified_cstar([5e-324, 5e-324, 1e-323])
    assert res.exact and res.lower == 1e-323


def test_exact_up_to_40_weights():
    rng = np.random.default_rng(4)
    for n in (25, 33):
        a = rng.random(n)
        res = certified_cstar(a / a.sum())
        assert res.exact and res.method in ("mitm", "kk", "dominant")


@pytest.mark.slow
def test_exact_at_40_weights_all_families():
    rng = np.random.default_rng(5)
    for a in (
        rng.random(40),
        np.round(rng.random(40), 3),
        rng.random(40) * 10.0 ** rng.integers(-30, 30, 40),
    ):
        res = certified_cstar(a)
        check_certificate(a, res)
        assert res.exact


@pytest.mark.slow
def test_random_cases_never_above_exact():
    """10000 random adversarial cases x 4 solver settings against the exact brute force."""
    rng = np.random.default_rng(2024)
    violations = 0
    for _ in range(10000):
        n = int(rng.integers(1, 13))
        kind = int(rng.integers(0, 8))
        if kind == 0:
            a = rng.random(n)
        elif kind == 1:
            a = np.full(n, rng.random())
        elif kind == 2:
            a = rng.random(n)
            a[0] = a[1:].sum() * rng.choice([1.0, 1.0 + 1e-12, 0.999])
        elif kind == 3:
            a = rng.random(n) * 10.0 ** rng.integers(-40, 40, n)
        elif kind == 4:
            a = rng.random(n)
            a[rng.random(n) < 0.6] = 0.0
        elif kind == 5:
            a = rng.choice(rng.random(3), n)
        elif kind == 6:
            a = rng.random(n).astype(np.float32).astype(np.float64)
        else:
            a = rng.integers(0, 6, n).astype(np.float64)
        exact = exact_cstar(a)
        for kw in SETTINGS:
            res = certified_cstar(a, **kw)
            ok = res.lower_exact <= exact <= res.upper_exact and (
                not res.exact or res.lower_exact == exact
            )
            violations += not ok
    assert violations == 0


@pytest.mark.parametrize("bits", [16, 24])
def test_ray_terms_are_the_terms_of_the_multiples(bits):
    # one certificate for a ray: at t = 1 the terms themselves; at power-of-two scales
    # (exact float multiples) those of the scaled vector; elsewhere within float rounding
    from skpacbayes.partition import dirichlet_partition_terms, gaussian_partition_terms
    from skpacbayes.partition._terms import dirichlet_ray_terms, gaussian_ray_terms

    rng = np.random.default_rng(7)
    alpha = rng.uniform(0.05, 3.0, 40)
    mean = rng.normal(0.0, 1.0, 40)
    scales = [1.0, 0.25, 2.0, 8.0, 3.0, 0.1]
    ray_d = dirichlet_ray_terms(alpha, scales, bits)
    ray_g = gaussian_ray_terms(mean, 60, scales, bits)
    for t, d, g in zip(scales, ray_d, ray_g, strict=True):
        want_d = dirichlet_partition_terms(t * alpha, bits=bits)
        want_g = gaussian_partition_terms(t * mean, 60, bits=bits)
        if t in (1.0, 0.25, 2.0, 8.0):
            assert d == want_d and g == want_g
        else:
            np.testing.assert_allclose(d, want_d, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(g, want_g, rtol=1e-9, atol=1e-12)
    assert len({c for _, c in ray_d}) == len(scales)  # the scale matters
