"""A fingerprint of fitted models: what changes when one is refitted or its parameters set."""

import hashlib

import numpy as np

__all__ = ["ModelFingerprint", "model_fingerprint"]


class ModelFingerprint:
    """A digest of fitted models, holding the values whose identity it records: while it
    lives no new value can take the identity of one of them, so two digests are equal only
    if no model was refitted (or its parameters set) in between.

    Attributes
    ----------
    digest : str
    """

    __slots__ = ("_held", "digest")

    def __init__(self, digest, held):
        self.digest, self._held = digest, tuple(held)

    def __eq__(self, other):
        return isinstance(other, ModelFingerprint) and other.digest == self.digest

    def __hash__(self):
        return hash(self.digest)

    def __reduce__(self):
        # the identities do not survive a pickle: a restored stream takes a new fingerprint
        return (type(self), ("", ()))


def _estimators_in(value):
    """The estimators a parameter or a fitted attribute holds: itself, or those of a list or
    tuple of them (a pipeline's ``(name, step)`` pairs, an ensemble's members)."""
    if hasattr(value, "get_params"):
        return [value]
    if isinstance(value, (list, tuple)):
        return [e for v in value for e in _estimators_in(v)]
    return []


def model_fingerprint(models):
    """What changes when one of ``models`` is refitted or its parameters set (see
    :meth:`~skpacbayes.voters.PrefitVoters.fingerprint`)."""
    digest = hashlib.blake2b(digest_size=16)
    seen, held = set(), []

    def visit(obj, params, depth):
        if id(obj) in seen or depth > 8:
            return
        seen.add(id(obj))
        digest.update(type(obj).__qualname__.encode())
        if params and hasattr(obj, "get_params"):  # a model given, or a step of it
            values = obj.get_params(deep=False)
            kept = sorted((k, repr(v)) for k, v in values.items() if not _estimators_in(v))
            digest.update(repr(kept).encode())
            for v in values.values():
                for inner in _estimators_in(v):
                    visit(inner, True, depth + 1)
        for name, value in sorted(getattr(obj, "__dict__", {}).items()):
            if not name.endswith("_") or name.startswith("_"):
                continue
            digest.update(f"{name}:{id(value)}".encode())  # a fit assigns new values
            held.append(value)
            if isinstance(value, np.ndarray) and value.dtype != object and value.size <= 10**5:
                digest.update(np.ascontiguousarray(value).tobytes())
            for inner in _estimators_in(value):  # fitted members: their fitted state
                visit(inner, False, depth + 1)

    for model in models:
        visit(model, True, 0)
    return ModelFingerprint(digest.hexdigest(), held)
