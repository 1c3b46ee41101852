"""What ``fit`` refuses: sample weights and other fit parameters.

Every certified estimator's ``fit`` takes ``X`` and ``y`` only. Its certificate counts
every training row once (the rows are an i.i.d. sample, each weighing ``1 / m`` in the
empirical risks the bounds read), so a weighted fit would need bounds of weighted
empirical risks that no estimator here implements. ``fit`` still accepts ``**fit_params``
so that a caller passing ``sample_weight`` gets an error naming the estimator and the
reason, instead of Python's ``unexpected keyword argument`` naming a base class; and
``sklearn.utils.validation.has_fit_parameter(est, "sample_weight")`` stays False, so
meta-estimators (``AdaBoostClassifier``, ``BaggingClassifier``) know not to pass weights.
"""

__all__ = ["reject_fit_params"]


def reject_fit_params(estimator, fit_params):
    """Raise a ``TypeError`` naming ``estimator`` when ``fit`` was given anything but X, y.

    Parameters
    ----------
    estimator : estimator
        The estimator whose ``fit`` was called.
    fit_params : dict
        The keyword arguments given to ``fit`` besides ``X`` and ``y``.

    Raises
    ------
    TypeError
        When ``fit_params`` is not empty.

    Examples
    --------
    >>> from skpacbayes import HoldOutBoundClassifier
    >>> from skpacbayes._utils._fit_params import reject_fit_params
    >>> reject_fit_params(HoldOutBoundClassifier(), {})
    >>> reject_fit_params(HoldOutBoundClassifier(), {"sample_weight": [1.0]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: HoldOutBoundClassifier does not support sample_weight: ...
    """
    if not fit_params:
        return
    name = type(estimator).__name__
    if "sample_weight" in fit_params:
        raise TypeError(
            f"{name} does not support sample_weight: its certificate assumes i.i.d., "
            "unweighted training rows (each row counts once in the bound). Fit it on the "
            "rows as they are sampled."
        )
    names = ", ".join(sorted(fit_params))
    raise TypeError(f"{name}.fit() takes X and y only; got unexpected keyword arguments: {names}.")
