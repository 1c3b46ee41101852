"""Tests of the shared optimisation loop (skpacbayes._training.train)."""

import pytest
import torch

from skpacbayes._training import train


def _quadratic(target, n_samples=64):
    """Mini-batch and full objectives of ``mean_i (p - target_i)^2`` for a scalar ``p``."""
    p = torch.zeros((), requires_grad=True)
    targets = torch.linspace(target - 1.0, target + 1.0, n_samples)

    def batch(index):
        return ((p - targets[index]) ** 2).mean()

    def full():
        with torch.no_grad():
            return float(((p - targets) ** 2).mean())

    return p, batch, full


def test_train_minimises_and_keeps_the_best_epoch():
    p, batch, full = _quadratic(2.0)
    result = train([p], batch, full, 64, max_epochs=60, batch_size=16,
                   generator=torch.Generator().manual_seed(0))
    assert len(result.history) == result.n_iter + 1
    assert result.history[result.best_epoch] == min(result.history)
    assert float(result.params[0]) == pytest.approx(2.0, abs=1e-2)
    assert 1 <= result.n_iter <= 60


@pytest.mark.parametrize(
    ("min_lr_ratio", "expected"),
    [
        # a constant objective: epoch 1 sets the schedule's reference, then the rate is
        # divided by 10 every lr_patience + 1 = 3 epochs (epochs 4, 7, 10, 13, 16);
        # 0.1 -> 1e-6 < 0.1 * 1e-4 after the fifth reduction (epoch 16)
        (1e-4, 16),
        (1e-2, 10),  # 0.1 -> 1e-4 < 1e-3 after the third
        (0.0, 25),  # only the patience stops it
    ],
)
def test_train_stops_once_the_learning_rate_has_collapsed(min_lr_ratio, expected):
    p = torch.zeros(3, requires_grad=True)

    def batch(index):
        return (p * 0.0).sum() + 1.0

    result = train([p], batch, lambda: 1.0, 10, max_epochs=100, batch_size=5,
                   early_stopping_patience=25, min_lr_ratio=min_lr_ratio)
    assert result.n_iter == expected
    assert result.best_epoch == 0
