"""The bounds, one module each: everything the engine needs to train and certify with one.

A bound module holds one :class:`~skpacbayes.objectives.Bound` subclass, registered by its
short name (the ``bound`` field of a certificate): which statistics of the stochastic losses
it reads, its training objective, its certified value, the posterior families it certifies
(read from the families' own declarations), its :class:`~skpacbayes.objectives.Capabilities`
(the error counts, and then out of core; out-of-bag banks; the exact search the engine runs),
its optional hooks (a choice in closed form, a choice after the training, a refinement), and
how its certificate is recomputed at another ``delta``. An estimator of
:mod:`skpacbayes.classifiers` hands a configured instance to the engine
(:mod:`skpacbayes.engine`), which never switches on a bound's name. Adding a bound means adding
a module here and importing it below (see the contributor's guide).

The formulas themselves (kl inverses, the bound functions) live in :mod:`skpacbayes.bounds`.
"""

from skpacbayes.objectives._base import (
    Bound,
    Capabilities,
    CertifiedValue,
    bound_class,
    families_where,
    register,
    training_upper,
)
from skpacbayes.objectives.binomial import Binomial
from skpacbayes.objectives.cbound import CBound
from skpacbayes.objectives.first_order import FirstOrder
from skpacbayes.objectives.margin import Margin
from skpacbayes.objectives.occam import Occam
from skpacbayes.objectives.partition import Partition
from skpacbayes.objectives.second_order import SecondOrder
from skpacbayes.objectives.test_set import TestSet
from skpacbayes.objectives.vc_dim import VCDim

__all__ = [
    "Bound",
    "Capabilities",
    "CertifiedValue",
    "bound_class",
    "families_where",
    "register",
    "training_upper",
]

#: every bound of the package, registered (the estimators' ``_bound_class``)
BOUNDS = (FirstOrder, SecondOrder, Binomial, CBound, Partition, Margin, VCDim, Occam, TestSet)
