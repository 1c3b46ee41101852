"""Voter banks: turn ``X`` into a matrix of class votes, and say where the bound may use them.

* :class:`StumpBank`: decision stumps on an even grid of thresholds (data-independent).
* :class:`SplitForest`: trees grown on two halves of the training sample (cross bound).
* :class:`OutOfBagVoters`: a bagged ensemble grown on the whole sample, each voter
  evaluated on its out-of-bag rows.
* :class:`PrefitVoters`: classifiers fitted beforehand on other data.

All of them derive from :class:`BaseVoters`: ``fit(X, y)``, ``votes(X)`` (class indices,
``int8`` up to 127 classes), ``n_voters_``, ``classes_``, ``voter_groups_``,
``sample_groups_`` and ``evaluation_mask()`` (an out-of-bag bank has one row set per
voter instead of groups: ``is_out_of_bag``).
"""

from ._base import BaseVoters
from ._forest import SplitForest
from ._oob import OutOfBagVoters
from ._prefit import PrefitVoters
from ._stumps import StumpBank

__all__ = ["BaseVoters", "OutOfBagVoters", "PrefitVoters", "SplitForest", "StumpBank"]
