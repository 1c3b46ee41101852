"""Sphinx helpers of the skpacbayes documentation.

* ``.. valid-combinations::`` renders the table of (estimator, posterior family, task, voters)
  combinations that give a certificate, computed from the estimators' ``_valid_posteriors``
  methods at build time, so the table can never drift from the code.
* (The README's two commands, quoted in ``getting_started.rst`` wrapped at ``&&``, are
  checked by ``tests/test_docs_examples.py`` with every other block of the pages.)
* scikit-learn's metadata-routing methods are left out of the API pages.
* A fitted-attribute name in a numpydoc type (``shape (n_voters_,)``) is quoted, since a
  bare word ending with ``_`` is a reST reference.
* At ``builder-inited`` every public name (``__all__``) of the documented modules must appear in
  ``api.rst``; a missing one is a warning (an error with ``-W``).
"""

import importlib
import re
from pathlib import Path

from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

#: (column title, number of classes, split voters)
SETTINGS = (
    ("binary, data-independent voters", 2, False),
    ("binary, split voters", 2, True),
    ("multi-class, data-independent voters", 3, False),
    ("multi-class, split voters", 3, True),
)
# ``k = 3`` stands for every multi-class task: no ``_valid_posteriors`` depends on k beyond
# "two classes or more than two".
FAMILY_ABBR = {"categorical": "Cat", "dirichlet": "Dir", "gaussian": "Gauss"}
BOUND_ORDER = ("FO", "SO", "Bin", "CBound", "Partition", "Margin", "VC", "Occam")

#: modules whose ``__all__`` must be covered by api.rst
API_MODULES = (
    "skpacbayes",
    "skpacbayes.voters",
    "skpacbayes.posteriors",
    "skpacbayes.bounds",
    "skpacbayes.partition",
    "skpacbayes.model_selection",
    "skpacbayes.datasets",
    "skpacbayes.plotting",
    "skpacbayes.benchmark",
)
API_SKIP = {"__version__"}


def valid_combination_rows():
    """(estimator name, bound name, one cell per setting) for every certified estimator."""
    import skpacbayes
    from skpacbayes.classifiers import MajorityVoteClassifier

    rows = []
    for name in skpacbayes.__all__:
        obj = getattr(skpacbayes, name)
        if not (isinstance(obj, type) and issubclass(obj, MajorityVoteClassifier)):
            continue
        if obj is MajorityVoteClassifier:
            continue
        est = obj()
        cells = []
        for _, n_classes, split in SETTINGS:
            valid = est._valid_posteriors(n_classes, split)
            cells.append(", ".join(FAMILY_ABBR.get(p, p) for p in valid) or "--")
        rows.append((name, obj._bound_class.name, cells))
    order = {b: i for i, b in enumerate(BOUND_ORDER)}
    rows.sort(key=lambda r: (order.get(r[1], len(order)), r[0]))
    return rows


class ValidCombinations(Directive):
    """Table of the valid (estimator, family, task, voters) combinations, from the code."""

    has_content = False

    def run(self):
        lines = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :class: valid-combinations",
            "",
            "   * - bound (estimator)",
        ]
        lines += [f"     - {title}" for title, _, _ in SETTINGS]
        for name, bound, cells in valid_combination_rows():
            lines.append(f"   * - :class:`{bound} <skpacbayes.{name}>`")
            lines += [f"     - {cell}" for cell in cells]
        container = StringList(lines, source="valid-combinations")
        from docutils import nodes

        node = nodes.container()
        nested_parse_with_titles(self.state, container, node)
        return node.children


def _api_entries(text):
    """Names listed in the autosummary blocks of api.rst, per current module."""
    entries, module = {}, None
    for line in text.splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line.strip())
        if m:
            module = m.group(1)
            entries.setdefault(module, set())
            continue
        m = re.fullmatch(r"\s{3,}([A-Za-z_][A-Za-z0-9_]*)\s*", line)
        if m and module is not None:
            entries[module].add(m.group(1))
    return entries


def check_api_coverage(app):
    api = Path(app.srcdir) / "api.rst"
    entries = _api_entries(api.read_text(encoding="utf-8"))
    for modname in API_MODULES:
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # noqa: BLE001 - reported as a build warning
            logger.warning(f"api.rst: cannot import {modname}: {exc!r}")
            continue
        public = set(getattr(module, "__all__", ())) - API_SKIP
        missing = sorted(public - entries.get(modname, set()))
        if missing:
            logger.warning(f"api.rst: {modname}.__all__ names not documented: {missing}")
        stale = sorted(entries.get(modname, set()) - public - {"members"})
        if stale:
            logger.warning(f"api.rst: {modname} entries not in its __all__: {stale}")


def skip_metadata_request_methods(app, what, name, obj, skip, options):
    """Hide scikit-learn's metadata routing (``set_*_request``, ``get_metadata_routing``)."""
    if re.fullmatch(r"set_\w+_request|get_metadata_routing", name):
        return True
    return None


_TYPE_LINE = re.compile(r"^(\s*[A-Za-z_*][\w, *\\]* : )(.+)$")
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?![`\w])")


def quote_attribute_names_in_types(app, what, name, obj, options, lines):
    """Write ``n_voters_`` for a bare n_voters_ in a numpydoc type, e.g. ``shape (n_voters_,)``.

    In reST a word ending with ``_`` is a hyperlink reference, so a fitted-attribute name in
    a type specification is an error. Only the type part (after `` : ``) is touched.
    """
    for i, line in enumerate(lines):
        m = _TYPE_LINE.match(line)
        if m and "``" not in m.group(2):
            lines[i] = m.group(1) + _TRAILING_UNDERSCORE.sub(r"``\1``", m.group(2))


def setup(app):
    app.connect("autodoc-skip-member", skip_metadata_request_methods)
    # before numpydoc (priority 500) reformats the sections
    app.connect("autodoc-process-docstring", quote_attribute_names_in_types, priority=400)
    app.add_directive("valid-combinations", ValidCombinations)
    app.connect("builder-inited", check_api_coverage)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
