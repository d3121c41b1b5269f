"""The state files of a generation: their kinds, names and schemas, checked on load.

A generation (`generation`) keeps one Parquet file per kind of `STATE_FILES`,
named `<kind>.<generation>.parquet`. `checked_frame` holds a file read back
to the columns and dtypes this code writes (`state_schemas`), as the
published tables are held to the contract: a file of another schema, or an
id registry of merge rules this code does not know, makes its generation
unusable (`state.load_state` falls back, loudly) instead of failing a run.
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Any

import polars as pl

from flows.disk.raw import FILE_COLUMNS
from flows.disk.records import StateCorruptError
from flows.stages.dedupe import REGISTRY_SCHEMA, complete_registry
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.dumps import RESULTS_ORDER, assemble_dumps, build_dump_results
from flows.stages.merge_rule import MERGE_RULES_VERSION
from flows.stages.parse import PARSED_DUMP_SCHEMA, parse_files
from flows.stages.reuse import CLUSTER_CACHE_SCHEMA, FILE_INDEX_SCHEMA

#: The frames of `dumps.DumpResults`, each kept as state file `results_<name>`.
RESULT_FRAMES = tuple(RESULTS_ORDER)

#: State files every generation has; the others (written by older code) may be absent.
REQUIRED = ("parsed_dumps", "parsed_lines", "languages", "ruling_ids")
STATE_FILES = (
    *REQUIRED,
    "file_index",
    *(f"results_{name}" for name in RESULT_FRAMES),
    "clusters",
)
#: The caches (`reuse.usable_caches`) each state file belongs to; the others are always read.
CACHE_OF = {
    "parsed_dumps": "parsed",
    "parsed_lines": "parsed",
    "languages": "languages",
    **{f"results_{name}": "results" for name in RESULT_FRAMES},
    "clusters": "clusters",
}


@functools.cache
def state_schemas() -> dict[str, dict[str, pl.DataType]]:
    """Each state file's columns and dtypes, in order: what this code writes.

    `parsed_lines` and the per-dump results (`results_*`) are what
    `parse.parse_files` and `dumps.build_dump_results` give for no input (their
    columns and dtypes do not depend on the data); the others are the
    schemas their stages declare. A state file is read back only with exactly
    these (an older registry without is_representative and merge_rules_version
    is completed first: `dedupe.complete_registry`).
    """
    today = dt.date(2000, 1, 1)
    parsed = parse_files(pl.DataFrame(schema={"dump_id": pl.String, "content": pl.Binary}))
    no_files = pl.DataFrame(schema=dict.fromkeys(FILE_COLUMNS, pl.String)).cast(
        {"byte_count": pl.Int64}
    )
    results, _ = build_dump_results(
        assemble_dumps(no_files, parsed, today), pl.DataFrame(schema=LANGUAGE_SCHEMA), today
    )
    return {
        "parsed_dumps": dict(PARSED_DUMP_SCHEMA),
        "parsed_lines": dict(parsed["lines"].schema),
        "languages": dict(LANGUAGE_SCHEMA),
        "ruling_ids": dict(REGISTRY_SCHEMA),
        "file_index": dict(FILE_INDEX_SCHEMA),
        **{f"results_{name}": dict(results[name].schema) for name in RESULT_FRAMES},  # type: ignore[literal-required]
        "clusters": dict(CLUSTER_CACHE_SCHEMA),
    }


def checked_frame(frame: pl.DataFrame, kind: str, name: str) -> pl.DataFrame:
    """A state file's frame, held to this code's schema of its kind (`state_schemas`).

    An older registry without is_representative and merge_rules_version is
    completed first (null).

    Returns:
        The frame, its columns in `state_schemas` order.

    Raises:
        StateCorruptError: other columns or dtypes (named briefly), or a
            registry written under merge rules this code does not know.
    """
    schema = state_schemas()[kind]
    if kind == "ruling_ids" and {"variant_id", "ruling_id"} <= set(frame.columns) < set(schema):
        frame = complete_registry(frame)  # an older registry
    if dict(frame.schema) != schema:
        raise StateCorruptError(
            f"{name} does not have the columns and types this code writes "
            f"({_schema_difference(dict(frame.schema), schema)})"
        )
    if kind == "ruling_ids":
        if frame.select(
            pl.any_horizontal(pl.col("variant_id", "ruling_id").is_null().any())
        ).item():
            raise StateCorruptError(f"{name} has rows without a variant_id or a ruling_id")
        _check_merge_rules(frame, name)
    return frame.select(list(schema))


def _schema_difference(found: dict[str, Any], expected: dict[str, Any]) -> str:
    """What differs between two schemas, briefly: columns missing, extra, or of another type."""
    missing = [c for c in expected if c not in found]
    extra = [c for c in found if c not in expected]
    retyped = [
        f"{c} {found[c]} not {t}" for c, t in expected.items() if c in found and found[c] != t
    ]
    parts = [
        *([f"missing {', '.join(missing)}"] if missing else []),
        *([f"extra {', '.join(extra)}"] if extra else []),
        *retyped,
    ]
    return "; ".join(parts)[:200]


def _check_merge_rules(registry: pl.DataFrame, name: str) -> None:
    """Raise StateCorruptError when the registry holds merge rules this code does not know.

    Known: versions 1 to this code's (`merge_rule.MERGE_RULES_VERSION`), and
    null (a registry written before versions were recorded); their ids are
    kept and their variants clustered again under today's rules. A later
    version (newer code) or anything else is refused: ids registered under
    rules this code cannot read are not reused.
    """
    known = {str(v) for v in range(1, int(MERGE_RULES_VERSION) + 1)}
    found = set(registry["merge_rules_version"].drop_nulls().unique().to_list())
    unknown = sorted(found - known)
    if unknown:
        raise StateCorruptError(
            f"{name} was written under merge rules version {', '.join(unknown)[:40]}, which this "
            f"code does not know (it knows 1 to {MERGE_RULES_VERSION})"
        )


def generation_of(path: Path) -> str | None:
    """The generation a state file belongs to (`<kind>.<generation>.parquet|json`), or None."""
    parts = path.name.split(".")
    if (
        len(parts) == 3
        and parts[2] in ("parquet", "json")
        and parts[0] in (*STATE_FILES, "generation")
    ):
        return parts[1]
    return None
