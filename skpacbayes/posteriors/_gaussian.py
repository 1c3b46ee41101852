"""Gaussian posterior N(p, I) over the voter weights (:ref:`theory-losses`)."""

import math

import numpy as np
import torch

from skpacbayes._sync import checks_enabled

from .._special import gaussian_cdf, gaussian_sf
from ._base import Posterior, _as_float_tensor
from ._gauss_multi import p_strict_winner
from ._random import _randn, init_noise
from ._registry import register_family
from ._vote_sums import margin_is_nonpositive, not_strict_winner, vote_sums

__all__ = ["Gaussian"]


@register_family
class Gaussian(Posterior):
    """Gaussian posterior ``N(p, I)`` over the voter weights (:ref:`theory-losses`).

    A draw is ``w = p + N(0, I)`` in ALL ``n`` coordinates (zero-weight voters
    included); class ``j`` scores ``s_j(w) = sum_{v_i = j} w_i`` and the vote is the
    strict argmax (ties are errors).

    * Binary (``n_classes = 2``): ``r = Phi_sf(M . p / sqrt(n))`` with the margins
      ``M_i = +1`` (voter right) / ``-1`` (voter wrong) and ``n`` = all voters; the mean
      vote errs iff ``M . p <= 0``.
    * Multi-class (``n_classes >= 3``): ``r = 1 - P(c is the strict winner)``, the exact
      1-D integral of :ref:`theory-losses` (classes without votes, ``n_c = 0``, and ties handled);
      the mean vote errs iff the true class is not the strict argmax of the class sums
      ``P_j = sum_{v_i = j} p_i``. For ``k = 2`` the integral reduces to the binary
      formula.

    Parameters
    ----------
    n_voters : int
        Number of voters ``n``.
    n_classes : int, default=2
        Number of classes.
    prior : array-like of shape (n_voters,) or float, default=None
        Prior mean ``mu0``; ``None`` is ``0``. ``KL = ||p - mu0||^2 / 2``.

    Attributes
    ----------
    loss_tolerance : float
        Binary: ``1e-12`` (margins are summed with the error-free split, so
        ``M . p / sqrt n`` is correct to a few ulps and ``Phi_sf`` is within
        ``1e-15``). Multi-class: ``1e-10``: the float64 loss uses the certified
        quadrature of :func:`~skpacbayes.posteriors._gauss_multi.certified_rule`
        (proven bound ``1e-11`` per integral, ``2e-17`` of truncation, rounding below
        ``1e-13``; the class-sum differences ``P_j - P_c`` are exact up to one rounding).

    Notes
    -----
    Training in float32 uses the fixed 48-node rule of
    :func:`~skpacbayes.posteriors._gauss_multi.fixed_rule` (measured error below
    ``1e-6``); float64 always uses the certified rule.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Gaussian
    >>> post = Gaussian(n_voters=4)
    >>> p = torch.tensor([0.5, -1.2, 2.0, 0.3], dtype=torch.float64)
    >>> votes = torch.tensor([[1, 0, 1, 0]], dtype=torch.int8)  # f = (+1, -1, +1, -1)
    >>> post.stochastic_loss(p, votes, torch.tensor([1]))  # Phi_sf(3.4 / 2)
    tensor([0.0446], dtype=torch.float64)
    >>> post3 = Gaussian(n_voters=3, n_classes=3)
    >>> p3 = torch.tensor([0.5, 0.5, 0.5], dtype=torch.float64)
    >>> post3.stochastic_loss(p3, torch.tensor([[0, 0, 0]]), torch.tensor([0]))
    tensor([0.1932], dtype=torch.float64)
    """

    name = "gaussian"
    gibbs_certifies_split_vote = True  # the mixture's Bayes classifier (split_deployment)
    split_deployment = "mixture_bayes"
    float_prior_range = (0.0, 1e30)
    search_bounds = (-1e6, 1e6)
    start_scales_linearly = True

    def __init__(self, n_voters: int, n_classes: int = 2, prior=None):
        super().__init__(n_voters, n_classes, prior)
        self.loss_tolerance = 1e-12 if self.n_classes == 2 else 1e-10

    def _resolve_prior(self, prior):
        if prior is None:
            return torch.zeros(self.n_voters, dtype=torch.float64)
        mu = _as_float_tensor(prior, "prior", torch.float64, "cpu").reshape(-1)
        if mu.numel() == 1:
            mu = mu.expand(self.n_voters).clone()
        if mu.shape != (self.n_voters,):
            raise ValueError(f"prior must have shape ({self.n_voters},), got {tuple(mu.shape)}.")
        if not bool(torch.isfinite(mu).all()):
            raise ValueError("prior mean must be finite.")
        return mu

    def _checked(self, nat):
        nat = self._nat(nat)
        if not checks_enabled():  # training epochs: no host synchronisation
            return nat
        with torch.no_grad():
            if not bool(torch.isfinite(nat).all()):
                raise ValueError("Gaussian means must be finite.")
        return nat

    # -- parametrization ------------------------------------------------------------------
    def init_raw(self, *, generator=None, dtype=torch.float32, device="cpu"):
        """``prior mean + 0.01 N(0, I)`` (noise from ``generator``).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> raw = Gaussian(3).init_raw(generator=torch.Generator().manual_seed(0))
        >>> bool(raw.abs().max() < 0.1), raw.requires_grad
        (True, True)
        """
        raw = (self.prior + init_noise(self.n_voters, generator)).to(dtype=dtype, device=device)
        return raw.requires_grad_(True)

    def natural(self, raw):
        """The mean ``p`` is the raw parameter itself.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).natural(torch.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
        """
        return raw

    def raw_from_natural(self, nat):
        """A copy of ``p``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).raw_from_natural(torch.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
        """
        return self._checked(nat).clone()

    # -- KL, losses -----------------------------------------------------------------------
    def kl(self, nat):
        """``||p - mu0||^2 / 2``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> float(Gaussian(2).kl(torch.tensor([3.0, 4.0])))
        12.5
        """
        nat = self._checked(nat)
        d = nat - self._prior_like(nat)
        return 0.5 * (d * d).sum()

    def stochastic_loss(self, nat, votes, y):
        """``r(x_j, y_j)``, shape ``(b,)``, differentiable in ``p``.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (float32 for training, float64 for a certificate).
        votes : torch.Tensor of shape (b, n_voters) or ClassVotes
            Integer class indices voted by each voter on each example (with more than two
            classes, also held as :class:`~skpacbayes.posteriors._vote_sums.ClassVotes`).
        y : torch.Tensor of shape (b,)
            Integer class indices of the true labels.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> post = Gaussian(2)
        >>> votes, y = torch.tensor([[1, 0]]), torch.tensor([1])
        >>> post.stochastic_loss(torch.tensor([0.7, 0.7]), votes, y)
        tensor([0.5000])
        """
        nat = self._checked(nat)
        votes, y = self._votes(votes, nat.device, y, class_votes=self.n_classes > 2)
        exact = self._exact(nat)
        if self.n_classes == 2:
            return self._binary_loss(*vote_sums(nat, votes, y, "margin", 2, exact))
        hi, lo, counts = vote_sums(nat, votes, None, "class", self.n_classes, exact)
        return 1.0 - p_strict_winner(hi, lo, counts, y, certified=exact)

    def _binary_loss(self, hi, lo, scale=1.0):
        """``Phi_sf(t M / sqrt(n))`` of the margins ``M`` given as levels ``(hi, lo)``."""
        margin = hi.sum(0) + lo
        if scale != 1.0:
            margin = scale * margin
        return gaussian_sf(margin / math.sqrt(self.n_voters))

    def _ray_losses(self, nat, votes, y, scales):
        """In float32: the margins (two classes) or the class sums, which scale with ``t``,
        computed once."""
        if self._exact(nat):
            return None
        if self.n_classes == 2:
            votes, y = self._votes(votes, nat.device, y)
            levels = vote_sums(nat, votes, y, "margin", 2, False)
            return torch.stack([self._binary_loss(*levels, scale=t) for t in scales])
        votes, y = self._votes(votes, nat.device, y, class_votes=True)
        hi, lo, counts = vote_sums(nat, votes, None, "class", self.n_classes, False)
        return torch.stack(
            [1.0 - p_strict_winner(t * hi, t * lo, counts, y, certified=False) for t in scales]
        )

    def deterministic_loss(self, nat, votes, y):
        """Exact loss of the mean vote: the true class is not the strict argmax of ``P_j``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> post = Gaussian(2)
        >>> votes, y = torch.tensor([[1, 0]]), torch.tensor([1])
        >>> post.deterministic_loss(torch.tensor([0.7, 0.7]), votes, y)  # a tie is an error
        tensor([True])
        """
        nat = self._checked(nat)
        votes, y = self._votes(votes, nat.device, y)
        if self.n_classes == 2:
            return margin_is_nonpositive(nat, votes, y, self.n_classes)
        return not_strict_winner(nat, votes, y, self.n_classes)

    def vote_weights(self, nat):
        """The mean ``p``.

        Returns
        -------
        weights : torch.Tensor of shape (n_voters,)
            The mean ``p`` (any sign).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).vote_weights(torch.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
        """
        return self._checked(nat)

    def win_probabilities(self, nat, votes):
        """``P_Q(class y is the strict winner)``, shape ``(b, k)`` (:ref:`theory-losses`;
        the Bayes classifier of a mixture, :ref:`theory-split`).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> post = Gaussian(1, n_classes=3)
        >>> # one voter, for class 1: class 1 wins iff s_1 > 0; classes 0 and 2 always tie at 0
        >>> post.win_probabilities(torch.tensor([1.0], dtype=torch.float64), torch.tensor([[1]]))
        tensor([[0.0000, 0.8413, 0.0000]], dtype=torch.float64)
        """
        nat = self._checked(nat)
        votes = self._votes(votes, nat.device, need_y=False)
        exact = self._exact(nat)
        k = self.n_classes
        hi, lo, counts = vote_sums(nat, votes, None, "class", k, exact)
        if k == 2:
            # P_1 - P_0 level by level (exact), then rounded once or twice
            d = ((hi[:, :, 1] - hi[:, :, 0]).sum(0) + (lo[:, 1] - lo[:, 0])) / math.sqrt(
                self.n_voters
            )
            return torch.stack([gaussian_sf(d), gaussian_cdf(d)], dim=1)
        b = votes.shape[0]
        target = torch.arange(k, device=nat.device).repeat(b)
        rep = torch.arange(b, device=nat.device).repeat_interleave(k)
        p = p_strict_winner(hi[:, rep], lo[rep], counts[rep], target, certified=exact)
        return p.reshape(b, k)

    def win_probability(self, nat, votes, target):
        """``P_Q(class target[i] is the strict winner at row i)``, shape ``(b,)``.

        The entries of :meth:`win_probabilities` for one class per row, computed
        the same way (for ``k >= 3`` the same 1-D integrals, so the same values).

        Parameters
        ----------
        nat, votes
            As :meth:`win_probabilities`.
        target : torch.Tensor of shape (b,)
            Class index of each row.

        Returns
        -------
        proba : torch.Tensor of shape (b,)
            Probability that the row's class is the strict winner of the sampled vote.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> post = Gaussian(1, n_classes=3)
        >>> nat = torch.tensor([1.0], dtype=torch.float64)
        >>> post.win_probability(nat, torch.tensor([[1], [1]]), torch.tensor([1, 0]))
        tensor([0.8413, 0.0000], dtype=torch.float64)
        """
        nat = self._checked(nat)
        votes, target = self._votes(votes, nat.device, y=target)
        target = target.long()
        if self.n_classes == 2:
            rows = torch.arange(votes.shape[0], device=nat.device)
            return self.win_probabilities(nat, votes)[rows, target]
        exact = self._exact(nat)
        hi, lo, counts = vote_sums(nat, votes, None, "class", self.n_classes, exact)
        return p_strict_winner(hi, lo, counts, target, certified=exact)

    def win_probability_bounds(self, nat, votes):
        """Closed-form lower and upper bounds on :meth:`win_probabilities`, shape ``(b, k)`` each.

        Class ``y`` wins only if ``s_y > s_j`` for every ``j != y``, where
        ``s_y - s_j ~ N(P_y - P_j, n_y + n_j)`` (a tie at zero when ``n_y = n_j = 0``).
        Hence ``P(y wins) <= Phi(min_j z_yj)`` with ``z_yj = (P_y - P_j) / sqrt(n_y + n_j)``,
        and, by the union bound over the events ``s_j >= s_y``,
        ``P(y wins) >= 1 - sum_{j != y} Phi(-z_yj)``. The bounds are computed in float64
        and moved outwards by an allowance for the rounding of the class sums and of ``Phi``
        (``1e-9`` plus ``4 n u sum |p_i|`` per ``Phi``), so that they hold for the exact
        probabilities.

        Parameters
        ----------
        nat, votes
            As :meth:`win_probabilities`.

        Returns
        -------
        lower : torch.Tensor of shape (b, n_classes)
            Lower bounds (float64, at least 0) on the probability that each class is the
            strict winner of the sampled vote.
        upper : torch.Tensor of shape (b, n_classes)
            Upper bounds (float64, at most 1) on the same probabilities.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> post = Gaussian(1, n_classes=3)
        >>> nat = torch.tensor([1.0], dtype=torch.float64)
        >>> lower, upper = post.win_probability_bounds(nat, torch.tensor([[1]]))
        >>> lower.round(decimals=4)  # class 1 wins unless s_0 = 0 >= s_1 or s_2 = 0 >= s_1
        tensor([[0.0000, 0.6827, 0.0000]], dtype=torch.float64)
        >>> upper.round(decimals=4)  # P(s_1 > 0) = Phi(1) for class 1 (exact here)
        tensor([[0.0000, 0.8413, 0.0000]], dtype=torch.float64)
        """
        nat = self._checked(nat).detach().to(torch.float64)
        votes = self._votes(votes, nat.device, need_y=False)
        _, sums, counts = vote_sums(nat, votes, None, "class", self.n_classes, False)
        diff = sums[:, :, None] - sums[:, None, :]  # P_y - P_j
        spread = counts[:, :, None] + counts[:, None, :]  # n_y + n_j
        z = torch.where(spread > 0, diff / torch.sqrt(spread.clamp_min(1.0)), -math.inf)
        z.diagonal(dim1=1, dim2=2).fill_(math.inf)
        slack = 1e-9 + 4.0 * self.n_voters * 2.0**-53 * float(nat.abs().sum())
        upper = (gaussian_cdf(z.amin(dim=2)) + slack).clamp_(max=1.0)
        # P(s_j >= s_y) = Phi(-z_yj): 1 for a tie at zero (z = -inf), 0 for j = y (z = +inf)
        lower = 1.0 - (gaussian_sf(z) + slack).sum(dim=2) + slack
        return lower.clamp_(min=0.0), upper

    def sample(self, nat, n_samples, generator):
        """``w = p + N(0, I)`` (drawn with ``generator``).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(3).sample(torch.zeros(3), 2, torch.Generator().manual_seed(0)).shape
        torch.Size([2, 3])
        """
        nat = self._checked(nat)
        noise = _randn((int(n_samples), self.n_voters), generator, nat.dtype, nat.device)
        return nat.detach() + noise

    # -- the family beyond its losses ----------------------------------------------------------
    @property
    def reads_class_votes(self):
        """With more than two classes: the class sums of the weights (the strict-winner
        integrals need each class's votes)."""
        return self.n_classes > 2

    def start_natural(self, target, scale, largest_scale):
        """``scale sqrt(n) target``."""
        return scale * np.sqrt(target.size) * target

    @classmethod
    def has_partition_terms(cls, n_classes, split):
        """Binary tasks without split voters (no partition lower bound is known for the
        mixture)."""
        return n_classes == 2 and not split

    @classmethod
    def partition_terms(cls, natural, mixture, vote_weights, bits=24):
        """The terms of the imbalance of the mean over every voter
        (:func:`~skpacbayes.partition.gaussian_partition_terms`)."""
        if len(natural) > 1:
            return super().partition_terms(natural, mixture, vote_weights, bits)
        from skpacbayes.partition import gaussian_partition_terms

        return gaussian_partition_terms(natural[0], natural[0].size, bits=bits)

    @classmethod
    def ray_partition_terms(cls, natural, mixture, vote_weights, scales, bits):
        """Without split voters, the terms of the exact multiples ``t p`` from one certificate
        for the whole ray (:func:`~skpacbayes.partition.gaussian_ray_terms`)."""
        if len(natural) > 1:
            return super().ray_partition_terms(natural, mixture, vote_weights, scales, bits)
        from skpacbayes.partition import gaussian_ray_terms

        vector = np.asarray(natural[0], dtype=np.float64)
        return gaussian_ray_terms(vector, vector.size, scales, bits)
