"""The commit a benchmark ran at, for the header of its results, and how they are written.

Shared by the benchmark scripts (``bench_dask.py``, ``bench_dask_certified_vote.py``,
``bench_speed.py``, ``bench_train_sample.py``, ``bench_rows_1e6.py``): one ``git rev-parse``
of the checkout that holds them, so that a results file names the code that wrote it.
"""

import json
import subprocess
from pathlib import Path

__all__ = ["head_commit", "write_results"]

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


def write_results(out, results, text):
    """Write ``out.json`` (the results) and ``out.txt`` (the printed table).

    Parameters
    ----------
    out : str
        Path without the suffix.
    results : list of dict
        One entry per run.
    text : str
        The table as printed.
    """
    with open(out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(out + ".txt", "w") as f:
        f.write(text + "\n")
