"""Estimators that deploy their untrained start, for the tests that read one.

The estimators refuse ``max_epochs=0`` (a user asking for no training gets an error, not a
vacuous bound); the engine still takes it (:class:`~skpacbayes.engine.spec.FitSpec`:
``max_epochs=0`` deploys the data-independent start, the prior plus a ``0.01 N(0, I)``
noise, certified as any posterior). ``untrained(cls)`` is ``cls`` handing the engine that
spec: a subclass, so that ``clone`` and a selection's copies keep it.
"""

import dataclasses

_UNTRAINED = {}


def untrained(cls):
    """The subclass of ``cls`` whose fits deploy the untrained start."""
    if cls not in _UNTRAINED:

        def _fit_spec(self, n_classes):
            return dataclasses.replace(cls._fit_spec(self, n_classes), max_epochs=0)

        name = f"Untrained{cls.__name__}"
        _UNTRAINED[cls] = type(name, (cls,), {"_fit_spec": _fit_spec, "__module__": __name__})
    return _UNTRAINED[cls]
