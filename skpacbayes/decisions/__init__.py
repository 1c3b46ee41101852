"""Certified decisions of a fitted model: a threshold and a reject option, chosen on rows the
model never saw by a fixed-sequence test, with certified risks.

* :class:`CertifiedThresholdClassifier`: the decision threshold of a binary (or one-vs-rest)
  score that keeps a certified risk (the miss rate, or the false-positive rate) at most a
  target, the best such threshold on the other error deployed.
* :class:`CertifiedSelectiveClassifier`: a reject option, answering only where the model is
  confident enough for the error among the answered rows to be certified at most a target,
  with a certified lower bound on how often it answers.

Their statements are on the theory page (:ref:`theory-decisions`); the risk vocabulary is
:mod:`skpacbayes.engine.risks`.
"""

from ._selective import CertifiedSelectiveClassifier
from ._threshold import CertifiedThresholdClassifier

__all__ = ["CertifiedSelectiveClassifier", "CertifiedThresholdClassifier"]
