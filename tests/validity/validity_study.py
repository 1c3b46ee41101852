"""Coverage study of the certified bounds on synthetic distributions with a known true risk.

The guarantee under test (every estimator, every valid posterior): with probability at least
``1 - delta`` over the i.i.d. training sample, ``bound_ >= true risk of predict``. We draw
``reps`` fresh training samples, fit, and count the repetitions where the certificate is below
the true risk of the deployed classifier ("violations"). A valid bound has at most a fraction
``delta`` of violations in expectation; in practice (loose bounds) 0.

Distributions
-------------
``mixture``
    Binary, 2 features. ``y`` uniform on {0, 1}; class 1 is an equal mixture of ``N((+-1, 0), I)``,
    class 0 of ``N((0, +-1), I)``. Stumps are weak here (risk ~0.33-0.45): most PAC-Bayes bounds
    are near-vacuous, the partition / Occam / VC bounds are not.
``shifted``
    Binary, 2 features, ``X | y ~ N(+-(1, 1), I)`` (Bayes error ``Phi(-sqrt 2) = 0.079``): easy
    enough for FO / SO / Bin / C-bound to be informative (bounds well below 1), so that a
    violation could actually happen.
``blobs3``
    3 classes, 2 features, ``X | c ~ N(2 (cos 2 pi c / 3, sin 2 pi c / 3), I)``. Used with
    ``SplitForest(n_estimators=10)`` (data-dependent voters, two-halves cross bound).

True risk
---------
Data-independent stumps (``StumpBank(feature_range=(-2, 2))``, fixed before the data): every
stump only looks at ``x_d > t`` for thresholds ``t`` on a fixed grid, so the deployed vote is
constant on each cell of the product grid of thresholds (11 x 11 cells). The true risk is then
EXACT: ``sum_cells sum_y P(y) P(cell | y) 1{predict(cell) != y}``, with Gaussian cell
probabilities in closed form (``ndtr``) and ``predict`` evaluated at one point inside each cell.
No Monte-Carlo error (float64 rounding only, ~1e-15). :func:`exact_risk` is cross-checked
against a 200 000-point Monte-Carlo estimate in the CI tests.

Split forests (``blobs3``): trees are not on a fixed grid, so the risk is estimated on a fresh
Monte-Carlo sample of ``n_test`` (>= 200 000) points drawn independently of the training
sample; a repetition counts as a violation only if ``bound_ < risk_hat - 3 stderr``, where
``stderr = sqrt(risk_hat (1 - risk_hat) / n_test)`` (<= 1.2e-3 at 200 000 points). This allowance
is at most 0.0034, tiny next to the observed gaps between bound and risk (reported in the
table as "min gap").

Confidence levels
-----------------
Each repetition fits the estimator at ``delta_fit`` (the first delta) and certifies the SAME
posterior at every other delta with ``recompute_bound`` (valid: every PAC-Bayes statement holds
for all posteriors simultaneously); the roles are rotated over the repetitions so that every
delta is also used for fitting (rep ``r`` fits at ``deltas[r % len(deltas)]``). Estimators
without ``recompute_bound`` (the margin bound) are refitted at each delta.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import special

import skpacbayes as skp
from skpacbayes.model_selection import BoundSelectionClassifier
from skpacbayes.voters import OutOfBagVoters, SplitForest, StumpBank

__all__ = [
    "CONFIGS",
    "TASKS",
    "Config",
    "check_table",
    "ci_configs",
    "exact_risk",
    "markdown_table",
    "mc_risk",
    "run_study",
    "summarize",
]

FEATURE_RANGE = (-2.0, 2.0)


# -------------------------------------------------------------------------------------------
# distributions
# -------------------------------------------------------------------------------------------
class GaussianMixtureTask:
    """Labels with given priors; each class a mixture of unit-covariance Gaussians."""

    def __init__(self, name, priors, means, component_weights):
        self.name = name
        self.priors = np.asarray(priors, dtype=np.float64)
        self.means = [np.asarray(mu, dtype=np.float64) for mu in means]  # per class (n_comp, d)
        self.component_weights = [np.asarray(w, dtype=np.float64) for w in component_weights]
        self.n_classes = self.priors.size
        self.n_features = self.means[0].shape[1]

    def sample(self, m, rng):
        y = rng.choice(self.n_classes, size=m, p=self.priors)
        X = rng.standard_normal((m, self.n_features))
        for c in range(self.n_classes):
            idx = np.flatnonzero(y == c)
            comp = rng.choice(
                self.component_weights[c].size, size=idx.size, p=self.component_weights[c]
            )
            X[idx] += self.means[c][comp]
        return X, y

    def cell_class_probabilities(self, edges):
        """P(y = c, x in cell) on the product grid of ``edges`` (one edge list per feature).

        Cells of feature ``d``: ``(-inf, e_1], (e_1, e_2], ..., (e_T, inf)``.
        Returns an array of shape ``(n_classes, n_cells_0, n_cells_1, ...)``.
        """
        shape = tuple(len(e) + 1 for e in edges)
        out = np.zeros((self.n_classes, *shape))
        for c in range(self.n_classes):
            for mu, w in zip(self.means[c], self.component_weights[c], strict=True):
                prob = np.ones(())
                for d, e in enumerate(edges):
                    cdf = special.ndtr(np.concatenate([[-np.inf], e, [np.inf]]) - mu[d])
                    prob = np.multiply.outer(prob, np.diff(cdf))
                out[c] += self.priors[c] * w * prob
        return out


def _mixture_task():
    return GaussianMixtureTask(
        "mixture",
        [0.5, 0.5],
        [[[0.0, 1.0], [0.0, -1.0]], [[1.0, 0.0], [-1.0, 0.0]]],
        [[0.5, 0.5], [0.5, 0.5]],
    )


def _shifted_task():
    return GaussianMixtureTask(
        "shifted", [0.5, 0.5], [[[-1.0, -1.0]], [[1.0, 1.0]]], [[1.0], [1.0]]
    )


def _blobs3_task():
    angles = 2 * np.pi * np.arange(3) / 3
    means = [[[2 * np.cos(a), 2 * np.sin(a)]] for a in angles]
    return GaussianMixtureTask("blobs3", [1 / 3, 1 / 3, 1 / 3], means, [[1.0]] * 3)


TASKS = {"mixture": _mixture_task(), "shifted": _shifted_task(), "blobs3": _blobs3_task()}


# -------------------------------------------------------------------------------------------
# true risk of the deployed classifier
# -------------------------------------------------------------------------------------------
def _cell_representatives(edges):
    reps = []
    for e in edges:
        e = np.asarray(e, dtype=np.float64)
        mids = (e[:-1] + e[1:]) / 2
        reps.append(np.concatenate([[e[0] - 1.0], mids, [e[-1] + 1.0]]))
    return reps


def stump_edges(estimator):
    """Sorted thresholds of each feature of a fitted estimator's StumpBank."""
    bank = estimator.voters_
    if not isinstance(bank, StumpBank):
        raise TypeError("exact_risk needs StumpBank voters")
    return [np.unique(row[np.isfinite(row)]) for row in bank.thresholds_]


def exact_risk(estimator, task):
    """Exact true risk of ``estimator.predict`` for stump voters on a Gaussian-mixture task."""
    edges = stump_edges(estimator)
    reps = _cell_representatives(edges)
    grid = np.stack(np.meshgrid(*reps, indexing="ij"), axis=-1).reshape(-1, len(edges))
    pred = estimator.predict(grid).astype(np.intp)  # the task's labels are 0 .. k-1
    probs = task.cell_class_probabilities(edges).reshape(task.n_classes, -1)
    correct = probs[pred, np.arange(grid.shape[0])]
    return float(1.0 - correct.sum())


def mc_risk(estimator, task, n_test, rng):
    """Monte-Carlo estimate of the true risk on a fresh sample: (risk_hat, stderr).

    ``predict`` depends on ``x`` only through the vote vector, so it is called once per
    distinct vote pattern of the test sample (on one test point having that pattern) and the
    predictions are broadcast back: the same numbers as ``predict(X)``, ~100x faster for the
    Gaussian mixture's Bayes classifier (a 1-D integral per point and class).
    """
    X, y = task.sample(n_test, rng)
    votes = estimator.voters_.votes(X)
    _, first, inverse = np.unique(votes, axis=0, return_index=True, return_inverse=True)
    pred = estimator.predict(X[first])[inverse.ravel()]
    risk = float(np.mean(pred != y))
    return risk, math.sqrt(max(risk * (1 - risk), 1.0 / n_test) / n_test)


# -------------------------------------------------------------------------------------------
# configurations
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One row of the study: an estimator, a posterior, a task, its voters."""

    estimator: str
    posterior: str
    task: str
    # "stumps" (a fixed range), "stumps_default" (thresholds from seed-drawn build rows):
    # exact risk; "forest", "forest_single", "oob" (OutOfBagVoters), "rf10" (a plain
    # RandomForestClassifier for the hold-out), "none" (the estimator's default voters):
    # Monte-Carlo risk
    voters: str = "stumps"
    params: tuple = ()  # extra estimator parameters, as (name, value) pairs
    reps_factor: float = 1.0  # fraction of the repetitions (very slow estimators only)

    @property
    def label(self):
        extra = ", ".join(f"{k}={v}" for k, v in self.params)
        name = self.estimator.replace("Classifier", "")
        return f"{name}({extra})" if extra else name

    def make(self, delta, seed, max_epochs, batch_size):
        cls = getattr(skp, self.estimator, None)
        if self.voters == "stumps":
            voters = StumpBank(n_thresholds=10, feature_range=FEATURE_RANGE)
        elif self.voters == "forest":
            voters = SplitForest(n_estimators=10)
        elif self.voters == "forest_single":
            voters = SplitForest(n_estimators=10, split="single")
        elif self.voters == "stumps_default":
            voters = StumpBank(n_thresholds=10)
        elif self.voters == "oob":
            voters = OutOfBagVoters(n_estimators=10)
        elif self.voters == "rf10":
            from sklearn.ensemble import RandomForestClassifier

            voters = RandomForestClassifier(n_estimators=10)
        elif self.voters == "none":  # the estimator's own default (voters=None)
            voters = None
        else:  # pragma: no cover
            raise ValueError(self.voters)
        if self.estimator == "BoundSelectionClassifier":
            # one candidate per second family name in params: FO and SO on the same voters
            candidates = [
                getattr(skp, name)(
                    voters=voters,
                    posterior=self.posterior,
                    max_epochs=max_epochs,
                    batch_size=batch_size,
                    random_state=seed,
                )
                for name in ("FirstOrderBoundClassifier", "SecondOrderBoundClassifier")
            ]
            return BoundSelectionClassifier(candidates, delta=delta)
        kwargs = {
            "voters": voters,
            "posterior": self.posterior,
            "delta": delta,
            "max_epochs": max_epochs,
            "batch_size": batch_size,
            "random_state": seed,
        }
        kwargs.update(dict(self.params))
        accepted = cls().get_params(deep=False)  # the selection estimators take fewer knobs
        return cls(**{k: v for k, v in kwargs.items() if k in accepted})


def _binary_configs(task, families):
    rows = []
    for post in ("categorical", "dirichlet", "gaussian"):
        rows += [Config(name, post, task, params=params) for name, params in families]
    return rows


_ALL_FAMILIES = [
    ("FirstOrderBoundClassifier", ()),
    ("SecondOrderBoundClassifier", ()),
    ("BinomialBoundClassifier", (("n_draws", 3),)),
    ("BinomialBoundClassifier", (("n_draws", 100),)),
    ("CBoundClassifier", ()),
    ("VCDimBoundClassifier", ()),
    ("PartitionBoundClassifier", (("tighten", False),)),
]


def _common_configs(task):
    return [
        Config("PartitionBoundClassifier", "categorical", task, params=(("tighten", True),)),
        # The tightening heuristics take ~13 s (Dirichlet) and ~3 s (Gaussian) per fit at
        # m = 500 (600 certified evaluations): fewer repetitions for these two rows.
        Config(
            "PartitionBoundClassifier",
            "dirichlet",
            task,
            params=(("tighten", True),),
            reps_factor=0.1,
        ),
        Config(
            "PartitionBoundClassifier",
            "gaussian",
            task,
            params=(("tighten", True),),
            reps_factor=0.5,
        ),
        # ~1.5 s per fit (1140 certified evaluations of the margin grid), refitted per delta.
        Config("MarginBoundClassifier", "dirichlet", task, reps_factor=0.5),
        Config("OccamBoundClassifier", "categorical", task),
    ]


_HALVES = (("validation_fraction", None),)  # the hold-out of a split forest's own halves


def _forest_configs():
    t = "blobs3"
    return [
        Config("FirstOrderBoundClassifier", "categorical", t, "forest"),
        Config("FirstOrderBoundClassifier", "gaussian", t, "forest"),
        Config("SecondOrderBoundClassifier", "gaussian", t, "forest"),
        Config("BinomialBoundClassifier", "categorical", t, "forest", (("n_draws", 3),)),
        Config("PartitionBoundClassifier", "categorical", t, "forest", (("tighten", True),)),
        Config("PartitionBoundClassifier", "dirichlet", t, "forest", (("tighten", False),)),
        Config("OccamBoundClassifier", "categorical", t, "forest"),
        Config("HoldOutBoundClassifier", "categorical", t, "forest", _HALVES),
    ]


def _new_bank_configs():
    """The default stump bank (build rows), out-of-bag forests, hold-out fractions."""
    return [
        Config("FirstOrderBoundClassifier", "categorical", "shifted", "stumps_default"),
        Config("FirstOrderBoundClassifier", "dirichlet", "shifted", "stumps_default"),
        Config("OccamBoundClassifier", "categorical", "mixture", "stumps_default"),
        Config("FirstOrderBoundClassifier", "categorical", "blobs3", "oob"),
        Config("SecondOrderBoundClassifier", "categorical", "blobs3", "oob"),
        Config("FirstOrderBoundClassifier", "categorical", "mixture", "oob"),
        Config("SecondOrderBoundClassifier", "categorical", "mixture", "oob"),
        Config(
            "HoldOutBoundClassifier",
            "categorical",
            "blobs3",
            "rf10",
            (("validation_fraction", (0.2, 0.5)),),
        ),
    ]


def _default_path_configs():
    """Selections and defaults: each estimator as a user calls it, with a small ensemble."""
    return [
        # the default fractions and folds and the "tightest_bound" rule
        Config("CertifiedVoteClassifier", "categorical", "blobs3", "rf10"),
        Config("CertifiedVoteClassifier", "categorical", "mixture", "rf10"),
        # with its out-of-bag candidates (FO and tandem on the bagged ensemble of every row)
        Config(
            "CertifiedVoteClassifier",
            "categorical",
            "blobs3",
            "rf10",
            (("selection", "most_accurate"),),
        ),
        # with its two stump candidates (on by default with the default forest)
        Config(
            "CertifiedVoteClassifier",
            "categorical",
            "mixture",
            "rf10",
            (("stump_candidate", True),),
        ),
        # the defaults as a user calls them: default forests, stumps and boosting candidates
        # (500 rows of a binary task), the default rule and the most accurate within 0.01
        Config("CertifiedVoteClassifier", "categorical", "mixture", "none", reps_factor=0.5),
        Config(
            "CertifiedVoteClassifier",
            "categorical",
            "mixture",
            "none",
            (("selection", "most_accurate"),),
            reps_factor=0.5,
        ),
        Config("HoldOutBoundClassifier", "categorical", "blobs3", "rf10"),
        Config("BoundSelectionClassifier", "categorical", "shifted", "stumps"),
        Config("BoundSelectionClassifier", "categorical", "blobs3", "oob"),
    ]


# "shifted": every estimator x every valid posterior (all informative there).
# "mixture": FO (the reference PAC-Bayes bound, near-vacuous there) and the bounds
# that are informative on it: partition with the heuristics, VC, margin, Occam.
CONFIGS = (
    _binary_configs("shifted", _ALL_FAMILIES)
    + _common_configs("shifted")
    + _binary_configs("mixture", [("FirstOrderBoundClassifier", ())])
    + [Config("VCDimBoundClassifier", "categorical", "mixture")]
    + _common_configs("mixture")
    + _forest_configs()
    + _new_bank_configs()
    + _default_path_configs()
)


def ci_configs():
    """The CI-sized subset: one row per estimator family and voter kind, cheap posteriors."""
    keep = {
        ("FirstOrderBoundClassifier", "gaussian", "shifted", "stumps", ()),
        ("SecondOrderBoundClassifier", "categorical", "shifted", "stumps", ()),
        ("BinomialBoundClassifier", "gaussian", "shifted", "stumps", (("n_draws", 3),)),
        ("CBoundClassifier", "categorical", "shifted", "stumps", ()),
        ("VCDimBoundClassifier", "categorical", "mixture", "stumps", ()),
        ("PartitionBoundClassifier", "categorical", "mixture", "stumps", (("tighten", True),)),
        ("PartitionBoundClassifier", "gaussian", "mixture", "stumps", (("tighten", False),)),
        ("OccamBoundClassifier", "categorical", "mixture", "stumps", ()),
        ("FirstOrderBoundClassifier", "categorical", "blobs3", "forest", ()),
        ("PartitionBoundClassifier", "categorical", "blobs3", "forest", (("tighten", True),)),
        ("HoldOutBoundClassifier", "categorical", "blobs3", "forest", _HALVES),
    }
    return [c for c in CONFIGS if (c.estimator, c.posterior, c.task, c.voters, c.params) in keep]


# -------------------------------------------------------------------------------------------
# running
# -------------------------------------------------------------------------------------------
@dataclass
class Record:
    """One (configuration, repetition): bound at each delta and the deployed vote's risk."""

    config: Config
    rep: int
    fit_delta: float
    bounds: dict  # delta -> bound
    risk: float
    stderr: float  # 0 for the exact risk
    train_error: float
    seconds: float
    error: str | None = None
    extra: dict = field(default_factory=dict)


def _one(config, rep, deltas, m, seed, max_epochs, batch_size, n_test):
    import torch

    torch.set_num_threads(1)
    task = TASKS[config.task]
    data_rng = np.random.default_rng([seed, rep, 0])
    X, y = task.sample(m, data_rng)
    fit_delta = deltas[rep % len(deltas)]
    start = time.perf_counter()
    try:
        est = config.make(fit_delta, seed * 100_003 + rep, max_epochs, batch_size).fit(X, y)
        bounds = {fit_delta: float(est.bound_)}
        for d in deltas:
            if d == fit_delta:
                continue
            if config.estimator == "MarginBoundClassifier":
                other = config.make(d, seed * 100_003 + rep, max_epochs, batch_size).fit(X, y)
                # the same posterior is not guaranteed: report the refit's bound on its own vote
                bounds[d] = (float(other.bound_), other)
            else:
                bounds[d] = float(est.recompute_bound(d))
    except Exception as exc:  # recorded, reported as a failure of the row
        return Record(
            config,
            rep,
            fit_delta,
            {},
            math.nan,
            0.0,
            math.nan,
            time.perf_counter() - start,
            error=f"{type(exc).__name__}: {exc}",
        )
    seconds = time.perf_counter() - start

    def risk_of(model):
        model = getattr(model, "best_estimator_", model)  # what a selection deploys
        if config.voters in ("stumps", "stumps_default"):
            return exact_risk(model, task), 0.0
        return mc_risk(model, task, n_test, np.random.default_rng([seed, rep, 1]))

    risk, stderr = risk_of(est)
    extra = {}
    for d, value in list(bounds.items()):
        if isinstance(value, tuple):  # refitted model (margin bound): its own risk
            bound, other = value
            r2, s2 = risk_of(other)
            bounds[d] = bound
            extra[f"risk@{d}"] = r2
            extra[f"stderr@{d}"] = s2
    return Record(
        config,
        rep,
        fit_delta,
        bounds,
        risk,
        stderr,
        float(est.certificate_.train_error),
        seconds,
        extra=extra,
    )


def run_study(
    configs,
    reps,
    deltas=(0.05, 0.5),
    m=500,
    seed=0,
    max_epochs=10,
    batch_size=128,
    n_test=200_000,
    n_jobs=1,
    progress=None,
):
    """Fit every configuration on ``reps`` fresh samples; returns the list of records."""
    tasks = []
    for c in configs:
        n = max(len(deltas), int(math.ceil(reps * c.reps_factor)))
        tasks += [(c, r) for r in range(n)]
    args = (tuple(deltas), m, seed, max_epochs, batch_size, n_test)
    if n_jobs == 1:
        records = []
        for i, (c, r) in enumerate(tasks):
            records.append(_one(c, r, *args))
            if progress:
                progress(i + 1, len(tasks))
        return records
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, batch_size=1, return_as="generator")
    records = []
    for i, record in enumerate(parallel(delayed(_one)(c, r, *args) for c, r in tasks)):
        records.append(record)
        if progress:
            progress(i + 1, len(tasks))
    return records


# -------------------------------------------------------------------------------------------
# summaries
# -------------------------------------------------------------------------------------------
@dataclass
class Row:
    config: Config
    delta: float
    reps: int
    violations: int
    failures: int
    mean_bound: float
    mean_risk: float
    min_gap: float  # min over reps of bound - (risk - 3 stderr)
    mean_train_error: float
    mean_seconds: float
    errors: list


def summarize(records, deltas=(0.05, 0.5)):
    by_config = {}
    for rec in records:
        by_config.setdefault(rec.config, []).append(rec)
    rows = []
    for config, recs in by_config.items():
        for d in deltas:
            ok = [r for r in recs if r.error is None]
            bounds = np.array([r.bounds[d] for r in ok])
            risks = np.array([r.extra.get(f"risk@{d}", r.risk) for r in ok])
            stderrs = np.array([r.extra.get(f"stderr@{d}", r.stderr) for r in ok])
            gaps = bounds - (risks - 3 * stderrs)
            rows.append(
                Row(
                    config=config,
                    delta=d,
                    reps=len(ok),
                    violations=int(np.sum(gaps < 0)),
                    failures=len(recs) - len(ok),
                    mean_bound=float(bounds.mean()) if ok else math.nan,
                    mean_risk=float(risks.mean()) if ok else math.nan,
                    min_gap=float(gaps.min()) if ok else math.nan,
                    mean_train_error=float(np.mean([r.train_error for r in ok]))
                    if ok
                    else math.nan,
                    mean_seconds=float(np.mean([r.seconds for r in recs])),
                    errors=sorted({r.error for r in recs if r.error is not None}),
                )
            )
    return rows


def check_table(rows):
    """Problems found: violation rate above delta, NaN / out-of-range bounds, failed fits."""
    problems = []
    for row in rows:
        where = f"{row.config.label} [{row.config.posterior}, {row.config.task}] delta={row.delta}"
        if row.failures:
            problems.append(f"{where}: {row.failures} fits failed: {row.errors}")
        if row.reps == 0:
            continue
        if row.violations > row.delta * row.reps:
            problems.append(
                f"{where}: {row.violations}/{row.reps} violations > delta "
                f"(mean bound {row.mean_bound:.4f}, mean risk {row.mean_risk:.4f})"
            )
        if not (0.0 <= row.mean_bound <= 1.0):
            problems.append(f"{where}: bound outside [0, 1] or NaN ({row.mean_bound})")
    return problems


def markdown_table(rows, header=""):
    lines = [header] if header else []
    lines += [
        "| task | voters | estimator | posterior | delta | reps | violations | mean bound "
        "| mean true risk | min gap | mean train err | s/fit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c = r.config
        fail = f" ({r.failures} failed)" if r.failures else ""
        lines.append(
            f"| {c.task} | {c.voters} | {c.label} | {c.posterior} | {r.delta:g} | {r.reps}{fail} "
            f"| {r.violations} | {r.mean_bound:.4f} | {r.mean_risk:.4f} | {r.min_gap:.4f} "
            f"| {r.mean_train_error:.4f} | {r.mean_seconds:.2f} |"
        )
    return "\n".join(lines) + "\n"


def records_to_json(records):
    out = []
    for rec in records:
        d = asdict(rec)
        d["config"] = asdict(rec.config) | {"label": rec.config.label}
        d["bounds"] = {str(k): v for k, v in rec.bounds.items()}
        out.append(d)
    return json.dumps(out)
