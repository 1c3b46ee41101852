"""Streams: the anytime certificate against the best published confidence sequence, the time
of an update, and the drift monitor against MAPIE's ``RiskMonitoring``; side by side, one run.

Parts (``--part``):

``table``
    On error streams ``numpy.random.default_rng(1000 * seed + int(1000 * p)).random(100_000)
    < p`` (seeds 0-9, p in {0.02, 0.1, 0.3}), a bound every 1,000 rows, every anytime bound
    the running minimum over those checkpoints, ``delta = 0.05``: the mean excess of each
    bound over ``p`` at 10^3, 10^4 and 10^5 rows (in units of 1e-3). Columns: the exact
    binomial bound at that n only (``binomial_inv_upper``, valid at one fixed n); the former
    statement (a mixture of 35 exponential martingales, kept here as ``before_upper``); the
    library's ``binomial_anytime_upper``; the one-sided beta-binomial mixture of Howard,
    Ramdas, McAuliffe and Sekhon (Ann. Statist. 2021), written here from the paper's closed
    form, tuned at 10^3, 10^4 and 10^5 rows; and the library's excess over the best of those
    three tunings (the target: at most 1.15 in every cell).
``other``
    The same ratio on other rates and lengths (one stream each, errors at the exact rate: S =
    round(p n)), against the mixture tuned at n itself.
``time``
    Median time of ``binomial_anytime_upper`` + ``binomial_anytime_lower`` at typical counts,
    and of a ``partial_fit`` of 1,000 rows with a constant model (a
    ``HoldOutBoundClassifier(voters=PrefitVoters(model))``) beyond the model's own
    ``predict``.
``monitor``
    Simulated error streams, error 0.10 for 10,000 rows then 0.15 (200 streams), and 0.10
    throughout (200 streams), 20,000 rows in batches of 100, threshold 0.10 (reference 0.10,
    tolerance 0) and 0.12 (tolerance 0.02), false-alarm level 0.05: the detection delay
    (rows after the change at the end of the batch raising the alarm; median, quartiles,
    streams never alarmed) and the false-alarm rate, for ``RiskMonitor`` and for MAPIE's
    ``RiskMonitoring`` (the lower bound of the error rate since row 0 that its ``update``
    computes on the whole history, here once per stream at every row, identical to what
    ``update`` reports after each batch; checked against ``update`` on two streams). MAPIE
    splits its ``test_level`` between a reference bound and the online one; with the
    threshold given, ``test_level = 0.10`` puts its online test at 0.05, as ours. Needs
    ``mapie`` (a benchmark environment only, never a dependency of the package); without it
    the MAPIE columns are skipped.

Usage::

    python benchmarks/bench_stream.py [--part table other time monitor]
"""

import argparse
import math
import time
import warnings

import numpy as np
from scipy.optimize import brentq
from scipy.special import betainc, betaln, logsumexp

from skpacbayes.bounds import binomial_anytime_lower, binomial_anytime_upper, binomial_inv_upper

DELTA = 0.05
RATES = (0.02, 0.1, 0.3)
LENGTHS = (1_000, 10_000, 100_000)
TUNINGS = (1_000, 10_000, 100_000)


# -- the former statement: 35 exponential martingales, equal weights, 200 bisections -------
BEFORE_BETS = 8.0 * 1.5 ** -np.arange(35.0)


def before_upper(k, n, delta):
    """``binomial_anytime_upper`` as it was: ``sup{r : mean_i e^(-lam_i k) / (1 - r + r
    e^(-lam_i))^n < 1/delta}`` over 35 bets, by bisection (200 steps)."""
    if n == 0 or k == n:
        return 1.0

    def log_mixture(r):
        log_mgf = np.log1p(r * np.expm1(-BEFORE_BETS))
        return float(logsumexp(-BEFORE_BETS * k - n * log_mgf)) - math.log(BEFORE_BETS.size)

    level = math.log(1.0 / delta) + 1e-9 * (1 + n)
    if log_mixture(1.0) < level:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if log_mixture(mid) >= level:
            hi = mid
        else:
            lo = mid
    return hi


# -- the one-sided beta-binomial mixture, from the paper's closed form ---------------------
def _concentration(t_opt, alpha_opt):
    """Howard et al.'s tuning at ``t_opt`` rows: rho = v_opt / (2 ln(1/(2 a)) + ln(1 + 2
    ln(1/(2 a)))) at v_opt = t_opt r (1 - r), r_HRMS = max(rho - r (1 - r), 1e-3 r (1 - r));
    the prior Beta(r_HRMS / (1 - r), r_HRMS / r) = Beta(c r, c (1 - r))."""
    level = math.log(1.0 / (2.0 * alpha_opt))
    return max(t_opt / (2.0 * level + math.log1p(2.0 * level)) - 1.0, 1e-3)


def beta_binomial_log_mixture(r, k, n, t_opt, alpha_opt=DELTA):
    """ln of the one-sided mixture at ``r``: the likelihood ratios of the alternatives below
    ``r`` mixed over Beta(c r, c (1 - r)) truncated to [0, r]."""
    c = _concentration(t_opt, alpha_opt)
    a, b = c * r, c * (1.0 - r)
    return (
        betaln(k + a, n - k + b)
        + math.log(betainc(k + a, n - k + b, r))
        - betaln(a, b)
        - math.log(betainc(a, b, r))
        - k * math.log(r)
        - (n - k) * math.log1p(-r)
    )


def beta_binomial_upper(k, n, delta, t_opt):
    """The upper end of the tuned mixture's confidence sequence (bracketed root)."""
    if n == 0 or k == n:
        return 1.0
    level = math.log(1.0 / delta)
    top = 1.0 - 1e-12
    if beta_binomial_log_mixture(top, k, n, t_opt) < level:
        return 1.0
    low = max(k / n, 1e-300)
    return brentq(lambda r: beta_binomial_log_mixture(r, k, n, t_opt) - level, low, top, xtol=1e-14)


# -- the table ------------------------------------------------------------------------------
def _streams(p):
    for seed in range(10):
        yield np.random.default_rng(1000 * seed + int(1000 * p)).random(100_000) < p


def table():
    methods = {"before": before_upper, "ours": binomial_anytime_upper}
    methods |= {
        f"bb {t:.0e}": (lambda k, n, d, t=t: beta_binomial_upper(k, n, d, t)) for t in TUNINGS
    }
    print(
        "table: mean excess over p (1e-3), 10 seeds, running minimum every 1,000 rows, "
        f"delta {DELTA}"
    )
    header = ["p", "n", "exact n", "before", "ours"] + [f"bb {t:.0e}" for t in TUNINGS]
    print(
        ("{:>6}" * 2 + "{:>9}" * (len(header) - 2) + "{:>10}{:>10}").format(
            *header, "ours/best", "before/best"
        )
    )
    worst = 0.0
    for p in RATES:
        excess = {name: {n: [] for n in LENGTHS} for name in ["exact n", *methods]}
        for errors in _streams(p):
            counts = np.cumsum(errors)
            running = dict.fromkeys(methods, 1.0)
            for n in range(1_000, 100_001, 1_000):
                k = int(counts[n - 1])
                for name, fn in methods.items():
                    running[name] = min(running[name], fn(k, n, DELTA))
                if n in LENGTHS:
                    excess["exact n"][n].append(binomial_inv_upper(k, n, DELTA) - p)
                    for name in methods:
                        excess[name][n].append(running[name] - p)
        for n in LENGTHS:
            means = {name: 1e3 * float(np.mean(v[n])) for name, v in excess.items()}
            best = min(means[f"bb {t:.0e}"] for t in TUNINGS)
            ratio = means["ours"] / best
            worst = max(worst, ratio)
            cells = [means[h] for h in header[2:]]
            print(
                ("{:>6}{:>6.0e}" + "{:>9.3f}" * len(cells) + "{:>10.3f}{:>10.3f}").format(
                    p, n, *cells, ratio, means["before"] / best
                )
            )
    print(f"  largest ratio of ours to the best tuning: {worst:.3f} (target <= 1.15)\n")


def other():
    print("other: excess of ours over the mixture tuned at n itself (S = round(p n), delta 0.05)")
    rates = (0.001, 0.01, 0.05, 0.2, 0.5)
    lengths = (100, 316, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)
    print("{:>8}".format("p \\ n") + "".join(f"{n:>10.0e}" for n in lengths))
    for p in rates:
        row = []
        for n in lengths:
            k = max(1, round(p * n))
            ours = binomial_anytime_upper(k, n, DELTA) - k / n
            row.append(ours / (beta_binomial_upper(k, n, DELTA, n) - k / n))
        print(f"{p:>8}" + "".join(f"{r:>10.3f}" for r in row))
    print("  below today's: the former statement's ratio on the same grid")
    for p in rates:
        row = []
        for n in lengths:
            k = max(1, round(p * n))
            ours = binomial_anytime_upper(k, n, DELTA) - k / n
            row.append((before_upper(k, n, DELTA) - k / n) / ours)
        print(f"{p:>8}" + "".join(f"{r:>10.3f}" for r in row) + "   (before / ours)")
    print()


# -- time -----------------------------------------------------------------------------------
def _median_ms(fn, repeat=200):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))


def timing():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from skpacbayes import HoldOutBoundClassifier
    from skpacbayes.voters import PrefitVoters

    print("time: median ms (200 calls each; the machine is shared)")
    print(
        "{:>8}{:>10}{:>10}{:>10}{:>10}{:>10}".format("S", "n", "upper", "lower", "both", "before")
    )
    for k, n in ((100, 1_000), (1_000, 10_000), (20, 1_000), (10_000, 100_000), (3_000, 1_000_000)):
        up = _median_ms(lambda k=k, n=n: binomial_anytime_upper(k, n, DELTA))
        low = _median_ms(lambda k=k, n=n: binomial_anytime_lower(k, n, DELTA))
        both = _median_ms(
            lambda k=k, n=n: (
                binomial_anytime_upper(k, n, DELTA),
                binomial_anytime_lower(k, n, DELTA),
            )
        )
        before = _median_ms(lambda k=k, n=n: before_upper(k, n, DELTA), repeat=40)
        print(f"{k:>8}{n:>10}{up:>10.3f}{low:>10.3f}{both:>10.3f}{before:>10.3f}")
    X, y = make_classification(n_samples=60_000, n_features=20, random_state=0)
    model = LogisticRegression().fit(X[:1000], y[:1000])
    clf = HoldOutBoundClassifier(voters=PrefitVoters(model))
    batches = [(X[s : s + 1000], y[s : s + 1000]) for s in range(1000, 60_000, 1000)]
    per_fit, per_predict = [], []
    for Xb, yb in batches * 4:
        start = time.perf_counter()
        clf.partial_fit(Xb, yb)
        per_fit.append(time.perf_counter() - start)
        start = time.perf_counter()
        model.predict(Xb)
        per_predict.append(time.perf_counter() - start)
    fit_ms, predict_ms = 1e3 * np.median(per_fit), 1e3 * np.median(per_predict)
    print(
        f"  partial_fit of 1,000 rows (logistic regression, {len(per_fit)} calls): "
        f"{fit_ms:.3f} ms median, the model's predict {predict_ms:.3f} ms: "
        f"{fit_ms - predict_ms:.3f} ms beyond it\n"
    )


# -- the monitor ----------------------------------------------------------------------------
def _echo():
    """A fitted classifier that predicts its first feature: the errors are those drawn."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Echo(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def predict(self, X):
            return np.asarray(X)[:, 0].astype(int)

    return Echo().fit(None, None)


def _error_stream(seed, change):
    rng = np.random.default_rng(seed)
    rate = np.where(np.arange(20_000) < 10_000, 0.10, 0.15 if change else 0.10)
    wrong = rng.random(20_000) < rate
    pred = rng.integers(0, 2, size=20_000)
    return pred, np.where(wrong, 1 - pred, pred)


def _ours(pred, y, threshold):
    from skpacbayes.monitoring import RiskMonitor

    monitor = RiskMonitor(_echo(), reference=0.10, tolerance=threshold - 0.10, delta=DELTA)
    X = pred[:, None].astype(float)
    for start in range(0, y.size, 100):
        monitor.partial_fit(X[start : start + 100], y[start : start + 100])
        if monitor.shift_detected_:
            return monitor.detected_at_
    return None


def _mapie_lower(pred, y):
    from mapie.exchangeability_testing.bounds import conjugate_mixture_empirical_bernstein_bound

    return conjugate_mixture_empirical_bernstein_bound(
        (pred != y).astype(float), v_opt=1, alpha=DELTA, bound_side="lower"
    )  # what RiskMonitoring(test_level=2 * DELTA).update computes: alpha = test_level / 2


def _mapie_check(pred, y, threshold):
    """MAPIE's own update, batch after batch: its alarms equal the one-pass sequence's."""
    from mapie.exchangeability_testing import RiskMonitoring

    monitor = RiskMonitoring(risk="accuracy", test_level=2 * DELTA, threshold=threshold, warn=False)
    lower = _mapie_lower(pred[:3000], y[:3000])
    for stop in range(100, 3001, 100):
        monitor.update(y[stop - 100 : stop], pred[stop - 100 : stop])
        assert monitor.online_risk_lower_bound_latest == lower[stop - 1]


def _first_alarm(lower, threshold):
    ends = np.arange(99, lower.size, 100)
    hits = np.flatnonzero(lower[ends] > threshold)
    return int(ends[hits[0]] + 1) if hits.size else None


def _summary(times, change):
    if change:
        delays = np.array([t - 10_000 for t in times if t is not None and t > 10_000])
        early = sum(t is not None and t <= 10_000 for t in times)
        missed = sum(t is None for t in times)
        q = np.percentile(delays, [25, 50, 75]) if delays.size else [np.nan] * 3
        return (
            f"delay median {q[1]:>6.0f} (quartiles {q[0]:.0f}-{q[2]:.0f}), "
            f"before the change {early}, never {missed}"
        )
    alarms = sum(t is not None for t in times)
    return f"false alarms {alarms}/{len(times)} = {alarms / len(times):.3f}"


def monitor():
    try:
        import mapie  # noqa: F401

        have_mapie = True
    except ImportError:
        have_mapie = False
    print(
        "monitor: error 0.10 for 10,000 rows then 0.15 (200 streams) / 0.10 throughout "
        "(200 streams), 20,000 rows in batches of 100, false-alarm level 0.05"
    )
    if have_mapie:
        for seed in (0, 1):
            _mapie_check(*_error_stream(seed, True), threshold=0.10)
        print(
            "  MAPIE: its update() after each batch equals the one-pass lower sequence "
            "(checked on 2 streams)"
        )
    else:
        print("  mapie is not installed: its columns are skipped")
    thresholds = (0.10, 0.12)
    names = ("RiskMonitor", "MAPIE") if have_mapie else ("RiskMonitor",)
    results = {(name, t, change): [] for name in names for t in thresholds for change in (1, 0)}
    spent = dict.fromkeys(names, 0.0)
    for change in (1, 0):
        for seed in range(200):
            pred, y = _error_stream(10_000 * change + seed, change)
            start = time.perf_counter()
            for t in thresholds:
                results["RiskMonitor", t, change].append(_ours(pred, y, t))
            spent["RiskMonitor"] += time.perf_counter() - start
            if have_mapie:
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lower = _mapie_lower(pred, y)
                for t in thresholds:
                    results["MAPIE", t, change].append(_first_alarm(lower, t))
                spent["MAPIE"] += time.perf_counter() - start
    for t in thresholds:
        print(f"  threshold {t:.2f} (reference 0.10, tolerance {t - 0.10:.2f}):")
        for name in names:
            print(
                f"    {name:<12} shift: {_summary(results[name, t, 1], True)}; "
                f"no shift: {_summary(results[name, t, 0], False)}"
            )
    print(
        "  seconds for the 400 streams, both thresholds: "
        + ", ".join(f"{name} {spent[name]:.0f}" for name in names)
        + "\n"
    )


PARTS = {"table": table, "other": other, "time": timing, "monitor": monitor}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", nargs="+", choices=list(PARTS), default=list(PARTS))
    for part in parser.parse_args().part:
        PARTS[part]()
