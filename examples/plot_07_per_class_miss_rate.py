"""
==========================================
Certified miss rate of the malignant class
==========================================

In a diagnosis the error that matters most is often not the overall error rate but the rate
of *missed* malignant cases, ``P(predict(x) != y | y = malignant)``. With
``per_class=True``, :class:`~skpacbayes.HoldOutBoundClassifier` certifies it for each class,
together with the overall error rate: all the bounds hold at once with probability at least
``1 - delta`` (:ref:`Proposition 5a <theory-per-class>`).
"""

# %%
# A model fitted beforehand
# -------------------------
# A random forest fitted on one half of the breast cancer data; the other half, which the
# forest never saw, certifies it. The split is drawn from the seed alone, without reading the
# labels (no ``stratify``: :ref:`theory-holdout`).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from skpacbayes import HoldOutBoundClassifier
from skpacbayes.voters import PrefitVoters

data = load_breast_cancer()
X, y = data.data, data.target_names[data.target]  # "malignant" / "benign"
X_fit, X_cert, y_fit, y_cert = train_test_split(X, y, test_size=0.5, random_state=0)
forest = RandomForestClassifier(n_estimators=100, random_state=0).fit(X_fit, y_fit)

# %%
# Certify the forest, class by class
# -----------------------------------
# ``predict`` is ``forest.predict``; ``class_bounds_`` follows ``classes_``.
clf = HoldOutBoundClassifier(voters=PrefitVoters(forest), delta=0.05, per_class=True)
clf.fit(X_cert, y_cert)
details = clf.certificate_.details
print(f"overall error rate <= {clf.bound_:.3f}")
for label, bound, errors, rows in zip(
    clf.classes_, clf.class_bounds_, details["class_errors"], details["class_sizes"], strict=True
):
    print(f"miss rate of {label:<9} <= {bound:.3f}  ({errors} missed of {rows} held-out cases)")

# %%
# The three statements (overall, malignant, benign) share ``delta = 0.05`` evenly, so each is
# made at ``0.05 / 3``. The malignant bound is the widest: there are fewer malignant cases to
# certify it on (about 37 % of the rows).
malignant = list(clf.classes_).index("malignant")
print(f"certified: fewer than {100 * clf.class_bounds_[malignant]:.1f} % of malignant cases missed")

# %%
# Side by side
# ------------
# The empirical miss rates on the certification rows, and the certified bounds.
empirical = np.array(details["class_errors"]) / np.array(details["class_sizes"])
fig, ax = plt.subplots(figsize=(5, 2.8))
positions = np.arange(len(clf.classes_))
ax.barh(positions - 0.2, empirical, height=0.4, color="0.6", label="held-out miss rate")
ax.barh(positions + 0.2, clf.class_bounds_, height=0.4, color="tab:blue", label="certified bound")
ax.set_yticks(positions, [f"y = {label}" for label in clf.classes_])
ax.set_xlabel("P(predict(x) != y | y)")
ax.legend(loc="lower right")
ax.set_title("random forest, breast cancer, delta = 0.05")
fig.tight_layout()
