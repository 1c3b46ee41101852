"""The second-order (tandem) bound classifier."""

from skpacbayes.objectives import SecondOrder

from ._base import MajorityVoteClassifier
from ._docstrings import fill_doc, fit_example

__all__ = ["SecondOrderBoundClassifier"]


@fill_doc(example=fit_example("SecondOrderBoundClassifier"))
class SecondOrderBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the second-order (tandem) bound.

    ``bound_ = 4 kl^-1(mean r^2, (2 KL + ln(2 sqrt(m) / delta)) / m)``
    (:ref:`theory-classical`, :ref:`theory-split`). With
    ``voters=OutOfBagVoters(...)`` (Categorical posterior only), the out-of-bag
    tandem bound of the vote of ALL the members: each pair of members is
    evaluated on the rows out of bag for both, and ``m`` is the smallest such set
    (:ref:`theory-out-of-bag`; Masegosa et al., 2020).

    {sections}

    {example}
    """

    _bound_class = SecondOrder
