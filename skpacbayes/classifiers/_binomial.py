"""The binomial bound classifier."""

from typing import ClassVar

from skpacbayes.objectives import Binomial

from ._base import MajorityVoteClassifier
from ._constraints import Integers, keyword_init
from ._docstrings import fill_doc, fit_example

__all__ = ["BinomialBoundClassifier"]


@fill_doc(
    example=fit_example(
        "BinomialBoundClassifier", params="n_draws=10, max_epochs=5, random_state=0"
    )
)
class BinomialBoundClassifier(MajorityVoteClassifier):
    """Majority vote certified by the binomial bound with ``n_draws`` voters.

    ``bound_ = 2 kl^-1(mean P(Bin(N, r) >= ceil(N/2)), (N KL + ln(2 sqrt(m)/delta)) / m)``
    (:ref:`theory-classical`). ``N`` is fixed before seeing the data; on split voters with
    ``N >= 3`` the halves are mixed with weight 1/2 each (:ref:`theory-split`).

    Parameters
    ----------
    {parameters_before}
    n_draws : int, default=100
        The number ``N`` of independent voter draws.
    {parameters_after}

    Attributes
    ----------
    {attributes}

    {example}
    """

    _parameter_constraints: ClassVar[dict] = {
        **MajorityVoteClassifier._parameter_constraints,
        "n_draws": [Integers(1, None, closed="left")],
    }
    _bound_class = Binomial

    __init__ = keyword_init(MajorityVoteClassifier, after="delta", n_draws=100)
