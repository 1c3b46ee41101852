"""
======================================================
A certified screening threshold and a referral rule
======================================================

Two decisions a clinician makes with a model, each certified on cases the model never saw
(:ref:`theory-decisions`):

* **screening**: call a case suspicious when the model's probability of malignancy reaches a
  threshold, chosen so that at most 10 % of the malignant cases are missed
  (:class:`~skpacbayes.CertifiedThresholdClassifier`);
* **referral**: let the model answer only when it is confident, and refer the other cases to
  a specialist, chosen so that at most 5 % of the answered cases are wrong
  (:class:`~skpacbayes.CertifiedSelectiveClassifier`).

Each certificate holds with probability at least 95 % over the certifying cases.
"""

# %%
# A model fitted beforehand
# -------------------------
# A logistic regression on the ten mean measurements of the cell nuclei (radius, texture,
# ...), fitted on one half of the breast cancer data; the other half, which it never saw,
# certifies the decisions (the split reads neither the features nor the labels).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skpacbayes import CertifiedSelectiveClassifier, CertifiedThresholdClassifier

data = load_breast_cancer()
X, y = data.data[:, :10], data.target_names[data.target]  # "malignant" / "benign"
X_fit, X_cert, y_fit, y_cert = train_test_split(X, y, test_size=0.5, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_fit, y_fit)
delta = 0.05

# %%
# The screening threshold
# -----------------------
# The miss rate of the malignant class is certified at most 10 %; among the thresholds so
# certified, the one that sends the fewest benign cases on is deployed.
screen = CertifiedThresholdClassifier(model, pos_label="malignant", max_risk=0.1, delta=delta)
screen.fit(X_cert, y_cert)
malignant = list(screen.classes_).index("malignant")
fpr_bound = screen.risk_bounds_["false_positive_rate"][malignant]
print(f"suspicious when P(malignant) >= {screen.threshold_:.3f}")
print(f"certified: misses at most {100 * screen.bound_:.1f} % of malignant cases")
print(f"certified: flags at most {100 * fpr_bound:.1f} % of benign cases")

# %%
# The referral rule
# -----------------
# The model answers when its top-class probability reaches ``threshold_``; ``predict``
# returns ``None`` for a referred case (the labels are strings).
refer = CertifiedSelectiveClassifier(model, max_risk=0.05, delta=delta).fit(X_cert, y_cert)
referred = np.array([label is None for label in refer.predict(X_cert)])
print(f"answers when confidence >= {refer.threshold_:.3f}")
print(f"certified: at most {100 * refer.bound_:.1f} % of answered cases wrong")
print(f"certified: answers at least {100 * refer.coverage_lower_:.1f} % of cases")
print(f"{referred.sum()} of {referred.size} certifying cases referred")

# %%
# What a clinician reads
# ----------------------
# Left: the rates on the certifying cases as the screening threshold moves, the thresholds
# the test certified (shaded) and the deployed one with its certified miss rate. Right: the
# error among the answered cases and the share answered, as the referral threshold moves,
# with the certified point.
score = model.predict_proba(X_cert)[:, list(model.classes_).index("malignant")]
is_malignant = y_cert == "malignant"
grid = np.linspace(0, 1, 201)
miss = [(score[is_malignant] < t).mean() for t in grid]
flagged = [(score[~is_malignant] >= t).mean() for t in grid]
confidence = model.predict_proba(X_cert).max(axis=1)
wrong = model.predict(X_cert) != y_cert
levels = np.linspace(0.5, 1, 201)
answered = [(confidence >= t).mean() for t in levels]
error = [wrong[confidence >= t].mean() if (confidence >= t).any() else 0 for t in levels]

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
certified = screen.certified_thresholds_
left.axvspan(certified.min(), certified.max(), color="tab:green", alpha=0.12)
left.plot(grid, miss, color="tab:red", label="malignant missed")
left.plot(grid, flagged, color="0.4", label="benign flagged")
left.axhline(0.1, color="tab:red", linestyle=":", linewidth=1)
left.plot(screen.threshold_, screen.bound_, "o", color="tab:red", label="certified miss rate")
left.plot(screen.threshold_, fpr_bound, "s", color="0.4", label="certified benign flagged")
left.axvline(screen.threshold_, color="k", linewidth=0.8)
left.set_xlabel("threshold on P(malignant)")
left.set_ylabel("rate on the certifying cases")
left.set_title("screening: miss <= 10 %")
left.legend(fontsize=7, loc="upper center")
right.plot(levels, error, color="tab:red", label="wrong among answered")
right.plot(levels, answered, color="tab:blue", label="share answered")
right.axhline(0.05, color="tab:red", linestyle=":", linewidth=1)
right.plot(refer.threshold_, refer.bound_, "o", color="tab:red", label="certified error")
right.plot(refer.threshold_, refer.coverage_lower_, "s", color="tab:blue", label="certified share")
right.axvline(refer.threshold_, color="k", linewidth=0.8)
right.set_xlabel("confidence threshold (top-class probability)")
right.set_title("referral: error <= 5 %")
right.legend(fontsize=7, loc="center left")
fig.suptitle(f"breast cancer, logistic regression: certified with probability >= {1 - delta:.0%}")
fig.tight_layout()
