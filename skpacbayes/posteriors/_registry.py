"""The posterior families by name: the one list that parameter validation and the engine read."""

import types

__all__ = ["FAMILIES", "get_family", "register_family"]

_FAMILIES = {}

#: the registered families by name, in the order of their registration (a live, read-only view)
FAMILIES = types.MappingProxyType(_FAMILIES)


def register_family(family):
    """Class decorator: make the posterior family ``family`` known by its ``name``.

    The estimators' ``posterior`` parameter accepts every registered name (its validation
    reads :data:`FAMILIES`) and the engine builds the family from it (:func:`get_family`).

    Parameters
    ----------
    family : type
        A :class:`~skpacbayes.posteriors.Posterior` subclass with a ``name`` of its own.

    Returns
    -------
    family : type
        The same class.

    Raises
    ------
    ValueError
        If ``family`` has no name, or one that is already registered.

    Examples
    --------
    >>> from skpacbayes.posteriors import FAMILIES, Gaussian, register_family
    >>> list(FAMILIES)
    ['categorical', 'dirichlet', 'gaussian']
    >>> register_family(Gaussian)  # a new family subclasses one and takes a name of its own
    Traceback (most recent call last):
    ...
    ValueError: A posterior family needs a name of its own; got 'gaussian'.
    """
    if not family.name or family.name in _FAMILIES:
        raise ValueError(f"A posterior family needs a name of its own; got {family.name!r}.")
    _FAMILIES[family.name] = family
    return family


def get_family(name):
    """The posterior family registered under ``name`` (an estimator's ``posterior``).

    Parameters
    ----------
    name : str or type
        A family's name, or a registered family itself (returned as it is).

    Returns
    -------
    family : type
        The :class:`~skpacbayes.posteriors.Posterior` subclass.

    Raises
    ------
    ValueError
        If no family has that name.

    Examples
    --------
    >>> from skpacbayes.posteriors import Dirichlet, get_family
    >>> get_family("dirichlet") is Dirichlet, get_family(Dirichlet) is Dirichlet
    (True, True)
    """
    if isinstance(name, type) and _FAMILIES.get(getattr(name, "name", None)) is name:
        return name
    try:
        return _FAMILIES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown posterior family {name!r}; known: {sorted(_FAMILIES)}."
        ) from None
