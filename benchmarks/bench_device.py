"""Training on CUDA against the CPU: fit times and certificates side by side.

Usage::

    python benchmarks/bench_device.py [--rows 1000000] [--real-rows N] [--max-epochs 100]
        [--repeats 3] [--cpu-only | --cuda-only] [--compare-with PATH] [--n-jobs N]
        [--tasks synthetic synthetic-dirichlet synthetic-gaussian adult mnist]
        [--data-home /work/shared/datasets]

The check to run where a GPU is lent (one command; it prints both devices side by side and
exits 1 if a bound differs by more than 1e-6)::

    python benchmarks/bench_device.py --tasks synthetic-dirichlet synthetic-gaussian synthetic

Run on an NVIDIA H200 (``--cuda-only``, the CPU columns from this 2-core machine):
``benchmarks/results/device_h200.txt``.

Tasks (each an 80/20 stratified split, ``random_state=0``):

* ``synthetic``: ``--rows`` x 20 Gaussian features, label from the first five; 400 stumps
  (``StumpBank(n_thresholds=10)``: 20 features x 10 thresholds x 2 directions),
  ``FirstOrderBoundClassifier(posterior="categorical")`` (the count path: the device runs the
  pair products only);
* ``synthetic-dirichlet``, ``synthetic-gaussian``: the same rows and stumps, the first-order
  bound of the Dirichlet / Gaussian posterior (full-batch L-BFGS on the 0/1 error matrix,
  held once on the device);
* ``adult``: ``FirstOrderBoundClassifier(posterior="dirichlet")`` on its default voters;
* ``mnist``: ``FirstOrderBoundClassifier(posterior="gaussian")`` on
  ``SplitForest(n_estimators=200)``.

``--real-rows`` keeps the first N rows (after a seeded shuffle) of adult and mnist (default:
all). Each fit is timed ``--repeats`` times per device (median printed, fit = voters and
training and certificate) with ``device="cpu"`` (unless ``--cuda-only``: CPU columns
``nan``) and, when CUDA is available and ``--cpu-only`` is not given, ``device="cuda"`` (the
CUDA columns print ``n/a (no CUDA)`` otherwise). The certificate itself is always computed
in float64 on the CPU; only the float32 training runs on the device. ``--compare-with PATH``
also times the CPU fits of the ``skpacbayes`` package found under ``PATH`` (this script run
in a subprocess with
``PYTHONPATH=PATH``, alternating with this checkout's runs, same machine, same session): the
"before" column of a CPU speed comparison. ``--n-jobs`` is the estimators' ``n_jobs`` (default
``None``: one CPU thread for the fit's torch and BLAS operations, the float64 certificate on
the host included). Exits with status 1 if a CUDA bound differs from
the CPU bound by more than ``--tolerance``.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
from sklearn.model_selection import train_test_split

from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.datasets import load_dataset
from skpacbayes.voters import SplitForest, StumpBank

TASKS = ("synthetic", "synthetic-dirichlet", "synthetic-gaussian", "adult", "mnist")


def _synthetic(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 20)).astype(np.float32)
    y = (X[:, :5].sum(axis=1) + 0.5 * rng.normal(size=n_rows) > 0).astype(int)
    return X, y


def _real(name, data_home, n_rows):
    X, y = load_dataset(name, data_home=data_home, return_X_y=True)
    if n_rows is not None and n_rows < X.shape[0]:
        keep = np.random.default_rng(0).permutation(X.shape[0])[:n_rows]
        X, y = X[keep], y[keep]
    return X, y


def _task(name, args):
    """``(label, X, y, estimator parameters)`` of a task."""
    if name.startswith("synthetic"):
        X, y = _synthetic(args.rows)
        posterior = name.split("-")[1] if "-" in name else "categorical"
        params = {"posterior": posterior, "voters": StumpBank(n_thresholds=10)}
        return f"synthetic {args.rows}x20 FO {posterior}", X, y, params
    X, y = _real(name, args.data_home, args.real_rows)
    if name == "adult":
        return f"adult {X.shape[0]} FO dirichlet", X, y, {"posterior": "dirichlet"}
    params = {"posterior": "gaussian", "voters": SplitForest(n_estimators=200, random_state=0)}
    return f"mnist {X.shape[0]} FO gaussian split200", X, y, params


def _fit_once(X, y, params, device, max_epochs, n_jobs=None):
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    est = FirstOrderBoundClassifier(
        **params, max_epochs=max_epochs, random_state=0, device=device, n_jobs=n_jobs
    )
    start = time.perf_counter()
    est.fit(X_tr, y_tr)
    seconds = time.perf_counter() - start
    return seconds, float(est.bound_), float(np.mean(est.predict(X_te) != y_te))


def _worker(args):
    """One CPU fit per task, one JSON line each (the subprocess of ``--compare-with``)."""
    for name in args.tasks:
        label, X, y, params = _task(name, args)
        seconds, bound, error = _fit_once(X, y, params, "cpu", args.max_epochs, args.n_jobs)
        print(json.dumps({"task": name, "seconds": seconds, "bound": bound, "error": error}))
        sys.stdout.flush()


def _run_other(path, name, args):
    """CPU fit of task ``name`` by the package under ``path``: ``(seconds, bound, error)``."""
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--tasks", name]
    command += ["--rows", str(args.rows), "--max-epochs", str(args.max_epochs)]
    command += ["--data-home", args.data_home]
    if args.n_jobs is not None:
        command += ["--n-jobs", str(args.n_jobs)]
    if args.real_rows is not None:
        command += ["--real-rows", str(args.real_rows)]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(path)}
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    (row,) = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return row["seconds"], row["bound"], row["error"]


def _median(runs, k):
    return statistics.median(r[k] for r in runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--real-rows", type=int, default=None)
    parser.add_argument("--max-epochs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--n-jobs", type=int, default=None, help="the estimators' n_jobs")
    parser.add_argument("--cpu-only", action="store_true")
    parser.add_argument(
        "--cuda-only", action="store_true", help="skip the CPU fits (their columns: n/a)"
    )
    parser.add_argument("--compare-with", default=None)
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return 0
    cuda = torch.cuda.is_available() and not args.cpu_only
    device_name = torch.cuda.get_device_name(0) if cuda else "no CUDA"
    print(f"torch {torch.__version__}, {device_name}, {os.cpu_count()} CPU cores")
    print(
        f"max_epochs={args.max_epochs}, n_jobs={args.n_jobs}, {args.repeats} repeat(s): "
        "median fit seconds "
        "(voters + training + float64 certificate)"
    )
    if args.compare_with:
        print(f"'before' column: skpacbayes from {os.path.abspath(args.compare_with)}")
    before_head = f" {'cpu s before':>12s} {'bound before':>12s}" if args.compare_with else ""
    print(
        f"{'task':40s}{before_head} {'cpu s':>7s} {'cuda s':>15s} {'cpu bound':>12s} "
        f"{'cuda bound':>15s} {'|diff|':>8s} {'cpu test':>8s} {'cuda test':>9s}"
    )
    worst = 0.0
    for name in args.tasks:
        label, X, y, params = _task(name, args)
        runs = {"cpu": [], "cuda": [], "before": []}
        for _ in range(args.repeats):
            if args.compare_with:
                runs["before"].append(_run_other(args.compare_with, name, args))
            if not args.cuda_only:
                runs["cpu"].append(_fit_once(X, y, params, "cpu", args.max_epochs, args.n_jobs))
            if cuda:
                runs["cuda"].append(_fit_once(X, y, params, "cuda", args.max_epochs, args.n_jobs))
        cpu_s = cpu_bound = cpu_err = math.nan
        if runs["cpu"]:
            cpu_s, cpu_bound, cpu_err = (_median(runs["cpu"], k) for k in range(3))
        before = ""
        if args.compare_with:
            before = f" {_median(runs['before'], 0):12.2f} {_median(runs['before'], 1):12.9f}"
        if cuda:
            cuda_s, cuda_bound, cuda_err = (_median(runs["cuda"], k) for k in range(3))
            diff = abs(cuda_bound - cpu_bound)
            worst = max(worst, 0.0 if math.isnan(diff) else diff)
            cuda_cols = f"{cuda_s:15.2f} {cpu_bound:12.9f} {cuda_bound:15.9f} {diff:8.1e}"
            tail = f" {cpu_err:8.4f} {cuda_err:9.4f}"
        else:
            na = "n/a (no CUDA)"
            cuda_cols = f"{na:>15s} {cpu_bound:12.9f} {na:>15s} {'':>8s}"
            tail = f" {cpu_err:8.4f} {'':>9s}"
        print(f"{label:40s}{before} {cpu_s:7.2f} {cuda_cols}{tail}", flush=True)
    if cuda:
        print(f"largest bound difference cpu/cuda: {worst:.2e} (tolerance {args.tolerance})")
    return int(cuda and worst > args.tolerance)


if __name__ == "__main__":
    sys.exit(main())
