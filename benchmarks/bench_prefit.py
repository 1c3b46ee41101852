"""Certifying a forest the user already has: which estimator gives the tightest bound.

Recipe of the user guide ("I already have a fitted model"): a RandomForestClassifier
fitted on one part of the training split, certified on the other part (rows it never
saw) through ``PrefitVoters``. Data: digits (scikit-learn), breast_cancer; 80/20
stratified split, the training part halved (forest / bound), 3 seeds; bound and test
error in percent (median over seeds), delta = 0.05.

Also: the same forest certified on the rows it was fitted on (invalid: the number printed
is NOT a certificate), to show what the SampleReuseWarning guards against.

Usage::

    python benchmarks/bench_prefit.py [--seeds 3]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from skpacbayes import (
    FirstOrderBoundClassifier,
    HoldOutBoundClassifier,
    OccamBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.voters import PrefitVoters, SampleReuseWarning

ESTIMATORS = {
    "HoldOut": lambda v, s: HoldOutBoundClassifier(voters=v, random_state=s),
    "SO (categorical)": lambda v, s: SecondOrderBoundClassifier(
        voters=v, posterior="categorical", random_state=s
    ),
    "FO (categorical)": lambda v, s: FirstOrderBoundClassifier(
        voters=v, posterior="categorical", random_state=s
    ),
    "Occam": lambda v, s: OccamBoundClassifier(voters=v, random_state=s),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    t0 = time.perf_counter()
    print("bound / test error in %, median over seeds (delta = 0.05)")
    print("| data | estimator on PrefitVoters(rf) | bound / test error | rf test error |")
    print("|---|---|---|---|")
    for name, loader in (("digits", load_digits), ("breast_cancer", load_breast_cancer)):
        X, y = loader(return_X_y=True)
        res = {key: [] for key in ESTIMATORS}
        res["HoldOut on rf's own rows (NOT a certificate)"] = []
        rf_err, warned = [], []
        for seed in range(args.seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.2, stratify=y, random_state=seed
            )
            X_fit, X_bound, y_fit, y_bound = train_test_split(
                X_tr, y_tr, test_size=0.5, stratify=y_tr, random_state=seed
            )
            rf = RandomForestClassifier(n_estimators=100, random_state=seed).fit(X_fit, y_fit)
            rf_err.append(np.mean(rf.predict(X_te) != y_te))
            for key, make in ESTIMATORS.items():
                clf = make(PrefitVoters(rf), seed).fit(X_bound, y_bound)
                res[key].append((clf.bound_, np.mean(clf.predict(X_te) != y_te)))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                clf = HoldOutBoundClassifier(voters=PrefitVoters(rf)).fit(X_fit, y_fit)
            warned.append(any(issubclass(w.category, SampleReuseWarning) for w in caught))
            res["HoldOut on rf's own rows (NOT a certificate)"].append(
                (clf.bound_, np.mean(clf.predict(X_te) != y_te))
            )
        for key, vals in res.items():
            b, e = 100 * np.median(np.array(vals), axis=0)
            print(f"| {name} | {key} | {b:.1f} / {e:.1f} | {100 * np.median(rf_err):.1f} |")
        print(
            f"| {name} | SampleReuseWarning raised on the own-rows fit | "
            f"{sum(warned)} of {len(warned)} | |"
        )
    print(f"\nwall time: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
