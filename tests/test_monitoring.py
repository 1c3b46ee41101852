"""RiskMonitor: the alarm, its window bookkeeping, the risks it reads, its refusals; and,
slow-marked, its false-alarm rate in Monte Carlo."""

import math

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from skpacbayes.bounds import binomial_anytime_lower
from skpacbayes.monitoring import RiskMonitor, _restart_delta


class Echo(ClassifierMixin, BaseEstimator):
    """Predicts its first feature: the errors of a stream are exactly the ones drawn."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0].astype(int)


def _stream(rates, rows, seed):
    """Rows whose labels differ from the prediction with the given rate per segment."""
    rng = np.random.default_rng(seed)
    rate = np.repeat(rates, rows)
    pred = rng.integers(0, 2, size=rate.size)
    wrong = rng.random(rate.size) < rate
    return pred[:, None].astype(float), np.where(wrong, 1 - pred, pred)


def _monitor(X, y, batch=100, **params):
    monitor = RiskMonitor(Echo().fit(X, y), **params)
    for start in range(0, len(y), batch):
        monitor.partial_fit(X[start : start + batch], y[start : start + batch])
    return monitor


def test_a_late_shift_is_detected_and_the_alarm_stays():
    X, y = _stream([0.10, 0.20], [5000, 3000], seed=0)
    monitor = _monitor(X, y, reference=0.10)
    assert monitor.shift_detected_
    assert 5000 < monitor.detected_at_ <= 8000 and monitor.detected_at_ % 100 == 0
    assert monitor.n_samples_seen_ == monitor.n_counted_ == 8000
    assert monitor.n_losses_ == int((X[:, 0] != y).sum())
    assert monitor.window_start_ >= 5000  # the strongest window starts after the change
    assert monitor.risk_lower_ > monitor.threshold_ == 0.10
    first = monitor.detected_at_
    monitor.partial_fit(*_stream([0.0], [100], seed=1))
    assert monitor.shift_detected_ and monitor.detected_at_ == first


def test_the_alarm_is_a_window_lower_bound_above_the_threshold():
    X, y = _stream([0.05, 0.12], [2000, 2000], seed=2)
    monitor = RiskMonitor(Echo().fit(X, y), reference=0.05, tolerance=0.03, delta=0.1)
    wrong = X[:, 0] != y
    for stop in range(200, 4001, 200):
        raised = getattr(monitor, "shift_detected_", False)
        monitor.partial_fit(X[stop - 200 : stop], y[stop - 200 : stop])
        lows = [
            binomial_anytime_lower(int(wrong[s:stop].sum()), stop - s, _restart_delta(0.1, k))
            for k, s in enumerate(range(0, stop, 200))
        ]  # every window since a batch's start, at its share of delta
        if not raised:
            assert monitor.shift_detected_ == (max(lows) > 0.08)
        assert monitor.risk_lower_ <= max(lows)
    assert monitor.shift_detected_ and 2000 < monitor.detected_at_


def test_no_change_no_alarm_and_the_upper_bound_covers():
    X, y = _stream([0.10], [20_000], seed=3)
    monitor = _monitor(X, y, batch=1000, reference=0.10, tolerance=0.01)
    assert not monitor.shift_detected_ and monitor.detected_at_ is None
    assert monitor.risk_lower_ < 0.11 and 0.10 < monitor.risk_upper_ < 0.12


def test_the_shares_of_delta_sum_below_delta():
    shares = [_restart_delta(0.05, k) for k in range(100_000)]
    assert sum(shares) <= 0.05
    assert shares[0] == 0.025


def test_the_reference_is_the_certificate_unless_given():
    from skpacbayes import HoldOutBoundClassifier
    from skpacbayes.voters import PrefitVoters

    X, y = _stream([0.1], [3000], seed=4)
    model = LogisticRegression().fit(X[:1000], y[:1000])
    certified = HoldOutBoundClassifier(voters=PrefitVoters(model)).fit(X[1000:2000], y[1000:2000])
    monitor = RiskMonitor(certified, tolerance=0.05).partial_fit(X[2000:], y[2000:])
    assert monitor.reference_ == certified.bound_
    assert monitor.threshold_ == certified.bound_ + 0.05
    assert RiskMonitor(certified, reference=0.2).partial_fit(X[2000:], y[2000:]).reference_ == 0.2


def test_a_risk_of_one_class_counts_its_rows_only():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, size=4000)
    wrong = rng.random(4000) < np.where(y == 1, 0.05, 0.4)  # class 0 is missed far more
    X = np.where(wrong, 1 - y, y)[:, None].astype(float)

    def miss_rate_of_class_1(estimator, X, y):
        return estimator.predict(X) != y, y == 1

    monitor = _monitor(X, y, reference=0.05, tolerance=0.02, risk=miss_rate_of_class_1)
    assert monitor.n_counted_ == int((y == 1).sum()) and monitor.n_samples_seen_ == 4000
    assert monitor.n_losses_ == int(wrong[y == 1].sum())
    assert not monitor.shift_detected_
    assert _monitor(X, y, reference=0.05, tolerance=0.02).shift_detected_  # the error rate


def test_an_empty_batch_changes_nothing():
    X, y = _stream([0.1], [300], seed=6)
    monitor = _monitor(X, y, reference=0.1)
    before = (monitor.n_samples_seen_, len(monitor._windows))
    monitor.partial_fit(X[:0], y[:0])
    assert (monitor.n_samples_seen_, len(monitor._windows)) == before


def test_refusals_name_the_parameter_and_the_fix():
    X, y = _stream([0.1], [200], seed=7)
    with pytest.raises(NotFittedError):
        RiskMonitor(Echo(), reference=0.1).partial_fit(X, y)
    with pytest.raises(ValueError, match="no certificate"):
        RiskMonitor(Echo().fit(X, y)).partial_fit(X, y)
    with pytest.raises(ValueError, match=r"labels \[2\]"):
        RiskMonitor(Echo().fit(X, y), reference=0.1).partial_fit(X, np.where(y == 1, 2, 0))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        RiskMonitor(Echo().fit(X, y), reference=0.1).partial_fit(X, y[:-1])
    monitor = RiskMonitor(Echo().fit(X, y), reference=0.1).partial_fit(X, y)
    with pytest.raises(ValueError, match="features"):
        monitor.partial_fit(np.hstack([X, X]), y)
    with pytest.raises(ValueError, match="one 0/1 loss per row"):
        RiskMonitor(Echo().fit(X, y), reference=0.1, risk=lambda e, X, y: [0, 1]).partial_fit(X, y)
    with pytest.raises(ValueError, match="0/1 losses"):
        RiskMonitor(
            Echo().fit(X, y), reference=0.1, risk=lambda e, X, y: np.full(len(y), 0.5)
        ).partial_fit(X, y)
    for bad in ({"delta": 0.0}, {"tolerance": -0.1}, {"reference": 1.5}, {"risk": "error"}):
        with pytest.raises(InvalidParameterError):
            RiskMonitor(Echo().fit(X, y), **({"reference": 0.1} | bad)).partial_fit(X, y)


@pytest.mark.slow
def test_false_alarm_rate_in_monte_carlo():
    """At the edge of the null (every row's error probability exactly the threshold), over
    1,000 streams of 40 batches of 50 rows at delta = 0.2: alarms in at most a fraction delta
    (+ 3 standard errors)."""
    delta, n_streams = 0.2, 1000
    alarms = 0
    for seed in range(n_streams):
        X, y = _stream([0.1], [2000], seed=10_000 + seed)
        alarms += _monitor(X, y, batch=50, reference=0.1, delta=delta).shift_detected_
    assert alarms / n_streams <= delta + 3 * math.sqrt(delta * (1 - delta) / n_streams)
