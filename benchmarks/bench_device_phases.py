"""Where a full-batch fit's time goes on a device: votes, transfer, starts, L-BFGS, certificate.

Usage::

    python benchmarks/bench_device_phases.py DEVICE N_ROWS [POSTERIOR ...] [--profile]
        [--n-jobs N]

``DEVICE`` is ``cpu`` or ``cuda``. The task is the synthetic one of ``bench_device.py``
(``N_ROWS`` x 20 Gaussian features, 400 stumps, 80/20 stratified split, ``random_state=0``),
fitted by ``FirstOrderBoundClassifier`` with each ``POSTERIOR`` (default: dirichlet gaussian),
after a small warm-up fit. Each phase is timed between two device synchronisations, so its
seconds are its own:

* ``votes``: the vote matrix of the training rows (NumPy, on the host);
* ``problem``: the error matrices on the training device and the float64 votes of the
  certificate (``RowProblem``, twice);
* ``starts``: the mapped starts of the per-row families (their scale scans and the vote
  start's cross-entropy);
* ``lbfgs``: every L-BFGS run, with its objective-and-gradient evaluations counted
  (``ms/eval``: the L-BFGS seconds over the evaluations, scipy's own work included) and
  how many of the runs (the vote start's included) replayed a CUDA graph;
* ``certificate``: the float64 certificate on the host.

Before each fit's line, the engine's lines on each L-BFGS run (its end and iterations) and
on the starts (each start's objective, each run's end, the lowest kept).

The floor of one evaluation is one read of the float32 error matrix for the forward
mat-vec and one for the backward (printed as ``floor ms/eval`` from the bytes and the
device's bandwidth, ``--bandwidth`` GB/s, measured by a large device-to-device copy when
omitted). ``--profile`` also prints torch.profiler's table of the tenth evaluation of the
first L-BFGS run (kernels and their device time).
"""

import argparse
import collections
import sys
import time

import numpy as np
import torch
from sklearn.model_selection import train_test_split

import skpacbayes.engine.descent as descent
import skpacbayes.engine.optimisers as training
import skpacbayes.engine.passes as passes
import skpacbayes.engine.problem as problem
import skpacbayes.engine.rows as rows
import skpacbayes.engine.spec as specs
from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.voters import StumpBank

sys.path.insert(0, "benchmarks")
from bench_device import _synthetic  # noqa: E402


def _bandwidth(device):
    """GB/s of a device-to-device copy of 1 GiB (bytes read plus bytes written)."""
    x = torch.empty(2**28, dtype=torch.float32, device=device)
    y = torch.empty_like(x)
    for _ in range(2):
        y.copy_(x)
    _sync(device)
    start = time.perf_counter()
    for _ in range(5):
        y.copy_(x)
    _sync(device)
    return 5 * 2 * x.numel() * 4 / (time.perf_counter() - start) / 1e9


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


class _Timers:
    """Wraps the engine's phases with timers between two device synchronisations."""

    def __init__(self, device, profile):
        self.device = device
        self.profile = profile
        self.seconds = collections.defaultdict(float)
        self.evaluations = 0
        self.runs = 0
        self.graphs = []  # per L-BFGS run: whether its evaluation was captured as a CUDA graph
        self.active = []  # the phases being timed, outermost first

    def reset(self):
        self.seconds.clear()
        self.evaluations = self.runs = 0
        self.graphs = []

    def wrap(self, owner, name, phase):
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            self.active.append(phase)
            _sync(self.device)
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                _sync(self.device)
                self.active.pop()
                self.seconds[phase] += time.perf_counter() - start

        setattr(owner, name, timed)

    def count_evaluations(self):
        inner = descent.minimize_lbfgs  # the runs' (the vote start's is vote_loss's own)

        def counted(params, objective, **kwargs):
            if self.active[-1:] != ["lbfgs"]:  # the vote start's cross-entropy: a start
                return inner(params, objective, **kwargs)
            self.runs += 1

            def evaluation():
                self.evaluations += 1
                if self.profile and self.runs == 1 and self.evaluations == 10:
                    return self._profiled(objective, params)
                return objective()

            return inner(params, evaluation, **kwargs)

        descent.minimize_lbfgs = counted
        capture = training.cuda_graph

        def recorded(params, evaluate, logger=None):
            replay = capture(params, evaluate, logger=print)
            self.graphs.append(replay is not None)
            if replay is None or self.active[-1:] != ["lbfgs"]:
                return replay

            def counted_replay():  # a replay is an evaluation the objective does not see
                self.evaluations += 1
                return replay()

            return counted_replay

        training.cuda_graph = recorded

    def show_ends(self):
        """Print the engine's lines on each L-BFGS run and on the starts and ends."""

        def log(spec, message):
            if message.startswith(("starts:", "L-BFGS:")):
                print(f"  {message}", flush=True)

        specs.FitSpec.log = log

    def _profiled(self, objective, params):
        activities = [torch.profiler.ProfilerActivity.CPU]
        if self.device == "cuda":
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        with torch.profiler.profile(activities=activities) as prof:
            loss = objective()
            loss.backward(retain_graph=True)
            _sync(self.device)
        for p in params:
            p.grad = None
        key = "self_cuda_time_total" if self.device == "cuda" else "self_cpu_time_total"
        print(prof.key_averages().table(sort_by=key, row_limit=20), flush=True)
        kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        print(f"device kernels in one evaluation (forward and backward): {len(kernels)}")
        return objective()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("device", choices=["cpu", "cuda"])
    parser.add_argument("rows", type=int)
    parser.add_argument("posteriors", nargs="*", default=["dirichlet", "gaussian"])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--bandwidth", type=float, default=None)
    parser.add_argument("--n-jobs", type=int, default=None, help="the estimator's n_jobs")
    args = parser.parse_args()
    device = args.device
    bandwidth = args.bandwidth or _bandwidth(device)
    print(f"torch {torch.__version__}, {device}, copy bandwidth {bandwidth:.0f} GB/s", flush=True)
    timers = _Timers(device, args.profile)
    timers.wrap(passes.VotePasses, "whole", "votes")
    timers.wrap(problem.RowProblem, "__init__", "problem")
    timers.wrap(rows, "_row_starts", "starts")
    timers.wrap(rows, "run_lbfgs", "lbfgs")
    timers.wrap(rows, "certify", "certificate")
    timers.count_evaluations()
    timers.show_ends()

    def run(label, X, y, posterior):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        timers.reset()
        _sync(device)
        start = time.perf_counter()
        est = FirstOrderBoundClassifier(
            posterior=posterior,
            voters=StumpBank(n_thresholds=10),
            random_state=0,
            device=device,
            n_jobs=args.n_jobs,
        ).fit(X_tr, y_tr)
        _sync(device)
        total = time.perf_counter() - start
        s = timers.seconds
        n_eval = max(timers.evaluations, 1)
        floor = 2 * 4 * X_tr.shape[0] * 400 / (bandwidth * 1e9) * 1e3
        print(
            f"{label:34s} total {total:7.2f} s  votes {s['votes']:6.2f}  "
            f"problem {s['problem']:6.2f}  starts {s['starts']:6.2f}  "
            f"lbfgs {s['lbfgs']:7.2f} ({timers.runs} runs, {timers.evaluations} evals, "
            f"{sum(timers.graphs)}/{len(timers.graphs)} graphed, "
            f"{1e3 * s['lbfgs'] / n_eval:7.2f} ms/eval, floor {floor:.2f} ms/eval)  "
            f"certificate {s['certificate']:6.2f}  bound {est.bound_:.6f}  "
            f"test {np.mean(est.predict(X_te) != y_te):.4f}",
            flush=True,
        )

    X, y = _synthetic(args.rows)
    run("warm-up 5000 dirichlet", X[:5000], y[:5000], "dirichlet")
    for posterior in args.posteriors:
        run(f"synthetic {args.rows} FO {posterior}", X, y, posterior)


if __name__ == "__main__":
    main()
