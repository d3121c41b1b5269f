"""Check a published snapshot: its files against its manifest, its tables against the contract.

`ruling-dumps validate` resolves `latest` once (`snapshot.resolve_latest`) and
checks that folder here. Each problem is one line that names the file and the
check that failed (`rulings.parquet: not readable Parquet (…)`); every check
runs whatever an earlier one found, so a truncated file is named for its
sha256 and for its unreadable bytes, and a manifest that is not JSON still
leaves every table checked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandera.polars as pa
import polars as pl

from flows.disk.files import describe_file
from flows.errors import RulingsError

# `flows.stages.tables` is imported where used (`_check_table`): it loads every stage the
# tables are built from (the detector's profiles, wordfreq), and the command line imports
# this module before Prefect's temporary server starts (see `raw`).

MANIFEST = "manifest.json"


def verify_snapshot(snapshot: Path, models: dict[str, type[pa.DataFrameModel]]) -> list[str]:
    """Check a published snapshot: its files against the manifest, its tables against `models`.

    Returns:
        One line per problem found (empty when the snapshot is sound), each
        `<file>: <the check that failed> (<details>)`: a manifest missing, not
        readable, not JSON or listing no files; a listed file missing,
        unreadable, or whose size or sha256 differs from the manifest; a
        Parquet file missing or not readable Parquet; a table that breaks its
        model (as a whole, or rows of it); a JSON Lines file missing, not
        readable JSON Lines, or whose rows differ from its Parquet file's.
    """
    listed, problems = _read_manifest(snapshot / MANIFEST)
    for entry in listed:
        problems += _check_listed(snapshot, entry)
    for name, model in models.items():
        problems += _check_table(snapshot, name, model)
    return problems


def _read_manifest(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """(the files the manifest lists, its problems); no file listed when it cannot be read."""
    if not path.is_file():
        return [], [f"{MANIFEST}: missing"]
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return [], [f"{MANIFEST}: not readable ({exc.strerror})"]
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        return [], [f"{MANIFEST}: not JSON ({_one_line(exc)})"]
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list):
        return [], [f"{MANIFEST}: lists no files (no `files` list: not a snapshot's manifest)"]
    sound = [entry for entry in files if _is_file_entry(entry)]
    problems = [
        f"{MANIFEST}: files[{i}] is not a file of the snapshot with its bytes and sha256"
        for i, entry in enumerate(files)
        if not _is_file_entry(entry)
    ]
    return sound, problems


def _is_file_entry(entry: Any) -> bool:
    """`entry` is {name: a file name in the snapshot, bytes: int, sha256: str}."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("name"), str)
        and entry["name"] not in {"", ".", ".."}
        and "/" not in entry["name"]
        and isinstance(entry.get("bytes"), int)
        and isinstance(entry.get("sha256"), str)
    )


def _check_listed(snapshot: Path, entry: dict[str, Any]) -> list[str]:
    """A file the manifest lists: present, readable, of its size and sha256."""
    name = entry["name"]
    if not (snapshot / name).is_file():
        return [f"{name}: missing ({MANIFEST} lists it)"]
    try:
        found = describe_file(snapshot / name)
    except OSError as exc:
        return [f"{name}: not readable ({exc.strerror})"]
    if found["bytes"] != entry["bytes"]:
        return [
            f"{name}: size and sha256 differ from {MANIFEST} "
            f"({found['bytes']} bytes, the manifest says {entry['bytes']})"
        ]
    if found["sha256"] != entry["sha256"]:
        return [f"{name}: sha256 differs from {MANIFEST} (same size: bytes altered)"]
    return []


def _check_table(snapshot: Path, name: str, model: type[pa.DataFrameModel]) -> list[str]:
    """A table's Parquet file against its model, and its JSON Lines file against the Parquet."""
    from flows.stages.tables import validate_table  # here, not at the top: see the imports

    parquet, jsonl = snapshot / f"{name}.parquet", snapshot / f"{name}.jsonl"
    problems = [f"{path.name}: missing" for path in (parquet, jsonl) if not path.is_file()]
    if not parquet.is_file():
        return problems
    try:
        table = pl.read_parquet(parquet)
    except (OSError, pl.exceptions.PolarsError) as exc:
        return [*problems, f"{parquet.name}: not readable Parquet ({_one_line(exc)})"]
    try:
        _, rejects = validate_table(name, table, model)
    except RulingsError as exc:
        problems.append(f"{parquet.name}: breaks the contract ({_one_line(exc)})")
    else:
        if rejects.height:
            problems.append(
                f"{parquet.name}: {rejects.height} rows break the contract, "
                f"e.g. {rejects['reason'][0]}"
            )
    if jsonl.is_file():
        problems += _check_jsonl(jsonl, parquet.name, table)
    return problems


def _check_jsonl(jsonl: Path, parquet_name: str, table: pl.DataFrame) -> list[str]:
    """A JSON Lines file read with its Parquet file's schema holds the same rows."""
    try:
        rows = pl.read_ndjson(jsonl, schema=table.schema)
    except (OSError, pl.exceptions.PolarsError) as exc:
        return [f"{jsonl.name}: not readable JSON Lines ({_one_line(exc)})"]
    if rows.height != table.height:
        return [
            f"{jsonl.name}: {rows.height} rows, {parquet_name} {table.height} "
            "(they differ in row count)"
        ]
    if not rows.equals(table):
        return [f"{jsonl.name}: rows differ from {parquet_name}'s"]
    return []


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
