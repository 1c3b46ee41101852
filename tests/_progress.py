"""Checks that a fit reports each candidate as it finishes, not all at the end."""


def lines_printed_before_each_fit(module, name, capsys, monkeypatch, marker=" candidate "):
    """Wrap ``module.<name>`` (the job that fits one candidate); return the list it fills as
    the fit runs.

    Before each candidate's fit starts, the list gets the number of lines containing
    ``marker`` printed since the previous one started (read with ``capsys``): with
    progress reported as each candidate finishes, that is 0 for the first and 1 for
    every other one (sequential fits).
    """
    fit_one = getattr(module, name)
    counts = []

    def spy(index, *args):
        counts.append(capsys.readouterr().out.count(marker))
        return fit_one(index, *args)

    monkeypatch.setattr(module, name, spy)
    return counts
