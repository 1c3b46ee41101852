"""
==============================
Choosing by the bound, validly
==============================

A certificate holds with probability ``1 - delta`` on its own. Choosing the smallest of
several certificates computed on the same sample is a data-dependent choice that the
individual certificates do not cover. This example contrasts ranking by the bound in
``GridSearchCV`` (a useful heuristic, not a certificate) with
:class:`~skpacbayes.model_selection.BoundSelectionClassifier`, which splits ``delta`` over
the candidates and keeps a certificate.
"""

# %%
# Ranking configurations with ``bound_scorer``
# --------------------------------------------
# :func:`~skpacbayes.model_selection.bound_scorer` scores a fitted estimator by minus its
# bound, so ``GridSearchCV`` ranks the configurations by the certificates obtained on the
# cross-validation training folds. It then refits the best configuration on all the data.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, train_test_split

from skpacbayes import (
    FirstOrderBoundClassifier,
    OccamBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.model_selection import BoundSelectionClassifier, SelectionWarning, bound_scorer
from skpacbayes.voters import StumpBank

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)

delta = 0.05
budget = dict(max_epochs=5, batch_size=128, random_state=0)  # small, to keep the example fast
grid = {"posterior": ["categorical", "dirichlet", "gaussian"]}
search = GridSearchCV(
    FirstOrderBoundClassifier(voters=StumpBank(), delta=delta, **budget),
    grid,
    scoring=bound_scorer,
    cv=2,
)
with warnings.catch_warnings(record=True) as caught:  # the refit warns: see below
    warnings.simplefilter("always", SelectionWarning)
    search.fit(X_train, y_train)
results = search.cv_results_
for params, score in zip(results["params"], results["mean_test_score"], strict=True):
    print(f"{params['posterior']:<12} mean fold bound {-score:.3f}")
print(f"selected: {search.best_params_['posterior']}")

# %%
# The refitted ``best_estimator_.bound_`` was computed at the full ``delta``, but the
# posterior family was chosen by looking at the data: this number is **not** a certificate
# for the selected classifier. Because every statement of the library holds for all
# posteriors simultaneously, re-certifying the refitted classifier at ``delta / K`` (``K`` =
# 3 families here) makes it one again, by the union bound over the three families. The refit
# said so: a :class:`~skpacbayes.model_selection.SelectionWarning`, raised whenever a search
# refits a configuration chosen among different statements.
print(*(str(w.message).split(": ")[0] for w in caught if w.category is SelectionWarning))
best = search.best_estimator_
K = len(grid["posterior"])
print(f"refit bound at delta     = {best.bound_:.3f}  (not a certificate after selection)")
print(f"refit bound at delta / {K} = {best.recompute_bound(delta / K):.3f}  (certificate)")

# %%
# Selecting with a certificate: ``BoundSelectionClassifier``
# ----------------------------------------------------------
# :class:`~skpacbayes.model_selection.BoundSelectionClassifier` fits every candidate on the
# same sample with ``delta / K`` and keeps the smallest bound. The candidates can differ in
# anything (bound, family, voters). Here: the best single stump certified by Occam's razor
# (the line to beat), a Gaussian first-order vote and a Categorical second-order vote.
candidates = [
    OccamBoundClassifier(voters=StumpBank(), random_state=0),
    FirstOrderBoundClassifier(voters=StumpBank(), posterior="gaussian", **budget),
    SecondOrderBoundClassifier(voters=StumpBank(), posterior="categorical", **budget),
]
selector = BoundSelectionClassifier(candidates, delta=delta).fit(X_train, y_train)

K_all = len(candidates)
for est, bound in zip(selector.estimators_, selector.bounds_, strict=True):
    print(f"{type(est).__name__:<28} {est.posterior:<12} bound at delta/{K_all}: {bound:.3f}")
print(f"selected bound (a certificate at delta = {delta}): {selector.bound_:.3f}")
print(f"test error of the selected classifier: {1 - selector.score(X_test, y_test):.3f}")

# %%
# The price of the selection is small: dividing ``delta`` by ``K`` adds ``ln K`` to the
# complexity term of each bound, and the bounds depend on ``delta`` only logarithmically.
best_single = selector.estimators_[selector.best_index_]
for d in (delta, delta / K_all):
    print(f"selected posterior certified at delta = {d:.4f}: {best_single.recompute_bound(d):.4f}")
print(f"ln(K) = {np.log(K_all):.2f}")

# %%
# Each candidate's certificate at ``delta / K``, and the selected one.
names = [type(est).__name__.replace("BoundClassifier", "") for est in selector.estimators_]
colors = ["tab:blue" if i == selector.best_index_ else "0.7" for i in range(K_all)]
fig, ax = plt.subplots(figsize=(5, 2.8))
ax.barh(names, selector.bounds_, color=colors)
for i, b in enumerate(selector.bounds_):
    ax.text(b + 0.01, i, f"{b:.3f}", va="center")
ax.set_xlim(0, 1)
ax.set_xlabel(f"certified bound at delta / {K_all}")
ax.set_title("BoundSelectionClassifier keeps the smallest")
fig.tight_layout()
