"""The optimisers: mini-batch Adam, full-batch L-BFGS (scipy's L-BFGS-B on torch closures).

The Adam loop minimises a differentiable objective over mini-batches with Adam,
lowers the learning rate on plateaus (``ReduceLROnPlateau``), stops early and
keeps the parameters of the best epoch, where "best" is the objective
evaluated on the FULL training sample at the end of the epoch. Nothing here
knows about bounds or posteriors: the caller provides two closures.

torch is imported lazily by the estimators, so importing this module is the
moment torch is loaded.
"""

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import torch
from sklearn.exceptions import ConvergenceWarning

from skpacbayes._sync import trusted_inputs

__all__ = [
    "LBFGS_FTOL",
    "MIN_STEPS_PER_EPOCH",
    "POLISH_MAX_ITER",
    "LBFGSResult",
    "TrainingResult",
    "minimize_lbfgs",
    "polish",
    "resolve_device",
    "to_device",
    "train",
]

# Optimiser settings (documented in the user guide, "Training"): the fewest Adam steps per
# epoch, the full-batch L-BFGS iterations of the polish after Adam, and the relative decrease
# below which L-BFGS stops.
MIN_STEPS_PER_EPOCH = 10
POLISH_MAX_ITER = 50
LBFGS_FTOL = 1e-7


@dataclass
class TrainingResult:
    """What :func:`train` returns.

    Attributes
    ----------
    params : list of torch.Tensor
        Detached copies of the parameters of the best epoch.
    history : list of float
        Full-sample objective after each epoch (the first entry is the
        objective at initialisation).
    n_iter : int
        Number of epochs run.
    best_epoch : int
        Epoch whose parameters were kept (0 = initialisation).
    """

    params: list
    history: list = field(default_factory=list)
    n_iter: int = 0
    best_epoch: int = 0


def resolve_device(device):
    """Turn the estimator's ``device`` string into a usable ``torch.device``.

    Parameters
    ----------
    device : str
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``...

    Returns
    -------
    torch.device

    Raises
    ------
    ValueError
        If the string is not a torch device, the device is not available, or it
        cannot train: Apple's ``"mps"`` has no float64, which the training needs on
        the device (the once-per-epoch objective and the Dirichlet incomplete beta).
    """
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"device={device!r} is not a valid torch device string.") from exc
    if dev.type == "mps":
        raise ValueError(
            f"device={device!r}: MPS has no float64, which training needs on the device "
            "(the once-per-epoch objective, the Dirichlet incomplete beta); use 'cpu' or 'cuda'."
        )
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device={device!r}: only 'cpu' and 'cuda' devices can train.")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was requested but CUDA is not available.")
    return dev


def to_device(x, device):
    """Copy a host tensor to ``device`` without making the host wait for the device.

    On CUDA the copy goes through pinned memory, asynchronously (a plain copy from pageable
    memory synchronises); elsewhere it is ``x.to(device)``.
    """
    if torch.device(device).type == "cuda":
        return x.pin_memory().to(device, non_blocking=True)
    return x.to(device)


def _epoch_batches(n_samples, batch_size, min_steps, generator):
    """Mini-batch indices of one epoch: whole shuffled passes until ``min_steps`` batches."""
    steps = 0
    while True:
        order = torch.randperm(n_samples, generator=generator)
        for start in range(0, n_samples, batch_size):
            yield order[start : start + batch_size]
            steps += 1
        if steps >= min_steps:
            return


def train(
    params,
    batch_objective,
    full_objective,
    n_samples,
    *,
    max_epochs=100,
    batch_size=1024,
    learning_rate=0.1,
    lr_patience=2,
    early_stopping_patience=25,
    min_lr_ratio=1e-4,
    min_steps_per_epoch=10,
    generator=None,
    verbose=0,
    log_every=10,
    logger=print,
    prepare_epoch=None,
):
    """Minimise an objective with Adam over shuffled mini-batches.

    Parameters
    ----------
    params : list of torch.Tensor
        Leaf tensors with ``requires_grad=True``; updated in place.
    batch_objective : callable
        ``batch_objective(index)`` with ``index`` a 1-D ``torch.long`` tensor
        of sample positions returns a scalar tensor to minimise.
    full_objective : callable
        ``full_objective()`` returns the objective on the full sample as a float or a
        scalar tensor (evaluated without gradients); used for the learning-rate
        schedule, early stopping and the best-epoch checkpoint.
    n_samples : int
        Number of training samples (positions ``0 .. n_samples - 1``).
    max_epochs, batch_size, learning_rate : int, int, float
        Adam settings (the estimators' defaults: 100, 1024, 0.1).
    lr_patience : int
        Epochs without improvement before the learning rate is divided by 10.
    early_stopping_patience : int
        Epochs without improvement of the full objective before stopping.
    min_lr_ratio : float
        The training also stops once the schedule has brought the learning rate below
        ``learning_rate * min_lr_ratio`` (with the default, right after the fifth
        reduction: four reduced rates down to ``learning_rate * 1e-4`` have each run
        ``lr_patience + 1`` epochs without improvement). Further epochs would move each
        parameter by at most ``learning_rate * 1e-5`` per step, and the best epoch is kept
        anyway. ``0`` disables this rule.
    min_steps_per_epoch : int
        Fewest Adam steps in one epoch. An epoch is one pass over the shuffled sample, in
        ``ceil(n_samples / batch_size)`` mini-batches; when that is fewer than
        ``min_steps_per_epoch``, further passes (each freshly shuffled) follow within the
        same epoch until the epoch has taken ``min_steps_per_epoch`` steps. A sample smaller
        than the batch (every step is then the full-batch gradient) thus gets
        ``min_steps_per_epoch`` steps per epoch instead of one: the learning-rate schedule
        and the early stopping, which count epochs, then leave Adam enough steps to
        converge (one step per epoch stopped haberman's Dirichlet training after 16 steps).
    generator : torch.Generator, optional
        CPU generator used to shuffle; never the global RNG.
    prepare_epoch : callable, optional
        ``prepare_epoch(batches)`` turns the list of the epoch's mini-batch index tensors (on
        the CPU, drawn before the epoch starts) into the list of arguments passed to
        ``batch_objective`` (e.g. the rows each mini-batch uses, computed on the host and
        copied to the device in one transfer). Default: the index tensors themselves.
    verbose : int
        Print one line every ``log_every`` epochs when > 0.
    log_every : int
        Epoch block size for progress lines.
    logger : callable
        Where progress lines go.

    Returns
    -------
    TrainingResult
        When the training diverges (parameters or objective no longer finite at the end of
        an epoch), the parameters of the best epoch so far, and the loop stops with a
        ``ConvergenceWarning``.

    Notes
    -----
    No step of an epoch reads a tensor's value, so that on an accelerator the host queues
    the steps without waiting for the device: the steps run inside
    :func:`skpacbayes._sync.trusted_inputs` (the bound functions and the posteriors skip
    their value checks), a non-finite mini-batch objective contributes no gradient (masked
    with ``torch.where`` instead of a test), and the finiteness of the parameters is checked
    once per epoch, with the full-sample objective, in one read of the device.

    Raises
    ------
    ValueError
        If ``learning_rate`` is so large that Adam's first step overflows the parameters'
        dtype.
    """
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    # Adam's first step moves each parameter by up to learning_rate / (1 - beta1), computed in
    # the parameters' dtype: past that dtype's range torch fails inside the optimizer.
    largest = min(
        (torch.finfo(p.dtype).max for p in params if p.is_floating_point()), default=math.inf
    )
    if not learning_rate / (1.0 - optimizer.param_groups[0]["betas"][0]) < largest:
        raise ValueError(
            f"learning_rate={learning_rate!r} is too large for the {params[0].dtype} training: "
            f"Adam's step (learning_rate / (1 - beta1)) overflows {largest:.3g}. Use a "
            "learning_rate of the order of 0.1 (a large one makes the training diverge)."
        )
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="min", factor=0.1, patience=lr_patience
    )

    def snapshot():
        return [p.detach().clone() for p in params]

    best_value = float(full_objective())  # with the checks: a bad start raises here
    if not math.isfinite(best_value):
        best_value = math.inf
    result = TrainingResult(params=snapshot(), history=[best_value])
    stale = 0
    diverged = stepped = False
    for epoch in range(1, max_epochs + 1):
        batches = list(_epoch_batches(n_samples, batch_size, min_steps_per_epoch, generator))
        if prepare_epoch is not None:
            batches = prepare_epoch(batches)
        with trusted_inputs():
            for index in batches:
                optimizer.zero_grad(set_to_none=True)
                try:
                    loss = batch_objective(index)
                except ValueError:
                    if not stepped:  # the initial parameters: a genuine error, not a divergence
                        raise
                    diverged = True  # e.g. parameters past the float32 range
                    break
                if not loss.requires_grad:  # constant objective: nothing to learn
                    continue
                loss.backward()
                # a non-finite mini-batch objective gives no usable direction: no gradient
                finite = torch.isfinite(loss.detach())
                for p in params:
                    if p.grad is not None:
                        p.grad = torch.where(finite, p.grad, 0.0)
                optimizer.step()
                stepped = True
            if not diverged:
                try:
                    value = full_objective()
                except ValueError:  # as above: the objective of diverged parameters
                    if not stepped:
                        raise
                    diverged = True
        if not diverged:  # the epoch's one read of the device: objective and finiteness
            finite = torch.stack([torch.isfinite(p.detach()).all() for p in params]).all()
            value, finite = torch.stack(
                [
                    torch.as_tensor(value, dtype=torch.float64).to(finite.device).reshape(()),
                    finite.to(torch.float64),
                ]
            ).tolist()
            diverged = not finite
        if diverged:  # the parameters left the finite range: keep the best epoch and stop
            with torch.no_grad():
                for p, best in zip(params, result.params, strict=True):
                    p.copy_(best)
            warnings.warn(
                f"The training diverged at epoch {epoch} (parameters or objective no longer "
                f"finite): the parameters of epoch {result.best_epoch} are kept. "
                "A smaller learning_rate may help.",
                ConvergenceWarning,
                stacklevel=2,
            )
            break
        if not math.isfinite(value):
            value = math.inf
        result.history.append(value)
        result.n_iter = epoch
        scheduler.step(value)
        exhausted = optimizer.param_groups[0]["lr"] < learning_rate * min_lr_ratio * (1 - 1e-9)
        if value < best_value - 1e-12:
            best_value, stale = value, 0
            result.params, result.best_epoch = snapshot(), epoch
        else:
            stale += 1
        if verbose and (epoch % log_every == 0 or epoch == 1):
            logger(
                f"epoch {epoch:4d}  objective {value:.6f}  best {best_value:.6f}  "
                f"lr {optimizer.param_groups[0]['lr']:.2e}"
            )
        if stale >= early_stopping_patience or exhausted:
            break
    return result


def polish(params, objective, *, max_iter=50):
    """Refine a minimiser with full-batch L-BFGS; keep the result only if it is lower.

    Adam with a decaying learning rate stops a little above the minimum (0.03 to 0.1
    point of bound on the reference data sets); a quasi-Newton method on the full-sample
    objective closes that gap in a few dozen evaluations.

    Parameters
    ----------
    params : list of torch.Tensor
        Leaf tensors with ``requires_grad=True``, updated in place.
    objective : callable
        ``objective()`` returns the full-sample objective as a scalar tensor with a graph
        (the same function the training minimised).
    max_iter : int, default=50
        L-BFGS iterations (strong Wolfe line search, at most ``1.25 max_iter`` evaluations).

    Returns
    -------
    (before, after) : tuple of float
        The objective before and after; ``params`` are restored when ``after`` is not
        lower (or not finite).

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.engine.optimisers import polish
    >>> p = torch.tensor([3.0], requires_grad=True)
    >>> before, after = polish([p], lambda: ((p - 1.0) ** 2).sum())
    >>> before, round(after, 6), round(float(p.detach()), 4)
    (4.0, 0.0, 1.0)
    """
    saved = [p.detach().clone() for p in params]
    with torch.no_grad():
        before = float(objective())
    if max_iter <= 0 or not math.isfinite(before):
        return before, before
    optimizer = torch.optim.LBFGS(
        params,
        lr=1.0,
        max_iter=max_iter,
        history_size=20,
        tolerance_grad=0.0,
        tolerance_change=0.0,
        line_search_fn="strong_wolfe",
    )

    def closure():
        optimizer.zero_grad(set_to_none=True)
        loss = objective()
        if loss.requires_grad:
            loss.backward()
        return loss

    try:
        optimizer.step(closure)
        with torch.no_grad():
            after = float(objective())
    except (ValueError, RuntimeError):  # e.g. parameters pushed out of the valid range
        after = math.nan
    ok = (
        math.isfinite(after)
        and after < before
        and all(bool(torch.isfinite(p).all()) for p in params)
    )
    if not ok:
        with torch.no_grad():
            for p, old in zip(params, saved, strict=True):
                p.copy_(old)
        after = before
    for p in params:
        p.grad = None
    return before, after


_LBFGS_MEMORY = 30  # correction pairs kept by L-BFGS-B (n is small: memory is cheap)


@dataclass
class LBFGSResult:
    """What :func:`minimize_lbfgs` returns.

    Attributes
    ----------
    value : float
        The objective at the parameters left in place (the lowest one evaluated).
    n_iter : int
        L-BFGS iterations run.
    history : list of float
        The objective at the start and after each iteration.
    """

    value: float
    n_iter: int
    history: list = field(default_factory=list)


def minimize_lbfgs(
    params, objective, *, max_iter=100, ftol=1e-10, bounds=None, logger=None, rank=None, stop=None
):
    """Minimise a full-batch torch objective with scipy's L-BFGS-B; the best point is kept.

    The parameters are flattened into one float64 vector for
    :func:`scipy.optimize.minimize`; every evaluation runs ``objective()`` and its backward
    pass on the parameters' device and dtype and reads back the value and the gradient (one
    host transfer per evaluation, none inside it).

    Parameters
    ----------
    params : list of torch.Tensor
        Leaf tensors with ``requires_grad=True``, updated in place.
    objective : callable
        ``objective()`` returns the scalar objective (a tensor with a graph).
    max_iter : int, default=100
        L-BFGS iterations (at most ``5 max_iter + 20`` evaluations). ``0`` leaves the
        parameters as they are.
    ftol : float, default=1e-10
        Stop once an iteration lowers the objective by less than ``ftol`` relative to
        ``max(|f|, 1)``.
    bounds : list of (float, float), optional
        Box constraints, one ``(low, high)`` per tensor of ``params`` (L-BFGS-B keeps every
        trial point inside, so that a long line-search step cannot overflow the
        parametrisation).
    logger : callable, optional
        Called with a progress line after each iteration.
    rank : callable, optional
        ``rank()`` returns a number at the parameters just evaluated (called after every
        finite evaluation): the point kept is then the one of lowest rank, ties broken by
        the objective. For a surrogate objective whose evaluated points are judged by
        another criterion (the training errors of a vote trained on a cross-entropy).
    stop : callable, optional
        ``stop(history)`` is called after each iteration with the objective at the start
        and after each iteration so far; the run ends when it returns true.

    Returns
    -------
    LBFGSResult
        ``params`` hold the point of lowest finite objective evaluated (of lowest rank
        first, with ``rank``; the start when no evaluation is lower, or when every other
        one is not finite). ``value`` is that point's objective.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.engine.optimisers import minimize_lbfgs
    >>> p = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
    >>> result = minimize_lbfgs([p], lambda: ((p - 1.0) ** 2).sum())
    >>> round(result.value, 10), [round(float(v), 6) for v in p.detach()]
    (0.0, [1.0, 1.0])
    """
    from scipy.optimize import minimize

    shapes = [p.shape for p in params]
    sizes = [p.numel() for p in params]

    def unpack(x):
        with torch.no_grad():
            chunks = torch.from_numpy(x).split(sizes)
            for p, c, shape in zip(params, chunks, shapes, strict=True):
                p.copy_(c.reshape(shape).to(p.dtype))

    def pack():
        return torch.cat([p.detach().reshape(-1).to("cpu", torch.float64) for p in params])

    best = {"key": (math.inf, math.inf), "value": math.inf, "x": pack().numpy().copy()}

    def evaluate():
        """The objective and its gradient, one float64 tensor on the parameters' device."""
        for p in params:
            p.grad = None
        loss = objective()
        loss.backward()
        grads = [
            torch.zeros_like(p).reshape(-1) if p.grad is None else p.grad.detach().reshape(-1)
            for p in params
        ]
        return torch.cat([g.to(torch.float64) for g in grads] + [loss.detach().reshape(1).double()])

    graph = {"replay": None}

    def fun(x):
        unpack(x)
        try:
            if graph["replay"] is None:
                flat = evaluate()
            else:
                flat = graph["replay"]()
            flat = flat.to("cpu")
        except (ValueError, RuntimeError):  # parameters pushed out of the valid range
            return math.inf, np.zeros_like(x)
        value = float(flat[-1])
        grad = flat[:-1].numpy().copy()  # scipy keeps it; a replay's output is overwritten
        if not (math.isfinite(value) and np.all(np.isfinite(grad))):
            return math.inf, np.zeros_like(x)
        key = (float(rank()) if rank is not None else 0.0, value)
        if key < best["key"]:
            best["key"], best["value"], best["x"] = key, value, x.copy()
        return value, grad

    start = fun(best["x"].copy())[0]
    history = [start]
    n_iter = 0
    if max_iter > 0 and math.isfinite(start):  # the parameters hold the start
        graph["replay"] = cuda_graph(params, evaluate, logger=logger)

        def callback(intermediate_result):
            history.append(float(intermediate_result.fun))
            if logger is not None:
                logger(f"iteration {len(history) - 1:4d}  objective {history[-1]:.6f}")
            if stop is not None and stop(history):
                raise StopIteration

        options = {
            "maxiter": int(max_iter),
            "maxfun": 5 * int(max_iter) + 20,
            "ftol": ftol,
            "gtol": 0.0,
            "maxcor": _LBFGS_MEMORY,
        }
        box = None
        if bounds is not None:
            box = [b for b, size in zip(bounds, sizes, strict=True) for _ in range(size)]
        found = minimize(
            fun,
            best["x"].copy(),
            jac=True,
            method="L-BFGS-B",
            bounds=box,
            options=options,
            callback=callback,
        )
        n_iter = int(found.nit)
    graph["replay"] = None  # frees the graph's memory
    unpack(best["x"])
    for p in params:
        p.grad = None
    return LBFGSResult(value=best["value"], n_iter=n_iter, history=history)


_GRAPH_WARMUP = 2  # eager evaluations on a side stream before a capture (torch's advice)


def cuda_graph(params, evaluate, logger=None):
    """``evaluate`` captured once as a CUDA graph: a function that replays it, or ``None``.

    On CUDA one full-batch evaluation (objective, backward pass, gradient gathered into one
    tensor) launches about two thousand small kernels (the loss table, the kl inversion's
    fixed steps, the exact-level sums): launched one by one from Python they cost ten times
    the device's work. Replayed as one graph they are one launch. The parameters are updated
    in place between replays (their addresses are the graph's inputs) and the returned
    tensor is the graph's static output, overwritten by each replay.

    ``None`` (the caller evaluates eagerly) off CUDA, where an eager evaluation fails or
    is not finite at the current parameters, where the capture fails (an evaluation that
    copies from the host or reads a value cannot be captured), and where the replay at the
    current parameters differs from the eager evaluation there by more than a relative
    ``1e-5`` in any entry (plus ``1e-7`` of the largest entry; ``logger``, when given, is
    called with the reason). The replay runs the captured kernels, so it only differs where
    a kernel is not deterministic; its values only steer the training in any case, the
    certificate being computed afterwards from the trained parameters alone.
    """
    if not params or params[0].device.type != "cuda":
        return None
    device = params[0].device
    reason = None
    try:
        side = torch.cuda.Stream(device)
        side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side):
            for _ in range(_GRAPH_WARMUP):
                reference = evaluate()
        torch.cuda.current_stream(device).wait_stream(side)
        if not bool(torch.isfinite(reference).all()):
            reason = "the evaluation is not finite at the start"
        else:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                out = evaluate()
            graph.replay()
            scale = float(reference.abs().max())
            if not torch.allclose(out, reference, rtol=1e-5, atol=1e-7 * scale):
                reason = "the replay differs from the eager evaluation"
    except (ValueError, RuntimeError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
    finally:
        for p in params:
            p.grad = None
    if reason is not None:
        if logger is not None:
            logger(f"CUDA graph not used ({reason}): eager evaluations")
        return None

    def replay():
        graph.replay()
        return out

    return replay
