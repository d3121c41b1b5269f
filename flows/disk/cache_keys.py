"""Cache keys: what shapes each cache, found from the code rather than listed.

A cache in the state (the parse, language and per-dump results caches) or
the catalog's cached tables is used only when its key matches: a sha256 of
the Python version, the versions of the libraries that shape it and the
source of every module that shapes it. What shapes a cache is found by
following the imports of the module that makes it (`CACHE_MAKERS`) through
this project (`flows`, `schemas`), module by module, to the third-party
distributions they import; so a module added to a stage, or a library it
starts using, is part of the key without anyone listing it.
"""

from __future__ import annotations

import dis
import hashlib
import importlib.util
import sys
from functools import cache
from importlib.metadata import packages_distributions, version
from pathlib import Path
from types import CodeType

#: The module that makes each cache (its imports are followed from there).
CACHE_MAKERS: dict[str, tuple[str, ...]] = {
    "parsed": ("flows.stages.parse",),  # `parse.parse_files`
    "languages": ("flows.stages.detector",),  # `detector.detect_languages`
    "results": ("flows.stages.dumps", "flows.stages.reuse"),  # results, clusters
    "catalog": ("flows.disk.catalog",),  # `disk.catalog.read_catalog`
}
#: Packages of this project whose modules are followed (others are libraries).
PROJECT_PACKAGES = ("flows", "schemas")


@cache
def cache_keys() -> dict[str, str]:
    """Each cache's key: {"parsed", "languages", "results", "catalog"} -> sha256 hex."""
    return {kind: code_key(makers) for kind, makers in CACHE_MAKERS.items()}


def code_key(makers: tuple[str, ...]) -> str:
    """sha256 of the Python version, the libraries' versions and the modules' sources.

    `makers`: module names; every project module they import, directly or
    not, is hashed, and the version of every distribution any of them imports.
    """
    modules, libraries = shaping_code(makers)
    digest = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for library in libraries:
        digest.update(f"{library}=={version(library)}\n".encode())
    for module in modules:
        digest.update(f"{module}\n".encode())
        digest.update(_source(module).read_bytes())
    return digest.hexdigest()


def shaping_code(makers: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(project modules, library distributions) that `makers` import, directly or not; sorted."""
    distributions = _distributions()
    modules: set[str] = set()
    libraries: set[str] = set()
    todo = list(makers)
    while todo:
        module = todo.pop()
        if module in modules:
            continue
        modules.add(module)
        for name in _imports(module):
            top = name.split(".")[0]
            if top in PROJECT_PACKAGES:
                todo.append(name)
            elif top in distributions:
                libraries.update(distributions[top])
    return sorted(modules), sorted(libraries)


@cache
def _distributions() -> dict[str, list[str]]:
    """Import name -> the distributions that provide it (read once: 0.14 s)."""
    return packages_distributions()


@cache
def _imports(module: str) -> tuple[str, ...]:
    """The modules `module`'s source imports, anywhere in it (a `from a import b`
    of a submodule b gives `a.b`); each module compiled once per process.

    Read from the compiled code's IMPORT_NAME instructions (their level and
    from-list are the two constants before them), not from `ast.parse`: on
    Python 3.11 two threads building AST objects at once can fail with
    "SystemError: AST constructor recursion depth mismatch" (the depth is
    counted per interpreter), and a run finds its keys in a thread while
    Prefect's threads parse signatures (`inspect.signature`). The same names
    as `ast.walk`'s imports for every module of this project (a test compares).
    """
    path = _source(module)
    found: list[str] = []
    todo = [compile(path.read_bytes(), str(path), "exec", dont_inherit=True)]
    while todo:
        code = todo.pop()
        todo += [const for const in code.co_consts if isinstance(const, CodeType)]
        if _IMPORT_NAME not in code.co_code:  # most functions import nothing
            continue
        instructions = list(dis.get_instructions(code))
        for at, instruction in enumerate(instructions):
            if instruction.opcode != _IMPORT_NAME or instructions[at - 2].argval:  # relative
                continue
            name, names = instruction.argval, instructions[at - 1].argval or ()
            found.append(name)
            found += [f"{name}.{n}" for n in names if n != "*" and _is_module(f"{name}.{n}")]
    return tuple(name for name in found if name != "__future__")


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _is_module(name: str) -> bool:
    """`name` (`a.b`) is a project module: `b` a module of the package `a`, not a name in
    the module `a`. Found on disk, importing nothing but packages (`find_spec("a.b")`
    would import `a`: `flows.stages.detector` loads langdetect's profiles and wordfreq)."""
    parent, _, child = name.rpartition(".")
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return False
    try:
        origin = _source(parent)
    except ModuleNotFoundError:
        return False
    if origin.name != "__init__.py":  # `parent` is a module: `child` is a name in it
        return False
    return (origin.parent / f"{child}.py").is_file() or (
        origin.parent / child / "__init__.py"
    ).is_file()


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no source for {module}")
    return Path(spec.origin)
