"""Posterior families over the voter weights: Categorical, Dirichlet, Gaussian.

Their divergences and stochastic losses are stated in :ref:`theory-losses`.

Every family implements the interface of :class:`Posterior`: ``init_raw``,
``natural``, ``raw_from_natural``, ``kl``, ``stochastic_loss`` (the per-example
loss ``r`` of the stochastic vote, differentiable), ``deterministic_loss`` (exact,
ties are errors), ``vote_weights``, ``win_probabilities`` and ``sample``, and a
``loss_tolerance`` (certified absolute error of the float64 ``stochastic_loss``).

Votes are integer tensors of class indices, shape ``(b, n)``; labels are class
indices, shape ``(b,)``.

Everything else that differs by family is declared on its class too (what the engine and the
bounds read: which bounds certify it, its starting points and search coordinates, the vote it
deploys on split voters, its partition terms, the range of its prior; see :class:`Posterior`),
and every family is registered by its name (:func:`register_family`, :data:`FAMILIES`), which
is what an estimator's ``posterior`` parameter takes. Adding a family is adding one class.

Examples
--------
>>> import torch
>>> from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian
>>> votes = torch.tensor([[1, 1, 0]], dtype=torch.int8)
>>> y = torch.tensor([1])
>>> for post, nat in [(Categorical(3), [0.2, 0.3, 0.5]), (Dirichlet(3), [2.0, 3.0, 5.0]),
...                   (Gaussian(3), [0.2, 0.4, 0.5])]:
...     nat = torch.tensor(nat, dtype=torch.float64)
...     print(post.name, round(float(post.stochastic_loss(nat, votes, y)), 4),
...           bool(post.deterministic_loss(nat, votes, y)))
categorical 0.5 True
dirichlet 0.5 True
gaussian 0.477 False
"""

from ._base import Posterior
from ._categorical import Categorical, categorical_kl
from ._dirichlet import Dirichlet, dirichlet_kl
from ._gaussian import Gaussian
from ._registry import FAMILIES, get_family, register_family

__all__ = [
    "FAMILIES",
    "Categorical",
    "Dirichlet",
    "Gaussian",
    "Posterior",
    "categorical_kl",
    "dirichlet_kl",
    "get_family",
    "register_family",
]
