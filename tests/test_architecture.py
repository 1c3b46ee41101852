"""The package's import graph has no cycles.

Every ``import`` and ``from ... import`` inside ``skpacbayes`` (at module level or inside a
function) is an edge from the importing module to the imported one. ``from pkg import name``
points to the submodule ``pkg.name`` when there is one, else to ``pkg`` itself. A parent
package is not an edge (Python always imports it first; its ``__init__`` only re-exports).
"""

import ast
from pathlib import Path

import skpacbayes

PACKAGE = Path(skpacbayes.__file__).parent


def _module_names():
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported(module, path, modules):
    """Modules of the package that ``module`` imports (anywhere in its source)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            subs = [f"{source}.{alias.name}" for alias in node.names]
            targets = [s for s in subs if s in modules] or [source]
        else:
            continue
        found.update(t for t in targets if t in modules and t != module)
    return found


def import_graph():
    """``{module: set of modules of the package it imports}``."""
    modules = _module_names()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def find_cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_find_cycles_detects_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_package_has_no_import_cycle():
    graph = import_graph()
    assert "skpacbayes.classifiers" in graph and "skpacbayes.engine.fit" in graph
    assert find_cycles(graph) == []


def test_engine_does_not_import_the_estimators_nor_the_bounds():
    """votes -> trained posterior -> certificate: the engine is handed a specification, it never
    reads an estimator module nor a bound's module (the bound object reaches it at run time)."""
    graph = import_graph()
    engine = [m for m in graph if m.startswith("skpacbayes.engine")]
    assert "skpacbayes.engine.fit" in engine and "skpacbayes.engine.certify" in engine
    for module in engine:
        above = [
            m
            for m in graph[module]
            if m.startswith(("skpacbayes.classifiers", "skpacbayes.objectives"))
        ]
        assert not above, (module, above)
