"""Categorical posterior C(p): one voter drawn with probability p_i (:ref:`theory-losses`)."""

import numpy as np
import torch

from skpacbayes._sync import checks_enabled

from ._base import Posterior, _as_float_tensor
from ._exact_sums import split_weights
from ._random import _local_generator, init_noise
from ._registry import register_family
from ._vote_sums import vote_sums

__all__ = ["Categorical", "categorical_kl"]

_LOG_ZERO = -1.0e4  # raw value standing for a zero probability (exp underflows to 0)


def categorical_kl(p, log_prior):
    """``KL(C(p) || C(pi)) = sum_{p_i > 0} p_i ln(p_i / pi_i)`` of normalised weights ``p``.

    Written once for the Categorical posterior's training and certificate (torch tensors,
    differentiable, without a NaN where a weight is zero) and for the exact searches on the
    counts (NumPy arrays, one divergence per row).

    Parameters
    ----------
    p : ndarray or torch.Tensor of shape (..., n)
        Non-negative weights, each row summing to one.
    log_prior : ndarray or torch.Tensor of shape (n,)
        ``ln pi``: ``-inf`` where the prior gives a voter no weight.

    Returns
    -------
    kl : ndarray or torch.Tensor of shape (...)
        The divergence of each row, at least 0 (``+inf`` where ``p`` charges a voter the
        prior does not).

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.posteriors import categorical_kl
    >>> uniform = np.log(np.full(4, 0.25))
    >>> categorical_kl(np.array([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]]), uniform)
    array([1.38629436, 0.        ])
    """
    if torch.is_tensor(p):
        finite = torch.isfinite(log_prior)
        log_p = torch.log(p.clamp_min(torch.finfo(p.dtype).tiny))
        kl = torch.clamp((p * (log_p - torch.where(finite, log_prior, 0.0))).sum(-1), min=0.0)
        return torch.where(((p > 0) & ~finite).any(-1), torch.inf, kl)
    finite = np.isfinite(log_prior)
    log_p = np.log(np.maximum(p, np.finfo(p.dtype).tiny))
    kl = np.maximum((p * (log_p - np.where(finite, log_prior, 0.0))).sum(axis=-1), 0.0)
    return np.where(((p > 0) & ~finite).any(axis=-1), np.inf, kl)


@register_family
class Categorical(Posterior):
    """Categorical posterior ``C(p)`` over the voters (:ref:`theory-losses`).

    A draw ``w ~ C(p)`` is the one-hot vector of one voter, chosen with
    probability ``p_i``; the sampled vote is that voter's vote. Hence
    ``r(x, y) = sum_i p_i 1{f_i(x) != y}`` (the weighted error, exact for any number
    of classes) and the deterministic vote (weights ``p``) errs iff
    ``2 sum_{f_i(x) != y} p_i >= sum_i p_i`` (ties are errors; for ``k > 2`` this
    upper-bounds the plurality-vote error, :ref:`theory-losses`).

    Parameters
    ----------
    n_voters : int
        Number of voters.
    n_classes : int, default=2
        Number of classes.
    prior : array-like of shape (n_voters,), default=None
        Prior probabilities (non-negative, normalized here); ``None`` is uniform.

    Attributes
    ----------
    loss_tolerance : float
        ``1e-12``. In float64 every weight sum is computed with the error-free split
        of :func:`~skpacbayes.posteriors._exact_sums.split_weights`, so ``sum_err p`` and
        ``sum p`` are correct to a relative ``2^-52`` and ``r`` to about ``4e-16``;
        ``1e-12`` leaves a factor 2000 of margin.

    Notes
    -----
    ``natural(raw) = softmax(raw)``; ``KL(C(p) || C(pi)) = sum_{p_i > 0} p_i ln(p_i / pi_i)``
    (``+inf`` if some ``p_i > 0 = pi_i``). The natural parameter may be unnormalized:
    every method divides by ``sum p``.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Categorical
    >>> post = Categorical(n_voters=3)
    >>> p = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
    >>> votes = torch.tensor([[1, 0, 1], [0, 0, 1]], dtype=torch.int8)
    >>> y = torch.tensor([1, 1])
    >>> post.stochastic_loss(p, votes, y)
    tensor([0.3000, 0.8000], dtype=torch.float64)
    >>> post.deterministic_loss(p, votes, y)
    tensor([False,  True])
    >>> round(float(post.kl(p)), 6)  # ln 3 - H(p)
    0.068959
    """

    name = "categorical"
    loss_tolerance = 1e-12
    counts_suffice = True
    scale_free = True
    nonnegative_weights = True
    gibbs_certifies_split_vote = True
    search_bounds = (-1e3, 1e3)  # square roots of probabilities (see square_root_search)
    square_root_search = True

    def _resolve_prior(self, prior):
        if prior is None:
            return torch.full((self.n_voters,), 1.0 / self.n_voters, dtype=torch.float64)
        pi = _as_float_tensor(prior, "prior", torch.float64, "cpu").reshape(-1)
        if pi.numel() == 1:
            pi = pi.expand(self.n_voters).clone()
        if pi.shape != (self.n_voters,):
            raise ValueError(f"prior must have shape ({self.n_voters},), got {tuple(pi.shape)}.")
        if not bool(torch.isfinite(pi).all()) or bool((pi < 0).any()) or float(pi.sum()) <= 0:
            raise ValueError("prior probabilities must be finite, >= 0, with a positive sum.")
        return pi / pi.sum()

    # -- parametrization ------------------------------------------------------------------
    def init_raw(self, *, generator=None, dtype=torch.float32, device="cpu"):
        """``log(prior) + 0.01 N(0, I)`` (noise from ``generator``), zeros -> ``-1e4``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> raw = Categorical(4).init_raw(generator=torch.Generator().manual_seed(0))
        >>> raw.requires_grad, raw.shape
        (True, torch.Size([4]))
        """
        log_pi = torch.where(self.prior > 0, torch.log(self.prior), torch.tensor(_LOG_ZERO))
        raw = (log_pi + init_noise(self.n_voters, generator)).to(dtype=dtype, device=device)
        return raw.requires_grad_(True)

    def natural(self, raw):
        """``p = softmax(raw)``.

        Returns
        -------
        nat : torch.Tensor of shape (n_voters,)
            Probabilities ``p`` (summing to one).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical(2).natural(torch.zeros(2))
        tensor([0.5000, 0.5000])
        """
        return torch.softmax(raw, dim=-1)

    def raw_from_natural(self, nat):
        """``log(p / sum p)``, with ``-1e4`` for zero probabilities.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> post = Categorical(3)
        >>> p = torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64)
        >>> post.natural(post.raw_from_natural(p))
        tensor([0.5000, 0.5000, 0.0000], dtype=torch.float64)
        """
        p = self._checked(nat)
        p = p / p.sum()
        return torch.where(p > 0, torch.log(p.clamp_min(torch.finfo(p.dtype).tiny)), _LOG_ZERO)

    def _checked(self, nat):
        nat = self._nat(nat)
        if not checks_enabled():  # training epochs: no host synchronisation
            return nat
        with torch.no_grad():
            bad = not bool(torch.isfinite(nat).all()) or bool((nat < 0).any())
            if bad or float(nat.sum()) <= 0:
                raise ValueError("Categorical weights must be finite, >= 0, with a positive sum.")
        return nat

    # -- KL, losses -----------------------------------------------------------------------
    def kl(self, nat):
        """``KL(C(p) || C(prior)) = sum_{p_i > 0} p_i ln(p_i / prior_i)`` (:func:`categorical_kl`).

        Returns
        -------
        kl : torch.Tensor
            Scalar tensor, differentiable in ``nat`` (``+inf`` if ``p`` charges a voter the
            prior does not).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> post = Categorical(4)
        >>> round(float(post.kl(torch.tensor([1.0, 0.0, 0.0, 0.0]))), 6)  # ln 4
        1.386294
        """
        nat = self._checked(nat)
        p = nat / nat.sum()
        pi = self._prior_like(p)
        tiny = torch.finfo(pi.dtype).tiny
        return categorical_kl(p, torch.where(pi > 0, torch.log(pi.clamp_min(tiny)), -torch.inf))

    def _total(self, nat):
        if self._exact(nat):
            return (
                sum(part.sum() for part in split_weights(nat.detach())) + (nat - nat.detach()).sum()
            )
        return nat.sum()

    def stochastic_loss(self, nat, votes, y):
        """``r = sum_i p_i 1{v_i != y} / sum_i p_i``, shape ``(b,)``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> post = Categorical(2)
        >>> votes, y = torch.tensor([[0, 1]]), torch.tensor([1])
        >>> post.stochastic_loss(torch.tensor([3.0, 1.0]), votes, y)
        tensor([0.7500])
        """
        nat = self._checked(nat)
        votes, y = self._votes(votes, nat.device, y)
        hi, lo = vote_sums(nat, votes, y, "err", self.n_classes, self._exact(nat))
        a_f = hi.sum(0) + lo
        return (a_f / self._total(nat)).clamp(0.0, 1.0)

    def win_probabilities(self, nat, votes):
        """``P(class y wins) = sum_{v_i = y} p_i / sum p`` (the drawn voter's vote), ``(b, k)``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> post = Categorical(3, n_classes=3)
        >>> post.win_probabilities(torch.tensor([0.5, 0.3, 0.2]), torch.tensor([[0, 2, 2]]))
        tensor([[0.5000, 0.0000, 0.5000]])
        """
        nat = self._checked(nat)
        votes = self._votes(votes, nat.device, need_y=False)
        hi, lo, counts = vote_sums(nat, votes, None, "class", self.n_classes, self._exact(nat))
        return ((hi.sum(0) + lo) / self._total(nat)).clamp(0.0, 1.0)

    def sample(self, nat, n_samples, generator):
        """One-hot weight vectors ``e_I``, ``I ~ p`` (drawn with ``generator``).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> gen = torch.Generator().manual_seed(0)
        >>> w = Categorical(3).sample(torch.tensor([0.2, 0.3, 0.5]), 4, gen)
        >>> w.shape, bool((w.sum(1) == 1).all())
        (torch.Size([4, 3]), True)
        """
        nat = self._checked(nat)
        p = (nat / nat.sum()).detach().to(torch.float64)
        generator = _local_generator(generator)
        idx = torch.multinomial(
            p.to(generator.device), int(n_samples), replacement=True, generator=generator
        )
        w = torch.nn.functional.one_hot(idx, self.n_voters).to(dtype=nat.dtype)
        return w.to(nat.device)

    # -- the family beyond its losses ----------------------------------------------------------
    def start_natural(self, target, scale, largest_scale):
        """The target mixed with the uniform weights, at the share ``scale / largest_scale``
        (at most 1)."""
        share = min(1.0, scale / largest_scale)
        return share * target + (1.0 - share) / target.size

    @classmethod
    def has_partition_terms(cls, n_classes, split):
        return True

    @classmethod
    def partition_terms(cls, natural, mixture, vote_weights, bits=24):
        """``(0, cstar(w) / sum(w))`` of the deployed weights ``w`` (on split voters the joint
        weights, exactly as ``predict`` uses them:
        :func:`~skpacbayes.partition.categorical_partition_terms`)."""
        from skpacbayes.partition import categorical_partition_terms

        return categorical_partition_terms(vote_weights, bits=bits)
