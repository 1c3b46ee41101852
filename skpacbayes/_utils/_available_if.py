"""A method that exists only when a check passes, and says why it does not otherwise.

scikit-learn's :func:`sklearn.utils.metaestimators.available_if` replaces whatever the check
raises by "This 'Estimator' has no attribute 'method'" (the reason only in the chained
exception); this one lets the check's own ``AttributeError`` through, so that the message the
user reads names the parameter and the fix. ``hasattr`` is ``False`` either way.
"""

from functools import update_wrapper, wraps
from types import MethodType

__all__ = ["available_if"]


class _AvailableIf:
    """Descriptor: the method on instances whose ``check`` passes, else ``AttributeError``."""

    def __init__(self, fn, check):
        self.fn = fn
        self.check = check
        update_wrapper(self, fn)

    def _check(self, obj, owner):
        generic = f"This {owner.__name__!r} has no attribute {self.fn.__name__!r}"
        try:
            available = self.check(obj)
        except AttributeError:
            raise  # the check's own message: what is missing and how to get it
        except Exception as exc:
            raise AttributeError(generic) from exc
        if not available:
            raise AttributeError(generic)

    def __get__(self, obj, owner=None):
        owner = type(obj) if owner is None else owner
        if obj is not None:
            self._check(obj, owner)
            return MethodType(self.fn, obj)

        @wraps(self.fn)
        def unbound(*args, **kwargs):  # the class attribute: its docstring, for the docs
            self._check(args[0], owner)
            return self.fn(*args, **kwargs)

        return unbound


def available_if(check):
    """Make the decorated method available only on instances for which ``check`` is true.

    Parameters
    ----------
    check : callable
        Called with the instance; returns a truthy value when the method is available, else
        ``False`` (a generic ``AttributeError``) or raises an ``AttributeError`` whose message
        says what is missing (raised as it is).

    Returns
    -------
    decorator : callable
        Turns the method into a descriptor that runs ``check`` on each access.

    Examples
    --------
    >>> from skpacbayes._utils._available_if import available_if
    >>> def _needs_x(obj):
    ...     if obj.x is None:
    ...         raise AttributeError("hello needs x: pass Greeter(x=1)")
    ...     return True
    >>> class Greeter:
    ...     def __init__(self, x=None):
    ...         self.x = x
    ...     @available_if(_needs_x)
    ...     def hello(self):
    ...         return "hello"
    >>> hasattr(Greeter(), "hello"), Greeter(x=1).hello()
    (False, 'hello')
    >>> Greeter().hello()
    Traceback (most recent call last):
    ...
    AttributeError: hello needs x: pass Greeter(x=1)
    """
    return lambda fn: _AvailableIf(fn, check)
