"""Tests of skpacbayes.posteriors: loss and KL formulas, reference vectors, Monte Carlo, gradients.

The formulas are those of the theory page (:ref:`theory-losses`); the reference vectors are
independent values computed with mpmath at 50 digits.
"""

import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.special
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skpacbayes.posteriors import (
    Categorical,
    Dirichlet,
    Gaussian,
    Posterior,
    _vote_sums,
    dirichlet_kl,
)
from skpacbayes.posteriors._gauss_multi import (
    BIG,
    certified_rule,
    fixed_rule,
    p_strict_winner,
)

F64 = torch.float64
FAMILIES = (Categorical, Dirichlet, Gaussian)


def close(got, expected, rel=1e-9, abs_=1e-12):
    return got == pytest.approx(expected, rel=rel, abs=abs_)


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def random_nat(family, n, rng):
    if family is Categorical:
        return t64(rng.random(n) + 0.05)
    if family is Dirichlet:
        return t64(10 ** rng.uniform(-1, 1, n))
    return t64(rng.normal(0, 1.5, n))


# ---------------------------------------------------------------------------------------------
# Reference vectors (embedded copies of tests/data/test_vectors*.json: mpmath, 50 digits)
# ---------------------------------------------------------------------------------------------
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
GAUSS_BINARY_R = [
    ([0.5, -1.2, 2.0, 0.3], [1, -1, 1, -1], 1, 0.044565462758543039),
    ([0.5, -1.2, 2.0, 0.3], [1, -1, 1, -1], -1, 0.95543453724145696),
    ([1.0, 0, 0, 0, 0], [1, 1, -1, 1, -1], 1, 0.32736042300928851),
    ([0.7, 0.7], [1, -1], 1, 0.5),
    ([3.0, -0.1, 0.2], [-1, -1, -1], 1, 0.9632558263540887),
]
GAUSS_MULTI_R = [  # k = 3
    ([0.8, 0.5, 1.1, 0.3, -0.2], [0, 0, 1, 2, 1], 0, 0.50155090215861253),
    ([0.8, 0.5, 1.1, 0.3, -0.2], [0, 0, 1, 2, 1], 1, 0.64547014064222612),
    ([0.8, 0.5, 1.1, 0.3, -0.2], [0, 0, 1, 2, 1], 2, 0.85297895719916135),
    ([0.3, -0.4, 0.2], [1, 2, 1], 0, 0.76284429114331782),
    ([1.0, 2.0], [1, 1], 0, 1.0),
    ([0.5, 0.5, 0.5], [0, 0, 0], 0, 0.19323811538561633),
    ([2.0, -1.0, 0.5, 0.25, 1.5, 0.0], [2, 1, 0, 0, 2, 1], 2, 0.091110249326994966),
]


@pytest.mark.parametrize(("a_t", "a_f", "expected"), DIRICHLET_R)
def test_dirichlet_r_vectors(a_t, a_f, expected):
    # voters: one correct with alpha = a_T, one wrong with alpha = a_F (a zero mass: no voter)
    alpha = [x for x in (a_t, a_f) if x > 0]
    votes = [[1] * (a_t > 0) + [0] * (a_f > 0)]
    post = Dirichlet(len(alpha))
    r = post.stochastic_loss(t64(alpha), torch.tensor(votes, dtype=torch.int8), torch.tensor([1]))
    assert close(float(r[0]), expected)


@pytest.mark.parametrize(("p", "f", "label", "expected"), GAUSS_BINARY_R)
def test_gauss_binary_r_vectors(p, f, label, expected):
    votes = torch.tensor([[(s + 1) // 2 for s in f]], dtype=torch.int8)
    y = torch.tensor([(label + 1) // 2])
    assert close(float(Gaussian(len(p)).stochastic_loss(t64(p), votes, y)[0]), expected)


@pytest.mark.parametrize(("p", "votes", "c", "expected"), GAUSS_MULTI_R)
def test_gauss_multi_r_vectors(p, votes, c, expected):
    post = Gaussian(len(p), n_classes=3)
    v = torch.tensor([votes], dtype=torch.int8)
    r = post.stochastic_loss(t64(p), v, torch.tensor([c]))
    assert close(float(r[0]), expected)
    assert post.loss_tolerance <= 1e-9
    # float32 training rule (fixed quadrature): within its measured error
    r32 = post.stochastic_loss(t64(p).float(), v, torch.tensor([c]))
    assert abs(float(r32[0]) - expected) <= 2e-6


# ---------------------------------------------------------------------------------------------
# Statistics on a fixed binary error table (13 error patterns of 5 voters, m = 1000)
# ---------------------------------------------------------------------------------------------
PATTERNS = [
    ("00000", 550), ("10000", 80), ("01000", 70), ("00100", 60), ("00010", 50), ("00001", 40),
    ("11000", 30), ("01100", 25), ("00111", 20), ("11100", 20), ("10101", 15), ("11110", 15),
    ("11111", 25),
]  # fmt: skip
SPEC92 = {
    "categorical": (
        Categorical,
        [0.35, 0.25, 0.2, 0.12, 0.08],
        {"emp_gibbs": 0.1682, "emp_tandem": 0.093063, "emp_disagreement": 0.150274,
         "det_emp_risk": 0.105, "KL": 0.11704908020409909},
    ),
    "dirichlet": (
        Dirichlet,
        [3.5, 2.5, 2.0, 1.2, 0.8],
        {"emp_gibbs": 0.12566718356696722, "emp_tandem": 0.0925520052273886,
         "emp_disagreement": 0.066230356679157236, "det_emp_risk": 0.105,
         "KL": 1.1832732748856333},
    ),
    "gauss_binary": (
        Gaussian,
        [2.0, 1.5, 1.0, 0.5, 0.3],
        {"emp_gibbs": 0.1524839013636861, "emp_tandem": 0.097250443284460912,
         "emp_disagreement": 0.11046691615845038, "det_emp_risk": 0.105, "KL": 3.795},
    ),
}  # fmt: skip


def error_table():
    errors = np.concatenate([np.tile([int(c) for c in s], (k, 1)) for s, k in PATTERNS])
    y = torch.ones(errors.shape[0], dtype=torch.int64)
    votes = torch.tensor(1 - errors, dtype=torch.int8)  # class 1 = correct; Gaussian M = 1 - 2E
    return votes, y


def error_table_statistics(family):
    cls, nat, _ = SPEC92[family]
    votes, y = error_table()
    post = cls(5)
    nat = t64(nat)
    r = post.stochastic_loss(nat, votes, y)
    return {
        "emp_gibbs": r.mean(),
        "emp_tandem": (r * r).mean(),
        "emp_disagreement": (2 * r * (1 - r)).mean(),
        "det_emp_risk": post.deterministic_loss(nat, votes, y).double().mean(),
        "KL": post.kl(nat),
    }


@pytest.mark.parametrize("family", sorted(SPEC92))
def test_error_table_statistics(family):
    got = error_table_statistics(family)
    for key, value in SPEC92[family][2].items():
        assert close(float(got[key]), value), key


# ---------------------------------------------------------------------------------------------
# Mixture Bayes classifier of split Gaussian posteriors via win_probabilities (theory page,
# 'Split voters'); reference values computed in high precision (mpmath)
# ---------------------------------------------------------------------------------------------
GAUSS_BINARY_BQ = [  # p1, f1, p2, f2, alpha, r(x, +1), r(x, -1), B_Q
    ([10.0], [-1], [1.0], [1], 0.1, 0.24278972853831135, 0.75721027146168865, 1),
    ([1.0] * 4, [-1, -1, -1, 1], [1.9], [1], 0.5, 0.43503065294227238, 0.56496934705772762, 1),
    ([0.5, -1.2, 2.0, 0.3], [1, -1, 1, -1], [1.0, 0.0, 0.0], [-1, 1, 1], 0.3,
     0.51607363724979235, 0.48392636275020765, -1),
    ([0.7, 0.7], [1, -1], [0.4], [1], 0.5, 0.42228912919483791, 0.57771087080516209, 1),
    ([0.7, 0.7], [1, -1], [0.4, 0.4], [1, -1], 0.5, 0.5, 0.5, 0),
]  # fmt: skip
GAUSS_MULTI_BQ = [  # p1, v1, p2, v2, alpha, c, P_wins, r(x, c), B_Q
    ([10.0], [0], [1.0], [1], 0.1, 1, [0.1, 0.75721027146168865, 0.0], 0.24278972853831135, 1),
    ([10.0, 0.1, 0.1], [0, 1, 2], [1.0, 0.1, 0.1], [1, 0, 2], 0.1, 1,
     [0.27801934313219896, 0.54396131373521914, 0.17801934313258191], 0.45603868626478086, 1),
    ([0.8, 0.5, 1.1, 0.3, -0.2], [0, 0, 1, 2, 1], [2.0, -1.0, 0.5], [2, 1, 0], 0.55, 0,
     [0.33791244013075886, 0.19941686672328488, 0.46267069314595626], 0.66208755986924114, 2),
    ([1.0, 1.0], [0, 1], [1.0, 1.0], [1, 0], 0.5, 2,
     [0.48741425519997244, 0.48741425519997244, 0.025171489600055118], 0.97482851039994488, -1),
]  # fmt: skip


def strict_argmax(p, tie):
    best = torch.argmax(p)
    others = torch.cat([p[:best], p[best + 1 :]])
    return int(best) if bool((p[best] > others).all()) else tie


@pytest.mark.parametrize("row", GAUSS_BINARY_BQ)
def test_gauss_binary_mixture_bayes_classifier(row):
    p1, f1, p2, f2, alpha, r_plus, r_minus, bq = row
    wins = 0
    for p, f, a in ((p1, f1, alpha), (p2, f2, 1 - alpha)):
        votes = torch.tensor([[(s + 1) // 2 for s in f]], dtype=torch.int8)
        wins = wins + a * Gaussian(len(p)).win_probabilities(t64(p), votes)[0]
    assert close(1 - float(wins[1]), r_plus) and close(1 - float(wins[0]), r_minus)
    pred = strict_argmax(wins, tie=-1)
    assert (2 * pred - 1 if pred >= 0 else 0) == bq


@pytest.mark.parametrize("row", GAUSS_MULTI_BQ)
def test_gauss_multi_mixture_bayes_classifier(row):
    p1, v1, p2, v2, alpha, c, p_wins, r_true, bq = row
    wins = 0
    for p, v, a in ((p1, v1, alpha), (p2, v2, 1 - alpha)):
        post = Gaussian(len(p), n_classes=3)
        wins = wins + a * post.win_probabilities(t64(p), torch.tensor([v]))[0]
    for got, expected in zip(wins.tolist(), p_wins, strict=True):
        assert close(got, expected)
    assert close(1 - float(wins[c]), r_true)
    assert strict_argmax(wins, tie=-1) == bq


# ---------------------------------------------------------------------------------------------
# Monte Carlo agreement of every r and win probability with sampling (4 standard errors)
# ---------------------------------------------------------------------------------------------
def sampled_losses(post, nat, votes, y, n_samples, generator):
    """(loss per example, wins per example and class) of n_samples draws w ~ Q."""
    w = post.sample(nat, n_samples, generator).double()
    k = post.n_classes
    onehot = torch.nn.functional.one_hot(votes.long(), k).double()
    scores = torch.einsum("sn,bnk->sbk", w, onehot)
    top2 = scores.topk(min(2, k), dim=2).values
    strict = top2[..., 0] > top2[..., 1]
    winner = torch.where(strict, scores.argmax(dim=2), -1)
    wins = torch.stack([(winner == j).double().mean(0) for j in range(k)], dim=1)
    if post.name == "dirichlet":  # theory page: the vote errs iff w_F >= 1/2 (any k)
        err = (votes != y[:, None]).double()
        loss = ((w @ err.T) >= 0.5 * w.sum(1, keepdim=True)).double().mean(0)
    else:
        loss = (winner != y[None, :]).double().mean(0)
    return loss, wins


def within(estimate, exact, n_samples, z=4.0):
    se = torch.sqrt(torch.clamp(exact * (1 - exact), min=1.0 / n_samples) / n_samples)
    return bool(((estimate - exact).abs() <= z * se + 1e-12).all())


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_monte_carlo(family, k):
    rng = np.random.default_rng(10 * k + FAMILIES.index(family))
    gen = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    n_samples = 20_000
    for _ in range(2):
        n = int(rng.integers(1, 7))
        votes = torch.tensor(rng.integers(0, k, (6, n)), dtype=torch.int8)
        y = torch.tensor(rng.integers(0, k, 6))
        post = family(n, n_classes=k)
        nat = random_nat(family, n, rng)
        loss, wins = sampled_losses(post, nat, votes, y, n_samples, gen)
        assert within(loss, post.stochastic_loss(nat, votes, y), n_samples)
        if family is Dirichlet and k > 2:
            with pytest.raises(NotImplementedError):
                post.win_probabilities(nat, votes)
        else:
            exact = post.win_probabilities(nat, votes)
            assert within(wins.reshape(-1), exact.reshape(-1), n_samples)
            # r(x, y) = 1 - P(y wins) (ties are errors)
            r = post.stochastic_loss(nat, votes, y)
            assert torch.allclose(1 - exact[torch.arange(6), y], r, atol=1e-12, rtol=0)


def test_monte_carlo_multiclass_gaussian_degenerate():
    # classes without votes (ties at 0), true class without votes, one-class votes
    votes = torch.tensor([[0, 0, 1], [1, 1, 1], [2, 2, 2], [0, 1, 1], [3, 3, 3], [0, 1, 2]])
    y = torch.tensor([0, 1, 0, 2, 3, 3])
    post = Gaussian(3, n_classes=4)
    nat = t64([0.4, -0.3, 0.8])
    gen = torch.Generator().manual_seed(5)
    loss, wins = sampled_losses(post, nat, votes, y, 40_000, gen)
    assert within(loss, post.stochastic_loss(nat, votes, y), 40_000)
    assert within(wins.reshape(-1), post.win_probabilities(nat, votes).reshape(-1), 40_000)


# ---------------------------------------------------------------------------------------------
# Multi-class Gaussian: k = 2 reduction, certified and fixed quadratures
# ---------------------------------------------------------------------------------------------
def test_multiclass_formula_reduces_to_binary():
    rng = np.random.default_rng(4)
    n, b = 9, 200
    votes = torch.tensor(rng.integers(0, 2, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, 2, b))
    p = t64(rng.normal(0, 1, n))
    binary = Gaussian(n).stochastic_loss(p, votes, y)
    sums = torch.stack([((votes == j).double() @ p) for j in range(2)], dim=1)
    counts = torch.stack([(votes == j).double().sum(1) for j in range(2)], dim=1)
    for certified, tol in ((True, 1e-10), (False, 1e-8)):
        multi = 1 - p_strict_winner(torch.zeros(0, b, 2, dtype=F64), sums, counts, y, certified)
        assert (multi - binary).abs().max() <= tol
    wins = Gaussian(n).win_probabilities(p, votes)
    multi_wins = torch.stack(
        [p_strict_winner(torch.zeros(0, b, 2, dtype=F64), sums, counts, torch.full((b,), j), True)
         for j in range(2)], dim=1,
    )  # fmt: skip
    assert (wins - multi_wins).abs().max() <= 1e-10


def mp_p_correct(z, lam, z_lo=-math.inf):
    mpmath.mp.dps = 30
    pts = {float(v) for v in z}
    pts |= {float(v) + d / float(s) for v, s in zip(z, lam, strict=True) for d in (-3, -1, 1, 3)}
    pts = sorted(pts)
    lo = max(-12.0, z_lo)
    pts = [lo] + [p for p in pts if lo < p < 12.0] + [12.0]

    def f(x):
        out = mpmath.npdf(x)
        for v, s in zip(z, lam, strict=True):
            out *= mpmath.ncdf(s * (x - v))
        return out

    return float(mpmath.quad(f, pts))


ADVERSARIAL = [  # (z_j, lam_j, z_lo): steep classes, spread transitions, a true lower limit
    ([-0.5, 0.3], [14.0, 9.0], -math.inf),
    ([0.0, 0.02, -0.02], [12.0, 0.3, 5.0], -math.inf),
    ([1.5, -2.0, 0.7, 0.71], [3.0, 11.0, 0.2, 8.0], -math.inf),
    ([-1.0], [13.0], -0.4),
    ([2.5, 2.6], [1.0, 14.0], 0.1),
    ([-30.0, 0.0], [1.0, 0.05], -math.inf),
]


@pytest.mark.parametrize(("z", "lam", "z_lo"), ADVERSARIAL)
def test_certified_rule_against_mpmath(z, lam, z_lo):
    ref = mp_p_correct(z, lam, z_lo)
    zt, lt, lo = t64([z]), t64([lam]), t64([z_lo])
    value, _, _ = certified_rule(zt, lt, lo, False)
    assert abs(float(value[0]) - ref) <= Gaussian(2, 3).loss_tolerance
    fixed32, _, _ = fixed_rule(zt.float(), lt.float(), lo.float(), False)
    assert abs(float(fixed32[0]) - ref) <= 2e-6


def test_fixed_rule_matches_certified_on_random_problems():
    rng = np.random.default_rng(6)
    b, k = 400, 9
    n_c = rng.integers(40, 190, b)
    n_j = rng.integers(1, 30, (b, k))
    z = t64(rng.uniform(-3, 3, (b, k)))
    lam = t64(np.sqrt(n_c[:, None] / n_j))
    z_lo = t64(np.where(rng.random(b) < 0.2, rng.uniform(-2, 1, b), -np.inf))
    cert, _, _ = certified_rule(z, lam, z_lo, False)
    fixed, _, _ = fixed_rule(z.float(), lam.float(), z_lo.float(), False)
    assert (fixed.double() - cert).abs().max() <= 2e-6


def random_multi_problems(rng, b, k, lam_cap):
    n_c = rng.integers(5, 190, b)
    low = np.ceil(n_c / lam_cap**2).astype(int)
    n_j = rng.integers(low[:, None], low[:, None] * 4 + 30, (b, k))
    z = rng.uniform(-3, 3, (b, k)) * rng.uniform(0.05, 1, (b, 1))
    z_lo = np.where(rng.random(b) < 0.2, rng.uniform(-2, 1, b), -np.inf)
    return t64(z), t64(np.sqrt(n_c[:, None] / n_j)), t64(z_lo)


@pytest.mark.parametrize("lam_cap", [1.25, 1.5, 3.0, 6.0])
def test_fixed_rule_tiers_against_certified(lam_cap):
    # the node count follows the steepest active class (28 / 36 / 48 nodes): measured
    # (float32) 4e-8 on the values and 2.5e-7 of the largest derivative
    rng = np.random.default_rng(int(10 * lam_cap))
    z, lam, z_lo = random_multi_problems(rng, 1500, 9, lam_cap)
    cert, cert_dz, cert_dlo = certified_rule(z, lam, z_lo, True)
    value, dz, dlo = fixed_rule(z.float(), lam.float(), z_lo.float(), True)
    assert (value.double() - cert).abs().max() <= 3e-7
    assert (dz.double() - cert_dz).abs().max() <= 2e-6 * cert_dz.abs().max()
    assert (dlo.double() - cert_dlo).abs().max() <= 2e-6


def test_fixed_rule_groups_rows_by_active_classes():
    # Rows with 0 to 9 active classes (far-below transitions and classes without votes are
    # left out of the rule): values and derivatives still match the certified rule, and a
    # row's result does not depend on the other rows of its batch.
    rng = np.random.default_rng(11)
    z, lam, z_lo = random_multi_problems(rng, 600, 9, 2.0)
    far = torch.from_numpy(rng.random((600, 9)) < rng.random((600, 1)))
    z = torch.where(far, z - 40.0, z)  # factor within Phi_sf(6) of 1 on the whole window
    no_votes = torch.from_numpy(rng.random((600, 9)) < 0.2)
    z = torch.where(no_votes, -BIG, z)
    lam = torch.where(no_votes, 1.0, lam)
    cert, cert_dz, cert_dlo = certified_rule(z, lam, z_lo, True)
    value, dz, dlo = fixed_rule(z.float(), lam.float(), z_lo.float(), True)
    assert (value.double() - cert).abs().max() <= 3e-7
    assert (dz.double() - cert_dz).abs().max() <= 2e-6 * cert_dz.abs().max()
    assert (dlo.double() - cert_dlo).abs().max() <= 2e-6
    assert float(dz[far | no_votes].abs().max()) <= 1e-12
    alone = fixed_rule(z[:7].float(), lam[:7].float(), z_lo[:7].float(), True)
    for x, y in zip(alone, (value[:7], dz[:7], dlo[:7]), strict=True):
        assert torch.allclose(x, y, rtol=1e-6, atol=1e-9)


def test_fixed_rule_builds_no_graph():
    # explicit derivatives: inputs that require grad do not make the rule differentiate itself
    z, lam, z_lo = random_multi_problems(np.random.default_rng(3), 50, 4, 2.0)
    z_lo = z_lo.float().requires_grad_(True)
    value, dz, dlo = fixed_rule(z.float().requires_grad_(True), lam.float(), z_lo, True)
    assert not (value.requires_grad or dz.requires_grad or dlo.requires_grad)
    plain = fixed_rule(z.float(), lam.float(), z_lo.detach(), True)
    assert all(torch.equal(x, y) for x, y in zip((value, dz, dlo), plain, strict=True))


@pytest.mark.parametrize(("n", "k"), [(200, 2), (13, 2), (1, 2), (40, 3), (7, 5), (24, 10)])
def test_dirichlet_packed_masses_match_mask_products(n, k):
    # float32 on CPU with byte votes: byte-pattern tables; other votes: mask products
    rng = np.random.default_rng(n + k)
    b = 3000
    votes = torch.tensor(rng.integers(0, k, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, k, b))
    post = Dirichlet(n, n_classes=k)
    alpha = torch.tensor(rng.uniform(0.1, 3, n), dtype=torch.float32)
    weights = torch.rand(b, generator=torch.Generator().manual_seed(k), dtype=torch.float32)
    out = []
    shifted = torch.cat([torch.zeros(1, dtype=torch.int8), votes.reshape(-1)])[1:].view(b, n)
    for v in (votes, votes.to(torch.uint8), votes.long(), votes.T.contiguous().T, shifted):
        nat = alpha.clone().requires_grad_(True)
        r = post.stochastic_loss(nat, v, y)
        (r * weights).sum().backward()
        out.append((r.detach().double(), nat.grad.double()))
    nat64 = alpha.double().requires_grad_(True)
    r64 = post.stochastic_loss(nat64, votes, y)
    (r64 * weights.double()).sum().backward()
    for r, g in out:
        assert (r - r64.detach()).abs().max() <= 2e-6
        assert (g - nat64.grad).abs().max() <= 1e-4 * nat64.grad.abs().max() + 1e-4
    assert all(torch.equal(out[0][0], out[i][0]) for i in (1, 3, 4))


# ---------------------------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------------------------
def gradcheck_problem(k):
    votes = torch.tensor(
        [[0, 0, 1, 1, 2], [0, 1, 1, 1, 1], [2, 2, 2, 0, 0], [0, 2, 1, 1, 1], [1, 1, 1, 1, 1],
         [0, 1, 1, 2, 2]], dtype=torch.int8,
    )  # fmt: skip
    y = torch.tensor([0, 1, 1, 2, 1, 0])
    if k == 2:
        votes, y = votes % 2, y % 2
    return votes, y


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_gradcheck_float64(family, k):
    votes, y = gradcheck_problem(k)
    post = family(5, n_classes=k)
    nat = random_nat(family, 5, np.random.default_rng(k)).requires_grad_(True)
    tol = dict(eps=1e-6, atol=1e-6, rtol=1e-4) if family is Gaussian and k > 2 else {}
    assert torch.autograd.gradcheck(lambda x: post.stochastic_loss(x, votes, y), (nat,), **tol)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("k", [2, 10])
def test_float32_matches_float64(family, k):
    rng = np.random.default_rng(7 + k)
    n, b = 40, 300
    votes = torch.tensor(rng.integers(0, k, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, k, b))
    post = family(n, n_classes=k)
    nat64 = random_nat(family, n, rng) * (0.3 if family is Gaussian else 1.0)
    nat32 = nat64.float().requires_grad_(True)
    nat64 = nat32.detach().double().requires_grad_(True)
    r32 = post.stochastic_loss(nat32, votes, y)
    r64 = post.stochastic_loss(nat64, votes, y)
    assert r32.dtype == torch.float32 and r64.dtype == F64
    assert (r32.double() - r64).abs().max() <= 2e-6
    r32.sum().backward()
    r64.sum().backward()
    scale = nat64.grad.abs().max()
    assert (nat32.grad.double() - nat64.grad).abs().max() <= 1e-4 * scale


def test_gradient_through_natural_parametrization():
    votes, y = gradcheck_problem(2)
    for family in FAMILIES:
        post = family(5)
        raw = post.init_raw(generator=torch.Generator().manual_seed(0), dtype=F64)
        loss = post.stochastic_loss(post.natural(raw), votes, y).mean() + post.kl(post.natural(raw))
        loss.backward()
        assert raw.grad is not None and torch.isfinite(raw.grad).all()


# ---------------------------------------------------------------------------------------------
# Deterministic loss: exact, ties are errors, (F1), median property
# ---------------------------------------------------------------------------------------------
def exact_ldet(weights, votes, y, k):
    w = [Fraction(float(x)) for x in weights]
    out = []
    for v, c in zip(votes.tolist(), y.tolist(), strict=True):
        sums = [sum((w[i] for i in range(len(w)) if v[i] == j), Fraction(0)) for j in range(k)]
        margin = sums[c] - sum(sums[j] for j in range(k) if j != c)  # correct minus erring
        out.append(margin <= 0)
    return out


def exact_not_strict_winner(weights, votes, y, k):
    w = [Fraction(float(x)) for x in weights]
    out = []
    for v, c in zip(votes.tolist(), y.tolist(), strict=True):
        sums = [sum((w[i] for i in range(len(w)) if v[i] == j), Fraction(0)) for j in range(k)]
        out.append(not all(sums[c] > sums[j] for j in range(k) if j != c))
    return out


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_deterministic_loss_is_exact_with_ties(family, k, dtype):
    rng = np.random.default_rng(11)
    n, b = 6, 400
    votes = torch.tensor(rng.integers(0, k, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, k, b))
    post = family(n, n_classes=k)
    # weights in simple ratios (many exact ties), in a float dtype where 1/3 is inexact
    base = rng.integers(1, 4, n).astype(np.float64) / 3.0
    if family is Gaussian:
        base = base * rng.choice([-1.0, 1.0], n)
    nat = torch.tensor(base, dtype=dtype)
    got = post.deterministic_loss(nat, votes, y).tolist()
    w = post.vote_weights(nat)
    if family is Gaussian and k > 2:
        assert got == exact_not_strict_winner(w, votes, y, k)
    else:
        assert got == exact_ldet(w, votes, y, k)


def test_deterministic_loss_large_batch_and_chunks(monkeypatch):
    rng = np.random.default_rng(12)
    n, b = 8, 61
    votes = torch.tensor(rng.integers(0, 3, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, 3, b))
    for family in FAMILIES:
        post = family(n, n_classes=3)
        nat = random_nat(family, n, rng)
        r_full = post.stochastic_loss(nat, votes, y)
        d_full = post.deterministic_loss(nat, votes, y)
        w_full = post.win_probabilities(nat, votes) if family is not Dirichlet else None
        with monkeypatch.context() as m:
            m.setattr(_vote_sums, "_ROW_CHUNK", 7)
            nat_g = nat.clone().requires_grad_(True)
            r_chunk = post.stochastic_loss(nat_g, votes, y)
            r_chunk.sum().backward()
            assert torch.allclose(r_chunk, r_full, rtol=0, atol=1e-14)
            assert torch.equal(post.deterministic_loss(nat, votes, y), d_full)
            if w_full is not None:
                assert torch.allclose(post.win_probabilities(nat, votes), w_full, atol=1e-14)
        nat_h = nat.clone().requires_grad_(True)
        post.stochastic_loss(nat_h, votes, y).sum().backward()
        assert torch.allclose(nat_g.grad, nat_h.grad, rtol=1e-12, atol=1e-14)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    family=st.sampled_from(FAMILIES),
    k=st.sampled_from([2, 3, 4]),
    n=st.integers(1, 7),
    seed=st.integers(0, 2**31 - 1),
    ties=st.booleans(),
)
def test_f1_deterministic_error_implies_r_at_least_half(family, k, n, seed, ties):
    rng = np.random.default_rng(seed)
    votes = torch.tensor(rng.integers(0, k, (8, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, k, 8))
    post = family(n, n_classes=k)
    nat = random_nat(family, n, rng)
    if ties:
        nat = torch.sign(nat) * (1 + torch.tensor(rng.integers(0, 2, n), dtype=F64))
    r = post.stochastic_loss(nat, votes, y)
    ldet = post.deterministic_loss(nat, votes, y)
    assert bool((r[ldet] >= 0.5 - post.loss_tolerance).all())
    assert bool(((r >= 0) & (r <= 1)).all())


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 8), seed=st.integers(0, 2**31 - 1), scale=st.floats(-3, 5))
def test_dirichlet_median_property(n, seed, scale):
    rng = np.random.default_rng(seed)
    votes = torch.tensor(rng.integers(0, 2, (10, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, 2, 10))
    nat = t64(10 ** (scale + rng.uniform(-1, 1, n)))
    post = Dirichlet(n)
    r = post.stochastic_loss(nat, votes, y)
    ldet = post.deterministic_loss(nat, votes, y)
    tol = post.loss_tolerance
    assert bool((r[ldet] >= 0.5 - tol).all()) and bool((r[~ldet] <= 0.5 + tol).all())


# ---------------------------------------------------------------------------------------------
# KL, parametrization, weights, sampling
# ---------------------------------------------------------------------------------------------
def test_categorical_kl():
    post = Categorical(4)
    p = t64([0.5, 0.5, 0.0, 0.0])
    assert close(float(post.kl(p)), math.log(2))
    assert close(float(post.kl(t64([1.0, 1.0, 1.0, 1.0]))), 0.0)
    skewed = Categorical(3, prior=[0.5, 0.5, 0.0])
    assert math.isinf(float(skewed.kl(t64([0.2, 0.3, 0.5]))))
    assert close(float(skewed.kl(t64([0.5, 0.5, 0.0]))), 0.0)
    raw = torch.tensor([0.0, 0.0, -1e4, -1e4], requires_grad=True)
    post.kl(post.natural(raw)).backward()
    assert torch.isfinite(raw.grad).all()


def dirichlet_kl_mpmath(alpha, beta):
    mpmath.mp.dps = 50
    a = [mpmath.mpf(float(x)) for x in alpha]
    b = [mpmath.mpf(float(x)) for x in beta]
    a0, b0 = sum(a), sum(b)
    value = mpmath.loggamma(a0) - sum(map(mpmath.loggamma, a)) - mpmath.loggamma(b0)
    value += sum(map(mpmath.loggamma, b))
    value += sum(
        (x - z) * (mpmath.digamma(x) - mpmath.digamma(a0)) for x, z in zip(a, b, strict=True)
    )
    return float(value)


@pytest.mark.parametrize(
    "alpha",
    [[3.5, 2.5, 2.0, 1.2, 0.8], [1e-6, 2.0, 30.0], [0.5] * 7,
     list(1e7 * np.array([0.35, 0.25, 0.2, 0.12, 0.08])), list(np.linspace(1, 4000, 200))],
)  # fmt: skip
def test_dirichlet_kl_against_mpmath(alpha):
    alpha = t64(alpha)
    for beta in (torch.ones_like(alpha), torch.linspace(0.5, 3.0, alpha.numel(), dtype=F64)):
        ref = dirichlet_kl_mpmath(alpha, beta)
        assert float(dirichlet_kl(alpha, beta)) == pytest.approx(ref, rel=1e-13, abs=1e-12)
    post = Dirichlet(alpha.numel(), prior=2.0)
    assert float(post.kl(alpha)) == pytest.approx(
        dirichlet_kl_mpmath(alpha, torch.full_like(alpha, 2.0)), rel=1e-13, abs=1e-12
    )


def test_gaussian_kl_and_prior_mean():
    post = Gaussian(3, prior=[1.0, 0.0, -1.0])
    assert close(float(post.kl(t64([1.0, 2.0, 1.0]))), 4.0)
    raw = post.init_raw(generator=torch.Generator().manual_seed(0), dtype=F64)
    assert torch.allclose(raw.detach(), post.prior, atol=0.1)


@pytest.mark.parametrize("family", FAMILIES)
def test_init_raw_and_inverse(family):
    post = family(6, n_classes=3)
    a = post.init_raw(generator=torch.Generator().manual_seed(3))
    b = post.init_raw(generator=torch.Generator().manual_seed(3))
    assert a.requires_grad and a.is_leaf and a.dtype == torch.float32 and torch.equal(a, b)
    c = post.init_raw(generator=torch.Generator().manual_seed(4), dtype=F64)
    assert c.dtype == F64 and not torch.equal(a.double(), c)
    nat = post.natural(c)
    back = post.natural(post.raw_from_natural(nat))
    assert torch.allclose(back, nat, rtol=1e-12, atol=1e-15)
    w = post.vote_weights(nat.detach())
    assert w.shape == (6,)
    if family is not Gaussian:
        assert float(w.sum()) == pytest.approx(1.0)


def test_categorical_zero_probabilities_roundtrip():
    post = Categorical(3)
    raw = post.raw_from_natural(t64([0.25, 0.75, 0.0]))
    assert torch.isfinite(raw).all() and float(raw[2]) <= -1e3
    assert float(post.natural(raw)[2]) == 0.0


@pytest.mark.parametrize("family", FAMILIES)
def test_sample_moments(family):
    rng = np.random.default_rng(8)
    post = family(4)
    nat = random_nat(family, 4, rng)
    w = post.sample(nat, 40_000, torch.Generator().manual_seed(1))
    assert w.shape == (40_000, 4)
    mean = post.vote_weights(nat)
    se = w.std(0) / math.sqrt(40_000)
    assert bool(((w.mean(0) - mean).abs() <= 4 * se + 1e-12).all())
    if family is Dirichlet:  # variance of a Dirichlet coordinate
        a0 = nat.sum()
        var = nat * (a0 - nat) / (a0 * a0 * (a0 + 1))
        assert torch.allclose(w.var(0), var, rtol=0.05)
    if family is Gaussian:
        assert torch.allclose(w.var(0), torch.ones(4, dtype=F64), rtol=0.05)


def test_dirichlet_sampler_tiny_concentrations():
    post = Dirichlet(3)
    w = post.sample(t64([1e-3, 1e-3, 5.0]), 2000, torch.Generator().manual_seed(2))
    assert torch.isfinite(w).all() and torch.allclose(w.sum(1), torch.ones(2000, dtype=F64))


# ---------------------------------------------------------------------------------------------
# Errors and input handling
# ---------------------------------------------------------------------------------------------
def test_constructor_errors():
    with pytest.raises(ValueError):
        Categorical(0)
    with pytest.raises(ValueError):
        Dirichlet(3, n_classes=1)
    with pytest.raises(TypeError):
        Gaussian(2.5)
    with pytest.raises(ValueError):
        Categorical(3, prior=[0.5, 0.5])
    with pytest.raises(ValueError):
        Categorical(2, prior=[-1.0, 2.0])
    with pytest.raises(ValueError):
        Dirichlet(2, prior=[1.0, 0.0])
    with pytest.raises(ValueError):
        Gaussian(2, prior=[0.0, math.nan])
    assert isinstance(Dirichlet(2), Posterior)
    assert [cls(2).name for cls in FAMILIES] == ["categorical", "dirichlet", "gaussian"]


@pytest.mark.parametrize("bad", [[1.0, 0.0], [1.0, -2.0], [1.0, math.nan], [math.inf, 1.0]])
def test_dirichlet_nonpositive_alpha_raises(bad):
    post = Dirichlet(2)
    votes, y = torch.tensor([[0, 1]]), torch.tensor([1])
    for call in (
        lambda: post.stochastic_loss(t64(bad), votes, y),
        lambda: post.kl(t64(bad)),
        lambda: post.raw_from_natural(t64(bad)),
        lambda: post.deterministic_loss(t64(bad), votes, y),
    ):
        with pytest.raises(ValueError):
            call()


def test_dirichlet_float64_concentration_limit():
    post = Dirichlet(2)
    votes, y = torch.tensor([[0, 1]]), torch.tensor([1])
    # a_F = 5e15 (wrong voter) > a_T = 4e15: the erring mass exceeds 1/2 almost surely
    assert float(post.stochastic_loss(t64([5e15, 4e15]), votes, y)[0]) == 1.0
    with pytest.raises(ValueError, match="certified"):
        post.stochastic_loss(t64([1e16, 1e16]), votes, y)
    # float32 (training) has no such limit
    post.stochastic_loss(torch.tensor([1e16, 1e16]), votes, y)


def test_dirichlet_rounding_residuals_are_corrected():
    # two blocks of 30 voters with nearly equal masses ~ 3e14: r is sensitive to the last
    # bits of a_T, a_F (|a dI/da| ~ 1e7); the exact rational sums give the reference
    mpmath.mp.dps = 50
    rng = np.random.default_rng(0)
    alpha = np.concatenate([1e13 + rng.uniform(0, 1e6, 30), 1e13 + rng.uniform(0, 1e6, 30)])
    votes = torch.tensor([[1] * 30 + [0] * 30], dtype=torch.int8)
    r = Dirichlet(60).stochastic_loss(t64(alpha), votes, torch.tensor([1]))
    a_t = sum((Fraction(float(a)) for a in alpha[:30]), Fraction(0))
    a_f = sum((Fraction(float(a)) for a in alpha[30:]), Fraction(0))
    a_t = mpmath.mpf(a_t.numerator) / a_t.denominator
    a_f = mpmath.mpf(a_f.numerator) / a_f.denominator
    mode = (a_t - 1) / (a_t + a_f - 2)
    sd = mpmath.sqrt(a_t * a_f / ((a_t + a_f) ** 2 * (a_t + a_f + 1)))
    log_b = mpmath.loggamma(a_t) + mpmath.loggamma(a_f) - mpmath.loggamma(a_t + a_f)

    def density(t):
        return mpmath.exp((a_t - 1) * mpmath.log(t) + (a_f - 1) * mpmath.log(1 - t) - log_b)

    pts = [mode + j * sd for j in range(-40, 1, 2) if mode + j * sd < 0.5] + [mpmath.mpf(1) / 2]
    ref = float(mpmath.quad(density, pts))
    assert abs(float(r[0]) - ref) <= 1e-13


@pytest.mark.parametrize("family", FAMILIES)
def test_shape_and_value_errors(family):
    post = family(3, n_classes=3)
    nat = random_nat(family, 3, np.random.default_rng(0))
    votes, y = torch.tensor([[0, 1, 2]]), torch.tensor([2])
    with pytest.raises(ValueError):
        post.stochastic_loss(nat[:2], votes, y)  # wrong nat shape
    with pytest.raises(ValueError):
        post.stochastic_loss(nat, votes[:, :2], y)  # wrong number of voters
    with pytest.raises(ValueError):
        post.stochastic_loss(nat, votes[0], y)  # 1-D votes
    with pytest.raises(ValueError):
        post.stochastic_loss(nat, votes, torch.tensor([1, 2]))  # wrong number of labels
    with pytest.raises(ValueError):
        post.stochastic_loss(nat, torch.tensor([[0, 1, 3]]), y)  # vote out of range
    with pytest.raises(ValueError):
        post.deterministic_loss(nat, votes, torch.tensor([3]))  # label out of range
    with pytest.raises(TypeError):
        post.stochastic_loss(nat, votes.float(), y)  # votes must be class indices
    if family is Categorical:
        with pytest.raises(ValueError):
            post.stochastic_loss(t64([0.5, -0.1, 0.6]), votes, y)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64])
def test_vote_dtypes_and_numpy_inputs(dtype):
    rng = np.random.default_rng(9)
    votes = rng.integers(0, 3, (20, 5))
    y = rng.integers(0, 3, 20)
    for family in FAMILIES:
        post = family(5, n_classes=3)
        nat = random_nat(family, 5, rng)
        ref = post.stochastic_loss(nat, torch.tensor(votes), torch.tensor(y))
        got = post.stochastic_loss(nat, torch.tensor(votes, dtype=dtype), torch.tensor(y))
        assert torch.allclose(got, ref, rtol=0, atol=1e-15)
        assert torch.allclose(post.stochastic_loss(nat.numpy(), votes, y), ref, rtol=0, atol=1e-15)
    binary = Gaussian(5)
    bool_votes = torch.tensor(votes % 2 == 1)
    ref = binary.stochastic_loss(nat, bool_votes.long(), torch.tensor(y % 2))
    assert torch.equal(binary.stochastic_loss(nat, bool_votes, torch.tensor(y % 2)), ref)


def test_empty_batch():
    for family in FAMILIES:
        post = family(3, n_classes=3)
        nat = random_nat(family, 3, np.random.default_rng(1))
        votes = torch.zeros((0, 3), dtype=torch.int8)
        y = torch.zeros(0, dtype=torch.int64)
        assert post.stochastic_loss(nat, votes, y).shape == (0,)
        assert post.deterministic_loss(nat, votes, y).shape == (0,)


def test_loss_tolerances():
    assert Categorical(10).loss_tolerance == 1e-12
    assert Dirichlet(10).loss_tolerance == 1e-9
    assert Gaussian(10).loss_tolerance == 1e-12
    assert Gaussian(10, n_classes=3).loss_tolerance == 1e-10


def test_no_cancellation_in_float64_sums():
    # balanced votes (4 per class): shifting every weight by 2^30 (exactly) changes no
    # class-sum difference, but the class sums themselves are then rounded (54 bits)
    rng = np.random.default_rng(0)
    votes = torch.tensor(np.array([rng.permutation(np.repeat([0, 1, 2], 4)) for _ in range(5)]))
    y = torch.tensor([0, 1, 2, 0, 1])
    p = t64(rng.integers(-(2**21), 2**21, 12)) / 2**22
    shift = 2.0**30
    assert torch.equal((p + shift) - shift, p)
    multi = Gaussian(12, n_classes=3)
    shifted = multi.stochastic_loss(p + shift, votes, y)
    assert torch.allclose(shifted, multi.stochastic_loss(p, votes, y), rtol=0, atol=1e-12)
    wins = multi.win_probabilities(p + shift, votes)
    assert torch.allclose(wins, multi.win_probabilities(p, votes), rtol=0, atol=1e-12)
    binary = Gaussian(12)
    votes2 = torch.tensor(np.array([rng.permutation(np.repeat([0, 1], 6)) for _ in range(5)]))
    y2 = torch.tensor([0, 1, 1, 0, 1])
    r0 = binary.stochastic_loss(p, votes2, y2)
    assert torch.allclose(binary.stochastic_loss(p + shift, votes2, y2), r0, rtol=0, atol=1e-12)
    # Dirichlet: a tiny correct mass next to huge erring ones (no total - part cancellation)
    alpha = t64([1e11, 1e11, 1e-3])
    r = Dirichlet(3).stochastic_loss(alpha, torch.tensor([[0, 0, 1]]), torch.tensor([1]))
    ref = scipy.special.betainc(1e-3, 2e11, 0.5)
    assert float(r[0]) == pytest.approx(ref, abs=1e-13)


@pytest.mark.parametrize("family", FAMILIES)
def test_global_rng_is_never_used(family):
    post = family(4, n_classes=3)
    state = torch.get_rng_state()
    raw = post.init_raw(dtype=F64)
    assert torch.equal(post.natural(raw).detach(), post.natural(post.raw_from_natural(post.prior)))
    nat = random_nat(family, 4, np.random.default_rng(0))
    a = post.sample(nat, 10, None)
    assert torch.equal(a, post.sample(nat, 10, None))  # a fixed local seed
    post.init_raw(generator=torch.Generator().manual_seed(1))
    post.sample(nat, 10, torch.Generator().manual_seed(1))
    assert torch.equal(torch.get_rng_state(), state)


VECTORS = Path(__file__).resolve().parent / "data"


def test_json_reference_vectors():
    """Cross-check the embedded copies against the reference vectors in ``tests/data``."""
    path, path36 = VECTORS / "test_vectors.json", VECTORS / "test_vectors_3_6.json"
    rows = json.loads(path.read_text())["vectors"]
    stats_names = {"emp_gibbs", "emp_tandem", "emp_disagreement", "det_emp_risk", "KL"}
    checked = 0
    for row in rows:
        group, inp, expected = row["group"], row["inputs"], float(row["expected"])
        if group == "dirichlet_r":
            got = betainc_half_via_posterior(float(inp["a_T"]), float(inp["a_F"]))
        elif group == "gauss_binary_r":
            votes = torch.tensor([[(s + 1) // 2 for s in inp["f"]]])
            y = torch.tensor([(inp["y"] + 1) // 2])
            got = float(Gaussian(len(inp["p"])).stochastic_loss(t64(inp["p"]), votes, y)[0])
        elif group.startswith("gauss_multi_r"):
            post = Gaussian(len(inp["p"]), n_classes=3)
            votes, y = torch.tensor([inp["votes"]]), torch.tensor([inp["true_class"]])
            got = float(post.stochastic_loss(t64(inp["p"]), votes, y)[0])
        elif group.startswith("bounds/") and inp in stats_names:
            got = float(error_table_statistics(group.split("/")[1])[inp])
        else:
            continue
        assert close(got, expected), (group, inp)
        checked += 1
    assert checked == 10 + 5 + 7 + 15
    data36 = json.loads(path36.read_text())
    for row in data36["gauss_binary_BQ"]:
        test_gauss_binary_mixture_bayes_classifier(
            (row["p1"], row["f1"], row["p2"], row["f2"], row["alpha"], float(row["r_plus"]),
             float(row["r_minus"]), row["BQ_pred"])
        )  # fmt: skip
    for row in data36["gauss_multi_BQ"]:
        test_gauss_multi_mixture_bayes_classifier(
            (row["p1"], row["v1"], row["p2"], row["v2"], row["alpha"], row["c"],
             [float(x) for x in row["P_wins"]], float(row["r_true"]), row["BQ_pred"])
        )  # fmt: skip


def betainc_half_via_posterior(a_t, a_f):
    alpha = [x for x in (a_t, a_f) if x > 0]
    votes = torch.tensor([[1] * (a_t > 0) + [0] * (a_f > 0)])
    return float(Dirichlet(len(alpha)).stochastic_loss(t64(alpha), votes, torch.tensor([1]))[0])


# ---------------------------------------------------------------------------------------------
# Multi-class Gaussian mixture's Bayes classifier: the arg-max from few integrals
# ---------------------------------------------------------------------------------------------
def _random_votes(rng, b, n, k, spread):
    """Votes concentrated on a few classes per row (like trees), some rows all over."""
    favourite = rng.integers(0, k, b)
    other = rng.integers(0, k, (b, n))
    keep = rng.random((b, n)) < spread
    return torch.tensor(np.where(keep, favourite[:, None], other), dtype=torch.int8)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_gauss_multi_win_probability_bounds(k):
    rng = np.random.default_rng(40 + k)
    for n, scale in ((1, 1.0), (4, 3.0), (12, 0.3), (30, 1.0)):
        post = Gaussian(n, n_classes=k)
        votes = _random_votes(rng, 300, n, k, 0.6)
        p = t64(rng.normal(0.5, scale, n))
        exact = post.win_probabilities(p, votes)
        lower, upper = post.win_probability_bounds(p, votes)
        assert upper.shape == lower.shape == exact.shape
        assert bool((lower <= exact).all()) and bool((upper >= exact).all())
        assert bool((lower >= 0.0).all()) and bool((upper <= 1.0).all())
        if n == 30:  # clear votes: the lower bound of the leader is informative
            assert float(lower.amax(dim=1).mean()) > 0.5
        # one class per row: the same numbers as the full matrix
        target = torch.tensor(rng.integers(0, k, 300))
        one = post.win_probability(p, votes, target)
        assert torch.equal(one, exact[torch.arange(300), target])


def test_gauss_multi_upper_bound_is_exact_for_two_voted_classes():
    # one voter each for classes 0 and 1, class 2 without a vote (s_2 = 0):
    # P(0 wins) = P(s_0 > s_1, s_0 > 0) <= min(Phi((P_0 - P_1) / sqrt 2), Phi(P_0)), and
    # class 2 wins when both sums are negative: P <= min(Phi(-P_0), Phi(-P_1))
    ndtr = scipy.special.ndtr
    post = Gaussian(2, n_classes=3)
    p = t64([1.0, 0.5])
    votes = torch.tensor([[0, 1]])
    lower, upper = (bound[0] for bound in post.win_probability_bounds(p, votes))
    expected = [ndtr(0.5 / math.sqrt(2)), ndtr(-0.5 / math.sqrt(2)), ndtr(-1.0)]
    for got, want in zip(upper.tolist(), expected, strict=True):
        assert want <= got <= want + 2e-9
    # class 0 loses if s_1 >= s_0 or 0 >= s_0: the union bound of the two
    want = 1.0 - ndtr(-0.5 / math.sqrt(2)) - ndtr(-1.0)
    assert want - 3e-9 <= float(lower[0]) <= want
    # two classes without votes tie at 0: neither can win strictly
    lower, upper = Gaussian(1, n_classes=3).win_probability_bounds(t64([0.3]), torch.tensor([[0]]))
    assert float(upper[0, 1]) <= 2e-9 and float(upper[0, 2]) <= 2e-9
    assert float(lower[0, 1]) == float(lower[0, 2]) == 0.0


@pytest.mark.parametrize("certified", [True, False])
def test_p_strict_winner_value_without_gradients_is_the_same(certified):
    rng = np.random.default_rng(8)
    b, k = 400, 6
    dtype = F64 if certified else torch.float32
    sums = torch.tensor(rng.normal(0, 2, (b, k)), dtype=dtype, requires_grad=True)
    counts = torch.tensor(rng.integers(0, 5, (b, k)), dtype=dtype)
    target = torch.tensor(rng.integers(0, k, b))
    levels = torch.zeros(0, b, k, dtype=dtype)
    with_grad = p_strict_winner(levels, sums, counts, target, certified)
    assert with_grad.requires_grad
    with torch.no_grad():
        value = p_strict_winner(levels, sums, counts, target, certified)
    assert torch.equal(value, with_grad.detach())


@pytest.mark.parametrize("alpha", [0.5, 0.2])
def test_mixture_decision_scores_keep_the_strict_argmax(alpha, monkeypatch):
    from skpacbayes.engine.mixture import _mixture_decision_scores

    rng = np.random.default_rng(int(alpha * 10))
    k, b = 5, 500
    halves = []
    for n in (7, 9):
        post = Gaussian(n, n_classes=k)
        p = t64(rng.normal(1.0, 1.0, n))
        votes = _random_votes(rng, b, n, k, 0.5)
        halves.append((post, p, alpha if n == 7 else 1 - alpha, votes))
    # clear votes: 40 voters of weight 3, 90 % of them for one class per row
    clear = [(Gaussian(40, n_classes=k), t64([3.0] * 40), 1.0, _random_votes(rng, b, 40, k, 0.9))]
    # exact ties: two identical halves' rows (the same class sums for classes 0 and 1)
    tie_post = Gaussian(2, n_classes=k)
    tie = [(tie_post, t64([1.0, 1.0]), 1.0, torch.tensor([[0, 1]] * 3, dtype=torch.int8))]
    integrals = []
    original = Gaussian.win_probability

    def counted(self, nat, votes, target):
        integrals.append(len(target))
        return original(self, nat, votes, target)

    monkeypatch.setattr(Gaussian, "win_probability", counted)
    for case in (halves, clear, tie):
        full = sum(a * post.win_probabilities(p, v) for post, p, a, v in case)
        integrals.clear()
        fast = _mixture_decision_scores(case)
        top, lead = full.max(dim=1)
        rows = torch.arange(full.shape[0])
        bounded = fast != full
        # a bounded leader is a lower bound, every other bounded entry an upper bound below
        # the row's maximum
        is_lead = torch.zeros_like(bounded)
        is_lead[rows, lead] = True
        assert bool((fast[bounded & is_lead] < full[bounded & is_lead]).all())
        assert bool((fast[bounded & ~is_lead] > full[bounded & ~is_lead]).all())
        below = fast < fast.max(dim=1).values[:, None]
        assert bool(below[bounded & ~is_lead].all())
        # the same strict arg-max, ties included
        strict_full = (full == top[:, None]).sum(1) == 1
        strict_fast = (fast == fast.max(dim=1).values[:, None]).sum(1) == 1
        assert torch.equal(strict_full, strict_fast)
        assert torch.equal(full.argmax(1), fast.argmax(1))
        evaluated = sum(integrals) / len(case)
        if case is clear:  # no integral at all
            assert evaluated == 0
        elif case is halves:  # some rows decided by the bounds, others by integrals
            assert 0 < evaluated < b


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_error_mask_product_and_its_gradient(dtype):
    """``ErrorMask.matvec``: the product of the 0/1 errors with the weights (NumPy's BLAS for
    float32 on the CPU, torch's otherwise) and its gradient ``E.T @ g``; float64, the
    certificates' precision, is torch's product bit for bit."""
    from skpacbayes.posteriors._vote_sums import ErrorMask, _matvec

    gen = torch.Generator().manual_seed(0)
    e = (torch.rand(3000, 37, generator=gen) < 0.3).to(dtype)
    w = torch.rand(37, generator=gen, dtype=dtype).requires_grad_(True)
    g = torch.rand(3000, generator=gen, dtype=dtype)
    out = ErrorMask(e).matvec(w)
    (out * g).sum().backward()
    tol = 1e-5 if dtype == torch.float32 else 0.0
    torch.testing.assert_close(out.detach(), e @ w.detach(), rtol=tol, atol=tol)
    torch.testing.assert_close(w.grad, e.T @ g, rtol=tol, atol=tol)
    assert out.dtype == w.grad.dtype == dtype
    if dtype == torch.float64:
        assert torch.equal(_matvec(e, w.detach()), e @ w.detach())


@pytest.mark.parametrize("family", ["categorical", "dirichlet", "gaussian"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_scaled_losses_are_the_losses_along_the_ray(family, n_classes):
    # float64: each point as stochastic_loss computes it; float32 on the training's
    # ErrorMask (Dirichlet, binary Gaussian: the sums formed once for the ray) or on the
    # votes, held as ClassVotes or not (multi-class Gaussian: the class sums formed once),
    # within the float32 rounding of the scaled sums
    from skpacbayes.engine.spec import make_posterior
    from skpacbayes.posteriors._vote_sums import ErrorMask

    rng = np.random.default_rng(4)
    b, n = 300, 12
    votes = torch.tensor(rng.integers(0, n_classes, (b, n)), dtype=torch.int8)
    y = torch.tensor(rng.integers(0, n_classes, b))
    post = make_posterior(family, n, n_classes, None)
    nat = t64(rng.uniform(0.2, 2.0, n))
    scales = [0.25, 1.0, 3.0, 40.0]
    ray = post.scaled_stochastic_losses(nat, votes, y, scales)
    points = torch.stack([post.stochastic_loss(t * nat, votes, y) for t in scales])
    assert ray.shape == (4, b) and torch.equal(ray, points)
    if family == "categorical":
        return
    if family == "gaussian" and n_classes > 2:
        from skpacbayes.posteriors._vote_sums import ClassVotes

        for held in (votes, ClassVotes(votes, n_classes)):
            ray32 = post.scaled_stochastic_losses(nat.float(), held, y, scales)
            assert ray32.dtype == torch.float32 and ray32.shape == (4, b)
            assert (ray32.double() - points).abs().max() <= 3e-5
        return
    mask = ErrorMask((votes != y[:, None]).float())
    held = votes if family == "gaussian" else mask
    ray32 = post.scaled_stochastic_losses(nat.float(), held, None if held is mask else y, scales)
    assert (ray32.double() - points).abs().max() <= 3e-5


def test_scaled_losses_reject_bad_scales():
    from skpacbayes.posteriors import Dirichlet

    votes, y = torch.tensor([[1, 0]]), torch.tensor([1])
    for bad in ([], [0.0], [1.0, -2.0], [float("nan")]):
        with pytest.raises(ValueError, match="scales must be positive finite"):
            Dirichlet(2).scaled_stochastic_losses(t64([1.0, 1.0]), votes, y, bad)
