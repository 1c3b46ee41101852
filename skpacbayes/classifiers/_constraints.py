"""The parameter constraints the estimators share, and the check of ``recompute_bound``'s delta.

Bad values are refused at ``fit`` with scikit-learn's ``InvalidParameterError`` (a
``ValueError``), which names the parameter, the estimator and the accepted values.
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, validate_parameter_constraints

from skpacbayes.voters._base import N_JOBS

__all__ = ["DELTA", "MAX_EPOCHS", "MAX_TRAIN_ROWS", "N_JOBS", "check_delta"]

#: a confidence parameter: ``delta`` in the open interval (0, 1) (``delta = 1`` certifies
#: nothing, a statement that holds with probability at least 0)
DELTA = [Interval(Real, 0, 1, closed="neither")]
#: a training budget: at least one epoch (L-BFGS iteration)
MAX_EPOCHS = [Interval(Integral, 1, None, closed="left")]
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
