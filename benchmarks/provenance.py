"""The commit a benchmark ran at, for the header of its results.

Shared by the benchmark scripts (``bench_dask.py``, ``bench_speed.py``,
``bench_train_sample.py``, ``bench_rows_1e6.py``): one ``git rev-parse`` of the checkout that
holds them, so that a results file names the code that wrote it.
"""

import subprocess
from pathlib import Path

__all__ = ["head_commit"]

CHECKOUT = Path(__file__).resolve().parents[1]


def head_commit(checkout=CHECKOUT):
    """The short hash of ``HEAD`` in ``checkout`` (this one by default); ``"unknown"``
    outside a git checkout.

    Parameters
    ----------
    checkout : str or Path, default: the checkout that holds this file

    Returns
    -------
    str
    """
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"
