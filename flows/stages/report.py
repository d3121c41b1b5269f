"""The run report: a markdown page of counts for the operator and the analysts."""

from __future__ import annotations

from typing import Any

import polars as pl

#: How many of the most repeated rulings the report lists.
TOP_RULINGS = 10


def build_report(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """Render the run as markdown with tables.

    Sections: rows per table, line accounting, what changed and what work
    was done, rejects by stage and reason, the most repeated rulings, and
    languages of occurrences, stubs and headers.

    Needs:
        manifest: as `manifest.build_manifest` returns it.
        tables: the published tables.
    """
    rejects = (
        tables["rejects"]
        .group_by("stage", "reason")
        .len()
        .sort(["len", "stage", "reason"], descending=[True, False, False])
    )
    top = (
        tables["rulings"]
        .sort(["dump_count", "occurrence_count", "ruling_id"], descending=[True, True, False])
        .head(TOP_RULINGS)
    )
    changes = manifest.get("since_previous", {})
    sections = [
        f"# ruling-dumps run {manifest['run_id']}",
        f"Started {manifest['started_at']}, schema {manifest['schema_version']}, "
        f"package {manifest['package_version']}.",
        "## Rows per table",
        _table(["table", "rows"], list(manifest["rows"].items())),
        "## Line accounting",
        _table(["kind", "lines"], list(manifest["line_accounting"].items())),
        "## Since the previous snapshot",
        _table(
            ["change", "files"],
            [(k, len(changes.get(k, []))) for k in ("added", "changed", "removed")],
        ),
        _table(["work", "count"], list(manifest.get("work", {}).items())),
        "## Rejects by reason",
        _table(["stage", "reason", "count"], rejects.rows()) if rejects.height else "No rejects.",
        f"## The {TOP_RULINGS} most repeated rulings",
        _table(
            ["dumps", "occurrences", "variants", "text"],
            [
                (d, o, v, _short(t))
                for t, d, o, v in top.select(
                    "text", "dump_count", "occurrence_count", "variant_count"
                ).iter_rows()
            ],
        ),
        "## Languages",
        _table(["table", "language", "rows"], _languages(tables)),
    ]
    return "\n\n".join(sections) + "\n"


def _languages(tables: dict[str, pl.DataFrame]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for name, column in (
        ("ruling_occurrences", "language"),
        ("ruling_translations", "language"),
        ("card_stubs", "language"),
        ("dumps", "header_language"),
    ):
        counts = tables[name].group_by(column).len().sort(["len", column], descending=[True, False])
        rows += [(name, lang, n) for lang, n in counts.iter_rows()]
    return rows


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(header: list[str], rows: list[tuple[Any, ...]]) -> str:
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
