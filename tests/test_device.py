"""Training on a CUDA device: the same certificate as on the CPU (skipped without a GPU).

The certificate is always computed in float64 on the CPU from the trained posterior, so the
only difference between devices is the float32 training trajectory (reduction order on the
GPU). The bounds must agree within a small tolerance and the fitted estimator must hold no
CUDA tensor (it pickles and predicts on a machine without a GPU).
"""

import pickle

import numpy as np
import pytest
import torch
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split

from skpacbayes import (
    BinomialBoundClassifier,
    FirstOrderBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.voters import SplitForest

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

BOUND_TOLERANCE = 0.01


def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


def _digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


CASES = {
    "FO-categorical-stumps": (
        _breast_cancer,
        FirstOrderBoundClassifier,
        {"posterior": "categorical"},
    ),
    "SO-dirichlet-stumps": (_breast_cancer, SecondOrderBoundClassifier, {"posterior": "dirichlet"}),
    "Part-categorical-stumps": (
        _breast_cancer,
        PartitionBoundClassifier,
        {"posterior": "categorical"},
    ),
    # the loss tables (each row's interval found by arithmetic on the device)
    "FO-dirichlet-stumps": (_breast_cancer, FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
    "Bin-categorical-stumps": (
        _breast_cancer,
        BinomialBoundClassifier,
        {"posterior": "categorical"},
    ),
    # the training-error rank read after each evaluation
    "VC-gaussian-stumps": (_breast_cancer, VCDimBoundClassifier, {"posterior": "gaussian"}),
    "FO-gaussian-forest": (
        _digits,
        FirstOrderBoundClassifier,
        {"posterior": "gaussian", "voters": SplitForest(n_estimators=20, random_state=0)},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cuda_training_matches_cpu(case):
    data, estimator_class, params = CASES[case]
    X_tr, X_te, y_tr, y_te = data()
    fitted = {}
    for device in ("cpu", "cuda"):
        est = estimator_class(**params, max_epochs=20, random_state=0, device=device)
        fitted[device] = est.fit(X_tr, y_tr)
    cpu, gpu = fitted["cpu"], fitted["cuda"]
    assert np.isfinite(gpu.bound_) and 0.0 <= gpu.bound_ <= 1.0
    assert abs(gpu.bound_ - cpu.bound_) <= BOUND_TOLERANCE
    agreement = np.mean(gpu.predict(X_te) == cpu.predict(X_te))
    assert agreement >= 0.97
    # nothing CUDA-bound is kept: the fitted estimator round-trips through pickle and its
    # parameters are plain numpy arrays
    clone = pickle.loads(pickle.dumps(gpu))
    np.testing.assert_array_equal(clone.predict(X_te), gpu.predict(X_te))
    for name, value in vars(gpu).items():
        assert not isinstance(value, torch.Tensor), name
