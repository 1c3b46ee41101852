"""The C-bound classifier (binary)."""

from skpacbayes.objectives import CBound

from ._base import MajorityVoteClassifier
from ._docstrings import fill_doc, fit_example

__all__ = ["CBoundClassifier"]


@fill_doc(example=fit_example("CBoundClassifier"))
class CBoundClassifier(MajorityVoteClassifier):
    """Binary majority vote certified by the C-bound (PAC-Bound 1, :ref:`theory-classical`).

    Two PAC-Bayes statements at ``delta / 2`` each: an upper bound on the
    Gibbs risk and a lower bound on the expected disagreement, combined by
    Chebyshev-Cantelli.

    {sections}

    {example}
    """

    _bound_class = CBound
