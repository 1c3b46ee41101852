"""The constraint of an integer parameter: scikit-learn's ``Interval(Integral, ...)`` without
the booleans it accepts (``True`` is an ``Integral``: ``max_train_rows=True`` would read as 1).

Declared here, below every estimator, for the voter banks and the estimators alike
(``skpacbayes.classifiers._constraints`` re-exports it).
"""

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval

__all__ = ["Integers"]


class Integers(Interval):
    """Integers in an interval, booleans refused (an ``InvalidParameterError`` at ``fit``).

    Parameters
    ----------
    left : int or None
        The lower end (None: unbounded).
    right : int or None
        The upper end (None: unbounded).
    closed : {"left", "right", "both", "neither"}
        Which ends belong to the interval.

    Examples
    --------
    >>> from skpacbayes.voters._integers import Integers
    >>> rows = Integers(1, None, closed="left")
    >>> rows.is_satisfied_by(3), rows.is_satisfied_by(True), rows.is_satisfied_by(0)
    (True, False, False)
    >>> str(rows)
    'an int in the range [1, inf)'
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        """Whether ``val`` is an integer of the interval and not a boolean.

        Parameters
        ----------
        val : object
            The parameter's value.

        Returns
        -------
        satisfied : bool
        """
        return not isinstance(val, bool | np.bool_) and super().is_satisfied_by(val)
