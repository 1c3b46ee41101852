"""Certified PAC-Bayes bounds for weighted majority votes.

After ``fit``, every classifier of this package exposes ``bound_``: with
probability at least ``1 - delta`` over the training sample, it upper-bounds
the true error rate of the deterministic majority vote that ``predict`` uses.
"""

__version__ = "0.1.0"

from skpacbayes.classifiers import (  # noqa: E402
    BinomialBoundClassifier,
    CBoundClassifier,
    Certificate,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    MajorityVoteClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)

__all__ = [
    "BinomialBoundClassifier",
    "CBoundClassifier",
    "Certificate",
    "CertifiedVoteClassifier",
    "FirstOrderBoundClassifier",
    "HoldOutBoundClassifier",
    "MajorityVoteClassifier",
    "MarginBoundClassifier",
    "OccamBoundClassifier",
    "PartitionBoundClassifier",
    "SecondOrderBoundClassifier",
    "VCDimBoundClassifier",
    "__version__",
]
