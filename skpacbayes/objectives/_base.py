"""What every bound tells the engine, and the registry of the bounds by name."""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from skpacbayes._docstrings import fill_doc

#: the exact searches on the error counts the engine runs (``Capabilities.exact_search``)
EXACT_SEARCHES = ("gibbs", "tandem")

_REGISTRY = {}


def register(bound):
    """Class decorator: make the bound class ``bound`` known by its ``name`` (:func:`bound_class`).

    Parameters
    ----------
    bound : type
        A :class:`Bound` subclass with a ``name`` of its own.

    Returns
    -------
    bound : type
        The same class.

    Examples
    --------
    >>> from skpacbayes.objectives import Bound, bound_class, register
    >>> @register
    ... class Halved(Bound):
    ...     name = "doc-halved"
    ...     def value(self, stats, kl, m, weights, delta):
    ...         return stats["gibbs"] / 2
    >>> bound_class("doc-halved") is Halved
    True
    """
    if not bound.name or bound.name in _REGISTRY:
        raise ValueError(f"A bound needs a name of its own; got {bound.name!r}.")
    _REGISTRY[bound.name] = bound
    return bound


def bound_class(name):
    """The bound class registered under ``name`` (the ``bound`` field of a certificate).

    Parameters
    ----------
    name : str
        A bound's short name.

    Returns
    -------
    cls : type
        The :class:`Bound` subclass.

    Examples
    --------
    >>> from skpacbayes.objectives import bound_class
    >>> from skpacbayes.objectives.first_order import FirstOrder
    >>> bound_class(FirstOrder.name) is FirstOrder
    True
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"Unknown bound {name!r}; known: {sorted(_REGISTRY)}.") from None


class CertifiedValue:
    """A bound's certified value and what it adds to the certificate.

    Parameters
    ----------
    value : float
        The certified bound on the risk of the deployed classifier.
    gibbs_bound : float or None
        The certified bound on the Gibbs risk, where the bound uses one.
    b_tilde, c_tilde : float or None
        The certified partition terms (the partition bound only).
    details : dict or None
        Bound-specific extras that replace those of the fit, or None to keep them.
    natural : list of ndarray or None
        The posterior actually certified, when the bound certifies another posterior than
        the trained one (the margin bound).
    kl : ndarray or None
        Its KL per half (raised by the allowance).

    Examples
    --------
    >>> from skpacbayes.objectives import CertifiedValue
    >>> CertifiedValue(0.25, gibbs_bound=0.125).value
    0.25
    """

    def __init__(
        self,
        value,
        gibbs_bound=None,
        b_tilde=None,
        c_tilde=None,
        details=None,
        natural=None,
        kl=None,
    ):
        self.value = float(value)
        self.gibbs_bound = gibbs_bound
        self.b_tilde = b_tilde
        self.c_tilde = c_tilde
        self.details = details
        self.natural = natural
        self.kl = kl


@dataclass(frozen=True)
class Capabilities:
    """What a bound supports and how the engine runs it: declared once, as data.

    The engine reads these flags; it calls no method of the bound to learn them, and no
    method of a bound calls the engine back.

    Parameters
    ----------
    binary_only : bool, default=False
        The bound exists for binary tasks only (``fit`` refuses more classes).
    reads_counts : bool, default=False
        With a family whose statistics are functions of the error counts
        (:attr:`~skpacbayes.posteriors.Posterior.counts_suffice`), the bound reads the sample
        only through the error counts of the voters and pairs of voters: the fit runs on the
        counts (the count path), out of core on a dask array too.
    chooses_on_counts : bool, default=False
        The bound picks its posterior on the counts in closed form, whatever the solver
        (:meth:`Bound.choose_on_counts`, Occam's single voter).
    exact_search : {"gibbs", "tandem"} or None, default=None
        With ``solver="auto"`` on the counts, the exact search whose optimum is deployed: of
        the Gibbs (first-order) objective or of the tandem objective
        (:mod:`skpacbayes.engine.exact_search`).
    exact_start : {"gibbs", "tandem"} or None, default=None
        With ``solver="auto"`` on the counts and no ``exact_search``, the exact search whose
        optimum L-BFGS starts from (the C-bound starts from the tandem optimum).
    certifies_out_of_bag : bool, default=False
        The bound certifies an out-of-bag bank (each voter evaluated on its own rows).
    certifies_from_sums : bool, default=True
        The certificate reads the rows only through sums over them (of the statistics of the
        stochastic losses, and the deployed vote's errors): a dask array is then certified
        by a map-reduce on the row path (the margin bound reads every row's margin).
    trains_vote : bool, default=False
        The training minimises the vote's cross-entropy rather than the bound (for a bound
        of the vote's training errors, as the VC baseline): L-BFGS searches the logits and
        its runs are judged by the training errors of their points.
    fixed_mixture_weight : float or None, default=None
        The mixture weight of the first half on split voters, where the bound fixes it
        before the data (None: learned).
    follows_last_bits : bool, default=False
        The certified value follows the last bits of the trained point (counts that jump
        with the weights): the training then holds the plain error matrix and every L-BFGS
        start runs to convergence.
    converge_every_start : bool, default=False
        Every L-BFGS start of the row path runs to convergence (none stops early where an
        earlier one ended): a refinement that depends on the last bits of its start.

    Examples
    --------
    >>> from skpacbayes.objectives import Capabilities
    >>> Capabilities(reads_counts=True, exact_search="gibbs").exact_search
    'gibbs'
    >>> Capabilities(exact_search="newton")
    Traceback (most recent call last):
    ...
    ValueError: exact_search must be one of ('gibbs', 'tandem') or None; got 'newton'.
    """

    binary_only: bool = False
    reads_counts: bool = False
    chooses_on_counts: bool = False
    exact_search: str | None = None
    exact_start: str | None = None
    certifies_out_of_bag: bool = False
    certifies_from_sums: bool = True
    trains_vote: bool = False
    fixed_mixture_weight: float | None = None
    follows_last_bits: bool = False
    converge_every_start: bool = False

    def __post_init__(self):
        for field in ("exact_search", "exact_start"):
            value = getattr(self, field)
            if value is not None and value not in EXACT_SEARCHES:
                raise ValueError(f"{field} must be one of {EXACT_SEARCHES} or None; got {value!r}.")


def families_where(accepts):
    """The names of the registered posterior families that ``accepts`` (a predicate on the
    family class) accepts, in their registration order: a bound's
    :meth:`~Bound.valid_posteriors` reads the families' declarations through it.

    Parameters
    ----------
    accepts : callable
        ``accepts(family)`` for a :class:`~skpacbayes.posteriors.Posterior` subclass.

    Returns
    -------
    names : tuple of str
        The accepted families' names.

    Examples
    --------
    >>> from skpacbayes.objectives import families_where
    >>> families_where(lambda family: family.counts_suffice)
    ('categorical',)
    """
    from skpacbayes.posteriors import FAMILIES

    return tuple(name for name, family in FAMILIES.items() if accepts(family))


class Bound:
    """A bound: everything the engine needs to train a posterior with it and certify it.

    Each bound is a subclass in a module of its own (:mod:`skpacbayes.objectives`), registered
    with :func:`register`; an estimator hands an instance, configured with its own parameters,
    to the engine inside a :class:`~skpacbayes.engine.spec.FitSpec`. The engine reads the
    bound's :attr:`capabilities` and calls its core (:meth:`statistics`,
    :meth:`training_objective`, :meth:`certify`) and its optional hooks
    (:meth:`choose_on_counts`, :meth:`after_training`, :meth:`refine`), handing them plain
    data; it never switches on a bound's name.

    Attributes
    ----------
    name : str
        Short name, the ``bound`` field of the certificate.
    statistic_keys : tuple of str
        Statistics of the stochastic losses the bound reads (keys of :meth:`statistics`).
    capabilities : Capabilities
        What the bound supports and how the engine runs it (a bound whose capabilities
        depend on its parameters sets them on the instance).

    Examples
    --------
    >>> import numpy as np
    >>> from skpacbayes.objectives import FirstOrder
    >>> bound = FirstOrder()
    >>> bound.capabilities.reads_counts, bound.valid_posteriors(2, split=False)
    (True, ('categorical', 'dirichlet', 'gaussian'))
    >>> value = bound.value({"gibbs": np.array([0.1])}, np.array([2.0]), [1000], None, 0.05)
    >>> bool(0.2 < value < 1)  # twice a Seeger bound above the Gibbs risk 0.1
    True
    """

    name: ClassVar[str] = ""
    statistic_keys: ClassVar[tuple] = ("gibbs",)
    capabilities: Capabilities = Capabilities()

    def __init_subclass__(cls, name=None, estimator=None, example="", **kwargs):
        """Declare a subclass: ``class FirstOrder(Bound, name="FO", estimator=...)``.

        Given a ``name``, the subclass takes it and is registered under it (:func:`register`).
        Given the ``estimator`` of :mod:`skpacbayes` that certifies with it, the placeholder
        line ``{estimator}`` of its docstring becomes the line naming that estimator and an
        example that builds the bound with the arguments ``example`` and reads its name (a
        bound built without arguments imports its estimator there as well).
        """
        super().__init_subclass__(**kwargs)
        if name is not None:
            cls.name = name
        if estimator is not None:
            imports = "" if example else f">>> from skpacbayes import {estimator}\n"
            fill_doc(
                estimator=(
                    f"The bound of :class:`~skpacbayes.{estimator}`.\n\nExamples\n--------\n"
                    f"{imports}>>> from skpacbayes.objectives import {cls.__name__}\n"
                    f">>> {cls.__name__}({example}).name\n{cls.name!r}"
                )
            )(cls)
        if name is not None:
            register(cls)

    # what the bound certifies ----------------------------------------------------------------
    def valid_posteriors(self, n_classes, split):
        """Posterior families for which the bound certifies the deployed vote.

        By default every family on data-independent voters, and on split voters those whose
        deployed vote the bounds on the mixture's stochastic loss certify
        (:attr:`~skpacbayes.posteriors.Posterior.gibbs_certifies_split_vote`); none for more
        than two classes if the bound is binary only.

        Parameters
        ----------
        n_classes : int
            Number of classes.
        split : bool
            Whether the voters are split (two halves) or out of bag.

        Returns
        -------
        families : tuple of str
            The names of the families.
        """
        if self.capabilities.binary_only and n_classes > 2:
            return ()
        return families_where(lambda family: not split or family.gibbs_certifies_split_vote)

    def details(self):
        """Bound-specific settings recorded in every certificate (e.g. the binomial's draws).

        Returns
        -------
        details : dict
            Name to value (empty by default).
        """
        return {}

    # the statistics, the training objective and the certified value ---------------------------
    def statistics(self, r_lo, r_hi, mean):
        """Statistics of the per-row stochastic losses of one half.

        Parameters
        ----------
        r_lo, r_hi : ndarray or Tensor of shape (n_rows,)
            Lower and upper ends of the losses (equal in the training, widened by the loss
            tolerance in the certificate).
        mean : callable
            Averages over rows (``torch.mean`` or ``np.mean``).

        Returns
        -------
        statistics : dict
            One value per key of :attr:`statistic_keys`.
        """
        return {"gibbs": mean(r_hi)}

    def value(self, stats, kl, m, weights, delta):
        """The bound at the statistics ``stats`` and the KL values ``kl``.

        Parameters
        ----------
        stats : dict
            The statistics, one array (or tensor) of one entry per half each.
        kl : ndarray or Tensor of shape (n_halves,)
            KL of each half's posterior to its prior.
        m : sequence of int or Tensor
            Sample size of each half's statement.
        weights : ndarray or Tensor or None
            Mixture weights of the halves.
        delta : float
            The confidence parameter.

        Returns
        -------
        value : float or Tensor
            The bound (the mixture of the halves' statements on split voters).
        """
        raise NotImplementedError(f"{type(self).__name__} does not define its value.")

    def training_objective(self, stats, kl, m, weights, delta):
        """The objective the training minimises (torch; the bound itself by default).

        Parameters
        ----------
        stats, kl, m, weights, delta
            As :meth:`value`.

        Returns
        -------
        objective : Tensor
            A scalar, differentiable in the posterior's parameters.
        """
        return self.value(stats, kl, m, weights, delta)

    def certify(self, inputs):
        """The certified value of the fitted posterior.

        Parameters
        ----------
        inputs : CertifyInputs
            The float64 statistics with their allowances, the raised KL values, the sample
            sizes, the mixture, the deployed vote and its training error
            (:class:`~skpacbayes.engine.certify.CertifyInputs`).

        Returns
        -------
        certified : CertifiedValue
            The value and what it adds to the certificate.
        """
        from skpacbayes import bounds

        gibbs_bound = None
        if "gibbs" in inputs.statistics:
            stat = inputs.statistics["gibbs"]
            gibbs_bound = float(
                bounds.pac_bayes_upper(
                    stat, inputs.kl, inputs.m, inputs.delta, weights=inputs.weights
                )
            )
        value = self.value(inputs.statistics, inputs.kl, inputs.m, inputs.weights, inputs.delta)
        return CertifiedValue(value, gibbs_bound=gibbs_bound)

    def recompute(self, certificate, delta):
        """The certificate's bound at another ``delta`` (from its recorded statistics).

        Parameters
        ----------
        certificate : Certificate
            A certificate of this bound.
        delta : float
            The new confidence parameter, fixed independently of the data.

        Returns
        -------
        bound : float
            Certified upper bound on the risk at confidence ``1 - delta``.
        """
        stats = {k: np.asarray(v) for k, v in certificate.statistics.items()}
        kl, weights = np.asarray(certificate.kl), np.asarray(certificate.mixture_weights)
        return float(self.value(stats, kl, list(certificate.m), weights, delta))

    # optional hooks (the engine's default where a bound does not define them) ----------------
    def choose_on_counts(self, rates, m, delta):
        """The posterior chosen in closed form on the counts
        (:attr:`Capabilities.chooses_on_counts`).

        Parameters
        ----------
        rates : list of ndarray
            The error rate of each voter of each half (float64).
        m : list of int
            The sample size of each half's statement.
        delta : float
            The confidence parameter.

        Returns
        -------
        natural : list of ndarray
            The natural parameters of each half.
        mixture : ndarray
            The mixture weights of the halves.
        """
        raise NotImplementedError(f"{type(self).__name__} chooses no posterior on the counts.")

    def after_training(self, context, natural):
        """The posterior to deploy after the training on the rows, and details to record.

        Parameters
        ----------
        context : RowContext
            The votes, the labels, the groups and a way to train again on some of the rows
            (:class:`~skpacbayes.engine.rows.RowContext`).
        natural : list of ndarray
            The trained natural parameters per half.

        Returns
        -------
        natural : list of ndarray
            The natural parameters to certify.
        details : dict or None
            Added to the certificate's details.
        """
        return natural, None

    def refine(self, context, natural, mixture):
        """A refined posterior to certify beside the trained one (the lower bound is kept).

        Parameters
        ----------
        context : RefineContext
            What the search reads (:class:`~skpacbayes.engine.spec.RefineContext`).
        natural : list of ndarray
            The trained natural parameters per half.
        mixture : ndarray
            The mixture weights.

        Returns
        -------
        refined : tuple or None
            ``(natural, mixture)``, or None when the bound does not refine.
        """
        return None


def training_upper(stat, kl, m, delta, weights):
    """Training surrogate of :func:`~skpacbayes.bounds.pac_bayes_upper` that never saturates.

    ``pac_bayes_upper`` plus, per half, ``max(0, stat + sqrt(eps / 2) - 1)`` with ``eps`` the
    half's Seeger budget. The added term is zero wherever McAllester's form ``stat +
    sqrt(eps / 2)`` (an upper bound on the kl inverse, by Pinsker) is at most 1, so the
    surrogate equals the bound there; beyond, where the kl inverse is pinned at 1 with a
    zero gradient (a complexity ``kl`` far too large for ``m``), it keeps pulling ``stat``
    and ``kl`` down. Only the training uses it; the certificate is the bound itself.

    Parameters
    ----------
    stat : Tensor of shape (n_halves,)
        The empirical statistic of each half.
    kl : Tensor of shape (n_halves,)
        KL of each half.
    m : Tensor of shape (n_halves,)
        Sample size of each half's statement.
    delta : float
        The confidence parameter (split evenly over the halves).
    weights : Tensor or None
        Mixture weights of the halves.

    Returns
    -------
    Tensor
        The surrogate (a scalar).

    Examples
    --------
    >>> import torch
    >>> from skpacbayes.objectives import training_upper
    >>> stat, m = torch.tensor([0.9]), torch.tensor([100.0])
    >>> bool(training_upper(stat, torch.tensor([500.0]), m, 0.05, None) > 1)  # still descends
    True
    """
    import torch

    from skpacbayes.bounds import pac_bayes_upper, seeger_epsilon

    h = stat.shape[0] if stat.ndim else 1
    eps = seeger_epsilon(kl, m, delta / h)
    excess = torch.relu(stat + torch.sqrt(eps / 2) - 1)
    if weights is not None:
        excess = weights * excess
    elif h > 1:
        excess = excess / h
    return pac_bayes_upper(stat, kl, m, delta, weights=weights) + excess.sum()
