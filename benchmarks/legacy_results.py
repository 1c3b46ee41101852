"""Result files of ``compare`` written before the method names followed the certificate's.

``reproduce.py`` and ``strategies.py`` read every result file through :func:`upgrade_result`,
so that files written with the legacy names ``CBnd`` and ``Part`` merge with new ones.
"""

#: legacy method name -> current name (the bound's name in ``certificate_.bound``)
LEGACY_METHOD_NAMES = {"CBnd": "CBound", "Part": "Partition"}


def upgrade_result(data):
    """Rename legacy method names in a result read back from JSON (see ``to_json``).

    Parameters
    ----------
    data : dict
        Parsed JSON of a ``CompareResult``, possibly written with the legacy names
        ``CBnd`` and ``Part``.

    Returns
    -------
    dict
        The same data with the current names in ``rows``, ``summary`` and ``settings``.
    """

    def name(text):
        method, _, family = text.partition("/")
        method = LEGACY_METHOD_NAMES.get(method, method)
        return f"{method}/{family}" if family else method

    data = dict(data)
    rows = []
    for row in data.get("rows", []):
        row = {**row, "method": name(row["method"])}
        if "chosen" in row:
            row["chosen"] = name(row["chosen"])
        rows.append(row)
    data["rows"] = rows
    data["summary"] = {name(k): v for k, v in data.get("summary", {}).items()}
    settings = dict(data.get("settings", {}))
    if settings.get("methods"):
        settings["methods"] = [name(m) for m in settings["methods"]]
    data["settings"] = settings
    return data
