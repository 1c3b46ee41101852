"""Counting the operations that make the host wait for an accelerator, on CPU tensors.

On CUDA a value read (``bool(t)``, ``t.item()``, ``float(t)``), an operation whose output size
depends on values (``nonzero``, boolean-mask indexing, ``unique``, ``masked_select``...) or a
copy between the host and the device blocks the host until the device has caught up.
:class:`SyncCounter` is a ``TorchDispatchMode``: it sees every aten operation of the block,
CPU tensors included, and records those that would synchronise on an accelerator, with the
Python stack of each, so that a test can run the training on the CPU and count them.
:func:`emulate_device` makes CPU tensors take the branch-free forms of an accelerator.
"""

import contextlib
import traceback

import torch
from torch.utils._python_dispatch import TorchDispatchMode

_VALUE_READS = {"_local_scalar_dense", "item", "is_nonzero", "equal", "allclose"}
_DYNAMIC = {
    "nonzero", "nonzero_static", "masked_select", "unique_dim", "_unique", "_unique2",
    "unique_consecutive", "unique_dim_consecutive", "repeat_interleave", "argwhere",
}  # fmt: skip


def _bool_index(args):
    indices = args[1] if len(args) > 1 else ()
    return any(
        isinstance(t, torch.Tensor) and t.dtype in (torch.bool, torch.uint8)
        for t in (indices or ())
    )


class SyncCounter(TorchDispatchMode):
    """Record the host synchronisations of the block (``self.events``: op name, stack).

    ``ignore``: path fragments; an event whose stack passes through one is not recorded.
    Inside ``with counter.pause():`` nothing is recorded (host-side work by design).
    """

    def __init__(self, ignore=()):
        super().__init__()
        self.events = []
        self.ignore = tuple(ignore)
        self.paused = 0

    @contextlib.contextmanager
    def pause(self):
        self.paused += 1
        try:
            yield
        finally:
            self.paused -= 1

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._schema.name.split("::")[-1]
        sync = name in _VALUE_READS or name in _DYNAMIC
        if name in ("index", "index_put", "index_put_", "_index_put_impl_"):
            sync = _bool_index(args)
        if sync and not self.paused:
            stack = "".join(traceback.format_stack(limit=25)[:-1])
            if not any(part in stack for part in self.ignore):
                self.events.append((name, stack))
        return func(*args, **kwargs)


@contextlib.contextmanager
def emulate_device():
    """Inside the block, CPU tensors take the branch-free forms of an accelerator.

    Every module of the package that reads ``skpacbayes._sync.branch_free`` sees one that
    always answers True (the package's own switch reads the device only).
    """
    import sys
    from unittest import mock

    from skpacbayes import _sync

    original = _sync.branch_free
    with contextlib.ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            if name.startswith("skpacbayes") and getattr(module, "branch_free", None) is original:
                stack.enter_context(mock.patch.object(module, "branch_free", lambda x: True))
        yield
