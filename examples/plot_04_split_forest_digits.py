"""
===============================
A split random forest on digits
===============================

Trees grown on the training sample are not fixed before the sample, so a PAC-Bayes bound
cannot use them directly. :class:`~skpacbayes.voters.SplitForest` grows half of the trees on
each half of the sample and evaluates every tree, for the bound, only on the half it has not
seen. This example certifies a 10-class vote of 20 trees on the digits data.
"""

# %%
# Data and voters
# ---------------
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skpacbayes import (
    FirstOrderBoundClassifier,
    PartitionBoundClassifier,
    SecondOrderBoundClassifier,
)
from skpacbayes.plotting import BoundDisplay
from skpacbayes.voters import SplitForest

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
print(f"{X_train.shape[0]} training examples, {np.unique(y).size} classes")

forest = SplitForest(n_estimators=20, random_state=0)

# %%
# Certified classifiers on the split forest
# -----------------------------------------
# The posterior is a mixture of one posterior per half; the bound combines one PAC-Bayes
# statement per half, each at ``delta / 2`` and each on the examples of the other half.
# On split voters the first- and second-order bounds accept Categorical and Gaussian
# posteriors, the partition bound Categorical and Dirichlet ones (see the table in the user
# guide). Gaussian posteriors on 10 classes need a one-dimensional integral per example and
# class, too slow for this gallery; the Categorical family is used throughout.
budget = dict(max_epochs=10, batch_size=128, random_state=0)
models = {
    "FO": FirstOrderBoundClassifier(voters=forest, posterior="categorical", **budget),
    "SO": SecondOrderBoundClassifier(voters=forest, posterior="categorical", **budget),
    "Partition": PartitionBoundClassifier(voters=forest, posterior="categorical", **budget),
}
for name, clf in models.items():
    clf.fit(X_train, y_train)
    cert = clf.certificate_
    print(
        f"{name:<10} bound {clf.bound_:.3f}  test error {1 - clf.score(X_test, y_test):.3f}  "
        f"examples per statement {cert.m}  mixture weights "
        f"{np.round(cert.mixture_weights, 3).tolist()}"
    )

# %%
# ``m`` has one entry per half: each statement uses the examples of one half only, which is
# why split-voter bounds are looser than bounds on data-independent voters of the same
# quality. The mixture weights say how much each half's trees count in the deployed vote;
# they are learned, since the cross bound holds for all of them at once.

# %%
# What each half sees
# -------------------
# ``voters_.voter_groups_`` says on which half each tree was grown and
# ``voters_.sample_groups_`` to which half each training example belongs. A tree may only
# be evaluated on the examples of the *other* half: that is what makes each half's
# statement a bound with data-independent voters.
fitted_forest = models["FO"].voters_
mask = fitted_forest.evaluation_mask()
order = np.argsort(fitted_forest.sample_groups_, kind="stable")
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.imshow(mask[order].T, aspect="auto", interpolation="nearest", cmap="Greys")
ax.set_xlabel("training example (sorted by half)")
ax.set_ylabel("tree")
ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # trees are counted, not measured
ax.set_title("where each tree may be evaluated (black)")
fig.tight_layout()

# %%
# Bound against test error
# ------------------------
# With 20 trees and about 670 examples per statement, the certificates are far above the test
# error; more trees and more data tighten them (the benchmark uses 200 trees).
display = BoundDisplay.from_estimators(
    list(models.values()), X_test, y_test, names=list(models), title="digits, 20 trees"
)

# sphinx_gallery_thumbnail_number = 2
