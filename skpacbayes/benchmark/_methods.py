"""The registry of the comparison's methods: one entry per method, read by everything else.

An entry (:class:`Method`) holds what the rest of the benchmark and the command line know of a
method: its name, the estimator it fits and how it is built, its fixed posterior family (a
strategy) or none (a bound trained with each asked family it certifies), the voter bank it
shares within a seed, its rank in the cost order of the fits, and the one line that describes
it in the tables and in ``skpacbayes --help``. ``METHODS`` and ``STRATEGIES`` are views of
``REGISTRY``; no other module lists the methods or switches on their names.
"""

from dataclasses import dataclass
from typing import Any

from sklearn.ensemble import RandomForestClassifier

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    CertifiedVoteClassifier,
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank

#: the posterior families the comparison runs, as the estimators' ``posterior`` parameter names
#: them: the reference paper's three (the columns of its tables, ``_reference.py``). Named here
#: rather than read from the registry (skpacbayes.posteriors.FAMILIES), whose import would bring
#: torch into every start of the command line.
FAMILIES = ("categorical", "dirichlet", "gaussian")
#: the name of the row that selects over every (method, family) pair of a seed
OVERALL = "All"
#: the families trained on the rows: the Categorical is trained on the error counts where
#: its bound reads them (the cost order of the fits, :func:`_cost_rank`)
_TRAINED_ON_ROWS = ("dirichlet", "gaussian")


def _certified_families(estimator, n_classes, split):
    """The families for which ``estimator`` (a class) certifies its deployed vote.

    The one place that asks an estimator which posteriors its bound certifies.
    """
    return estimator()._bound().valid_posteriors(n_classes, split)


def task_of(n_classes):
    """The task of ``n_classes`` classes, as the keys of :attr:`Method.voters` name it."""
    return "binary" if n_classes == 2 else "multiclass"


@dataclass(frozen=True)
class Bank:
    """A voter bank that the methods of one seed share, fitted once on the training rows.

    Attributes
    ----------
    make : callable
        ``make(seed, n_estimators, n_jobs)``: the unfitted bank.
    split : bool
        Whether its voters are split or out of bag (each trained on part of the rows): a
        bound certifies fewer families on them.
    """

    make: Any
    split: bool


#: the shared voter banks by key (:attr:`Method.voters`): the reference protocol's stumps
#: (binary tasks) and split forest (multi-class tasks, and the Vote and HoldOut rows), and the
#: random-forest trees each grown on half the rows (``OutOfBagVoters`` with its defaults)
BANKS = {
    "stumps": Bank(lambda seed, n_estimators, n_jobs: StumpBank(random_state=seed), False),
    "split_forest": Bank(
        lambda seed, n_estimators, n_jobs: SplitForest(
            n_estimators=n_estimators, split="cross", random_state=seed, n_jobs=n_jobs
        ),
        True,
    ),
    "out_of_bag": Bank(
        lambda seed, n_estimators, n_jobs: OutOfBagVoters(
            n_estimators=n_estimators, random_state=seed, n_jobs=n_jobs
        ),
        True,
    ),
}
_PROTOCOL = {"binary": "stumps", "multiclass": "split_forest"}
_SPLIT_FOREST = {"binary": "split_forest", "multiclass": "split_forest"}
_OUT_OF_BAG = {"binary": "out_of_bag", "multiclass": "out_of_bag"}
_OWN = {"binary": None, "multiclass": None}


@dataclass(frozen=True)
class Method:
    """A method of the comparison: an entry of ``REGISTRY``.

    Attributes
    ----------
    name : str
        Its name in the tables and on the command line (a bound's is the ``bound`` of its
        certificate).
    estimator : type
        The class of the estimator it fits.
    description : str
        One line: what its column is (the tables' legend, ``skpacbayes --help``).
    build : callable
        ``build(family, voters, seed, settings)``: the unfitted estimator with posterior
        ``family`` on the fitted shared ``voters`` (None where it grows its own), with the
        ``delta``, ``max_epochs`` and ``n_estimators`` of the run's ``settings``.
    voters : dict
        The key in ``BANKS`` of the bank it is fitted on, per task (``"binary"``,
        ``"multiclass"``); None: it grows its own voters.
    family : str or None, default=None
        Its fixed posterior family (a strategy); None: a bound, trained with each asked
        family that it certifies on the task's voters.
    cost : int, default=0
        Its rank in the cost order of the fits (:func:`_cost_rank`) in the Categorical
        family: 3 for a selection over several fits or a fit that grows its own forests, 1
        for a bound trained on the rows, 0 for one optimised on the counts.
    """

    name: str
    estimator: type
    description: str
    build: Any
    voters: dict
    family: str | None = None
    cost: int = 0

    def families(self, n_classes):
        """The families this method runs with on a task of ``n_classes`` classes.

        Parameters
        ----------
        n_classes : int
            Number of classes of the task.

        Returns
        -------
        families : list of str
            In the order of ``FAMILIES``; empty where it cannot run.
        """
        if self.family is not None:
            return [self.family]
        split = BANKS[self.voters[task_of(n_classes)]].split
        certified = _certified_families(self.estimator, n_classes, split)
        return [family for family in FAMILIES if family in certified]


def _trained(estimator):
    """The build of a bound's estimator, trained with the pair's family on the shared voters."""

    def build(family, voters, seed, settings):
        return estimator(
            voters=voters,
            posterior=family,
            delta=settings["delta"],
            max_epochs=settings["max_epochs"],
            random_state=seed,
        )

    return build


def _gaussian_vote(voters, delta, max_epochs, seed):
    """The Gaussian PAC-Bayes vote: prior ``t 1`` on a fixed grid, the tightest at delta / K."""
    # the untrained start (solver="none") and, unless max_epochs is 0, the trained vote
    budgets = [{"solver": "none"}] + ([{"max_epochs": max_epochs}] if max_epochs else [])
    candidates = [
        FirstOrderBoundClassifier(
            voters=voters, posterior="gaussian", prior=t, random_state=seed, **budget
        )
        for t in (1.0, 2.0, 4.0, 8.0)
        for budget in budgets
    ]
    return BoundSelectionClassifier(candidates, delta=delta)


def _vote(family, voters, seed, settings):
    return _gaussian_vote(voters, settings["delta"], min(settings["max_epochs"], 20), seed)


def _halves(family, voters, seed, settings):
    return HoldOutBoundClassifier(
        voters=voters, validation_fraction=None, delta=settings["delta"], random_state=seed
    )


def _held_out(fraction):
    """The build of a forest grown on ``1 - fraction`` of the rows, certified on the rest."""

    def build(family, voters, seed, settings):
        return HoldOutBoundClassifier(
            voters=RandomForestClassifier(n_estimators=settings["n_estimators"]),
            validation_fraction=fraction,
            delta=settings["delta"],
            random_state=seed,
        )

    return build


def _certified(family, voters, seed, settings):
    forest = RandomForestClassifier(n_estimators=settings["n_estimators"])
    return CertifiedVoteClassifier(voters=forest, delta=settings["delta"], random_state=seed)


def _entries():
    bounds = [
        ("FO", FirstOrderBoundClassifier, "first-order bound (twice the Gibbs risk)", 0),
        ("SO", SecondOrderBoundClassifier, "second-order (tandem) bound", 0),
        (
            "Bin",
            BinomialBoundClassifier,
            "binomial bound (Gibbs risk of a vote of n_draws voters)",
            1,
        ),
        ("CBound", CBoundClassifier, "C-bound (binary tasks)", 1),
        ("VC", VCDimBoundClassifier, "VC-dimension bound, no PAC-Bayes (binary tasks)", 1),
        ("Partition", PartitionBoundClassifier, "partition bound of the reference paper", 0),
        ("Occam", OccamBoundClassifier, "Occam bound of the best single voter", 0),
    ]
    yield from (Method(n, e, d, _trained(e), _PROTOCOL, cost=c) for n, e, d, c in bounds)
    # the strategies: a fixed family, and voters of their own for some
    yield Method(
        "Vote",
        BoundSelectionClassifier,
        "Gaussian PAC-Bayes vote of a split forest (tightest of 8 priors and budgets)",
        _vote,
        _SPLIT_FOREST,
        family="gaussian",
        cost=3,
    )
    yield Method(
        "HoldOut",
        HoldOutBoundClassifier,
        "plain vote of one half of a split forest, certified on the other half",
        _halves,
        _SPLIT_FOREST,
        family="categorical",
    )
    for percent in (10, 20, 50):
        yield Method(
            f"HO{percent}",
            HoldOutBoundClassifier,
            f"forest grown on {100 - percent} % of the rows, certified on the held-out {percent} %",
            _held_out(percent / 100),
            _OWN,
            family="categorical",
        )
    for name, estimator, bound in (
        ("OOB-FO", FirstOrderBoundClassifier, "first-order"),
        ("OOB-SO", SecondOrderBoundClassifier, "tandem"),
    ):
        yield Method(
            name,
            estimator,
            f"forest grown on every row, out-of-bag {bound} bound",
            _trained(estimator),
            _OUT_OF_BAG,
            family="categorical",
        )
    yield Method(
        "Certified",
        CertifiedVoteClassifier,
        "CertifiedVoteClassifier, the recommended estimator (forests of n_estimators)",
        _certified,
        _OWN,
        family="categorical",
        cost=3,
    )


#: method name -> :class:`Method`, in the order of the tables. The bounds are trained with
#: each asked family on the reference protocol's voters (stumps for binary tasks, the split
#: forest for multi-class tasks); the strategies have a fixed family. Vote: the Gaussian
#: PAC-Bayes vote on the shared split forest (prior t 1, t in 1, 2, 4, 8, untrained and
#: trained, the tightest at delta / 8); HoldOut: the halves of that split forest; HOxx: a
#: forest of ``n_estimators`` trees grown on 1 - f of the rows, certified on the held-out f;
#: OOB-FO / OOB-SO: ``n_estimators`` random-forest trees, each grown on half the rows
#: (``OutOfBagVoters`` with its defaults, shared by both rows), its trained Categorical vote
#: certified by the out-of-bag first-order / tandem bound; Certified:
#: ``CertifiedVoteClassifier`` with its defaults (its own forests).
REGISTRY = {method.name: method for method in _entries()}
#: method name (the bound's name in ``certificate_.bound``) -> estimator class
METHODS = {name: method.estimator for name, method in REGISTRY.items()}
#: the strategies (a fixed posterior family and, for some, voters of their own) -> family
STRATEGIES = {name: m.family for name, m in REGISTRY.items() if m.family is not None}


def _cost_rank(method, family):
    """A rough rank of a fit's cost, for the blocks and their order: a selection over several
    Gaussian fits or one that grows its own forests, then the families trained on the rows,
    then the Categorical fits trained on the rows, then those optimised on the counts (and
    the others)."""
    return max(REGISTRY[method].cost, 2 if family in _TRAINED_ON_ROWS else 0)
