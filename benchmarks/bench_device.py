"""Training on CUDA against the CPU: same certificate, and the speed of each (issue 5).

Usage::

    python benchmarks/bench_device.py [--rows 200000] [--max-epochs 20]

For each configuration, fits the estimator with ``device="cpu"`` and ``device="cuda"``
(same seed) and prints the fit time, the certified bound and the test error of each, and
the absolute bound difference. The certificate itself is computed in float64 on the CPU in
both cases; only the float32 training runs on the device. Exits with status 1 if a bound
differs by more than ``--tolerance``.
"""

import argparse
import sys
import time

import numpy as np
import torch
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split

from skpacbayes import (
    FirstOrderBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.voters import SplitForest, StumpBank


def _synthetic(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 20)).astype(np.float32)
    y = (X[:, :5].sum(axis=1) + 0.5 * rng.normal(size=n_rows) > 0).astype(int)
    return X, y


def _configurations(n_rows):
    big = _synthetic(n_rows)
    stumps = StumpBank(n_thresholds=10)
    return [
        (
            "breast_cancer",
            load_breast_cancer(return_X_y=True),
            FirstOrderBoundClassifier,
            {"posterior": "categorical"},
        ),
        (
            "breast_cancer",
            load_breast_cancer(return_X_y=True),
            PartitionBoundClassifier,
            {"posterior": "dirichlet"},
        ),
        (
            "digits",
            load_digits(return_X_y=True),
            FirstOrderBoundClassifier,
            {"posterior": "gaussian", "voters": SplitForest(n_estimators=50, random_state=0)},
        ),
        (
            f"synthetic {n_rows}x20",
            big,
            FirstOrderBoundClassifier,
            {"posterior": "categorical", "voters": stumps},
        ),
        (
            f"synthetic {n_rows}x20",
            big,
            SecondOrderBoundClassifier,
            {"posterior": "dirichlet", "voters": stumps},
        ),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--max-epochs", type=int, default=20)
    parser.add_argument("--tolerance", type=float, default=0.01)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to compare")
        return 0
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    header = f"{'data':24s} {'estimator':28s} {'posterior':11s}"
    print(
        f"{header} {'cpu s':>7s} {'cuda s':>7s} {'cpu bound':>9s} {'cuda bound':>10s} "
        f"{'|diff|':>8s} {'cpu test':>8s} {'cuda test':>9s}"
    )
    worst = 0.0
    for name, (X, y), cls, params in _configurations(args.rows):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        row = {}
        for device in ("cpu", "cuda"):
            est = cls(**params, max_epochs=args.max_epochs, random_state=0, device=device)
            start = time.perf_counter()
            est.fit(X_tr, y_tr)
            row[device] = (
                time.perf_counter() - start,
                est.bound_,
                float(np.mean(est.predict(X_te) != y_te)),
            )
        diff = abs(row["cpu"][1] - row["cuda"][1])
        worst = max(worst, diff)
        print(
            f"{name:24s} {cls.__name__:28s} {params['posterior']:11s} "
            f"{row['cpu'][0]:7.2f} {row['cuda'][0]:7.2f} {row['cpu'][1]:9.4f} "
            f"{row['cuda'][1]:10.4f} {diff:8.1e} {row['cpu'][2]:8.4f} {row['cuda'][2]:9.4f}",
            flush=True,
        )
    print(f"largest bound difference: {worst:.2e} (tolerance {args.tolerance})")
    return int(worst > args.tolerance)


if __name__ == "__main__":
    sys.exit(main())
