"""The map holds: every import within the lines docs/architecture.md draws, every size in limits."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

MAP = REPO / "docs" / "architecture.md"
#: The folders whose Python files the map covers.
ROOTS = ("flows", "schemas", "bench")
#: What `prefect` stands for in the map's table.
PREFECT = ("prefect", "prefect_dask", "distributed")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _table() -> dict[str, set[str]]:
    """The map's table: part -> the parts it may import (from its `may import` cells)."""
    rows = re.findall(r"^\| `([^`]+)` \| [^|]+ \| ([^|]+) \|$", MAP.read_text(), re.MULTILINE)
    return {part: set(re.findall(r"`([^`]+)`", allowed)) for part, allowed in rows}


PARTS = _table()


def _part(path: str) -> str | None:
    """The part of the map a file (`flows/stages/parse.py`) or `prefect` belongs to."""
    matches = [p for p in PARTS if path == p or path.startswith(p + "/")]
    return max(matches, key=len) if matches else None


def _module_path(name: str) -> str | None:
    """`flows.stages.parse` -> `flows/stages/parse.py` (a package: its `__init__.py`)."""
    if name.split(".")[0] in PREFECT:
        return "prefect"
    if name.split(".")[0] not in ROOTS:
        return None
    base = REPO / name.replace(".", "/")
    if base.is_dir():
        return f"{name.replace('.', '/')}/__init__.py"
    return f"{name.replace('.', '/')}.py" if base.with_suffix(".py").is_file() else None


def _imports(path: Path) -> set[str]:
    """The file paths (or `prefect`) a module imports, anywhere in it."""
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_module_path(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            submodules = {_module_path(f"{node.module}.{alias.name}") for alias in node.names}
            found |= submodules
            if None in submodules:  # a name defined in the module itself
                found.add(_module_path(node.module))
    return {p for p in found if p}


SOURCES = sorted(
    p.relative_to(REPO).as_posix() for root in ROOTS for p in (REPO / root).rglob("*.py")
)


def test_the_map_names_every_part_once() -> None:
    assert "flows/stages" in PARTS and "prefect" not in PARTS
    assert [source for source in SOURCES if _part(source) is None] == []


@pytest.mark.parametrize("source", SOURCES)
def test_no_import_crosses_a_line_the_map_draws(source: str) -> None:
    mine = _part(source)
    assert mine is not None
    crossing = [
        target
        for target in sorted(_imports(REPO / source))
        if (part := _part(target) or target) != mine and part not in PARTS[mine]
    ]
    assert crossing == [], f"{source} ({mine}) may import only {sorted(PARTS[mine])}"


def test_prefect_is_imported_by_two_modules_only() -> None:
    importers = sorted(s for s in SOURCES if "prefect" in _imports(REPO / s))
    assert importers == ["flows/prefect_flow.py", "flows/prefect_server.py"]


def test_no_product_module_imports_the_tooling() -> None:
    product = [s for s in SOURCES if not s.startswith("bench/")]
    assert [s for s in product if any(t.startswith("bench/") for t in _imports(REPO / s))] == []


@pytest.mark.parametrize("source", SOURCES)
def test_modules_and_functions_are_short(source: str) -> None:
    text = (REPO / source).read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_the_traced_modules_exist_and_are_eight() -> None:
    text = " ".join(MAP.read_text().split(" "))
    trace = re.split(r"passes\s+through\s+these\s+\*\*8 modules\*\*", text)[1].split("\n\n")[1]
    modules = re.findall(r"^\d+\. `([^`]+)`", trace, re.MULTILINE)
    assert len(modules) == 8
    assert all((REPO / module).is_file() for module in modules)
