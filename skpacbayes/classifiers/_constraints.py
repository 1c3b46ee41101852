"""The parameters the estimators share: their constraints, the checks of ``recompute_bound``'s
delta and of the validation fractions, and the constructor of a face that adds parameters to
its base's.

Bad values are refused at ``fit`` with scikit-learn's ``InvalidParameterError`` (a
``ValueError``), which names the parameter, the estimator and the accepted values. An integer
parameter is declared with :class:`Integers` (``Integers(1, None, closed="left")``), never
scikit-learn's ``Interval(Integral, ...)``, which accepts ``True`` as 1.
"""

import inspect
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

from skpacbayes.voters._base import N_JOBS, keep_parameters
from skpacbayes.voters._integers import Integers

__all__ = [
    "DELTA",
    "MAX_EPOCHS",
    "MAX_TRAIN_ROWS",
    "N_JOBS",
    "FamilyNames",
    "Integers",
    "check_delta",
    "check_fractions",
    "keyword_init",
]

#: a confidence parameter: ``delta`` in the open interval (0, 1) (``delta = 1`` certifies
#: nothing, a statement that holds with probability at least 0)
DELTA = [Interval(Real, 0, 1, closed="neither")]
#: a training budget: at least one epoch (L-BFGS iteration)
MAX_EPOCHS = [Integers(1, None, closed="left")]
#: default largest training sample of the row path (``max_train_rows``): 2**18 rows
MAX_TRAIN_ROWS = 262144


class FamilyNames(StrOptions):
    """The ``posterior`` parameter: the name of a registered posterior family.

    The names are read from the registry (:data:`~skpacbayes.posteriors.FAMILIES`) when a value
    is validated, not when the estimators are defined: a family registered later is accepted,
    and importing the estimators does not import torch.

    Examples
    --------
    >>> from skpacbayes.classifiers._constraints import FamilyNames
    >>> FamilyNames().is_satisfied_by("dirichlet"), FamilyNames().is_satisfied_by("beta")
    (True, False)
    """

    def __init__(self):
        super(StrOptions.__mro__[1], self).__init__()  # the constraint's own state only
        self.type = str
        self.deprecated = set()

    @property
    def options(self):
        from skpacbayes.posteriors import FAMILIES

        return FAMILIES.keys()


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


def keyword_init(base=None, *, after=None, defaults=None, **added):
    """The ``__init__`` of a subclass of ``base`` that adds parameters or changes defaults.

    The signature is ``base.__init__``'s (written once, there), with the ``defaults`` changed
    and the ``added`` parameters (name to default, keyword-only) inserted after the parameter
    ``after`` (at the end without it); the constructor stores every parameter under its
    name, as scikit-learn asks (``get_params``, ``clone`` and ``check_estimator`` read the
    signature). A name it does not know raises scikit-learn's usual ``TypeError``. Without
    ``base``, the ``added`` parameters are the whole signature (a base estimator's own).

    Parameters
    ----------
    base : type or None, default=None
        The estimator class whose ``__init__`` the subclass extends.
    after : str or None, default=None
        The parameter of ``base`` the added ones follow.
    defaults : dict or None, default=None
        New defaults of parameters of ``base``.
    **added
        The added parameters and their defaults.

    Returns
    -------
    __init__ : function
        To assign to the subclass's ``__init__``.

    Examples
    --------
    >>> import inspect
    >>> from skpacbayes.classifiers import MajorityVoteClassifier
    >>> from skpacbayes.classifiers._constraints import keyword_init
    >>> class Face(MajorityVoteClassifier):
    ...     __init__ = keyword_init(MajorityVoteClassifier, after="delta", n_draws=10)
    >>> list(inspect.signature(Face).parameters)[:5]
    ['voters', 'posterior', 'prior', 'delta', 'n_draws']
    >>> Face(n_draws=3).get_params()["n_draws"], Face().n_draws
    (3, 10)
    """
    if base is None:
        own, inherited = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), []
    else:
        params = list(inspect.signature(base.__init__).parameters.values())
        own, inherited = params[0], params[1:]
    defaults = defaults or {}
    unknown = sorted(set(defaults) - {p.name for p in inherited})
    if unknown:
        raise ValueError(f"{base.__name__} has no parameters {unknown} to change.")
    inherited = [p.replace(default=defaults.get(p.name, p.default)) for p in inherited]
    keyword = inspect.Parameter.KEYWORD_ONLY
    new = [inspect.Parameter(name, keyword, default=d) for name, d in added.items()]
    at = len(inherited) if after is None else [p.name for p in inherited].index(after) + 1
    signature = inspect.Signature([own, *inherited[:at], *new, *inherited[at:]])

    def __init__(self, **params):
        arguments = signature.bind(self, **params)
        arguments.apply_defaults()
        keep_parameters(self, arguments.arguments)

    __init__.__signature__ = signature
    return __init__
