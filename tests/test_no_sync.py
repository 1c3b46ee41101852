"""The training epochs make no host synchronisation (the accelerator's code path, on CPU tensors).

On an accelerator a value read (``bool``, ``.item()``, ``float``), an operation whose output
size depends on values (``nonzero``, a boolean mask) or a copy from pageable host memory makes
the host wait for the device: in a training step that would stall every step. The training
therefore runs the branch-free forms of its routines on every device but the CPU
(:func:`skpacbayes._sync.branch_free`) and skips the value checks inside an epoch
(:func:`skpacbayes._sync.trusted_inputs`). These tests run those forms on CPU tensors
(``emulate_device`` of ``tests/_sync_detector.py``) and

* compare the fixed-iteration routines with the adaptive ones and with float64 over grids
  that include the hard corners;
* count, with a ``TorchDispatchMode`` (``tests/_sync_detector.py``), the operations of the
  training epochs that would synchronise on an accelerator (none per step allowed);
* check that a fit certifies the same bound on both code paths.
"""

import math
import warnings

import numpy as np
import pytest
import torch
from _sync_detector import SyncCounter, emulate_device
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning

import skpacbayes._sync
from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    MarginBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes._special import betainc_half
from skpacbayes._sync import branch_free, checks_enabled, trusted_inputs
from skpacbayes.bounds import kl_inv_lower, kl_inv_upper, pac_bayes_upper
from skpacbayes.engine import counts, descent, rows, vote_loss
from skpacbayes.engine.optimisers import to_device, train
from skpacbayes.voters import OutOfBagVoters, SplitForest

F32 = torch.float32
F64 = torch.float64


# ---------------------------------------------------------------------------------------------
# the switches
# ---------------------------------------------------------------------------------------------
def test_switches_are_scoped():
    x = torch.zeros(2)
    assert checks_enabled() and not branch_free(x)
    with trusted_inputs():
        assert not checks_enabled()
    with emulate_device():
        assert skpacbayes._sync.branch_free(x) and skpacbayes.bounds._kl.branch_free(x)
    assert checks_enabled() and not branch_free(x) and not skpacbayes.bounds._kl.branch_free(x)
    assert torch.equal(to_device(x, "cpu"), x)


def test_public_bound_functions_keep_checking():
    # the checks are skipped inside the training epochs only
    with pytest.raises(ValueError, match="q must not be NaN"):
        kl_inv_upper(torch.tensor(math.nan), torch.tensor(0.1))
    with pytest.raises(ValueError, match="delta"):
        pac_bayes_upper(torch.tensor(0.1), torch.tensor(1.0), torch.tensor(100.0), 0.0)
    with emulate_device(), pytest.raises(ValueError, match="must be in"):
        kl_inv_lower(torch.tensor(1.5, dtype=F32), torch.tensor(0.1, dtype=F32))
    with trusted_inputs():  # the training's own inputs: no check, a NaN shows in the result
        with emulate_device():
            assert math.isnan(float(kl_inv_upper(torch.tensor(math.nan), torch.tensor(0.1))))


# ---------------------------------------------------------------------------------------------
# the kl inverses: fixed number of steps
# ---------------------------------------------------------------------------------------------
def _kl_grid():
    tiny = float(torch.finfo(F32).tiny)
    below_one = float(np.nextafter(np.float32(1), np.float32(0)))
    q = np.concatenate(
        [[0.0, tiny, 1e-30, 1e-12, 1e-7, 0.5, below_one, 1.0], 10 ** np.linspace(-9, 0, 40)]
    )
    q = np.concatenate([q, 1 - 10 ** np.linspace(-7, -1, 15)])
    corners = [0.0, 1e-30, 1e-12, 1e-8, 1e-5, 3.0, 50.0, np.inf]
    eps = np.concatenate([corners, 10 ** np.linspace(-6, 1, 25)])
    qq, ee = np.meshgrid(q, eps)
    return qq.ravel().astype(np.float32), ee.ravel().astype(np.float32)


@pytest.mark.parametrize("inverse", [kl_inv_upper, kl_inv_lower])
def test_fixed_step_kl_inverse_matches_the_adaptive_one(inverse):
    q, eps = _kl_grid()
    q32 = torch.tensor(q, requires_grad=True)
    e32 = torch.tensor(eps, requires_grad=True)
    adaptive = inverse(q32, e32)
    adaptive.sum().backward()
    grads = q32.grad.clone(), e32.grad.clone()
    q32.grad = e32.grad = None
    with emulate_device():
        fixed = inverse(q32, e32)
    fixed.sum().backward()
    diff = (fixed - adaptive).detach().double()
    # the fixed search's bracket holds the adaptive one's: same conservative side, within 2^-48
    if inverse is kl_inv_upper:
        assert (diff >= 0).all()
    else:
        assert (diff <= 0).all()
    assert diff.abs().max() <= 2.0**-48
    # wherever the root is above 2^-24 the adaptive search stops within the fixed steps
    big = adaptive.detach() > 2.0**-24
    assert torch.equal(fixed.detach()[big], adaptive.detach()[big])
    assert torch.equal(q32.grad[big], grads[0][big]) and torch.equal(e32.grad[big], grads[1][big])


@pytest.mark.parametrize("inverse", [kl_inv_upper, kl_inv_lower])
def test_fixed_step_kl_inverse_within_the_training_tolerance_of_float64(inverse):
    # the float32 training value against the float64 certificate's function at the same
    # (float32) arguments: within the float32 resolution
    # (measured: 9.1e-8, as the adaptive float32 search)
    q, eps = _kl_grid()
    with emulate_device():
        got = inverse(torch.tensor(q), torch.tensor(eps)).double()
    adaptive = inverse(torch.tensor(q), torch.tensor(eps)).double()
    ref = inverse(torch.tensor(q, dtype=F64), torch.tensor(eps, dtype=F64))
    assert (got - ref).abs().max() <= 1e-7
    assert ((got - ref).abs() <= (adaptive - ref).abs() + 2.0**-48).all()


# ---------------------------------------------------------------------------------------------
# the incomplete beta function: branch-free dispatch
# ---------------------------------------------------------------------------------------------
def _beta_grid():
    rng = np.random.default_rng(20)
    a = np.concatenate([10 ** rng.uniform(-8, 12, 3000), [0.0, 5.0, np.inf, 3.0, 12.0, 0.0]])
    b = np.concatenate(
        [
            a[:1500] * np.exp(rng.normal(0, 0.3, 1500)),
            10 ** rng.uniform(-8, 12, 1500),
            [5.0, 0.0, 2.0, np.inf, 11.0, 0.0],
        ]
    )
    # corners: the region borders (min = 10, a + b = 1e8), a ~ b huge, NaN and negatives
    a = np.concatenate([a, [10.0, 9.999, 5e7, 5e7 + 1, 3e9, 1e12, np.nan, -1.0, np.inf]])
    b = np.concatenate([b, [9.999, 10.0, 5e7, 5e7, 3.00001e9, 1e12, 1.0, 2.0, np.inf]])
    return a.astype(np.float32), b.astype(np.float32)


@pytest.mark.parametrize("with_grad", [True, False])
def test_branch_free_betainc_matches_the_masked_dispatch(with_grad):
    a, b = _beta_grid()
    ta = torch.tensor(a, requires_grad=with_grad)
    tb = torch.tensor(b, requires_grad=with_grad)
    masked = betainc_half(ta, tb)
    if with_grad:
        masked.sum().backward()
        grads = ta.grad.clone(), tb.grad.clone()
        ta.grad = tb.grad = None
    with emulate_device():
        free = betainc_half(ta, tb)
    assert torch.equal(free.isnan(), masked.isnan())
    assert torch.equal(free.detach().nan_to_num(), masked.detach().nan_to_num())
    if with_grad:
        free.sum().backward()
        for got, ref in zip((ta.grad, tb.grad), grads, strict=True):
            assert torch.equal(got.isnan(), ref.isnan())
            assert torch.equal(got.nan_to_num(), ref.nan_to_num())


def test_branch_free_betainc_within_the_training_tolerance_of_float64():
    a, b = _beta_grid()
    keep = ~np.isnan(a) & (a >= 0)
    a, b = a[keep], b[keep]
    with emulate_device():
        got = betainc_half(torch.tensor(a), torch.tensor(b)).double()
    ref = betainc_half(torch.tensor(a, dtype=F64), torch.tensor(b, dtype=F64))
    assert torch.equal(got.isnan(), ref.isnan())
    assert (got - ref).abs().nan_to_num().max() <= 1e-6  # as the float32 path (test_special)


# ---------------------------------------------------------------------------------------------
# no synchronisation inside an epoch
# ---------------------------------------------------------------------------------------------
def test_the_detector_sees_what_synchronises():
    x = torch.arange(5.0)
    with SyncCounter() as counter:
        bool(x.sum() > 1)
        x[x > 2]
        torch.nonzero(x)
        y = torch.where(x > 2, x, 0.0).sum()  # none of these
        y = y * 2
    assert [name for name, _ in counter.events] == ["_local_scalar_dense", "index", "nonzero"]


class _Recorder:
    """Wraps ``skpacbayes.engine.optimisers.train`` as the estimators call it and counts the events.

    Not counted: the full objective at the start (before the epochs, with the checks) and
    ``prepare_epoch`` (host-side work by design: the mini-batches are drawn and mapped on the
    host, then sent in one copy per epoch). Adam's step counters live on the host (not
    ``capturable``): their reads, in ``torch/optim``, are not synchronisations either.
    """

    def __init__(self, monkeypatch):
        self.runs = []
        for module in (counts, rows):  # the Adam loops of both paths
            monkeypatch.setattr(module, "train", self._wrapped)

    def _wrapped(self, params, batch_objective, full_objective, n_samples, **kwargs):
        counter = SyncCounter(ignore=("torch/optim/",))
        calls = []

        def full():
            calls.append(1)
            if len(calls) == 1:
                with counter.pause():
                    return full_objective()
            return full_objective()

        prepare = kwargs.get("prepare_epoch")
        if prepare is not None:

            def prepare_epoch(batches):
                with counter.pause():
                    return prepare(batches)

            kwargs["prepare_epoch"] = prepare_epoch
        steps = []

        def batch(index):
            steps.append(1)
            return batch_objective(index)

        with counter:
            result = train(params, batch, full, n_samples, **kwargs)
        self.runs.append((result.n_iter, len(steps), counter.events))
        return result


_X, _Y = make_classification(1200, 8, random_state=0)
_XD, _YD = load_digits(return_X_y=True)
_CASES = [
    (FirstOrderBoundClassifier, {"posterior": "categorical"}, False),
    (FirstOrderBoundClassifier, {"posterior": "dirichlet"}, False),
    (FirstOrderBoundClassifier, {"posterior": "gaussian"}, False),
    (SecondOrderBoundClassifier, {"posterior": "dirichlet"}, False),
    (CBoundClassifier, {"posterior": "categorical"}, False),
    (PartitionBoundClassifier, {"posterior": "dirichlet"}, False),
    (BinomialBoundClassifier, {"posterior": "categorical"}, False),
    (MarginBoundClassifier, {}, False),
    (FirstOrderBoundClassifier, {"voters": SplitForest(n_estimators=6, random_state=0)}, False),
    (SecondOrderBoundClassifier, {"voters": OutOfBagVoters(n_estimators=6, random_state=0)}, False),
    (FirstOrderBoundClassifier, {"posterior": "categorical"}, True),  # 10 classes
]


@pytest.mark.parametrize(("cls", "params", "digits"), _CASES)
def test_training_epochs_make_no_host_synchronisation(monkeypatch, cls, params, digits):
    recorder = _Recorder(monkeypatch)
    X, y = (_XD, _YD) if digits else (_X, _Y)
    with emulate_device(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cls(solver="adam", max_epochs=3, batch_size=64, random_state=0, **params).fit(X, y)
    ((epochs, steps, events),) = recorder.runs
    assert epochs == 3 and steps >= 3 * 10
    # at most the epoch's one read of the device (the objective and the finiteness flag),
    # plus the out-of-bag objective's float(); never one per step
    names = [name for name, _ in events]
    assert len(events) <= 3 * epochs, (names, events[0][1] if events else "")


def test_a_diverged_training_is_caught_at_the_end_of_the_epoch():
    # a parameter that turns NaN in the middle of an epoch: the best epoch is kept
    p = torch.tensor([1.0], requires_grad=True)
    calls = []

    def batch_objective(index):
        calls.append(1)
        loss = ((p - 3.0) ** 2).sum()
        if len(calls) == 25:  # a finite objective whose gradient is infinite: p turns NaN
            loss = loss + torch.sqrt(p - p.detach()).sum()
        return loss

    def full():
        with torch.no_grad():
            return ((p - 3.0) ** 2).sum()

    with pytest.warns(ConvergenceWarning, match="diverged at epoch"):
        result = train([p], batch_objective, full, 100, max_epochs=5, batch_size=10)
    assert result.best_epoch >= 1 and torch.isfinite(p).all()


def test_a_nonfinite_mini_batch_objective_gives_no_gradient():
    p = torch.tensor([1.0], requires_grad=True)
    calls = []

    def batch_objective(index):
        calls.append(1)
        if len(calls) % 2:  # every other step: an infinite objective (finite parameters)
            return (p * 0 + math.inf).sum()
        return ((p - 3.0) ** 2).sum()

    def full():
        with torch.no_grad():
            return ((p - 3.0) ** 2).sum()

    result = train([p], batch_objective, full, 100, max_epochs=20, batch_size=10)
    assert torch.isfinite(p).all() and result.history[-1] < result.history[0]


# ---------------------------------------------------------------------------------------------
# same certificate on both code paths
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FirstOrderBoundClassifier, {"posterior": "categorical"}),
        (FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
        (SecondOrderBoundClassifier, {"posterior": "gaussian"}),
        (CBoundClassifier, {"posterior": "dirichlet"}),
        (FirstOrderBoundClassifier, {"voters": SplitForest(n_estimators=6, random_state=0)}),
    ],
)
@pytest.mark.parametrize("solver", ["adam", "lbfgs"])
def test_the_branch_free_path_certifies_the_same_bound(cls, params, solver):
    def fit():
        return cls(solver=solver, max_epochs=6, batch_size=128, random_state=0, **params).fit(
            _X, _Y
        )

    cpu = fit()
    with emulate_device():
        free = fit()
    assert free.bound_ == pytest.approx(cpu.bound_, abs=1e-5)
    if solver == "adam":
        np.testing.assert_allclose(free.history_, cpu.history_, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# on a CUDA device: torch's own detector
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FirstOrderBoundClassifier, {"posterior": "categorical"}),
        (FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
        (SecondOrderBoundClassifier, {"posterior": "gaussian"}),
        (CBoundClassifier, {"posterior": "categorical"}),
        (FirstOrderBoundClassifier, {"voters": SplitForest(n_estimators=6, random_state=0)}),
        (SecondOrderBoundClassifier, {"voters": OutOfBagVoters(n_estimators=6, random_state=0)}),
    ],
)
def test_cuda_training_steps_do_not_synchronise(monkeypatch, cls, params):
    # torch.cuda.set_sync_debug_mode("error") raises on every synchronising CUDA call; it is
    # on from the first mini-batch objective of an epoch to the epoch's full objective
    def wrapped(params, batch_objective, full_objective, n_samples, **kwargs):
        def batch(index):
            torch.cuda.set_sync_debug_mode("error")
            return batch_objective(index)

        def full():
            torch.cuda.set_sync_debug_mode("default")
            return full_objective()

        prepare = kwargs.get("prepare_epoch")
        if prepare is not None:

            def prepare_epoch(batches):
                torch.cuda.set_sync_debug_mode("default")
                return prepare(batches)

            kwargs["prepare_epoch"] = prepare_epoch
        try:
            return train(params, batch, full, n_samples, **kwargs)
        finally:
            torch.cuda.set_sync_debug_mode("default")

    for module in (counts, rows):
        monkeypatch.setattr(module, "train", wrapped)
    common = dict(solver="adam", max_epochs=3, batch_size=64, random_state=0, **params)
    cpu = cls(**common).fit(_X, _Y)
    cuda = cls(device="cuda", **common).fit(_X, _Y)
    assert cuda.bound_ == pytest.approx(cpu.bound_, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# the full-batch L-BFGS path: one objective-and-gradient evaluation reads the device once
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
        (FirstOrderBoundClassifier, {"posterior": "gaussian"}),
        (BinomialBoundClassifier, {"posterior": "categorical"}),
        (SecondOrderBoundClassifier, {"posterior": "dirichlet"}),
    ],
)
def test_full_batch_evaluations_make_no_host_synchronisation(monkeypatch, cls, params):
    from skpacbayes.engine import optimisers as _training

    evaluations = []

    def wrapped(params_, objective, **kwargs):
        def counted():
            counter = SyncCounter()
            with counter:
                loss = objective()
                loss.backward()  # minimize_lbfgs backpropagates the same graph
            for p in params_:
                p.grad = None
            evaluations.append(counter.events)
            return objective()

        return _training.minimize_lbfgs(params_, counted, **kwargs)

    for module in (descent, vote_loss):  # the descents and the vote start
        monkeypatch.setattr(module, "minimize_lbfgs", wrapped)
    with emulate_device():
        cls(solver="lbfgs", max_epochs=3, random_state=0, **params).fit(_X, _Y)
    assert evaluations
    for events in evaluations:  # the evaluation itself never waits; the solver reads it once
        assert not events, [name for name, _ in events]


# ---------------------------------------------------------------------------------------------
# CUDA graphs: one captured evaluation, replayed at every L-BFGS evaluation
# ---------------------------------------------------------------------------------------------
_GRAPH_CASES = [
    (FirstOrderBoundClassifier, {"posterior": "dirichlet"}),
    (FirstOrderBoundClassifier, {"posterior": "gaussian"}),
    (BinomialBoundClassifier, {"posterior": "categorical"}),
    (  # two halves and a free mixture weight
        FirstOrderBoundClassifier,
        {"posterior": "gaussian", "voters": SplitForest(n_estimators=6, random_state=0)},
    ),
]


def test_cuda_graph_is_not_used_off_cuda():
    from skpacbayes.engine.optimisers import cuda_graph

    p = torch.zeros(3, requires_grad=True)
    assert cuda_graph([p], lambda: (p**2).sum()) is None


@pytest.mark.parametrize(("cls", "params"), _GRAPH_CASES)
def test_replayed_evaluations_train_as_the_eager_ones(monkeypatch, cls, params):
    # a stand-in for the graph with its semantics (one static output tensor, overwritten by
    # each replay at the parameters' current values): the solver must read every replay
    # through it and end where the eager evaluations end
    from skpacbayes.engine import optimisers as _training

    replays = []

    def static_output(params_, evaluate, logger=None):
        out = evaluate().clone()

        def replay():
            replays.append(1)
            out.copy_(evaluate())
            return out

        return replay

    def fit():
        return cls(solver="lbfgs", max_epochs=8, random_state=0, **params).fit(_X, _Y)

    eager = fit()
    monkeypatch.setattr(_training, "cuda_graph", static_output)
    replayed = fit()
    assert replays
    assert replayed.bound_ == eager.bound_
    np.testing.assert_array_equal(replayed.history_, eager.history_)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize(("cls", "params"), _GRAPH_CASES)
def test_cuda_graphs_capture_every_run_and_certify_as_eager(monkeypatch, cls, params):
    from skpacbayes.engine import optimisers as _training

    captured = []

    def counted(params_, evaluate, logger=None):
        replay = cuda_graph(params_, evaluate, logger=reasons.append)
        captured.append(replay is not None)
        return replay

    cuda_graph, reasons = _training.cuda_graph, []
    common = dict(solver="lbfgs", max_epochs=20, random_state=0, device="cuda", **params)
    monkeypatch.setattr(_training, "cuda_graph", counted)
    graphed = cls(**common).fit(_X, _Y)
    assert captured and all(captured), reasons
    monkeypatch.setattr(_training, "cuda_graph", lambda *args, **kwargs: None)
    eager = cls(**common).fit(_X, _Y)
    assert graphed.bound_ == pytest.approx(eager.bound_, abs=1e-6)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_graph_falls_back_where_the_evaluation_copies_from_the_host():
    from skpacbayes.engine.optimisers import cuda_graph, minimize_lbfgs

    p = torch.zeros(3, device="cuda", requires_grad=True)

    def objective():  # a pageable host-to-device copy inside: not capturable
        return ((p - torch.tensor([1.0, 2.0, 3.0], device="cuda")) ** 2).sum()

    reasons = []

    def evaluate():
        p.grad = None
        loss = objective()
        loss.backward()
        return torch.cat([p.grad.double(), loss.detach().reshape(1).double()])

    assert cuda_graph([p], evaluate, logger=reasons.append) is None
    assert len(reasons) == 1 and "CUDA graph not used" in reasons[0]
    result = minimize_lbfgs([p], objective)
    assert result.value == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(p.detach().cpu().numpy(), [1.0, 2.0, 3.0], atol=1e-5)
