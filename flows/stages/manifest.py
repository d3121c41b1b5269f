"""Describe a run: its `manifest.json`, line accounting, and the documents of its snapshot."""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl

from flows.stages.dump_checks import count_dump_checks
from flows.stages.parse import LINE_KINDS
from flows.stages.report import build_report
from flows.stages.report_html import build_report_html
from schemas import SCHEMA_VERSION
from schemas.json_schema import json_schema_documents


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


def compare_inputs(previous: dict[str, Any] | None, files: pl.DataFrame) -> dict[str, list[str]]:
    """What changed in the raw dir since the previous snapshot's manifest.

    Needs:
        files: path (String), dump_id (String: sha256), one row per input file.

    Returns:
        {"added": paths new since, "changed": paths whose sha256 changed,
        "removed": paths gone}, each sorted; all empty on a first run.
    """
    before = {i["path"]: i["sha256"] for i in (previous or {}).get("inputs", [])}
    now = dict(files.select("path", "dump_id").iter_rows())
    return {
        "added": sorted(p for p in now if p not in before),
        "changed": sorted(p for p in now if p in before and before[p] != now[p]),
        "removed": sorted(p for p in before if p not in now),
    }


def build_manifest(
    *,
    run_id: str,
    started_at: dt.datetime,
    finished_at: dt.datetime,
    package_version: str,
    schema_version: str,
    files: pl.DataFrame,
    tables: dict[str, pl.DataFrame],
    line_accounting: dict[str, int],
    since_previous: dict[str, Any] | None = None,
    work: dict[str, int] | None = None,
    ruling_ids: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble `manifest.json` (the publish step adds `files`).

    Needs:
        files: path, dump_id (sha256 hex), byte_count; one row per input file.
        since_previous: see `compare_inputs`. work: counts of work done.

    Returns:
        run_id, started_at, finished_at (ISO 8601 UTC), package_version,
        schema_version, inputs [{path, sha256, bytes}], rows {table: count},
        line_accounting {kind: count, lines_read}, since_previous (see
        `compare_inputs`, plus the previous run_id and `rows`: the previous
        snapshot's rows per table, {} on a first run), work (what this run did:
        dumps_parsed, dumps_reused, languages_detected, languages_reused),
        ruling_ids (published rulings by how their id relates to the id
        registry: kept, merged, split, gained; the merge rules versions of
        the registry and of this run; see `dedupe.stabilize_ruling_ids`),
        dump_checks ({checked: dumps with an oracle_id, missing, not_on_card,
        other_date: dumps with such a finding}; {} when no dump has an oracle_id:
        `dump_checks.count_dump_checks`).
    """
    return {
        "run_id": run_id,
        "started_at": started_at.isoformat(),
        "finished_at": finished_at.isoformat(),
        "package_version": package_version,
        "schema_version": schema_version,
        "inputs": [
            {"path": path, "sha256": sha, "bytes": size}
            for path, sha, size in files.select("path", "dump_id", "byte_count").iter_rows()
        ],
        "rows": {name: table.height for name, table in tables.items()},
        "line_accounting": line_accounting,
        "since_previous": since_previous or {},
        "work": work or {},
        "ruling_ids": ruling_ids or {},
        "dump_checks": count_dump_checks(tables["dumps"], tables["dump_checks"])
        if "dump_checks" in tables
        else {},
    }


def describe_run(
    *,
    run_id: str,
    started_at: dt.datetime,
    finished_at: dt.datetime,
    package_version: str,
    files: pl.DataFrame,
    published: dict[str, pl.DataFrame],
    line_accounting: dict[str, int],
    ruling_ids: dict[str, Any],
    previous_manifest: dict[str, Any] | None,
    work: dict[str, int],
    state_recovered: str | None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The run's manifest and the documents of its snapshot.

    Needs:
        files: path, dump_id, byte_count; one row per input file.
        published: the validated tables. previous_manifest: the published
        snapshot's (None on a first run). state_recovered: what was broken
        in the state and what was used instead (None when all was sound).

    Returns:
        (`build_manifest` plus `state_recovered`, {file name: text}: report.md
        (with a "State recovered" section when the state was), report.html,
        and one JSON Schema per table, so typed readers work on empty tables too).
    """
    run_manifest = build_manifest(
        run_id=run_id,
        started_at=started_at,
        finished_at=finished_at,
        package_version=package_version,
        schema_version=SCHEMA_VERSION,
        files=files,
        tables=published,
        line_accounting=line_accounting,
        ruling_ids=ruling_ids,
        since_previous={
            "previous_run_id": (previous_manifest or {}).get("run_id"),
            **compare_inputs(previous_manifest, files),
            "rows": dict((previous_manifest or {}).get("rows", {})),
        },
        work=work,
    )
    run_manifest["state_recovered"] = state_recovered
    recovery = (
        ""
        if state_recovered is None
        else (f"\n## State recovered\n\n**Warning**: {state_recovered}\n")
    )
    documents = {
        "report.md": build_report(run_manifest, published) + recovery,
        "report.html": build_report_html(run_manifest, published),
        **json_schema_documents(),
    }
    return run_manifest, documents
