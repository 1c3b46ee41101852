"""The comparison benchmark behind ``skpacbayes compare``.

For each seed: a stratified 80/20 split, the voters of the reference
protocol fitted once (stumps for binary tasks, a 200-tree split forest for
multi-class tasks) and shared by every method, every valid (bound, posterior)
pair trained and certified, and the test error of the certified classifier.
A "best of families" row per method reports the tightest family after
re-certifying every family at ``delta / K`` (union bound over the K valid
families), so that row is itself a certificate. The strategy rows (``STRATEGIES``)
certify genuine votes of trees: the Gaussian PAC-Bayes vote, the hold-out votes (the
halves of a split forest, or a forest grown on ``1 - f`` of the rows and certified on
the held-out ``f``) and :class:`~skpacbayes.CertifiedVoteClassifier` with its defaults.
The methods are the entries of ``REGISTRY`` (``METHODS`` and ``STRATEGIES`` are its views);
an asked (method, posterior) pair that cannot run on the task is refused before any work
starts (:func:`check_request`), or skipped and named with ``skip_invalid=True``.
"""

# Layout (each private module is named for what it holds):
#   _methods.py    the registry of the methods (REGISTRY): for each its estimator and how it is
#                  built, its voters, its families and its description; METHODS and STRATEGIES
#   _request.py    the check of a request: the pairs it runs, those it cannot run and why
#   _runner.py     compare: the splits, the shared voter banks, the fits, the best-of rows
#   _result.py     CompareResult and its summary over seeds
#   _report.py     the text tables and the plot of a result
#   _progress.py   the progress report on stderr
#   _reference.py  the published figures the tables show beside ours

# Names of the command line and the tables beyond ``__all__`` are re-exported with "as".
from skpacbayes.benchmark._methods import FAMILIES as FAMILIES
from skpacbayes.benchmark._methods import METHODS
from skpacbayes.benchmark._methods import REGISTRY as REGISTRY
from skpacbayes.benchmark._methods import STRATEGIES as STRATEGIES
from skpacbayes.benchmark._report import COLUMNS as COLUMNS
from skpacbayes.benchmark._report import format_table
from skpacbayes.benchmark._report import plot_results as plot_results
from skpacbayes.benchmark._request import UnsupportedRequestError, check_request
from skpacbayes.benchmark._request import invalid_pairs as invalid_pairs
from skpacbayes.benchmark._result import CompareResult
from skpacbayes.benchmark._result import summarize as summarize
from skpacbayes.benchmark._runner import compare

__all__ = [
    "METHODS",
    "CompareResult",
    "UnsupportedRequestError",
    "check_request",
    "compare",
    "format_table",
]
