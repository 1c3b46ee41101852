"""Voter banks: turn ``X`` into a matrix of class votes, and say where the bound may use them.

* :class:`StumpBank`: decision stumps on an even grid of thresholds (data-independent).
* :class:`SplitForest`: trees grown on two halves of the training sample (cross bound).
* :class:`PrefitVoters`: classifiers fitted beforehand on other data.

All of them derive from :class:`BaseVoters`: ``fit(X, y)``, ``votes(X)`` (class indices,
``int8`` up to 127 classes), ``n_voters_``, ``classes_``, ``voter_groups_``,
``sample_groups_`` and ``evaluation_mask()``.
"""

from ._base import BaseVoters
from ._forest import SplitForest
from ._prefit import PrefitVoters, SampleReuseWarning
from ._stumps import StumpBank

__all__ = ["BaseVoters", "PrefitVoters", "SampleReuseWarning", "SplitForest", "StumpBank"]
