"""Certified majority-vote classifiers.

Every estimator follows the same pipeline (:ref:`theory-guarantee`): a voter
bank turns ``X`` into a vote matrix, a posterior family turns votes into
per-example stochastic losses, and one bound function turns their statistics
into the training objective (torch, float32) and into the certificate
``bound_`` (float64, computed from scratch on CPU after training).

The guarantee. With probability at least ``1 - delta`` over the i.i.d.
training sample, the true error rate of the classifier used by ``predict`` is
at most ``bound_``. Assumptions: the training pairs are i.i.d. draws from the
distribution the classifier is evaluated on; the prior and the voter bank are
fixed before the sample is seen (data-independent stumps with a user-given
``feature_range``, voters fitted on other data), or the voters follow the
two-halves protocol of :class:`~skpacbayes.voters.SplitForest` (each voter is
only evaluated on the half it was not grown on) or the out-of-bag protocol of
:class:`~skpacbayes.voters.OutOfBagVoters` (each voter only evaluated on the rows
left out of its bootstrap or subsample, drawn without looking at the data); the training data is not
reused for anything else that is reported with the same ``delta``. See the
theory page of the documentation.
"""

from skpacbayes.engine.certificate import Certificate, effective_voters

from ._base import MajorityVoteClassifier, SingleVoterWarning
from ._binomial import BinomialBoundClassifier
from ._cbound import CBoundClassifier
from ._certified_vote import CertifiedVoteClassifier
from ._first_order import FirstOrderBoundClassifier
from ._hold_out import HoldOutBoundClassifier
from ._margin import MarginBoundClassifier
from ._occam import OccamBoundClassifier
from ._partition import PartitionBoundClassifier
from ._second_order import SecondOrderBoundClassifier
from ._vc_dim import VCDimBoundClassifier

# Layout: one module per estimator (``_first_order.py`` holds FirstOrderBoundClassifier, ...),
# the shared base in ``_base.py``.

# in the order of the API reference: the two to reach for first, one per bound, their base,
# then what they report
__all__ = [
    "CertifiedVoteClassifier",
    "HoldOutBoundClassifier",
    "PartitionBoundClassifier",
    "FirstOrderBoundClassifier",
    "SecondOrderBoundClassifier",
    "BinomialBoundClassifier",
    "CBoundClassifier",
    "MarginBoundClassifier",
    "VCDimBoundClassifier",
    "OccamBoundClassifier",
    "MajorityVoteClassifier",
    "SingleVoterWarning",
    "Certificate",
    "effective_voters",
]
