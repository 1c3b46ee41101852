"""Common interface of the posterior families: the :class:`Posterior` base class.

Data convention (all families): ``votes`` is an integer tensor of shape ``(b, n)``
holding CLASS INDICES ``0 .. k-1`` (binary tasks: ``0``/``1``; a voter output
``s = +-1`` is index ``(s + 1) / 2``), ``y`` an integer tensor of shape ``(b,)`` of
class indices. Any integer dtype works; ``int8`` is the cheapest.

The shared vote arithmetic (sums of weights over vote patterns, exact deterministic
losses, error masks) lives in :mod:`._vote_sums` (its error-free sums in :mod:`._exact_sums`),
the random variates in :mod:`._random`;
their names are re-exported here for the callers that import them from this module.
"""

import inspect
import math
from numbers import Integral
from typing import ClassVar

import numpy as np
import torch

from skpacbayes._sync import checks_enabled

from ._docstrings import completed_docstring
from ._exact_sums import exact_total as exact_total
from ._exact_sums import split_weights as split_weights
from ._exact_sums import two_sum as two_sum
from ._random import _local_generator as _local_generator
from ._random import _rand as _rand
from ._random import _randn as _randn
from ._random import init_noise as init_noise
from ._random import log_gamma_variates as log_gamma_variates
from ._vote_sums import ClassVotes, ErrorMask
from ._vote_sums import margin_is_nonpositive as margin_is_nonpositive
from ._vote_sums import not_strict_winner as not_strict_winner
from ._vote_sums import vote_sums as vote_sums

__all__ = ["Posterior"]


# ---------------------------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------------------------
def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def _as_float_tensor(x, name, dtype=None, device=None):
    if not torch.is_tensor(x):
        x = torch.as_tensor(np.asarray(x, dtype=np.float64))
    if not x.is_floating_point():
        x = x.to(torch.float64)
    if dtype is not None or device is not None:
        x = x.to(dtype=dtype or x.dtype, device=device or x.device)
    return x


def _check_scales(scales):
    """``scales`` as a list of positive finite floats (at least one)."""
    values = [float(t) for t in np.atleast_1d(np.asarray(scales, dtype=np.float64))]
    if not values or not all(math.isfinite(t) and t > 0 for t in values):
        raise ValueError(f"scales must be positive finite numbers (at least one), got {scales!r}.")
    return values


def _check_integer_tensor(x, name, device):
    if not torch.is_tensor(x):
        x = torch.as_tensor(np.asarray(x))
    if x.dtype == torch.bool:
        x = x.to(torch.int8)
    if x.is_floating_point() or x.is_complex():
        raise TypeError(f"{name} must hold integer class indices, got dtype {x.dtype}.")
    return x.to(device)


# ---------------------------------------------------------------------------------------------
# Base class
# ---------------------------------------------------------------------------------------------
class Posterior:
    """Base class of the posterior families (not to be used directly).

    A posterior family owns its natural parameter ``nat`` (a vector over the ``n``
    voters), its prior, the KL divergence to the prior (:ref:`theory-notation`), the per-example
    stochastic loss ``r(x, y) = P_{w ~ Q}(h_w(x) != y)`` (ties are errors), the
    deterministic loss of the vote with the mean weights, and the mean weights
    themselves. Training optimizes an unconstrained ``raw`` tensor with
    ``nat = natural(raw)``.

    Parameters
    ----------
    n_voters : int
        Number of voters ``n`` (all of them, zero-weight ones included).
    n_classes : int, default=2
        Number of classes ``k``; ``k = 2`` is the binary task.
    prior : array-like or float, default=None
        Natural parameter of the prior; ``None`` is the default prior of
        :ref:`theory-notation` (uniform Categorical, Dirichlet(1, ..., 1), N(0, I)).

    Attributes
    ----------
    name : str
        Family name.
    loss_tolerance : float
        Certified absolute error of :meth:`stochastic_loss` evaluated in float64 (the
        certificate adds it to ``r`` on the safe side). See each family.
    prior : torch.Tensor
        The resolved prior parameter (float64, CPU), shape ``(n_voters,)``.
    counts_suffice : bool
        Whether the stochastic loss is the weighted error of the normalised weights, so that
        the statistics a counting bound reads (the Gibbs and tandem risks) are functions of
        the error counts of the voters and pairs of voters: the count path fits the family
        (:attr:`~skpacbayes.objectives.Capabilities.reads_counts`), the out-of-bag bounds
        and the Occam bound certify it. Categorical.
    scale_free : bool
        Whether the posterior depends on ``nat`` only through ``nat / sum(nat)`` (a search
        gains nothing along the scale; on split voters the mixture weight is folded into the
        joint weights). Categorical.
    nonnegative_weights : bool
        Whether the vote weights are ``>= 0`` (Categorical, Dirichlet).
    gibbs_certifies_split_vote : bool
        Whether the classifier deployed on split voters errs only where the mixture's
        stochastic loss is at least 1/2 (property (f1) of :ref:`theory-split`), so that the
        bounds on the Gibbs risk certify it. The Dirichlet mixture-mean vote does not.
    split_deployment : {"weighted_vote", "mixture_bayes"}
        The classifier deployed on split voters: the vote with the mixture's mean weights,
        or the mixture's Bayes classifier (the Gaussian's; its family then provides
        ``win_probability`` and ``win_probability_bounds``).
    certifies_margins : bool
        Whether the margin bound (:ref:`theory-margin`) holds for the family: the posteriors
        ``Dir(K theta)`` of the deployed weights ``theta`` and their beta tails. Dirichlet.
    float_prior_range : tuple of float or None
        The range of ``|t|`` of a float prior ``t`` that the float32 training represents
        (:meth:`check_float_prior`); ``None``: the family takes no float prior.
    search_bounds : tuple of float
        The box of the coordinates L-BFGS searches (a line-search step stays representable).
    square_root_search : bool
        Whether L-BFGS searches the square roots ``sqrt(p)`` of the probabilities
        ``p = softmax(raw)`` rather than ``raw`` under a PAC-Bayes objective (there the KL's
        curvature is the Fisher metric, four times the identity). Categorical.
    start_scales_linearly : bool
        Whether :meth:`start_natural` is ``scale`` times its value at scale 1: the losses
        along the scan of the row path's starts are then computed as one ray. Gaussian.

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.posteriors import Dirichlet, Posterior
    >>> post = Dirichlet(n_voters=3)
    >>> isinstance(post, Posterior), post.name, post.loss_tolerance
    (True, 'dirichlet', 1e-09)
    >>> raw = post.init_raw(generator=torch.Generator().manual_seed(0))
    >>> nat = post.natural(raw)  # alpha = exp(raw), close to the prior Dirichlet(1, 1, 1)
    >>> votes = torch.tensor([[1, 1, 0]], dtype=torch.int8)
    >>> r = post.stochastic_loss(nat, votes, torch.tensor([1]))
    >>> (r.sum() + post.kl(nat)).backward()  # a training objective's gradient
    >>> raw.grad.shape
    torch.Size([3])
    """

    name: ClassVar[str] = ""
    loss_tolerance: float = 0.0
    # what the engine and the bounds read of the family (see the Attributes above); the
    # defaults claim nothing
    counts_suffice: ClassVar[bool] = False
    scale_free: ClassVar[bool] = False
    nonnegative_weights: ClassVar[bool] = False
    gibbs_certifies_split_vote: ClassVar[bool] = False
    split_deployment: ClassVar[str] = "weighted_vote"
    certifies_margins: ClassVar[bool] = False
    float_prior_range: ClassVar[tuple | None] = None
    search_bounds: ClassVar[tuple] = (-math.inf, math.inf)
    square_root_search: ClassVar[bool] = False
    start_scales_linearly: ClassVar[bool] = False

    def __init__(self, n_voters: int, n_classes: int = 2, prior=None):
        self.n_voters = _check_count(n_voters, "n_voters", 1)
        self.n_classes = _check_count(n_classes, "n_classes", 2)
        self.prior = self._resolve_prior(prior)

    def __init_subclass__(cls, **kwargs):
        """A family's methods keep the sections of :class:`Posterior`'s docstrings they do not
        write themselves (their Parameters and Returns, written once, here)."""
        super().__init_subclass__(**kwargs)
        for attr, value in vars(cls).items():
            func = value.__func__ if isinstance(value, classmethod | staticmethod) else value
            if attr.startswith("_") or not (inspect.isfunction(func) or isinstance(func, property)):
                continue
            base = next((vars(k)[attr] for k in cls.__mro__[1:] if attr in vars(k)), None)
            base_doc = None if base is None else inspect.getdoc(base)
            if base_doc:
                func.__doc__ = completed_docstring(func.__doc__, base_doc)

    def __repr__(self):
        return f"{type(self).__name__}(n_voters={self.n_voters}, n_classes={self.n_classes})"

    # -- what differs by family beyond the losses: read by the engine and the bounds ----------
    @classmethod
    def check_float_prior(cls, prior):
        """Refuse a float ``prior`` the family does not take, or cannot train with.

        Parameters
        ----------
        prior : float
            The estimators' ``prior`` parameter (not None).

        Raises
        ------
        ValueError
            If ``prior`` is not finite, if the family takes no float prior, or if ``|prior|``
            lies outside :attr:`float_prior_range` (the training runs in float32: the prior,
            and its sums over many voters, must stay in range).

        Examples
        --------
        >>> from skpacbayes.posteriors import Categorical, Gaussian
        >>> Gaussian.check_float_prior(-2.0)
        >>> Categorical.check_float_prior(1.0)
        Traceback (most recent call last):
        ...
        ValueError: prior must be None for the categorical posterior (its default prior); a \
float prior is available for 'dirichlet' and 'gaussian'.
        """
        from ._registry import FAMILIES

        if not math.isfinite(prior):
            raise ValueError(f"prior must be a finite number, got prior={prior!r}.")
        if cls.float_prior_range is None:
            others = [repr(name) for name, f in FAMILIES.items() if f.float_prior_range]
            takers = " and ".join(others) if len(others) < 3 else ", ".join(others)
            raise ValueError(
                f"prior must be None for the {cls.name} posterior (its default prior); a "
                f"float prior is available for {takers or 'no family'}."
            )
        low, high = cls.float_prior_range
        if not low <= abs(prior) <= high:
            raise ValueError(
                f"prior={prior!r} is outside the range the float32 training handles for the "
                f"{cls.name} posterior: |prior| in [{low:g}, {high:g}]."
            )

    @classmethod
    def into_domain(cls, nat, dtype):
        """``nat`` within the family's open domain at the resolution of ``dtype``.

        A search that scores points by their losses and KL may reach the boundary of the
        domain (a Dirichlet concentration of 0); its points are moved inside first.

        Parameters
        ----------
        nat : torch.Tensor or ndarray of shape (n_voters,)
            Natural parameter.
        dtype : torch.dtype
            Whose smallest normal number is the distance kept from the boundary.

        Returns
        -------
        nat : torch.Tensor or ndarray of shape (n_voters,)
            ``nat`` itself where it is inside (every family but the Dirichlet).
        """
        return nat

    def start_natural(self, target, scale, largest_scale):
        """A starting point of the row path's L-BFGS towards the vote weights ``target``.

        The engine scans ``scale`` on a grid (up to ``largest_scale``) and keeps the start of
        lowest objective (:ref:`theory-statistics`).

        Parameters
        ----------
        target : ndarray of shape (n_voters,)
            Non-negative weights summing to one, every one positive.
        scale : float
            The size of the start.
        largest_scale : float
            The largest scale of the grid.

        Returns
        -------
        nat : ndarray of shape (n_voters,)
            Natural parameter (float64).
        """
        raise NotImplementedError(f"The {self.name} posterior has no starts on the rows.")

    @classmethod
    def one_voter_natural(cls, n_voters, index):
        """A natural parameter whose deployed vote is the vote of voter ``index`` alone.

        Parameters
        ----------
        n_voters : int
            Number of voters.
        index : int
            The voter.

        Returns
        -------
        nat : ndarray of shape (n_voters,)
            The one-hot vector (a family whose parameters must stay positive overrides it).

        Examples
        --------
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical.one_voter_natural(3, 1)
        array([0., 1., 0.])
        """
        nat = np.zeros(n_voters)
        nat[index] = 1.0
        return nat

    @classmethod
    def clip_candidates(cls, theta, clipped):
        """Candidates of ``theta`` with its weights ``clipped`` cut (the partition bound's
        tightening, H1 of :ref:`theory-tightening`).

        Parameters
        ----------
        theta : ndarray of shape (n,)
            Flat natural parameters.
        clipped : ndarray of int
            The coordinates to cut.

        Yields
        ------
        candidate : ndarray of shape (n,)
            ``theta`` with those coordinates at zero.
        """
        cand = theta.copy()
        cand[clipped] = 0.0
        yield cand

    @classmethod
    def has_partition_terms(cls, n_classes, split):
        """Whether :meth:`partition_terms` certifies the family's deployed vote here.

        Parameters
        ----------
        n_classes : int
            Number of classes.
        split : bool
            Whether the voters are split (two halves).

        Returns
        -------
        bool
            True where the partition bound certifies the family.
        """
        return False

    @classmethod
    def partition_terms(cls, natural, mixture, vote_weights, bits=24):
        """Certified ``(b~, c~)`` of the deployed vote (:ref:`theory-partition`,
        :ref:`theory-split`).

        Parameters
        ----------
        natural : list of ndarray
            The natural parameters of each half.
        mixture : ndarray
            The mixture weights of the halves.
        vote_weights : ndarray
            The deployed vote's weights over all voters, exactly as ``predict`` uses them.
        bits : int, default=24
            Resolution of the certified partition (16 inside searches).

        Returns
        -------
        b_tilde, c_tilde : float
            Certified lower bounds on the mean stochastic loss of the rows the deployed
            vote classifies correctly and wrongly.

        Raises
        ------
        ValueError
            Where :meth:`has_partition_terms` is False.
        """
        raise ValueError(f"No partition bound for the {cls.name} posterior here.")

    @classmethod
    def ray_partition_terms(cls, natural, mixture, vote_weights, scales, bits):
        """:meth:`partition_terms` of the natural parameters ``t natural`` for every ``t`` of
        ``scales`` (the points of a search along a ray; the vote weights do not change with
        the scale of a scale-free family).

        Parameters
        ----------
        natural, mixture, vote_weights
            As :meth:`partition_terms` (``natural`` the direction of the ray).
        scales : list of float
            Positive scales ``t``.
        bits : int
            Resolution of the certified partition.

        Returns
        -------
        terms : list of (float, float)
            ``(b~, c~)`` at each scale.
        """
        if cls.scale_free:
            return [cls.partition_terms(natural, mixture, vote_weights, bits)] * len(scales)
        return [
            cls.partition_terms([t * n for n in natural], mixture, vote_weights, bits)
            for t in scales
        ]

    @property
    def reads_class_votes(self):
        """Whether the stochastic loss reads the votes themselves (their class indices)
        rather than only where each voter errs (the multi-class Gaussian's)."""
        return False

    # -- to be provided by the families --------------------------------------------------
    def _resolve_prior(self, prior):  # pragma: no cover - abstract
        raise NotImplementedError

    def init_raw(self, *, generator=None, dtype=torch.float32, device="cpu") -> torch.Tensor:
        """Unconstrained starting point (a leaf tensor with ``requires_grad=True``).

        The prior's natural parameter plus ``0.01 N(0, I)`` noise drawn from ``generator``
        (no noise when ``generator`` is ``None``; the global RNG is never used).

        Parameters
        ----------
        generator : torch.Generator or None, default=None
            Source of the start-up noise; ``None`` adds no noise.
        dtype : torch.dtype, default=torch.float32
            Floating dtype of the result (``float32`` for training).
        device : str or torch.device, default="cpu"
            Device of the result.

        Returns
        -------
        raw : torch.Tensor of shape (n_voters,)
            Leaf tensor with ``requires_grad=True``, of the requested dtype and device.

        Examples
        --------
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(3).init_raw()  # no generator: no noise, the prior mean N(0, I)
        tensor([0., 0., 0.], requires_grad=True)
        """
        raise NotImplementedError  # pragma: no cover

    def natural(self, raw) -> torch.Tensor:
        """Natural parameter from the unconstrained one.

        Parameters
        ----------
        raw : torch.Tensor of shape (n_voters,)
            Unconstrained parameter, e.g. from :meth:`init_raw`.

        Returns
        -------
        nat : torch.Tensor of shape (n_voters,)
            The natural parameter, differentiable in ``raw``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical(2).natural(torch.tensor([0.0, 0.0]))  # softmax
        tensor([0.5000, 0.5000])
        """
        raise NotImplementedError  # pragma: no cover

    def raw_from_natural(self, nat) -> torch.Tensor:
        """Inverse of :meth:`natural`.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        raw : torch.Tensor of shape (n_voters,)
            An unconstrained parameter ``raw`` with ``natural(raw) = nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> post = Dirichlet(2)
        >>> post.natural(post.raw_from_natural(torch.tensor([2.0, 3.0])))
        tensor([2., 3.])
        """
        raise NotImplementedError  # pragma: no cover

    def kl(self, nat) -> torch.Tensor:
        """``KL(Q || prior)`` as a scalar tensor.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        kl : torch.Tensor
            Scalar (0-dimensional) tensor, differentiable in ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).kl(torch.tensor([3.0, 4.0]))  # ||p||^2 / 2 against N(0, I)
        tensor(12.5000)
        """
        raise NotImplementedError  # pragma: no cover

    def stochastic_loss(self, nat, votes, y) -> torch.Tensor:
        """``r(x_j, y_j)``, shape ``(b,)``, differentiable in ``nat``.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (float32 for training, float64 for a certificate).
        votes : torch.Tensor of shape (b, n_voters)
            Integer class indices voted by each voter on each example.
        y : torch.Tensor of shape (b,)
            Integer class indices of the true labels.

        Returns
        -------
        r : torch.Tensor of shape (b,)
            Stochastic loss of each example, in [0, 1], dtype and device of ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> votes, y = torch.tensor([[1, 0, 1]]), torch.tensor([1])
        >>> Categorical(3).stochastic_loss(torch.tensor([0.5, 0.25, 0.25]), votes, y)
        tensor([0.2500])
        """
        raise NotImplementedError  # pragma: no cover

    def scaled_stochastic_losses(self, nat, votes, y, scales) -> torch.Tensor:
        """Stochastic losses at the natural parameters ``t * nat``, for every ``t`` of ``scales``.

        A search over the scale of a direction ``nat`` (the partition tightening profiles
        its objective over the L1 scale) evaluates the losses along one ray. Families whose
        losses read the rows through sums of the weights that scale with ``t`` (Dirichlet
        and Gaussian) compute those sums once for the whole ray; the others evaluate
        :meth:`stochastic_loss` at each point. No gradient.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the direction.
        votes : torch.Tensor of shape (b, n_voters) or ErrorMask
            As for :meth:`stochastic_loss`.
        y : torch.Tensor of shape (b,) or None
            As for :meth:`stochastic_loss`.
        scales : sequence of float
            Positive scales ``t``.

        Returns
        -------
        r : torch.Tensor of shape (len(scales), b)
            Row ``i``: the stochastic losses at ``scales[i] * nat`` (as :meth:`stochastic_loss`
            up to the rounding of the scaled sums).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> votes, y = torch.tensor([[1, 0, 1]]), torch.tensor([1])
        >>> alpha = torch.tensor([1.0, 0.5, 0.5], dtype=torch.float64)
        >>> r = Dirichlet(3).scaled_stochastic_losses(alpha, votes, y, [1.0, 4.0])
        >>> bool(torch.allclose(r[1], Dirichlet(3).stochastic_loss(4.0 * alpha, votes, y)))
        True
        """
        nat = self._checked(nat).detach()
        scales = _check_scales(scales)
        with torch.no_grad():
            shared = self._ray_losses(nat, votes, y, scales)
            if shared is not None:
                return shared
            return torch.stack([self.stochastic_loss(t * nat, votes, y) for t in scales])

    def _ray_losses(self, nat, votes, y, scales):
        """The losses of :meth:`scaled_stochastic_losses` from sums formed once for the ray,
        or ``None`` where the family has no such path (then point by point)."""
        return None

    def deterministic_loss(self, nat, votes, y) -> torch.Tensor:
        """Exact loss (bool, ties are errors) of the vote with weights :meth:`vote_weights`.

        By default the vote errs iff the weight of the erring voters is at least half of the
        total (``2 sum_{v_i != y} w_i >= sum_i w_i``, exact in every precision; for ``k > 2``
        an upper bound on the plurality vote's error, :ref:`theory-losses`).

        Parameters
        ----------
        nat, votes, y
            As :meth:`stochastic_loss`.

        Returns
        -------
        err : torch.Tensor of shape (b,)
            Boolean tensor, ``True`` where the deterministic vote errs (ties included).

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> votes, y = torch.tensor([[1, 0, 1]]), torch.tensor([1])
        >>> Categorical(3).deterministic_loss(torch.tensor([0.5, 0.25, 0.25]), votes, y)
        tensor([False])
        >>> Categorical(3).deterministic_loss(torch.tensor([0.5, 0.5, 0.0]), votes, y)  # a tie
        tensor([True])
        """
        nat = self._checked(nat)
        votes, y = self._votes(votes, nat.device, y)
        return margin_is_nonpositive(self.vote_weights(nat), votes, y, self.n_classes)

    def vote_weights(self, nat) -> torch.Tensor:
        """Mean weights of ``Q`` (the deterministic majority vote).

        By default ``nat / sum(nat)``, the mean of a Categorical or a Dirichlet posterior.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior (see :meth:`natural`).

        Returns
        -------
        weights : torch.Tensor of shape (n_voters,)
            Weights of the deterministic majority vote.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Dirichlet
        >>> Dirichlet(2).vote_weights(torch.tensor([1.0, 3.0]))  # the mean of Dir(1, 3)
        tensor([0.2500, 0.7500])
        """
        nat = self._checked(nat)
        return nat / nat.sum()

    def win_probabilities(self, nat, votes) -> torch.Tensor:
        """``P_Q(class y is the strict winner of the sampled vote)``, shape ``(b, k)``.

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior.
        votes : torch.Tensor of shape (b, n_voters)
            Integer class indices voted by each voter on each example.

        Returns
        -------
        proba : torch.Tensor of shape (b, n_classes)
            Probability that each class is the strict winner of the sampled vote.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Categorical
        >>> Categorical(2).win_probabilities(torch.tensor([0.75, 0.25]), torch.tensor([[1, 0]]))
        tensor([[0.2500, 0.7500]])
        """
        raise NotImplementedError  # pragma: no cover

    def sample(self, nat, n_samples, generator) -> torch.Tensor:
        """``n_samples`` weight vectors ``w ~ Q``, shape ``(n_samples, n)``.

        Drawn with ``generator`` (``None``: a fresh generator with seed 0).

        Parameters
        ----------
        nat : array-like or torch.Tensor of shape (n_voters,)
            Natural parameter of the posterior.
        n_samples : int
            Number of weight vectors to draw.
        generator : torch.Generator or None
            Source of randomness; ``None`` uses a fresh CPU generator with seed 0 (the global RNG
            is never used).

        Returns
        -------
        w : torch.Tensor of shape (n_samples, n_voters)
            One sampled weight vector per row, dtype and device of ``nat``.

        Examples
        --------
        >>> import torch
        >>> from skpacbayes.posteriors import Gaussian
        >>> Gaussian(2).sample(torch.zeros(2), 3, None).shape
        torch.Size([3, 2])
        """
        raise NotImplementedError  # pragma: no cover

    # -- shared helpers --------------------------------------------------------------------
    def _nat(self, nat):
        nat = _as_float_tensor(nat, "nat")
        if nat.shape != (self.n_voters,):
            raise ValueError(f"nat must have shape ({self.n_voters},), got {tuple(nat.shape)}.")
        return nat

    def _votes(self, votes, device, y=None, need_y=True, class_votes=False):
        """Checked ``(votes, y)``; ``class_votes``: :class:`ClassVotes` are taken (the
        multi-class Gaussian's stochastic loss)."""
        if isinstance(votes, ErrorMask):
            if votes.shape[1] != self.n_voters or y is not None or not need_y:
                raise ValueError(
                    f"An ErrorMask must have shape (b, {self.n_voters}) and come with y=None "
                    "(stochastic losses only)."
                )
            return votes, None
        held = isinstance(votes, ClassVotes)  # checked class indices, with their counts
        if held and (not (class_votes and need_y) or votes.counts.shape[1:] != (self.n_classes,)):
            raise ValueError(
                "ClassVotes are taken by the stochastic loss of a multi-class Gaussian "
                "posterior only, built with its number of classes."
            )
        if not held:
            votes = _check_integer_tensor(votes, "votes", device)
        if len(votes.shape) != 2 or votes.shape[1] != self.n_voters:
            raise ValueError(
                f"votes must have shape (b, {self.n_voters}), got {tuple(votes.shape)}."
            )
        if not held and votes.numel() and checks_enabled():
            lo, hi = torch.aminmax(votes)
            if int(lo) < 0 or int(hi) >= self.n_classes:
                raise ValueError(
                    f"votes must be class indices in [0, {self.n_classes}), "
                    f"got values in [{int(lo)}, {int(hi)}]."
                )
        if not need_y:
            return votes
        y = _check_integer_tensor(y, "y", device)
        if y.dim() != 1 or y.shape[0] != votes.shape[0]:
            raise ValueError(f"y must have shape ({votes.shape[0]},), got {tuple(y.shape)}.")
        if y.numel() and checks_enabled():
            lo, hi = torch.aminmax(y)
            if int(lo) < 0 or int(hi) >= self.n_classes:
                raise ValueError(f"y must be class indices in [0, {self.n_classes}).")
        return votes, y.to(votes.dtype)

    def _prior_like(self, nat):
        if nat.device.type == "cpu":
            return self.prior.to(dtype=nat.dtype)
        # a copy to an accelerator waits for it: once per dtype and device
        cache = self.__dict__.setdefault("_prior_on", {})
        key = (nat.dtype, nat.device)
        if key not in cache:
            cache[key] = self.prior.to(dtype=nat.dtype, device=nat.device)
        return cache[key]

    @staticmethod
    def _exact(nat):
        return nat.dtype == torch.float64
