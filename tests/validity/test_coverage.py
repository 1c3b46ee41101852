"""Empirical coverage of the certificates: ``bound_ >= true risk of predict`` w.p. >= 1 - delta.

See :mod:`validity_study` for the distributions, the exact (stumps) / Monte-Carlo (forests)
true risk and the violation rule (a repetition violates when ``bound_ < risk``; for a
Monte-Carlo risk, when ``bound_ < risk_hat - 3 stderr``). A row fails when its violation count
exceeds ``delta * reps`` (a valid bound has an expected rate of at most ``delta``; in practice
0), or when a fit fails or gives a bound outside [0, 1].

* ``test_coverage_ci``: the CI-sized subset (one row per estimator family and voter kind,
  ``CI_REPS`` repetitions, deltas 0.05 and 0.5), about a minute.
* ``test_coverage_full`` (``-m slow``): every estimator x every valid posterior, the partition
  heuristics, a 3-class split-forest task, the VC / Occam baselines, >= 200 repetitions (fewer
  for the three slowest estimators, see ``reps_factor``). Environment: ``SKPACBAYES_VALIDITY_REPS``
  (default 200), ``SKPACBAYES_VALIDITY_JOBS`` (default 2), ``SKPACBAYES_VALIDITY_OUT`` (file for
  the markdown table; default: the test's tmp dir). The table is printed (``pytest -s``).
"""

import os
import warnings

import numpy as np
import pytest
import validity_study as vs

CI_REPS = 12


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("task_name", ["mixture", "shifted", "blobs3"])
def test_cell_probabilities_sum_to_one(task_name):
    task = vs.TASKS[task_name]
    edges = [np.linspace(-2, 2, 12)[1:-1]] * task.n_features
    probs = task.cell_class_probabilities(edges)
    assert probs.min() >= 0
    assert probs.sum() == pytest.approx(1.0, abs=1e-13)
    np.testing.assert_allclose(
        probs.reshape(task.n_classes, -1).sum(axis=1), task.priors, atol=1e-13
    )


@pytest.mark.parametrize("task_name", ["mixture", "shifted"])
def test_exact_risk_agrees_with_monte_carlo(task_name):
    """The exact cell risk of a fitted vote matches a 400 000-point estimate (< 4.5 stderr)."""
    task = vs.TASKS[task_name]
    config = vs.Config("FirstOrderBoundClassifier", "gaussian", task_name)
    X, y = task.sample(300, np.random.default_rng(1))
    est = config.make(0.05, 0, 3, 128).fit(X, y)
    exact = vs.exact_risk(est, task)
    X_test, y_test = task.sample(400_000, np.random.default_rng(2))
    risk = np.mean(est.predict(X_test) != y_test)
    stderr = np.sqrt(risk * (1 - risk) / y_test.size)
    assert abs(exact - risk) < 4.5 * stderr


def test_mc_risk_equals_plain_predict():
    """The vote-pattern shortcut of ``mc_risk`` gives exactly ``mean(predict(X) != y)``."""
    task = vs.TASKS["blobs3"]
    config = vs.Config("FirstOrderBoundClassifier", "gaussian", "blobs3", "forest")
    X, y = task.sample(200, np.random.default_rng(3))
    est = config.make(0.05, 0, 2, 128).fit(X, y)
    risk, stderr = vs.mc_risk(est, task, 2000, np.random.default_rng(4))
    X_test, y_test = task.sample(2000, np.random.default_rng(4))
    assert risk == np.mean(est.predict(X_test) != y_test)
    assert 0 < stderr < 0.02


def test_check_table_flags_violations():
    """The pass/fail rule itself: more than delta * reps violations is a failure."""
    config = vs.ci_configs()[0]

    def rec(rep, bound, risk):
        return vs.Record(config, rep, 0.05, {0.05: bound}, risk, 0.0, 0.0, 0.0)

    ok = vs.summarize([rec(r, 0.3, 0.2) for r in range(20)], (0.05,))
    assert vs.check_table(ok) == []
    one_bad = [rec(0, 0.1, 0.2)] + [rec(r, 0.3, 0.2) for r in range(1, 20)]
    assert vs.check_table(vs.summarize(one_bad, (0.05,))) == []  # 1 <= 0.05 * 20
    two_bad = [rec(0, 0.1, 0.2), rec(1, 0.1, 0.2)] + [rec(r, 0.3, 0.2) for r in range(2, 20)]
    assert len(vs.check_table(vs.summarize(two_bad, (0.05,)))) == 1
    failed = [vs.Record(config, 0, 0.05, {}, np.nan, 0.0, np.nan, 0.0, error="boom")]
    assert any("failed" in p for p in vs.check_table(vs.summarize(failed, (0.05,))))


def test_coverage_ci():
    configs = vs.ci_configs()
    assert len(configs) >= 8
    records = vs.run_study(configs, CI_REPS, deltas=(0.05, 0.5), m=400, max_epochs=5, seed=1)
    rows = vs.summarize(records, (0.05, 0.5))
    table = vs.markdown_table(rows)
    print(table)
    assert vs.check_table(rows) == [], table
    for row in rows:
        assert row.reps == CI_REPS


@pytest.mark.slow
def test_coverage_full(tmp_path):
    reps = int(os.environ.get("SKPACBAYES_VALIDITY_REPS", "200"))
    n_jobs = int(os.environ.get("SKPACBAYES_VALIDITY_JOBS", "2"))
    out = os.environ.get("SKPACBAYES_VALIDITY_OUT", str(tmp_path / "validity_study.md"))
    records = vs.run_study(vs.CONFIGS, reps, deltas=(0.05, 0.5), n_jobs=n_jobs)
    rows = vs.summarize(records, (0.05, 0.5))
    table = vs.markdown_table(rows, f"Coverage study, reps = {reps}\n")
    with open(out, "w") as fh:
        fh.write(table)
    print(table)
    assert vs.check_table(rows) == [], table
    assert min(r.reps for r in rows if r.config.reps_factor == 1.0) >= reps
