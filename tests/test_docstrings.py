"""numpydoc validation of the public API (the ``__all__`` of every public module).

Every public class, function, method and property defined in skpacbayes must document each
parameter and its return value, and every public class and function must have an Examples
section (they run as doctests). Checked codes: see ``CHECKED``. Not checked, by the
project's conventions: PR04/RT02 (grouped entries such as ``kl, m, delta`` or
``voters, posterior`` that point to another object, and named return values as in
scikit-learn), and the purely editorial ES01 (extended summary) and SA01 (See Also).

The fields of a dataclass are its constructor's parameters: they may be documented under
Attributes instead of Parameters. Every public name must also be listed in docs/api.rst.
The numpydoc checks need numpydoc (the ``docs`` extra) and are skipped without it.
"""

import dataclasses
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import skpacbayes

CHECKED = {
    "GL08",  # no docstring
    "SS01",  # no summary
    "PR01",  # parameter not documented
    "PR02",  # documented parameter that does not exist
    "PR03",  # parameters documented out of order
    "PR07",  # parameter without description
    "RT01",  # no Returns section
    "RT03",  # return value without description
    "YD01",  # no Yields section
}
# Examples sections are required on public classes and functions (methods may rely on the
# examples of their class).
CHECKED_TOP_LEVEL = CHECKED | {"EX01"}


def _public_modules():
    yield skpacbayes
    for info in pkgutil.iter_modules(skpacbayes.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"skpacbayes.{info.name}")


def _public_objects():
    """(import path, object, is_top_level) of every public class, function and member."""
    seen = set()
    out = []
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((f"{module.__name__}.{name}", obj, True))
            if not inspect.isclass(obj):
                continue
            for attr in dir(obj):
                if attr.startswith("_"):
                    continue
                owner = next(k for k in obj.__mro__ if attr in vars(k))
                if not owner.__module__.startswith("skpacbayes") or (owner, attr) in seen:
                    continue
                raw = vars(owner)[attr]
                if isinstance(raw, staticmethod | classmethod):
                    raw = raw.__func__
                if inspect.isfunction(raw) or isinstance(raw, property):
                    seen.add((owner, attr))
                    out.append((f"{owner.__module__}.{owner.__qualname__}.{attr}", raw, False))
    return out


PUBLIC = _public_objects()


def test_the_public_api_is_found():
    names = {path.rsplit(".", 1)[-1] for path, _, _ in PUBLIC}
    assert {"PartitionBoundClassifier", "StumpBank", "Dirichlet", "kl_inv_upper"} <= names
    assert {"fit", "predict", "stochastic_loss", "votes"} <= names


def _documented_attributes(obj):
    docscrape = pytest.importorskip("numpydoc.docscrape")
    doc = docscrape.NumpyDocString(inspect.getdoc(obj) or "")
    names = set()
    for section in ("Parameters", "Attributes"):
        for param in doc[section]:
            names.update(n.strip() for n in param.name.split(","))
    return names


@pytest.mark.parametrize(("path", "obj", "top_level"), PUBLIC, ids=[p for p, _, _ in PUBLIC])
def test_numpydoc(path, obj, top_level):
    validate_mod = pytest.importorskip("numpydoc.validate")
    checked = CHECKED_TOP_LEVEL if top_level else CHECKED
    errors = [(code, msg) for code, msg in validate_mod.validate(path)["errors"] if code in checked]
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
        fields = {f.name for f in dataclasses.fields(obj)}
        missing = fields - _documented_attributes(obj)
        assert not missing, f"{path}: fields not documented: {sorted(missing)}"
        errors = [(code, msg) for code, msg in errors if code != "PR01"]
    assert not errors, "\n".join(f"{path}: {code} {msg}" for code, msg in errors)


def test_api_reference_lists_every_public_name():
    """docs/api.rst documents every name of every public module's ``__all__``."""
    api = Path(__file__).resolve().parents[1] / "docs" / "api.rst"
    if not api.is_file():
        pytest.skip("docs/api.rst not found")
    listed = set(re.findall(r"^\s+(\w+)\s*$", api.read_text(), flags=re.MULTILINE))
    missing = [
        f"{module.__name__}.{name}"
        for module in _public_modules()
        for name in getattr(module, "__all__", ())
        if not name.startswith("__") and name not in listed
    ]
    assert not missing, f"public names missing from docs/api.rst: {missing}"
