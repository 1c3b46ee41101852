"""Margin bound on the small binary reference data sets: the proven tails against the former ones.

Usage::

    python benchmarks/bench_margin.py --data-home ../shared/datasets [--seeds 5]

Protocol of ``skpacbayes compare`` (stratified 80/20 split per seed, default stump bank,
``delta = 0.05``, 100 epochs): :class:`~skpacbayes.MarginBoundClassifier` is fitted and its
certificate (``bound_``, the margin theorem of the theory page) is reported with the test error.
For comparison only, the script also evaluates, on the same fitted vote and the same grids,
the value the former tail ``t = exp(-(K + 1) gamma^2)`` gave (``former``); that tail is
below what any two-step margin argument needs, so the former value is NOT a certificate.
Prints one line per fit and the medians; ``--json`` writes the rows.
"""

import argparse
import json
import time

import numpy as np
from sklearn.model_selection import train_test_split

from skpacbayes import MarginBoundClassifier
from skpacbayes.bounds import kl_inv_upper, seeger_epsilon
from skpacbayes.datasets import load_dataset
from skpacbayes.posteriors import Dirichlet

DATASETS = ("haberman", "tictactoe", "svmguide1", "phishing", "mushroom")


def former_value(est, X, y):
    """The former (unproven) tail on the fitted vote: same gamma and K grids, same delta split."""
    theta = est.weights_
    sign = np.where(y == est.classes_[1], 1.0, -1.0)
    margins = sign * est.decision_function(X)
    m = X.shape[0]
    gammas = np.logspace(-3, 0, est.n_margins)
    ks = np.logspace(0, 7, 57)
    post = Dirichlet(theta.size, 2)
    kls = np.array([float(post.kl(k * theta)) for k in ks]) * (1 + 1e-12) + 1e-12
    best = 1.0
    for gamma in gammas:
        err = float(np.mean(margins <= gamma)) + 1e-12
        t = np.exp(-(ks + 1) * gamma**2)
        eps = seeger_epsilon(kls, m, est.delta / gammas.size)
        best = min(best, float(np.min(kl_inv_upper(np.minimum(err + t, 1.0), eps) + t)))
    return min(best, 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-epochs", type=int, default=100)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    args = parser.parse_args()
    rows = []
    start_all = time.perf_counter()
    print(
        f"{'dataset':10s} {'seed':>4s} {'bound':>7s} {'former':>7s} {'test':>7s} "
        f"{'gamma':>7s} {'K':>9s} {'L_gamma':>7s} {'t0':>7s} {'t1':>7s} {'fit s':>6s}"
    )
    for name in args.datasets:
        X, y = load_dataset(name, data_home=args.data_home, return_X_y=True)
        X, y = np.asarray(X), np.asarray(y)
        for seed in range(args.seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.2, stratify=y, random_state=seed
            )
            est = MarginBoundClassifier(max_epochs=args.max_epochs, random_state=seed)
            start = time.perf_counter()
            est.fit(X_tr, y_tr)
            fit_time = time.perf_counter() - start
            d = est.certificate_.details
            row = {
                "dataset": name,
                "seed": seed,
                "bound": est.bound_,
                "former_unproven": former_value(est, X_tr, y_tr),
                "test_error": float(np.mean(est.predict(X_te) != y_te)),
                "train_error": est.certificate_.train_error,
                "fit_time": fit_time,
                **{k: d.get(k) for k in ("gamma", "concentration", "margin_error", "t0", "t1")},
            }
            rows.append(row)
            print(
                f"{name:10s} {seed:4d} {row['bound']:7.4f} {row['former_unproven']:7.4f} "
                f"{row['test_error']:7.4f} {row['gamma'] or 0:7.4f} "
                f"{row['concentration'] or 0:9.1f} {row['margin_error'] or 0:7.4f} "
                f"{row['t0'] or 0:7.4f} {row['t1'] or 0:7.4f} {fit_time:6.1f}",
                flush=True,
            )
    print("\nmedians over seeds (bound / former unproven value / test error, percent):")
    for name in args.datasets:
        sub = [r for r in rows if r["dataset"] == name]
        med = {
            k: 100 * float(np.median([r[k] for r in sub]))
            for k in ("bound", "former_unproven", "test_error")
        }
        print(
            f"{name:10s} {med['bound']:6.1f} / {med['former_unproven']:6.1f} / "
            f"{med['test_error']:5.1f}  ({len(sub)} seeds)"
        )
    wall = time.perf_counter() - start_all
    print(f"\nwall time: {wall:.1f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"settings": vars(args), "wall_time": wall, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
