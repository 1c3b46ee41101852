"""The docstring text the classifiers share, written once and filled into each docstring.

A docstring holds a placeholder line ``{name}`` (alone on its line, indented as the text it
stands for); ``fill_doc`` replaces it by the fragment of that name, indented alike
(:func:`skpacbayes._docstrings.fill_doc` with the fragments below).
"""

import functools

from skpacbayes._docstrings import fill_doc as _fill_doc

__all__ = ["fill_doc", "fit_example"]

# The parameters every PAC-Bayes estimator takes from MajorityVoteClassifier, and the
# attributes of a bound estimator whose other attributes are FirstOrderBoundClassifier's.
_PARAMETERS = """\
voters, posterior, prior, delta, solver, max_epochs, batch_size, learning_rate, \
early_stopping_patience, device, random_state, verbose, n_jobs, max_train_rows
    See :class:`MajorityVoteClassifier`."""
_BOUND = """\
bound_ : float
    Certified upper bound on the true risk of ``predict``."""
_ATTRIBUTES = f"""\
{_BOUND}
certificate_ : Certificate
    Its ingredients. Other attributes as :class:`FirstOrderBoundClassifier`."""

FRAGMENTS = {
    "parameters": _PARAMETERS,
    # The Parameters and Attributes sections of a bound estimator without parameters of its own.
    "sections": f"""\
Parameters
----------
{_PARAMETERS}

Attributes
----------
{_ATTRIBUTES}""",
    "parameters_before": """\
voters, posterior, prior, delta
    See :class:`MajorityVoteClassifier`.""",
    "parameters_after": """\
solver, max_epochs, batch_size, learning_rate, early_stopping_patience, device, \
random_state, verbose, n_jobs, max_train_rows
    See :class:`MajorityVoteClassifier`.""",
    "bound_attribute": _BOUND,
    "attributes": _ATTRIBUTES,
    # The labels and the refused keywords of a fit.
    "fit_y": """\
y : {array-like, dask array} of shape (n_samples,)
    Class labels (at least two classes).
**fit_params : dict
    Not supported: ``sample_weight`` (or any other keyword) raises a ``TypeError``
    naming the estimator, since the certificate assumes unweighted i.i.d. rows.""",
    # The rows the predicting methods take.
    "X_rows": """\
X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
    Input samples (finite), with the features seen during ``fit``. A dask array
    gives a lazy dask array, computed block by block.""",
    # The setup of the methods' examples: a fitted OccamBoundClassifier (no training, fast).
    "fitted_occam": """\
>>> from sklearn.datasets import load_breast_cancer
>>> from skpacbayes import OccamBoundClassifier
>>> X, y = load_breast_cancer(return_X_y=True)
>>> clf = OccamBoundClassifier(random_state=0).fit(X, y)""",
    # The setup of the selection's examples: a selection among one Occam candidate.
    "fitted_selection": """\
>>> from sklearn.datasets import load_breast_cancer
>>> from skpacbayes import OccamBoundClassifier
>>> from skpacbayes.model_selection import BoundSelectionClassifier
>>> X, y = load_breast_cancer(return_X_y=True)
>>> sel = BoundSelectionClassifier([OccamBoundClassifier(random_state=0)]).fit(X, y)""",
}


def fit_example(name, params="max_epochs=5, random_state=0", check="0 < clf.bound_ <= 1"):
    """The Examples section of a classifier: fit ``name`` on breast cancer, print ``check``.

    Parameters
    ----------
    name : str
        The estimator's name, importable from ``skpacbayes``.
    params : str, default="max_epochs=5, random_state=0"
        Its parameters, as written in the call.
    check : str, default="0 < clf.bound_ <= 1"
        An expression on the fitted ``clf`` that prints ``True``.

    Returns
    -------
    section : str
        The section, unindented.

    Examples
    --------
    >>> "CBoundClassifier(max_epochs=5, random_state=0)" in fit_example("CBoundClassifier")
    True
    """
    return f"""\
Examples
--------
>>> from sklearn.datasets import load_breast_cancer
>>> from skpacbayes import {name}
>>> X, y = load_breast_cancer(return_X_y=True)
>>> clf = {name}({params}).fit(X, y)
>>> {check}
True"""


#: fill_doc with the classifiers' fragments (a call's own are added to them)
fill_doc = functools.partial(_fill_doc, **FRAGMENTS)

# CertifiedVote
# fit's keywords: none is taken, as the certificate assumes unweighted rows
_FIT_PARAMS = """\
**fit_params : dict
    Not supported: ``sample_weight`` (or any other keyword) raises a ``TypeError``
    naming the estimator, since the certificate assumes unweighted i.i.d. rows."""
FRAGMENTS.update(
    {
        # the last attributes of a fitted classifier
        "classes_features": """\
classes_ : ndarray of shape (n_classes,)
    Class labels.
n_features_in_ : int
    Number of features seen during fit.""",
        "fit_params": _FIT_PARAMS,
        # the last parameter of a fit and what it returns
        "fit_params_returns": f"""{_FIT_PARAMS}

Returns
-------
self : object
    Fitted estimator.""",
    }
)
fill_doc = functools.partial(_fill_doc, **FRAGMENTS)
