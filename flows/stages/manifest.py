"""Describe a run: line accounting and the snapshot's `manifest.json`."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from flows.stages.parse import LINE_KINDS


def account_lines(resolved: pl.DataFrame) -> dict[str, int]:
    """Count lines per kind; every line read has exactly one kind.

    Needs:
        kind (String), one row per line read.

    Returns:
        {kind: count for each of LINE_KINDS} plus "lines_read"; the kinds add
        up to lines_read.
    """
    counts = dict(resolved.group_by("kind").len().iter_rows())
    accounting = {kind: int(counts.get(kind, 0)) for kind in LINE_KINDS}
    accounting["lines_read"] = resolved.height
    return accounting


def build_manifest(
    *,
    run_id: str,
    started_at: dt.datetime,
    finished_at: dt.datetime,
    package_version: str,
    schema_version: str,
    decoded: pl.DataFrame,
    tables: dict[str, pl.DataFrame],
    line_accounting: dict[str, int],
) -> dict[str, Any]:
    """Assemble `manifest.json` (the publish step adds `files`).

    Needs:
        decoded: path, dump_id (sha256 hex), byte_count; one row per input file.

    Returns:
        run_id, started_at, finished_at (ISO 8601 UTC), package_version,
        schema_version, inputs [{path, sha256, bytes}], rows {table: count},
        line_accounting {kind: count, lines_read}.
    """
    return {
        "run_id": run_id,
        "started_at": started_at.isoformat(),
        "finished_at": finished_at.isoformat(),
        "package_version": package_version,
        "schema_version": schema_version,
        "inputs": [
            {"path": path, "sha256": sha, "bytes": size}
            for path, sha, size in decoded.select("path", "dump_id", "byte_count").iter_rows()
        ],
        "rows": {name: table.height for name, table in tables.items()},
        "line_accounting": line_accounting,
    }
