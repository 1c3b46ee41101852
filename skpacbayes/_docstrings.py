"""Docstring text written once: a placeholder line is filled with a shared fragment.

A docstring holds a placeholder line ``{name}`` (alone on its line, indented as the text it
stands for); :func:`fill_doc` replaces it by the fragment of that name, indented alike, so a
parameter block or an example's setup shared by several functions is written once and
rendered (and doctested) in each.
"""

__all__ = ["fill_doc"]


def fill_doc(**fragments):
    """Decorator: fill the placeholder lines of a class's or function's docstring.

    Parameters
    ----------
    **fragments : str
        The text of each placeholder ``{name}``, by name (unindented).

    Returns
    -------
    decorator : callable
        Sets ``obj.__doc__`` to the filled docstring and returns ``obj``.

    Examples
    --------
    >>> @fill_doc(note="Shared text.")
    ... def f():
    ...     '''Summary.
    ...
    ...     {note}
    ...     '''
    >>> f.__doc__.splitlines()[2].strip()
    'Shared text.'
    """

    def decorate(obj):
        lines = []
        for line in obj.__doc__.split("\n"):
            key = line.strip()
            if key[:1] == "{" and key[-1:] == "}" and key[1:-1] in fragments:
                pad = line[: len(line) - len(line.lstrip())]
                lines.extend(
                    pad + part if part else part for part in fragments[key[1:-1]].split("\n")
                )
            else:
                lines.append(line)
        obj.__doc__ = "\n".join(lines)
        return obj

    return decorate
