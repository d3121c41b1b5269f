"""The run report: a markdown page of counts for the operator and the analysts.

Every value from the input (ruling texts, reject reasons, file paths,
languages) is data, not markup: it is put in a code span, so a ruling reading
`![x](https://attacker.example/t.png)` or a file named `<img src=x>.txt` is
shown as written in `report.md` and in the Prefect UI, never rendered as an
image, a link or HTML.
"""

from __future__ import annotations

import re
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
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    """A table cell: numbers as they are, anything else as a code span (never markup)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return code_span("null" if value is None else str(value))


def code_span(text: str) -> str:
    """`text` as a one-line markdown code span that is safe inside a table cell.

    The fence is one backtick longer than the longest run of backticks in
    the text; a space pads a text that starts or ends with a backtick (or
    with spaces on both sides), as CommonMark strips one; line ends become
    spaces and `|` is escaped (GFM splits table rows on it even in code).
    """
    text = re.sub(r"[\r\n]+", " ", text)
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padded = text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " ")
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")
