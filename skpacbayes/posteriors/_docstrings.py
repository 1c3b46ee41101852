"""Docstrings written once: a method that overrides another keeps the sections it does not
write itself (numpydoc's checks and the API pages read the completed ``__doc__``)."""

import inspect

__all__ = ["completed_docstring"]

# the sections of a numpydoc docstring, in their order
_SECTIONS = (
    "Parameters",
    "Returns",
    "Yields",
    "Other Parameters",
    "Raises",
    "Warns",
    "See Also",
    "Notes",
    "References",
    "Examples",
)


def _sections(doc):
    """A cleaned numpydoc docstring as its head (summary and extended summary) and its
    sections by title."""
    lines = inspect.cleandoc(doc).splitlines()
    starts = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip() in _SECTIONS and set(lines[i + 1].strip()) == {"-"}
    ]
    head = "\n".join(lines[: starts[0] if starts else len(lines)]).strip()
    bodies = {}
    for i, start in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(lines)
        bodies[lines[start].strip()] = "\n".join(lines[start:stop]).strip()
    return head, bodies


def completed_docstring(doc, base_doc):
    """``doc`` with the sections it lacks taken from ``base_doc`` (the method it overrides):
    a family writes what its method says beyond the base's, the Parameters and Returns of the
    one interface are written once, on :class:`Posterior`."""
    if not doc:
        return base_doc
    head, own = _sections(doc)
    _, inherited = _sections(base_doc)
    parts = [head] + [own.get(t, inherited.get(t)) for t in _SECTIONS]
    return "\n\n".join(part for part in parts if part) + "\n"
