"""The per-row fits at a million rows: training, certificate and vote matrix, before and after.

Usage::

    python benchmarks/bench_rows_1e6.py --before PATH [--rows 1000000] [--repeats 3]
        [--posteriors dirichlet gaussian] [--n-jobs none 2] [--adult]
        [--data-home /work/shared/datasets]

The task of ``bench_device.py``: ``--rows`` x 20 Gaussian features, 400 stumps
(``StumpBank(n_thresholds=10)``), an 80/20 stratified split (``random_state=0``), fitted on
the CPU by ``FirstOrderBoundClassifier`` with each posterior and each ``n_jobs`` (``none``:
the default, one thread). With ``--adult``, also adult's FO Dirichlet fit (default voters,
the same split). Each fit is timed by phase, the engine's functions wrapped by name:

* ``votes``: the vote matrix of the training rows (``VotePasses.whole``);
* ``training``: the float32 problem (the error matrix held once) and the L-BFGS runs from
  every start (``RowProblem`` in float32, ``train_rows``);
* ``certificate``: the float64 problem and the certificate (``RowProblem`` in float64,
  ``certify``);
* ``fit``: the whole ``fit`` (the voters' fit and the split of the phases above included).

``--before PATH`` runs the same fits with the package under ``PATH`` (e.g. a ``git worktree``
of the previous commit), in a subprocess with ``PYTHONPATH=PATH``, alternating with this
checkout's subprocess fit by fit (same machine, same session). Each subprocess makes the
data and runs a small warm-up fit first. Medians of ``--repeats``; ratios to the vote matrix
of the same run; the bounds are printed in full (``repr``) and compared.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from provenance import head_commit

PHASES = ("votes", "training", "certificate", "fit")


def _wrap(owner, name, seconds, phase_of):
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            seconds[phase_of(*args, **kwargs)] += time.perf_counter() - start

    setattr(owner, name, timed)


def _worker(args):
    """One fit (after a warm-up), one JSON line: the phases' seconds and the bound."""
    import torch
    from sklearn.model_selection import train_test_split

    import skpacbayes.engine.passes as passes
    import skpacbayes.engine.rows as rows
    from skpacbayes import FirstOrderBoundClassifier
    from skpacbayes.voters import StumpBank

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_device import _synthetic

    seconds = dict.fromkeys(PHASES, 0.0)

    def problem_phase(spec, votes, y_idx, groups, device, dtype, *rest, **kwargs):
        return "certificate" if dtype == torch.float64 else "training"

    _wrap(passes.VotePasses, "whole", seconds, lambda *a, **k: "votes")
    _wrap(rows, "RowProblem", seconds, problem_phase)
    _wrap(rows, "train_rows", seconds, lambda *a, **k: "training")
    _wrap(rows, "certify", seconds, lambda *a, **k: "certificate")
    if args.task == "adult":
        from skpacbayes.datasets import load_dataset

        X, y = load_dataset("adult", data_home=args.data_home, return_X_y=True)
        params = {"posterior": "dirichlet"}
    else:
        X, y = _synthetic(args.rows)
        params = {"posterior": args.task, "voters": StumpBank(n_thresholds=10)}
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    (n_jobs,) = args.n_jobs
    n_jobs = None if n_jobs == "none" else int(n_jobs)

    def fit(X, y):
        return FirstOrderBoundClassifier(**params, random_state=0, n_jobs=n_jobs).fit(X, y)

    fit(X_tr[:2000], y_tr[:2000])  # warm-up
    for k in seconds:
        seconds[k] = 0.0
    start = time.perf_counter()
    est = fit(X_tr, y_tr)
    seconds["fit"] = time.perf_counter() - start
    error = float(np.mean(est.predict(X_te) != y_te))
    print(json.dumps({**seconds, "bound": repr(float(est.bound_)), "error": error}), flush=True)


def _run(path, task, n_jobs, args):
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--task", task]
    command += ["--rows", str(args.rows), "--n-jobs", n_jobs, "--data-home", args.data_home]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(path)}
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    (row,) = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return row


def _load():
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - platforms without getloadavg
        return "n/a"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=False, default=None)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--posteriors", nargs="+", default=["dirichlet", "gaussian"])
    parser.add_argument("--n-jobs", nargs="+", default=["none", "2"])
    parser.add_argument("--adult", action="store_true")
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--task", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    versions = {"after": here}
    if args.before:
        versions = {"before": args.before, "after": here}
    print(f"{os.cpu_count()} CPU cores; load average at the start {_load()}")
    commits = {version: head_commit(path) for version, path in versions.items()}
    print(f"versions: {versions} at commits {commits}")
    print(f"medians of {args.repeats}; seconds, (ratio to the vote matrix)")
    tasks = [(p, j) for p in args.posteriors for j in args.n_jobs]
    if args.adult:
        tasks += [("adult", j) for j in args.n_jobs]
    head = f"{'fit':28s} {'version':7s}" + "".join(f" {k:>17s}" for k in PHASES)
    print(head + f" {'bound':>22s} {'test':>7s}  load", flush=True)
    same = True
    for task, n_jobs in tasks:
        runs = {v: [] for v in versions}
        for _ in range(args.repeats):
            for version, path in versions.items():
                runs[version].append(_run(path, task, n_jobs, args))
        label = f"{'adult' if task == 'adult' else f'{args.rows} FO {task}'} n_jobs={n_jobs}"
        if task == "adult":
            label = f"adult FO dirichlet n_jobs={n_jobs}"
        bounds = {}
        for version in versions:
            med = {k: statistics.median(r[k] for r in runs[version]) for k in PHASES}
            cells = "".join(
                f" {med[k]:7.2f} ({med[k] / med['votes']:5.0f}x)"
                if k != "votes"
                else f" {med[k]:16.3f}"
                for k in PHASES
            )
            bound_set = {r["bound"] for r in runs[version]}
            bounds[version] = bound_set
            print(
                f"{label:28s} {version:7s}{cells} {'/'.join(sorted(bound_set)):>22s} "
                f"{runs[version][0]['error']:7.4f}  {_load()}",
                flush=True,
            )
        if len({frozenset(b) for b in bounds.values()}) > 1:
            same = False
            print(f"{'':28s} bounds differ: {bounds}")
    if args.before:
        print("every bound equal before and after" if same else "SOME BOUNDS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
