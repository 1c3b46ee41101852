"""The parameter constraints the estimators share, and the check of ``recompute_bound``'s delta.

Bad values are refused at ``fit`` with scikit-learn's ``InvalidParameterError`` (a
``ValueError``), which names the parameter, the estimator and the accepted values. An integer
parameter is declared with :class:`Integers` (``Integers(1, None, closed="left")``), never
scikit-learn's ``Interval(Integral, ...)``, which accepts ``True`` as 1.
"""

from numbers import Real

from sklearn.utils._param_validation import Interval, validate_parameter_constraints

from skpacbayes.voters._base import N_JOBS
from skpacbayes.voters._integers import Integers

__all__ = [
    "DELTA",
    "MAX_EPOCHS",
    "MAX_TRAIN_ROWS",
    "N_JOBS",
    "Integers",
    "check_delta",
    "check_fractions",
]

#: a confidence parameter: ``delta`` in the open interval (0, 1) (``delta = 1`` certifies
#: nothing, a statement that holds with probability at least 0)
DELTA = [Interval(Real, 0, 1, closed="neither")]
#: a training budget: at least one epoch (L-BFGS iteration)
MAX_EPOCHS = [Integers(1, None, closed="left")]
#: default largest training sample of the row path (``max_train_rows``): 2**18 rows
MAX_TRAIN_ROWS = 262144


def check_delta(delta, caller):
    """Refuse a ``delta`` outside (0, 1) with the ``InvalidParameterError`` of ``fit``.

    Parameters
    ----------
    delta : float
        The confidence parameter to check.
    caller : str
        The method named by the error, e.g. ``"OccamBoundClassifier.recompute_bound"``.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        If ``delta`` is not a real number in (0, 1).

    Examples
    --------
    >>> from skpacbayes.classifiers._constraints import check_delta
    >>> check_delta(0.05, "recompute_bound")
    >>> check_delta(1.0, "recompute_bound")
    Traceback (most recent call last):
    ...
    sklearn.utils._param_validation.InvalidParameterError: The 'delta' parameter of \
recompute_bound must be a float in the range (0.0, 1.0). Got 1.0 instead.
    """
    validate_parameter_constraints({"delta": DELTA}, {"delta": delta}, caller_name=caller)


def check_fractions(value):
    """The validation fractions as a tuple of distinct floats in (0, 1), or None.

    Parameters
    ----------
    value : None, float or sequence of float
        A ``validation_fraction`` parameter.

    Returns
    -------
    fractions : tuple of float or None

    Raises
    ------
    ValueError
        A value outside (0, 1), an empty sequence or duplicates.

    Examples
    --------
    >>> from skpacbayes.classifiers._constraints import check_fractions
    >>> check_fractions(0.2), check_fractions([0.1, 0.5]), check_fractions(None)
    ((0.2,), (0.1, 0.5), None)
    """
    if value is None:
        return None
    if isinstance(value, Real) and not isinstance(value, bool):
        values = [value]
    else:
        try:
            values = list(value)
        except TypeError:
            values = [value]
    ok = len(values) > 0 and all(
        isinstance(v, Real) and not isinstance(v, bool) and 0.0 < float(v) < 1.0 for v in values
    )
    if not ok:
        raise ValueError(
            "validation_fraction must be None, a float in (0, 1) or a non-empty sequence of "
            f"floats in (0, 1); got {value!r}."
        )
    values = [float(v) for v in values]
    if len(set(values)) != len(values):
        raise ValueError(f"validation_fraction holds duplicates: {value!r}.")
    return tuple(values)
