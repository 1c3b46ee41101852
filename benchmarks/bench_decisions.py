"""Certified decisions against their nearest tools, side by side in one run (issue 55, item 6).

For each data set, model and seed the rows are split once (40 % to fit the model, 30 % to
calibrate the decision, 30 % to test it), and on the same calibration rows, at the same
target and ``delta``:

* **Threshold**: :class:`~skpacbayes.CertifiedThresholdClassifier` (miss rate of the positive
  class at most ``max_risk``) against MAPIE's ``BinaryClassificationController`` (risk
  ``"recall"`` at ``target_level = 1 - max_risk``, ``confidence_level = 1 - delta``, its
  defaults otherwise: 100 thresholds ``linspace(0, 0.99, 100)``, Bonferroni-Holm over
  Hoeffding-Bentkus p-values); the test rows' miss rate and false-positive rate of our
  threshold, of MAPIE's best threshold (its secondary objective, the precision) and of
  MAPIE's highest valid threshold (the fewest false positives it certifies).
* **Reject option**: :class:`~skpacbayes.CertifiedSelectiveClassifier` (selective risk at most
  ``max_risk``) against SGR (Geifman and El-Yaniv, "Selection with Guaranteed Risk", NeurIPS
  2017, Algorithm 1, written here from the paper: a binary search over the sorted
  calibration confidences, ``ceil(log2 m)`` steps, each threshold's risk bounded by the exact
  binomial tail inversion at ``delta / ceil(log2 m)``; the lowest threshold whose bound is
  below the target is kept); the test rows' coverage and selective risk of each.

Targets: our threshold is certified wherever MAPIE finds a valid one, with a test
false-positive rate no worse than MAPIE's best; our coverage is at least SGR's.

Run (MAPIE in a separate environment, never a dependency of the package)::

    python3 -m venv /work/venv-decisions && . /work/venv-decisions/bin/activate
    pip install torch==2.13.0 && pip install -e . mapie
    python benchmarks/bench_decisions.py --data-home ../shared/datasets --seeds 3
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skpacbayes import CertifiedSelectiveClassifier, CertifiedThresholdClassifier
from skpacbayes.bounds import binomial_inv_upper

#: data set -> the positive class of the screening (the one whose misses matter)
POSITIVE = {"breast_cancer": 0, "adult": 1, "phishing": 1, "mushroom": "p"}


def load(name, data_home):
    if name == "breast_cancer":
        return load_breast_cancer(return_X_y=True)
    from skpacbayes.datasets import load_dataset

    X, y = load_dataset(name, data_home=data_home, return_X_y=True)
    return (X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=np.float64)), y


def models():
    return {
        "LR": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "HGB": lambda: HistGradientBoostingClassifier(random_state=0),
    }


def sgr(confidence, wrong, max_risk, delta):
    """Geifman and El-Yaniv's SGR (Algorithm 1): the threshold of the last binary-search step
    whose bound is below ``max_risk``, or None."""
    order = np.argsort(confidence, kind="stable")  # increasing confidence
    kappa, err = confidence[order], wrong[order]
    m = kappa.size
    steps = math.ceil(math.log2(m))
    z_min, z_max, best = 0, m - 1, None
    for _ in range(steps):
        z = math.ceil((z_min + z_max) / 2)
        theta = kappa[z]
        covered = kappa >= theta
        n, k = int(covered.sum()), int(err[covered].sum())
        bound = binomial_inv_upper(k, n, delta / steps)
        if bound < max_risk:
            z_max, best = z, (theta, bound)
        else:
            z_min = z
    return best


def rates(y_true, y_pred, pos):
    positive = y_true == pos
    miss = float(np.mean(y_pred[positive] != pos))
    fpr = float(np.mean(y_pred[~positive] == pos))
    return miss, fpr


def mapie_threshold(model, X_cal, y_cal, pos_index, max_risk, delta):
    from mapie.risk_control import BinaryClassificationController

    def proba(X):  # the positive class as column 1, as MAPIE reads it
        p = model.predict_proba(X)
        return np.column_stack([1 - p[:, pos_index], p[:, pos_index]])

    controller = BinaryClassificationController(
        proba, risk="recall", target_level=1 - max_risk, confidence_level=1 - delta
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        controller.calibrate(X_cal, (np.searchsorted(model.classes_, y_cal) == pos_index) * 1)
    valid = np.asarray(controller.valid_predict_params, dtype=float)
    return controller.best_predict_param, (float(valid.max()) if valid.size else None), proba


def run_threshold(model, split, pos, max_risk, delta):
    X_cal, y_cal, X_test, y_test = split
    pos_index = int(np.flatnonzero(model.classes_ == pos)[0])
    row = {"max_risk": max_risk}
    start = time.perf_counter()
    try:
        ours = CertifiedThresholdClassifier(
            model, pos_label=pos, max_risk=max_risk, delta=delta
        ).fit(X_cal, y_cal)
        row["ours_threshold"], row["ours_bound"] = ours.threshold_, ours.bound_
        row["ours_fpr_bound"] = float(ours.risk_bounds_["false_positive_rate"][pos_index])
        row["ours_miss"], row["ours_fpr"] = rates(y_test, ours.predict(X_test), pos)
    except ValueError:
        row["ours_threshold"] = None
    row["ours_seconds"] = time.perf_counter() - start
    best, highest, proba = mapie_threshold(model, X_cal, y_cal, pos_index, max_risk, delta)
    row["mapie_best"], row["mapie_highest"] = best, highest
    p_test = proba(X_test)[:, 1]
    neg = model.classes_[1 - pos_index] if model.classes_.size == 2 else None
    for key, t in (("mapie_best", best), ("mapie_highest", highest)):
        if t is not None:
            y_pred = np.where(p_test >= t, pos, neg)
            row[key + "_miss"], row[key + "_fpr"] = rates(y_test, y_pred, pos)
    return row


def run_selective(model, split, max_risk, delta):
    X_cal, y_cal, X_test, y_test = split
    row = {"max_risk": max_risk}
    try:
        ours = CertifiedSelectiveClassifier(model, max_risk=max_risk, delta=delta).fit(X_cal, y_cal)
        y_pred = ours.predict(X_test)
        answered = np.array([label is not None for label in y_pred])
        if ours.reject_label_ is not None:
            answered = y_pred != ours.reject_label_
        row["ours_threshold"], row["ours_bound"] = ours.threshold_, ours.bound_
        row["ours_coverage_lower"] = ours.coverage_lower_
        row["ours_coverage"] = float(answered.mean())
        wrong = model.predict(X_test) != y_test
        row["ours_risk"] = float(wrong[answered].mean()) if answered.any() else 0.0
    except ValueError:
        row["ours_coverage"] = 0.0
    confidence = model.predict_proba(X_cal).max(axis=1)
    found = sgr(confidence, model.predict(X_cal) != y_cal, max_risk, delta)
    if found is None:
        row["sgr_coverage"] = 0.0
    else:
        theta, row["sgr_bound"] = found
        answered = model.predict_proba(X_test).max(axis=1) >= theta
        wrong = model.predict(X_test) != y_test
        row["sgr_threshold"], row["sgr_coverage"] = float(theta), float(answered.mean())
        row["sgr_risk"] = float(wrong[answered].mean()) if answered.any() else 0.0
    return row


def fmt(value, spec="6.4f"):
    return " " * (len(format(0.0, spec)) - 1) + "-" if value is None else format(value, spec)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="+", default=list(POSITIVE))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--threshold-risks", type=float, nargs="+", default=[0.05, 0.1])
    parser.add_argument("--selective-risks", type=float, nargs="+", default=[0.02, 0.05])
    parser.add_argument("--out", default=None, help="write OUT.json and OUT.txt")
    args = parser.parse_args()
    from provenance import head_commit, write_results

    lines = []

    def say(line):
        print(line, flush=True)
        lines.append(line)

    say(f"bench_decisions at {head_commit()}, delta={args.delta}, seeds={args.seeds}")
    results = []
    for name in args.datasets:
        X, y = load(name, args.data_home)
        for model_name, make in models().items():
            for seed in range(args.seeds):
                X_fit, X_rest, y_fit, y_rest = train_test_split(
                    X, y, train_size=0.4, random_state=seed
                )
                X_cal, X_test, y_cal, y_test = train_test_split(
                    X_rest, y_rest, test_size=0.5, random_state=seed
                )
                model = make().fit(X_fit, y_fit)
                split = (X_cal, y_cal, X_test, y_test)
                tag = {"dataset": name, "model": model_name, "seed": seed, "n_cal": y_cal.size}
                for a in args.threshold_risks:
                    row = {
                        **tag,
                        "kind": "threshold",
                        **run_threshold(model, split, POSITIVE[name], a, args.delta),
                    }
                    results.append(row)
                for a in args.selective_risks:
                    row = {**tag, "kind": "selective", **run_selective(model, split, a, args.delta)}
                    results.append(row)
            say(f"  {name} {model_name}: done")
    say("")
    say("Threshold (miss rate of the positive class <= max_risk), test rows:")
    say(
        f"{'data set':<14}{'model':<5}{'seed':>5}{'n_cal':>7}{'max':>6} | {'ours t':>8}"
        f"{'bound':>8}{'miss':>8}{'fpr':>8} | {'MAPIE t':>8}{'miss':>8}{'fpr':>8}"
        f" | {'hi t':>8}{'fpr':>8}"
    )
    for r in results:
        if r["kind"] != "threshold":
            continue
        say(
            f"{r['dataset']:<14}{r['model']:<5}{r['seed']:>5}{r['n_cal']:>7}{r['max_risk']:>6}"
            f" | {fmt(r.get('ours_threshold'), '8.4f')}{fmt(r.get('ours_bound'), '8.4f')}"
            f"{fmt(r.get('ours_miss'), '8.4f')}{fmt(r.get('ours_fpr'), '8.4f')}"
            f" | {fmt(r.get('mapie_best'), '8.4f')}{fmt(r.get('mapie_best_miss'), '8.4f')}"
            f"{fmt(r.get('mapie_best_fpr'), '8.4f')}"
            f" | {fmt(r.get('mapie_highest'), '8.4f')}{fmt(r.get('mapie_highest_fpr'), '8.4f')}"
        )
    say("")
    say("Reject option (selective risk <= max_risk), test rows:")
    say(
        f"{'data set':<14}{'model':<5}{'seed':>5}{'n_cal':>7}{'max':>6} | {'ours cov':>9}"
        f"{'cov lo':>8}{'risk':>8}{'bound':>8} | {'SGR cov':>9}{'risk':>8}{'bound':>8}"
    )
    for r in results:
        if r["kind"] != "selective":
            continue
        say(
            f"{r['dataset']:<14}{r['model']:<5}{r['seed']:>5}{r['n_cal']:>7}{r['max_risk']:>6}"
            f" | {fmt(r.get('ours_coverage'), '9.4f')}{fmt(r.get('ours_coverage_lower'), '8.4f')}"
            f"{fmt(r.get('ours_risk'), '8.4f')}{fmt(r.get('ours_bound'), '8.4f')}"
            f" | {fmt(r.get('sgr_coverage'), '9.4f')}{fmt(r.get('sgr_risk'), '8.4f')}"
            f"{fmt(r.get('sgr_bound'), '8.4f')}"
        )
    thresholds = [r for r in results if r["kind"] == "threshold"]
    found = [r for r in thresholds if r["mapie_best"] is not None]
    certified = [r for r in found if r.get("ours_threshold") is not None]
    no_worse = [r for r in certified if r["ours_fpr"] <= r["mapie_best_fpr"]]
    no_worse_hi = [r for r in certified if r["ours_fpr"] <= r["mapie_highest_fpr"]]
    selective = [r for r in results if r["kind"] == "selective"]
    covered = [r for r in selective if r["ours_coverage"] >= r["sgr_coverage"]]
    say("")
    say(
        f"Targets: certified where MAPIE finds a threshold {len(certified)}/{len(found)}; test "
        f"FPR no worse than MAPIE's best {len(no_worse)}/{len(certified)} (than its highest "
        f"valid threshold {len(no_worse_hi)}/{len(certified)}); coverage at least SGR's "
        f"{len(covered)}/{len(selective)}"
    )
    gains = [r["ours_coverage"] - r["sgr_coverage"] for r in selective]
    say(f"Coverage minus SGR's: median {np.median(gains):+.4f}, min {min(gains):+.4f}")
    if args.out:
        write_results(args.out, results, "\n".join(lines))


if __name__ == "__main__":
    main()
