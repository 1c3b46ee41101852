"""Shared fixtures: the real datasets folder (../shared/datasets from the project root)."""

from pathlib import Path

import pytest
import torch

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
