"""Certified PAC-Bayes bounds for weighted majority votes.

After ``fit``, every classifier of this package exposes ``bound_``: with
probability at least ``1 - delta`` over the training sample, it upper-bounds
the true error rate of the deterministic majority vote that ``predict`` uses.
"""

__version__ = "0.2.0.dev0"

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
    SingleVoterWarning,
    VCDimBoundClassifier,
)
from skpacbayes.decisions import (  # noqa: E402
    CertifiedSelectiveClassifier,
    CertifiedThresholdClassifier,
)

__all__ = [
    "BinomialBoundClassifier",
    "CBoundClassifier",
    "Certificate",
    "CertifiedSelectiveClassifier",
    "CertifiedThresholdClassifier",
    "CertifiedVoteClassifier",
    "FirstOrderBoundClassifier",
    "HoldOutBoundClassifier",
    "MajorityVoteClassifier",
    "MarginBoundClassifier",
    "OccamBoundClassifier",
    "PartitionBoundClassifier",
    "SecondOrderBoundClassifier",
    "SingleVoterWarning",
    "VCDimBoundClassifier",
    "__version__",
]


class _MovedModules:
    """Old module paths of classes a pickled estimator may name, resolved to where they live
    now: estimators fitted and pickled by 0.1.0, whose modules lay at the package root, and
    by the development versions after it (a hold-out candidate, the members a hold-out grew
    itself)."""

    moved = {
        "skpacbayes._certificate": "skpacbayes.engine.certificate",
        "skpacbayes._hold_out": "skpacbayes.classifiers._hold_out",
        "skpacbayes._certified_vote": "skpacbayes.classifiers._certified_vote",
        "skpacbayes.classifiers._candidates": "skpacbayes.classifiers._held_out_vote",
        "skpacbayes.classifiers._held_out_rows": "skpacbayes.voters._prefit",
    }

    def find_spec(self, name, path=None, target=None):
        if name not in self.moved:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        import importlib

        return importlib.import_module(self.moved[spec.name])

    def exec_module(self, module):
        pass


def _install_moved_modules():
    import sys

    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules())


_install_moved_modules()
