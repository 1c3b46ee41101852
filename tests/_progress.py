"""Checks that a fit reports each candidate as it finishes, not all at the end."""


def lines_printed_before_each_fit(module, capsys, monkeypatch, marker=" candidate "):
    """Wrap ``module._fit_candidate``; return the list it fills as the fit runs.

    Before each candidate's fit starts, the list gets the number of lines containing
    ``marker`` printed since the previous one started (read with ``capsys``): with
    progress reported as each candidate finishes, that is 0 for the first and 1 for
    every other one (sequential fits).
    """
    fit_one = module._fit_candidate
    counts = []

    def spy(index, *args):
        counts.append(capsys.readouterr().out.count(marker))
        return fit_one(index, *args)

    monkeypatch.setattr(module, "_fit_candidate", spy)
    return counts
