"""Does every estimator deploy a useful classifier? (no degenerate fits)

Usage::

    python benchmarks/bench_degenerate.py --data-home /work/shared/datasets \
        [--datasets breast_cancer digits haberman ...] [--seeds 1] \
        [--max-rows 10000] [--capped adult mnist fashion_mnist] [--out FILE]

For each data set and seed: the split of ``benchmarks/reproduce.py`` (stratified 80/20,
``random_state=seed``), then every valid (bound, posterior) pair with its DEFAULT voters
(``StumpBank()`` on two classes, ``SplitForest()`` on more, ``SplitForest(split="single")``
for the VC bound on more) and ``random_state=seed``, so that pairs sharing a kind of bank
share the very same bank. The reference is ``OccamBoundClassifier`` (the best single voter)
on the same bank. A row passes when its test error is at most Occam's plus one point.

Columns: test error (%), certified bound (%), epochs run, effective voters
(``certificate_.n_effective_voters``), Occam's test error on the same bank, pass/fail, fit
seconds, and the test error of a plain ``RandomForestClassifier(n_estimators=200)`` (seeded
``random_state=seed``) on the same split: what the user would deploy without a certificate.

``--capped`` data sets (default: adult, mnist, fashion_mnist) are first reduced to
``--max-rows`` rows by a stratified draw with ``random_state=seed`` (0: no cap) and run with
the first seed only; the header says so.

``--optimiser`` prints instead the optimiser's before/after on identical votes (seed 0
split, default stump bank): the Seeger bound on the Gibbs risk of haberman's FO Dirichlet
fit, and the FO / SO Categorical bounds on svmguide1, each with the training of the
previous release (one pass per epoch, so one Adam step per epoch on haberman, no polish:
``MIN_STEPS_PER_EPOCH = 1``, ``POLISH_MAX_ITER = 0``) and today's, against the optimum: for
FO Categorical the exact one (the minimiser is a Gibbs distribution ``p ~ exp(-beta L)``:
a one-dimensional search over ``beta``), for SO Categorical a float64 L-BFGS run of 500
iterations from the fitted posterior.

``--estimators`` prints the rows of the user guide's estimator table that the main table
has not: on breast cancer (seed 0 split), :class:`~skpacbayes.OccamBoundClassifier`,
:class:`~skpacbayes.CertifiedVoteClassifier` and :class:`~skpacbayes.HoldOutBoundClassifier`
with their default voters: test error, bound and the number of voters the deployed
classifier really uses (``certificate_.n_effective_voters``) out of the bank's. (The other
estimators' rows are the breast cancer rows of the main table: same split, same voters.)
"""

import argparse
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from skpacbayes import (
    BinomialBoundClassifier,
    CBoundClassifier,
    FirstOrderBoundClassifier,
    MarginBoundClassifier,
    OccamBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
    VCDimBoundClassifier,
)
from skpacbayes.datasets import load_dataset

ESTIMATORS = {
    "FO": FirstOrderBoundClassifier,
    "SO": SecondOrderBoundClassifier,
    "Bin": BinomialBoundClassifier,
    "CBound": CBoundClassifier,
    "VC": VCDimBoundClassifier,
    "Partition": PartitionBoundClassifier,
    "Margin": MarginBoundClassifier,
}
FAMILIES = ("categorical", "dirichlet", "gaussian")
DATASETS = (
    "breast_cancer",
    "digits",
    "haberman",
    "tictactoe",
    "svmguide1",
    "mushroom",
    "phishing",
    "pendigits",
    "adult",
    "mnist",
    "fashion_mnist",
)
TOLERANCE = 0.01


def valid_pairs(n_classes):
    """(name, family, split voters) for every valid pair with the default voters."""
    pairs = []
    for name, cls in ESTIMATORS.items():
        if cls._bound_class.capabilities.binary_only and n_classes > 2:
            continue
        split = n_classes > 2 and name != "VC"
        for family in cls()._valid_posteriors(n_classes, split):
            pairs.append((name, family, split))
    return pairs


def load(name, data_home, max_rows, seed):
    bunch = load_dataset(name, data_home=data_home)
    X, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target)
    capped = bool(max_rows) and X.shape[0] > max_rows
    if capped:
        X, _, y, _ = train_test_split(X, y, train_size=max_rows, stratify=y, random_state=seed)
    return X, y, capped


def run_dataset(name, data_home, seeds, max_rows, log):
    rows = []
    for seed in seeds:
        X, y, capped = load(name, data_home, max_rows, seed)
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.2, stratify=y, random_state=seed
        )
        n_classes = np.unique(y).size
        forest = RandomForestClassifier(n_estimators=200, random_state=seed).fit(X_tr, y_tr)
        forest_test = float(np.mean(forest.predict(X_te) != y_te))
        occam = {}
        for split in (False, True) if n_classes > 2 else (False,):
            voters = None
            if n_classes > 2 and not split:
                from skpacbayes.voters import SplitForest

                voters = SplitForest(split="single")
            est = OccamBoundClassifier(voters=voters, random_state=seed).fit(X_tr, y_tr)
            occam[split] = float(np.mean(est.predict(X_te) != y_te))
        for method, family, split in valid_pairs(n_classes):
            start = time.perf_counter()
            est = ESTIMATORS[method](posterior=family, random_state=seed).fit(X_tr, y_tr)
            seconds = time.perf_counter() - start
            test = float(np.mean(est.predict(X_te) != y_te))
            row = {
                "dataset": name + (f" ({X.shape[0]} rows)" if capped else ""),
                "seed": seed,
                "method": method,
                "family": family,
                "test": test,
                "bound": float(est.bound_),
                "epochs": int(est.n_iter_),
                "n_eff": getattr(est.certificate_, "n_effective_voters", None),
                "n_voters": int(est.certificate_.n_voters),
                "occam": occam[split],
                "forest": forest_test,
                "ok": test <= occam[split] + TOLERANCE,
                "seconds": seconds,
            }
            rows.append(row)
            log(format_row(row))
    return rows


HEADER = (
    f"{'dataset':<26} {'seed':>4} {'method':<9} {'family':<12} {'test %':>7} {'bound %':>8} "
    f"{'epochs':>6} {'n_eff':>11} {'Occam %':>8} {'pass':>5} {'fit s':>6} {'forest %':>8}"
)


def format_row(r):
    n_eff = "-" if r["n_eff"] is None else f"{r['n_eff']}/{r['n_voters']}"
    return (
        f"{r['dataset']:<26} {r['seed']:>4} {r['method']:<9} {r['family']:<12} "
        f"{100 * r['test']:7.2f} {100 * r['bound']:8.2f} {r['epochs']:6d} {n_eff:>11} "
        f"{100 * r['occam']:8.2f} {'ok' if r['ok'] else 'FAIL':>5} {r['seconds']:6.1f} "
        f"{100 * r['forest']:8.2f}"
    )


def _split(name, data_home):
    bunch = load_dataset(name, data_home=data_home)
    X, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


def _fit(cls, family, X, y, old):
    from skpacbayes.engine import counts, rows

    saved = rows.MIN_STEPS_PER_EPOCH, rows.POLISH_MAX_ITER
    if old:
        for module in (counts, rows):
            module.MIN_STEPS_PER_EPOCH, module.POLISH_MAX_ITER = 1, 0
    try:
        return cls(posterior=family, random_state=0).fit(X, y)
    finally:
        for module in (counts, rows):
            module.MIN_STEPS_PER_EPOCH, module.POLISH_MAX_ITER = saved


def _categorical_optimum(est, X, y, bound):
    """Optimum of the FO (exact) or SO (float64 L-BFGS) bound over Categorical posteriors."""
    import torch

    from skpacbayes.bounds import pac_bayes_upper

    votes = est.voters_.votes(X)
    y_idx = np.searchsorted(est.classes_, y)
    errors = torch.from_numpy((votes != y_idx[:, None]).astype(np.float64))
    m, n = errors.shape
    delta = est.delta

    def value(logits):
        p = torch.softmax(logits, 0)
        kl = (p * torch.log(n * p.clamp_min(1e-300))).sum().clamp_min(0)
        r = errors @ p
        if bound == "FO":
            return 2 * pac_bayes_upper(r.mean(), kl, m, delta)
        return 4 * pac_bayes_upper((r * r).mean(), 2 * kl, m, delta)

    if bound == "FO":  # p(beta) ~ exp(-beta L): golden-section search on log(beta)
        losses = errors.mean(0)

        def f(log_beta):
            with torch.no_grad():
                return float(value(-np.exp(log_beta) * losses))

        grid = np.linspace(-3, 8, 221)
        i = int(np.argmin([f(t) for t in grid]))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        g = (np.sqrt(5) - 1) / 2
        for _ in range(80):
            a, b = hi - g * (hi - lo), lo + g * (hi - lo)
            lo, hi = (lo, b) if f(a) < f(b) else (a, hi)
        return f((lo + hi) / 2)
    p0 = torch.from_numpy(np.asarray(est.posterior_params_[0], dtype=np.float64))
    logits = torch.log(p0.clamp_min(1e-300)).requires_grad_(True)
    opt = torch.optim.LBFGS(
        [logits],
        max_iter=500,
        history_size=50,
        tolerance_grad=0,
        tolerance_change=0,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = value(logits)
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        return min(float(value(logits)), float(est.bound_))


def optimiser_table(data_home, log):
    from skpacbayes import FirstOrderBoundClassifier, SecondOrderBoundClassifier

    log("Optimiser on identical votes (seed 0 split, default StumpBank); bounds in %")
    log(
        f"{'data set':<10} {'bound':<6} {'family':<12} {'statistic':<18} "
        f"{'before':>8} {'after':>8} {'optimum':>8} {'epochs b/a':>11}"
    )
    X, _, y, _ = _split("haberman", data_home)
    fits = [_fit(FirstOrderBoundClassifier, "dirichlet", X, y, old) for old in (True, False)]
    log(
        f"{'haberman':<10} {'FO':<6} {'dirichlet':<12} {'Gibbs Seeger bound':<18} "
        f"{100 * fits[0].certificate_.gibbs_bound:8.2f} "
        f"{100 * fits[1].certificate_.gibbs_bound:8.2f} {'(42.59)':>8} "
        f"{fits[0].n_iter_:>5}/{fits[1].n_iter_:<5}"
    )
    X, _, y, _ = _split("svmguide1", data_home)
    for name, cls in (("FO", FirstOrderBoundClassifier), ("SO", SecondOrderBoundClassifier)):
        fits = [_fit(cls, "categorical", X, y, old) for old in (True, False)]
        best = _categorical_optimum(fits[1], X, y, name)
        log(
            f"{'svmguide1':<10} {name:<6} {'categorical':<12} {'bound_':<18} "
            f"{100 * fits[0].bound_:8.3f} {100 * fits[1].bound_:8.3f} {100 * best:8.3f} "
            f"{fits[0].n_iter_:>5}/{fits[1].n_iter_:<5}"
        )
    log("(42.59): StocMV's figure on the same votes (random start alpha ~ U(0, 2]), issue 16")


def estimators_table(log):
    from skpacbayes import CertifiedVoteClassifier, HoldOutBoundClassifier

    X_tr, X_te, y_tr, y_te = _split("breast_cancer", None)
    log("breast cancer, stratified 80/20 split (seed 0), default voters; bound and test in %")
    log(f"{'estimator':<28} {'posterior':<12} {'test':>6} {'bound':>7} {'effective voters':>17}")
    fits = [
        ("OccamBoundClassifier", "categorical", OccamBoundClassifier(random_state=0)),
        ("CertifiedVoteClassifier", "-", CertifiedVoteClassifier(random_state=0)),
        ("HoldOutBoundClassifier", "-", HoldOutBoundClassifier(random_state=0)),
    ]
    for name, family, est in fits:
        est.fit(X_tr, y_tr)
        cert = est.certificate_
        test = float(np.mean(est.predict(X_te) != y_te))
        log(
            f"{name:<28} {family:<12} {100 * test:6.1f} {100 * est.bound_:7.1f} "
            f"{f'{cert.n_effective_voters} of {cert.n_voters}':>17}"
        )


def summarise(rows, log):
    """Per data set and pair, over the seeds: mean test error minus Occam's, and its spread.

    The difference is paired (same split, same bank); ``se`` is its standard error over the
    seeds (sample standard deviation / sqrt(seeds)). A pair passes on the mean when the mean
    difference is at most the tolerance; the 95 % interval (mean +- 1.96 se) says whether a
    failing mean is distinguishable from the tolerance on this many splits.
    """
    groups = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["method"], r["family"]), []).append(r)
    log("")
    log("Over the seeds: test error minus Occam's (points), paired per split")
    log(
        f"{'dataset':<26} {'method':<9} {'family':<12} seeds  mean diff     se"
        "   95 % interval  pass"
    )
    for (dataset, method, family), group in groups.items():
        diffs = 100 * np.array([r["test"] - r["occam"] for r in group])
        if diffs.size < 2:
            continue
        mean = diffs.mean()
        se = diffs.std(ddof=1) / np.sqrt(diffs.size)
        ok = "ok" if mean <= 100 * TOLERANCE + 1e-9 else "FAIL"
        log(
            f"{dataset:<26} {method:<9} {family:<12} {diffs.size:5d} {mean:+10.2f} {se:6.2f} "
            f"[{mean - 1.96 * se:+6.2f}, {mean + 1.96 * se:+6.2f}]  {ok}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="/work/shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--max-rows", type=int, default=10000)
    parser.add_argument("--capped", nargs="*", default=["adult", "mnist", "fashion_mnist"])
    parser.add_argument("--out", default=None, help="also write the table to this file")
    parser.add_argument("--optimiser", action="store_true", help="optimiser before/after")
    parser.add_argument("--estimators", action="store_true", help="effective voters table")
    args = parser.parse_args()
    lines = []

    def log(line):
        print(line, flush=True)
        lines.append(line)

    if args.optimiser or args.estimators:
        if args.optimiser:
            optimiser_table(args.data_home, log)
        else:
            estimators_table(log)
        if args.out:
            with open(args.out, "w") as fh:
                fh.write("\n".join(lines) + "\n")
        return

    log(
        f"bench_degenerate: seeds 0..{args.seeds - 1}; capped data sets "
        f"{args.capped or 'none'} run seed 0 only on {args.max_rows or 'all'} rows "
        f"(stratified draw); pass = test error <= Occam's (same bank) + {100 * TOLERANCE:g} pt"
    )
    log(HEADER)
    start = time.perf_counter()
    rows = []
    for name in args.datasets:
        capped = name in args.capped
        seeds = [0] if capped else list(range(args.seeds))
        rows += run_dataset(name, args.data_home, seeds, args.max_rows if capped else 0, log)
    failed = [r for r in rows if not r["ok"]]
    log(
        f"{len(rows)} fits, {len(rows) - len(failed)} pass, {len(failed)} fail; "
        f"wall time {time.perf_counter() - start:.0f} s"
    )
    for r in failed:
        log("FAIL " + format_row(r))
    if args.seeds > 1:
        summarise(rows, log)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
