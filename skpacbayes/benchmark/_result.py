"""The result of a comparison: its rows, its settings and their summary over seeds."""

import json
from dataclasses import dataclass, field

import numpy as np

from skpacbayes._docstrings import fill_doc

#: the setup of the examples: a result of two rows (docstring text)
_TOY_RESULT = """\
>>> from skpacbayes.benchmark import CompareResult
>>> row = dict(dataset="toy", seed=0, method="FO", posterior="categorical", bound=0.3,
...            test_error=0.1, train_error=0.08, fit_time=1.0, n_iter=10, delta=0.05)
>>> res = CompareResult("toy", [row, {**row, "posterior": "best", "chosen": "categorical"}],
...                     settings={"seeds": 1, "delta": 0.05})"""


@fill_doc(toy_result=_TOY_RESULT)
@dataclass
class CompareResult:
    """Rows of a comparison run and its settings.

    Attributes
    ----------
    dataset : str
        Name of the dataset.
    rows : list of dict
        One row per (seed, method, posterior), plus rows with
        ``posterior="best"`` for the delta-split best of families (and, with
        ``method="All"``, the delta-split best of everything). Keys:
        dataset, seed, method, posterior, bound, test_error, train_error,
        fit_time, n_iter, delta.
    settings : dict
        The arguments of the run.
    wall_time : float
        Seconds for the whole run.

    Examples
    --------
    {toy_result}
    >>> print(res.to_csv().splitlines()[0])
    dataset,seed,method,posterior,bound,test_error,train_error,fit_time,n_iter,delta
    """

    dataset: str
    rows: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    wall_time: float = 0.0

    @fill_doc(toy_result=_TOY_RESULT)
    def to_json(self):
        """The result as a JSON string (schema: dataset, settings, wall_time, rows, summary).

        Returns
        -------
        str
            Indented JSON text; ``summary`` holds the mean and standard deviation over
            seeds of the bound and the test error per (method, posterior).

        Examples
        --------
        >>> import json
        {toy_result}
        >>> data = json.loads(res.to_json())
        >>> sorted(data), data["summary"]["FO/best"]["bound_mean"]
        (['dataset', 'rows', 'settings', 'summary', 'wall_time'], 0.3)
        """
        return json.dumps(
            {
                "dataset": self.dataset,
                "settings": self.settings,
                "wall_time": self.wall_time,
                "rows": self.rows,
                "summary": summarize(self.rows),
            },
            indent=2,
        )

    @fill_doc(toy_result=_TOY_RESULT)
    def to_csv(self):
        """The rows as CSV text.

        Returns
        -------
        str
            A header line with the keys of ``ROW_KEYS``, then one line per row (the extra
            ``chosen`` key of the best-of-families rows is not written).

        Examples
        --------
        {toy_result}
        >>> print(res.to_csv())
        dataset,seed,method,posterior,bound,test_error,train_error,fit_time,n_iter,delta
        toy,0,FO,categorical,0.3,0.1,0.08,1.0,10,0.05
        toy,0,FO,best,0.3,0.1,0.08,1.0,10,0.05
        <BLANKLINE>
        """
        keys = list(ROW_KEYS)
        lines = [",".join(keys)]
        for row in self.rows:
            lines.append(",".join(str(row[k]) for k in keys))
        return "\n".join(lines) + "\n"


ROW_KEYS = (
    "dataset",
    "seed",
    "method",
    "posterior",
    "bound",
    "test_error",
    "train_error",
    "fit_time",
    "n_iter",
    "delta",
)


def summarize(rows):
    """Mean and std over seeds of bound and test error per (method, posterior)."""
    out = {}
    for key in sorted({(r["method"], r["posterior"]) for r in rows}):
        sel = [r for r in rows if (r["method"], r["posterior"]) == key]
        b = np.array([r["bound"] for r in sel])
        t = np.array([r["test_error"] for r in sel])
        out[f"{key[0]}/{key[1]}"] = {
            "bound_mean": float(b.mean()),
            "bound_std": float(b.std()),
            "test_mean": float(t.mean()),
            "test_std": float(t.std()),
            "n_seeds": len(sel),
        }
    return out
