"""Host synchronisations of the training epochs.

A check or a branch that reads a tensor's value (``bool(x.any())``, ``x.item()``, a boolean
mask's size) makes the host wait for an accelerator: inside a training epoch that would stall
every step. Two switches:

* :func:`trusted_inputs` -- the value checks of the bound functions and the posteriors are
  skipped (a scoped switch: a context variable, so nested calls and threads see their own
  value). The training loop enters it for the steps of an epoch, whose inputs it builds
  itself; a non-finite result is caught once per epoch instead (see
  :func:`skpacbayes.engine.optimisers.train`).
  Outside it every public function checks its arguments, as documented.
* :func:`branch_free` -- whether a routine with a data-dependent shortcut (e.g. the
  incomplete beta's choice of method per element) takes its branch-free form: on every
  device but the CPU, where a value read costs nothing and the shortcut saves work.
"""

import contextlib
import contextvars

__all__ = ["branch_free", "checks_enabled", "trusted_inputs"]

_TRUSTED = contextvars.ContextVar("skpacbayes_trusted_inputs", default=False)


@contextlib.contextmanager
def _switched_on(switch):
    """Set the context variable ``switch`` to True for the block."""
    token = switch.set(True)
    try:
        yield
    finally:
        switch.reset(token)


def trusted_inputs():
    """Skip the value checks of internal calls (the training epochs) inside the block."""
    return _switched_on(_TRUSTED)


def checks_enabled():
    """False inside :func:`trusted_inputs`."""
    return not _TRUSTED.get()


def branch_free(x):
    """Whether routines on tensor ``x`` must avoid reading its values (not on the CPU)."""
    return x.device.type != "cpu"
