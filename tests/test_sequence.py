"""The time-uniform test-set bounds (Proposition 5b): exact against a slow high-precision
reference, monotone, mirrored, safe at the edges; and, slow-marked, their anytime coverage in
Monte Carlo."""

import math

import mpmath as mp
import numpy as np
import pytest

from skpacbayes.bounds import binomial_anytime_lower, binomial_anytime_upper, binomial_inv_upper
from skpacbayes.bounds._sequence import (
    _BETS,
    _EDGES,
    _LEFT,
    _RIGHT,
    _allowance,
    _bin_of,
    _table,
    anytime_lower_log_evidence,
)


def _mp_log_mixture(b, r, k, n):
    """ln M_n(r) with bin b's weights, at 30 digits (r an mpf)."""
    start, log_weights = _table()
    total = mp.mpf(0)
    for lam, lw in zip(_BETS[start[b] :], log_weights[b], strict=False):
        if not np.isfinite(lw):
            continue
        lam = mp.mpf(float(lam))
        total += mp.exp(mp.mpf(float(lw)) - lam * k - n * mp.log(1 - r * (1 - mp.exp(-lam))))
    return mp.log(total)


def _mp_upper(k, n, delta, extra=0.0):
    """sup{r : ln M_n(r) < ln(1/delta) + extra} by a bin-by-bin scan and 30-digit bisection."""
    with mp.workdps(30):
        level = mp.log(1 / mp.mpf(delta)) + extra
        best = mp.mpf(k) / n
        for b in range(_bin_of(k / n), len(_LEFT)):
            low = max(mp.mpf(float(_LEFT[b])), mp.mpf(k) / n)
            high = mp.mpf(float(_RIGHT[b]))
            if _mp_log_mixture(b, low, k, n) >= level:
                continue  # the whole bin is rejected (increasing inside it)
            if _mp_log_mixture(b, high, k, n) < level:
                best = high
                continue
            for _ in range(96):
                mid = (low + high) / 2
                if _mp_log_mixture(b, mid, k, n) >= level:
                    high = mid
                else:
                    low = mid
            best = high
        return best


@pytest.mark.parametrize(
    ("k", "n", "delta"),
    [(0, 1, 0.05), (3, 40, 0.5), (120, 1000, 0.01), (29_800, 100_000, 0.05), (1, 100_000, 0.2),
     (999, 1000, 0.05)],
)  # fmt: skip
def test_upper_end_is_the_exact_root_never_below_it(k, n, delta):
    exact = _mp_upper(k, n, delta)
    u = binomial_anytime_upper(k, n, delta)
    assert u >= exact  # the safe side
    # and tight: below the root of the level raised by twice the rounding allowance
    assert u <= _mp_upper(k, n, delta, 2 * _allowance(n)) * (1 + 1e-12)
    low = binomial_anytime_lower(k, n, delta)
    mirrored = 1 - _mp_upper(n - k, n, delta)
    assert low <= mirrored
    assert low >= 1 - _mp_upper(n - k, n, delta, 2 * _allowance(n)) * (1 + 1e-12) - 1e-15


def test_the_price_of_every_n_at_once_and_the_order_of_the_ends():
    for k, n, delta in ((0, 1, 0.05), (3, 40, 0.5), (120, 1000, 0.05), (900, 10_000, 0.01)):
        u = binomial_anytime_upper(k, n, delta)
        assert u > binomial_inv_upper(k, n, delta) > k / n
        assert binomial_anytime_lower(k, n, delta) <= k / n <= u


def test_monotone_in_errors_rows_and_delta():
    for n in (10, 1000, 50_000):
        ks = np.linspace(0, n, 12).astype(int)
        ups = [binomial_anytime_upper(int(k), n, 0.05) for k in ks]
        lows = [binomial_anytime_lower(int(k), n, 0.05) for k in ks]
        assert np.all(np.diff(ups) >= 0) and np.all(np.diff(lows) >= 0)
    for k, n in ((10, 100), (1000, 10_000)):
        by_delta = [binomial_anytime_upper(k, n, d) for d in (0.5, 0.1, 0.05, 0.01, 1e-6)]
        assert np.all(np.diff(by_delta) > 0)
        by_delta = [binomial_anytime_lower(k, n, d) for d in (0.5, 0.1, 0.05, 0.01, 1e-6)]
        assert np.all(np.diff(by_delta) < 0)
    # more rows at the same rate: tighter
    widths = [binomial_anytime_upper(n // 10, n, 0.05) - 0.1 for n in (100, 1000, 10_000, 10**6)]
    assert np.all(np.diff(widths) < 0)


def test_edges_of_the_counts():
    assert binomial_anytime_upper(0, 0, 0.05) == 1.0 and binomial_anytime_lower(0, 0, 0.05) == 0.0
    assert binomial_anytime_upper(5, 5, 0.05) == 1.0 and binomial_anytime_lower(0, 5, 0.05) == 0.0
    assert 0.0 < binomial_anytime_upper(0, 1000, 0.05) < 0.01
    assert 0.99 < binomial_anytime_lower(1000, 1000, 0.05) < 1.0
    assert binomial_anytime_lower(1000, 1000, 0.05) == pytest.approx(
        1 - binomial_anytime_upper(0, 1000, 0.05), abs=1e-15
    )
    assert binomial_anytime_upper(3, 10, 1.0) < 1.0  # delta = 1: only the MLE's side
    bads = ((6, 5, 0.05), (-1, 5, 0.05), (1, 5, 0.0), (1, 5.0, 0.05), (1, 5, 1.5), (True, 5, 0.1))
    for bad in bads:
        with pytest.raises(ValueError):
            binomial_anytime_upper(*bad)
        with pytest.raises(ValueError):
            binomial_anytime_lower(*bad)


def test_the_bins_cover_the_unit_interval():
    assert _LEFT[0] == 0.0 and _RIGHT[-1] == 1.0
    np.testing.assert_array_equal(_LEFT[1:], _RIGHT[:-1])
    assert np.all(np.diff(_EDGES) > 0)
    start, log_weights = _table()
    sums = np.logaddexp.reduce(log_weights, axis=1)
    assert np.all(sums <= 1e-12)  # every bin's weights sum to at most 1 (up to rounding)
    assert np.all(start + log_weights.shape[1] <= _BETS.size)


def test_the_evidence_decides_as_the_lower_end():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 5000, size=60)
    k = rng.binomial(n, 0.2)
    for r, delta in ((0.1, 0.05), (0.15, 0.01), (0.5, 0.2)):
        evidence = anytime_lower_log_evidence(k, n, r)
        lows = np.array(
            [binomial_anytime_lower(int(a), int(b), delta) for a, b in zip(k, n, strict=True)]
        )
        # a lower end above r means r was rejected: the evidence reaches the level
        assert np.all(evidence[lows > r] >= math.log(1 / delta))


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.05, 0.3])
def test_anytime_coverage_in_monte_carlo(p):
    """P(the bound is below the true rate at ANY n) <= delta, over 4,000 streams of 2,000 rows
    (every n checked through the evidence, which a crossing implies; the bounds themselves at
    40 checkpoints of the first 500 streams)."""
    delta, n_streams, length = 0.2, 4000, 2000
    rng = np.random.default_rng(int(1000 * p))
    rows = np.arange(1, length + 1)
    crossed_upper = crossed_lower = 0
    for stream in range(n_streams):
        errors = np.cumsum(rng.random(length) < p)
        upper_evidence = anytime_lower_log_evidence(rows - errors, rows, 1 - p)
        lower_evidence = anytime_lower_log_evidence(errors, rows, p)
        crossed_upper += bool(np.any(upper_evidence >= math.log(1 / delta)))
        crossed_lower += bool(np.any(lower_evidence >= math.log(1 / delta)))
        if stream < 500:
            for m in rows[49::50]:
                u = binomial_anytime_upper(int(errors[m - 1]), int(m), delta)
                low = binomial_anytime_lower(int(errors[m - 1]), int(m), delta)
                if u < p:
                    assert upper_evidence[m - 1] >= math.log(1 / delta)
                if low > p:
                    assert lower_evidence[m - 1] >= math.log(1 / delta)
    slack = 3 * math.sqrt(delta * (1 - delta) / n_streams)
    assert crossed_upper / n_streams <= delta + slack
    assert crossed_lower / n_streams <= delta + slack
