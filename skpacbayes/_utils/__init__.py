"""The estimators' scikit-learn plumbing, shared by every face and reading nothing of the package.

``_available_if`` (a method that exists only when a check passes, and says why otherwise),
``_keyword_only`` (constructors that refuse positional arguments by name), ``_fit_params``
(``fit`` refuses sample weights and other fit parameters, naming the estimator) and
``_search_refit`` (the warning when a scikit-learn search refits a certified estimator it
selected on the data). Like ``sklearn.utils``, below every layer that uses it.
"""
