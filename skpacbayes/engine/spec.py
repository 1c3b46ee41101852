"""What the engine is handed (:class:`FitSpec`) and what it hands back (:class:`FitResult`)."""

from dataclasses import dataclass
from typing import Any

import numpy as np

from skpacbayes.engine.certificate import Certificate

__all__ = ["FitResult", "FitSpec", "RefineContext", "make_posterior", "progress"]


def progress(label, message):
    """Print one progress line in the format every estimator's ``verbose`` uses.

    Parameters
    ----------
    label : str
        Who speaks (the estimator's name), printed in brackets as scikit-learn's own
        progress lines are (``[Pipeline]``, ``[Parallel(n_jobs=2)]``).
    message : str
        What happened.

    Examples
    --------
    >>> from skpacbayes.engine.spec import progress
    >>> progress("OccamBoundClassifier", "exact search over 60 voters")
    [OccamBoundClassifier] exact search over 60 voters
    """
    print(f"[{label}] {message}", flush=True)


@dataclass(frozen=True)
class FitSpec:
    """A fit's specification: the bound, the posterior family and the optimiser's options.

    Parameters
    ----------
    bound : Bound
        The bound (a :class:`~skpacbayes.objectives.Bound`) to train and certify.
    posterior : str
        The posterior family's name (one of :data:`~skpacbayes.posteriors.FAMILIES`).
    prior : float or None
        The family's prior parameter (None: its default).
    delta : float
        The certificate holds with probability at least ``1 - delta``.
    n_classes : int
        Number of classes.
    solver : {"auto", "lbfgs", "adam"}
        How the bound is minimised.
    max_epochs, batch_size, learning_rate, early_stopping_patience
        The iterative solvers' budget and Adam's settings. ``max_epochs=0`` deploys the
        untrained start (the prior plus a ``0.01 N(0, I)`` noise): an estimator's
        ``solver="none"``.
    device : str or torch.device
        Torch device of the training.
    verbose : int
        Progress lines (one per optimiser run above 0, every L-BFGS iteration above 1).
    n_jobs : int or None
        Threads of the training's torch operations.
    label : str
        What the progress lines are prefixed with (the estimator's name).
    max_train_rows : int or None
        Largest in-memory training sample of a half on the row path (None: every row);
        the certificate reads every row (:ref:`theory-training-sample`).
    """

    bound: Any
    posterior: str
    prior: float | None
    delta: float
    n_classes: int
    solver: str = "auto"
    max_epochs: int = 100
    batch_size: int = 1024
    learning_rate: float = 0.1
    early_stopping_patience: int = 25
    device: Any = "cpu"
    verbose: int = 0
    n_jobs: int | None = None
    label: str = "skpacbayes"
    max_train_rows: int | None = None

    @classmethod
    def from_params(cls, bound, n_classes, label, params):
        """The specification of an estimator's fit, from its parameters.

        Parameters
        ----------
        bound : Bound
            The bound, configured with the estimator's parameters.
        n_classes : int
            Number of classes.
        label : str
            The estimator's name.
        params : dict
            Its parameters (``get_params(deep=False)``), validated: ``solver="none"`` is
            the engine's budget of no epoch, which deploys the starting point.

        Returns
        -------
        FitSpec
        """
        untrained = params["solver"] == "none"
        rows = params["max_train_rows"]
        return cls(
            bound=bound,
            posterior=params["posterior"],
            prior=params["prior"],
            delta=float(params["delta"]),
            n_classes=int(n_classes),
            solver="auto" if untrained else params["solver"],
            max_epochs=0 if untrained else int(params["max_epochs"]),
            batch_size=int(params["batch_size"]),
            learning_rate=float(params["learning_rate"]),
            early_stopping_patience=int(params["early_stopping_patience"]),
            device=params["device"],
            verbose=int(params["verbose"]),
            n_jobs=params["n_jobs"],
            label=label,
            max_train_rows=None if rows is None else int(rows),
        )

    @property
    def family(self):
        """The posterior family (its class in :mod:`skpacbayes.posteriors`)."""
        from skpacbayes.posteriors import get_family

        return get_family(self.posterior)

    def log(self, message):
        """Print a progress line when ``verbose``."""
        if self.verbose:
            progress(self.label, message)


@dataclass
class FitResult:
    """The fitted posterior, the deployed vote and its certificate.

    Attributes
    ----------
    natural : list of ndarray
        The certified natural parameters of each half.
    mixture_weights : ndarray
        The mixture weights of the halves.
    vote_weights : ndarray
        The deployed vote's weights over all voters.
    deployed : {"weighted_vote", "mixture_bayes"}
        The kind of the deployed classifier.
    history : list of float
        The training objective of the kept run.
    n_iter : int
        Its iterations (epochs of Adam; groups searched by an exact search).
    certificate : Certificate
        The certificate.
    solver : str
        The optimiser that ran.
    groups : list of (ndarray, ndarray)
        The voters and the rows of each half.
    """

    natural: list
    mixture_weights: np.ndarray
    vote_weights: np.ndarray
    deployed: str
    history: list
    n_iter: int
    certificate: Certificate
    solver: str
    groups: list


class RefineContext:
    """What a bound's refinement (:meth:`~skpacbayes.objectives.Bound.refine`) reads.

    The search's inputs are built on first use (a refinement that does not run costs
    nothing).

    Parameters
    ----------
    family : str or type
        The posterior family (its name, or its class in :mod:`skpacbayes.posteriors`).
    delta : float
        The confidence parameter.
    groups : list of EvaluationGroup
        The halves.
    build : callable
        ``build()`` returns ``(posteriors, m, gibbs, errors)``: one posterior per half, the
        sample size of each half's statement, ``gibbs(g, nat)`` the empirical Gibbs risk of
        half ``g`` at the natural parameters ``nat`` (raised by the allowances of a
        certificate; ``gibbs(g, nat, scales=ts)``: those at ``t * nat`` for every ``t`` of
        ``ts``, as an array), and the errors of each voter of each half on its rows.
    """

    def __init__(self, family, delta, groups, build):
        from skpacbayes.posteriors import get_family

        self.family = get_family(family)
        self.delta = float(delta)
        self.groups = groups
        self._build = build
        self._built = None

    def _inputs(self):
        if self._built is None:
            self._built = self._build()
        return self._built

    # the search's inputs, built on first use
    posteriors = property(lambda self: self._inputs()[0])
    m = property(lambda self: self._inputs()[1])
    gibbs = property(lambda self: self._inputs()[2])
    errors = property(lambda self: self._inputs()[3])


def make_posterior(name, n_voters, n_classes, prior=None):
    """Instantiate the posterior family ``name`` (``prior``: None or a float, broadcast)."""
    from skpacbayes.posteriors import get_family

    family = get_family(name)
    try:
        return family(n_voters, n_classes, prior=None if prior is None else float(prior))
    except ValueError as exc:
        raise ValueError(f"Invalid prior={prior!r} for the {family.name} posterior: {exc}") from exc
