"""Shared fixtures: the real datasets folder.

The folder is named by the environment variable ``SKPACBAYES_TEST_DATA`` (one sub-folder per
data set, as ``skpacbayes.datasets.fetch_dataset`` writes them), else ``../shared/datasets``
from the project root. The tests that need it skip, saying where they looked, when it is
absent.
"""

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

# Deterministic property tests in CI: the same examples every run (no flaky red builds).
settings.register_profile("skpacbayes", derandomize=True, deadline=None)
settings.load_profile("skpacbayes")

# One intra-op thread per test process: the suite runs in parallel processes (pytest-xdist)
# and torch's thread pools would otherwise oversubscribe small CI machines.
torch.set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def _one_openmp_thread_per_test_process():
    """Every OpenMP pool loaded by collection (scikit-learn's, for gradient boosting) on one
    thread too: two xdist processes whose pools each spin on both cores made a
    HistGradientBoosting fit 10 to 20 times slower (the boosting candidates' tests: 87 s and
    67 s in the suite, 9 s and 3 s alone). A fit that sets its own limit
    (``engine.parallel.thread_limit``) still does."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        yield


#: environment variable naming the folder of the real datasets used by the tests
TEST_DATA_ENV = "SKPACBAYES_TEST_DATA"
DEFAULT_DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def resolve_data_home(environ=os.environ):
    """``$SKPACBAYES_TEST_DATA`` when set (and not empty), else ``../shared/datasets``."""
    value = environ.get(TEST_DATA_ENV)
    return Path(value).expanduser() if value else DEFAULT_DATA_HOME


DATA_HOME = resolve_data_home()


@pytest.fixture(scope="session")
def data_home():
    """Folder of the raw reference datasets; skips the test when it is absent."""
    if not DATA_HOME.is_dir():
        pytest.skip(
            f"real datasets not found at {DATA_HOME}; set {TEST_DATA_ENV} to the folder that "
            "holds them (one sub-folder per data set)"
        )
    return DATA_HOME


# Known bugs found by the soundness suite and not fixed yet: each is an expected failure with
# its reason (strict: the test fails loudly once the bug is fixed, so the entry gets removed).
KNOWN_BUGS = {}


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = KNOWN_BUGS.get(getattr(item, "originalname", None) or item.name)
        trains_nothing = "learning_rate" in item.name and "Occam" in item.name
        if reason is not None and not trains_nothing:
            # the fuzz failure depends on which examples hypothesis draws: not strict
            strict = "fuzz" not in item.name
            item.add_marker(pytest.mark.xfail(reason=f"known bug: {reason}", strict=strict))
