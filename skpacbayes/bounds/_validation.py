"""Argument checks and the float/tensor calling convention shared by every bound.

Every public function of :mod:`skpacbayes.bounds` is written once, in torch, and wrapped by
:func:`dual`. The wrapper

* checks the arguments it is told about and raises a clear :class:`ValueError`;
* converts them to tensors: if any of them is a torch tensor (or a list of tensors), all are
  converted to the promoted floating dtype and the device of the tensors and the result is
  returned as a tensor (differentiable); otherwise they become float64 CPU tensors and the result
  is returned as a Python float (0-d result) or a NumPy array.

Checks on tensors that require grad are skipped (they would need a device synchronisation in
the training hot path), and so are all checks inside
:func:`skpacbayes._sync.trusted_inputs` (the training epochs, whose inputs the training loop
builds itself); everything else, including tensors that do not require grad, is checked.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import numpy as np
import torch

from skpacbayes._sync import checks_enabled

from ._scalar_checks import check_int

__all__ = ["dual", "check_stat_tensor"]


def _describe(x: torch.Tensor) -> str:
    if x.numel() == 1:
        return repr(float(x))
    return f"array of shape {tuple(x.shape)}"


def check_stat_tensor(name: str, x: torch.Tensor) -> None:
    """Raise ``ValueError`` unless every entry of ``x`` is in [0, 1] (NaN rejected)."""
    if isinstance(x, torch.Tensor) and x.requires_grad:
        return
    if bool(torch.isnan(x).any()):
        raise ValueError(f"{name} must not be NaN, got {_describe(x)}")
    if bool(((x < 0) | (x > 1)).any()):
        raise ValueError(f"{name} must be in [0, 1], got {_describe(x)}")


def _no_nan(name, x):
    if bool(torch.isnan(x).any()):
        raise ValueError(f"{name} must not be NaN, got {_describe(x)}")


def _check_nonneg(name, x):
    _no_nan(name, x)
    if bool((x < 0).any()):
        raise ValueError(f"{name} must be >= 0, got {_describe(x)}")


def _check_nonneg_finite(name, x):
    _check_nonneg(name, x)
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite, got {_describe(x)}")


def _check_positive(name, x):
    _check_nonneg_finite(name, x)
    if bool((x <= 0).any()):
        raise ValueError(f"{name} must be > 0, got {_describe(x)}")


def _check_sample_size(name, x):
    _no_nan(name, x)
    if not bool(torch.isfinite(x).all()) or bool((x < 1).any()):
        raise ValueError(f"{name} (a sample size) must be finite and >= 1, got {_describe(x)}")


def _check_count0(name, x):
    _no_nan(name, x)
    if not bool(torch.isfinite(x).all()) or bool((x < 0).any()):
        raise ValueError(f"{name} must be a finite count >= 0, got {_describe(x)}")


def _check_delta(name, x):
    _no_nan(name, x)
    if bool(((x <= 0) | (x > 1)).any()):
        raise ValueError(f"{name} must be in (0, 1], got {_describe(x)}")


def _check_deltas(name, x):
    _check_delta(name, x)
    if x.ndim != 1 or x.numel() < 1:
        raise ValueError(f"{name} must be a non-empty sequence of confidence levels")
    if float(x.sum()) > 1.0 + 1e-12:
        raise ValueError(f"the {name} must sum to at most 1, got {float(x.sum())!r}")


def _check_weights(name, x):
    _check_nonneg_finite(name, x)
    if x.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D sequence")
    tol = max(1e-9, 16 * x.numel() * torch.finfo(x.dtype).eps)
    if abs(float(x.sum()) - 1.0) > tol:
        raise ValueError(f"{name} must sum to 1, got sum {float(x.sum())!r}")


# kind name -> checker (applied to the float64 CPU copy of a non-tensor argument, or to the
# tensor itself when it does not require grad)
_CHECKS: dict[str, Callable[[str, torch.Tensor], None] | None] = {
    "stat": check_stat_tensor,
    "nonneg": _check_nonneg,  # KL divergences, kl budgets: +inf allowed
    "nonneg_finite": _check_nonneg_finite,
    "positive": _check_positive,
    "m": _check_sample_size,
    "count0": _check_count0,
    "delta": _check_delta,
    "deltas": _check_deltas,
    "weights": _check_weights,
    "any": None,  # converted, checked by the function itself
}


def _contains_tensor(value) -> bool:
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, list | tuple):
        return any(isinstance(v, torch.Tensor) for v in value)
    return False


def _iter_tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, list | tuple):
        yield from (v for v in value if isinstance(v, torch.Tensor))


def _to_tensor(value, dtype, device) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.to(dtype=dtype, device=device)
    if isinstance(value, list | tuple) and _contains_tensor(value):
        return torch.stack([_to_tensor(v, dtype, device) for v in value])
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        # a fill, not a copy from the host (which would wait for an accelerator)
        return torch.full((), float(value), dtype=dtype, device=device)
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"expected a number or an array of numbers, got {value!r}") from exc
    return torch.as_tensor(arr).to(dtype=dtype, device=device)


def _to_output(result):
    if isinstance(result, tuple):
        return tuple(_to_output(r) for r in result)
    if isinstance(result, torch.Tensor):
        if result.ndim == 0:
            return float(result)
        return result.detach().cpu().numpy()
    return result


def dual(**kinds: str):
    """Decorate a torch implementation with checks and the float/tensor convention.

    ``kinds`` maps argument names to a kind of :data:`_CHECKS` (converted to tensors), or to
    ``"int>=1"`` / ``"int>=0"`` (checked, passed as a Python ``int``). Arguments not named pass
    through untouched; ``None`` is passed through for optional arguments (default ``None``) and
    rejected, with the argument's name, for required ones.
    """
    for kind in kinds.values():
        if kind not in _CHECKS and kind not in ("int>=1", "int>=0"):
            raise ValueError(f"unknown argument kind {kind!r}")

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = bound.arguments
            tensors = [
                t
                for name, kind in kinds.items()
                if kind in _CHECKS
                for t in _iter_tensors(values[name])
            ]
            tensor_mode = bool(tensors)
            if tensor_mode:
                floating = [t.dtype for t in tensors if t.is_floating_point()]
                dtype = (
                    functools.reduce(torch.promote_types, floating, floating[0])
                    if floating
                    else torch.float64
                )
                device = tensors[0].device
            else:
                dtype, device = torch.float64, torch.device("cpu")
            for name, kind in kinds.items():
                value = values[name]
                if value is None:
                    if signature.parameters[name].default is None:
                        continue
                    raise ValueError(f"{name} must be a number or an array of numbers, got None")
                if kind.startswith("int>="):
                    values[name] = check_int(name, value, int(kind[5:]))
                    continue
                check = _CHECKS[kind]
                if isinstance(value, torch.Tensor):
                    if check is not None and not value.requires_grad and checks_enabled():
                        check(name, value)
                    values[name] = _to_tensor(value, dtype, device)
                else:
                    cpu = _to_tensor(value, torch.float64, torch.device("cpu"))
                    checked = check is not None and checks_enabled()
                    if checked and not any(t.requires_grad for t in _iter_tensors(value)):
                        check(name, cpu)
                    values[name] = _to_tensor(value, dtype, device) if tensor_mode else cpu
            result = fn(*bound.args, **bound.kwargs)
            return result if tensor_mode else _to_output(result)

        return wrapper

    return decorate
