"""Where a fit's time goes on a device: the Adam loop (per step), the polish, the certificate.

Usage::

    python benchmarks/bench_device_phases.py DEVICE DATA_HOME N_ROWS

``DEVICE`` is ``cpu`` or ``cuda``. Tasks, on all rows (no test split): the synthetic task of
``bench_device.py`` with ``N_ROWS`` rows (20 Gaussian features, 400 stumps, FO categorical,
3 epochs, batch 1024 then 16384), then adult from ``DATA_HOME`` (FO dirichlet, 20 epochs,
batch 1024 then 8192), after a small warm-up fit. Each phase (the Adam loop, the L-BFGS
polish, the float64 certificate) is timed between two device synchronisations, so its
seconds are its own; the Adam steps are counted, and ``ms/step`` is the loop's time per
step. A step whose time does not grow with the batch is bound by the host (the launches of
many small kernels), not by the device.
"""

import collections
import sys
import time

import torch

import skpacbayes._fitting as fitting
from skpacbayes import FirstOrderBoundClassifier
from skpacbayes.voters import StumpBank

sys.path.insert(0, "benchmarks")
from bench_device import _real, _synthetic  # noqa: E402

PHASES = ("fit_posteriors", "train", "polish", "_certify")


def _timed(device, seconds, steps):
    """Wrap the phases of ``skpacbayes._fitting`` and ``Adam.step`` with timers."""

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    def wrap(name):
        inner = getattr(fitting, name)

        def timed(*args, **kwargs):
            sync()
            start = time.perf_counter()
            out = inner(*args, **kwargs)
            sync()
            seconds[name] += time.perf_counter() - start
            return out

        setattr(fitting, name, timed)

    for name in PHASES:
        wrap(name)
    adam_step = torch.optim.Adam.step

    def counted(self, *args, **kwargs):
        steps[0] += 1
        return adam_step(self, *args, **kwargs)

    torch.optim.Adam.step = counted
    return sync


def main():
    device, data_home, n_rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seconds, steps = collections.defaultdict(float), [0]
    sync = _timed(device, seconds, steps)

    def run(label, X, y, params, epochs, batch):
        seconds.clear()
        steps[0] = 0
        sync()
        start = time.perf_counter()
        est = FirstOrderBoundClassifier(
            **params, max_epochs=epochs, batch_size=batch, random_state=0, device=device
        ).fit(X, y)
        sync()
        total = time.perf_counter() - start
        per_step = 1000 * seconds["train"] / max(steps[0], 1)
        print(
            f"{label:26s} epochs={epochs:<3d} batch={batch:<6d} total {total:6.2f} s  "
            f"train {seconds['train']:6.2f} s ({steps[0]} steps, {per_step:6.2f} ms/step)  "
            f"polish {seconds['polish']:5.2f} s  certificate {seconds['_certify']:5.2f} s  "
            f"bound {est.bound_:.6f}",
            flush=True,
        )

    X, y = _synthetic(n_rows)
    stumps = {"posterior": "categorical", "voters": StumpBank(n_thresholds=10)}
    run("warm-up", X[:5000], y[:5000], stumps, 2, 1024)
    run(f"synthetic {n_rows} FO cat", X, y, stumps, 3, 1024)
    run(f"synthetic {n_rows} FO cat", X, y, stumps, 3, 16384)
    X, y = _real("adult", data_home, None)
    run("adult FO dirichlet", X, y, {"posterior": "dirichlet"}, 20, 1024)
    run("adult FO dirichlet", X, y, {"posterior": "dirichlet"}, 20, 8192)


if __name__ == "__main__":
    main()
