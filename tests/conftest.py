"""Shared fixtures: the real datasets folder (../shared/datasets from the project root)."""

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

DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "datasets"


@pytest.fixture(scope="session")
def data_home():
    """Folder of the raw reference datasets; skips the test when it is absent."""
    if not DATA_HOME.is_dir():
        pytest.skip(f"real datasets not found at {DATA_HOME}")
    return DATA_HOME


# Known bugs found by the soundness suite and not fixed yet: each is an expected failure with
# its reason (strict: the test fails loudly once the bug is fixed, so the entry gets removed).
KNOWN_BUGS = {
    "test_huge_learning_rate_inside_the_declared_range": (
        "learning_rate near float max overflows inside torch Adam before our divergence guard"
    ),
    "test_dirichlet_training_divergence_is_handled": (
        "a diverged Dirichlet fit reaches the certificate with NaN statistics (clear error, "
        "but not the documented 'diverge'/'learning_rate' message)"
    ),
    "test_extreme_but_finite_prior": (
        "priors like 1e300 / 1e-300 are rejected by the posterior with a message not naming prior"
    ),
    "test_magnitudes_near_float_max": "StumpBank threshold spacing overflows for |X| ~ 1e308",
    "test_stump_bank_range_near_float_max": "StumpBank threshold spacing overflows near 1e308",
    "test_bound_functions_reject_none_clearly": "bounds give a TypeError-like message for None",
    "test_certified_cstar_rejects_complex_weights": "complex weights are not rejected clearly",
    "test_fit_predict_fuzz": (
        "float64 X beyond float32 range reaches a float32 conversion in the voters and fails "
        "with sklearn's generic 'too large for dtype float32' error"
    ),
    "test_same_fit_across_torch_thread_counts": (
        "torch float reductions depend on the intra-op thread count: bound_ differs in the last "
        "bits across torch.set_num_threads (same thread count is bit-identical)"
    ),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = KNOWN_BUGS.get(getattr(item, "originalname", None) or item.name)
        trains_nothing = "learning_rate" in item.name and "Occam" in item.name
        if reason is not None and not trains_nothing:
            # the fuzz failure depends on which examples hypothesis draws: not strict
            strict = "fuzz" not in item.name
            item.add_marker(pytest.mark.xfail(reason=f"known bug: {reason}", strict=strict))
