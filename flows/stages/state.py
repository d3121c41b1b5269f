"""State kept between runs under `output/state/`: caches and the id registry.

- `parsed_dumps.<generation>.parquet`, `parsed_lines.<generation>.parquet`: each dump's decoding and
  classified lines, keyed by dump_id (the sha256 of its bytes), so a dump
  whose bytes did not change is not decoded or parsed again.
- `languages.<generation>.parquet`: language results by normalized text.
- `ruling_ids.<generation>.parquet`: every variant_id ever published and its ruling_id, so
  a ruling keeps its id when dumps are added, removed or renamed, or when a
  new variant joins it.
- `state.json`: the generation (run id) whose files are current, and the
  versions the caches were made with; a cache made by another parser or
  detector version is ignored.

Reading and writing are the only I/O here; every write goes to a temporary
file first and is moved into place with `os.replace`.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TypedDict

import polars as pl

logger = logging.getLogger(__name__)

#: Bump when decoding or line classification changes (invalidates the parse cache).
PARSER_VERSION = "3"
#: Bump when language detection changes (invalidates the language cache).
DETECTOR_VERSION = "3"

PARSED_DUMP_SCHEMA = {
    "dump_id": pl.String,
    "encoding": pl.String,
    "encoding_repair": pl.String,
    "reject_reason": pl.String,
}
LANGUAGE_SCHEMA = {
    "text": pl.String,
    "language": pl.String,
    "language_probability": pl.Float64,
    "is_reliable": pl.Boolean,
}
REGISTRY_SCHEMA = {"variant_id": pl.String, "ruling_id": pl.String}


class ParsedFiles(TypedDict):
    """Decoded and classified dumps, keyed by dump_id."""

    dumps: pl.DataFrame  # PARSED_DUMP_SCHEMA, one row per dump_id
    lines: pl.DataFrame  # `parse.classify_lines` output, with control_char_count


class RunState(TypedDict):
    """Everything kept from earlier runs (empty frames on a first run)."""

    parsed: ParsedFiles | None  # None when absent or made by another parser version
    languages: pl.DataFrame  # LANGUAGE_SCHEMA
    registry: pl.DataFrame  # REGISTRY_SCHEMA


_STATE_FILES = ("parsed_dumps", "parsed_lines", "languages", "ruling_ids")


def load_state(state_dir: Path) -> RunState:
    """Read the state kept under `state_dir`; missing or outdated parts come back empty.

    Only the generation `state.json` names is read, so the files of a save
    that was killed halfway are never mixed with those of the one before.
    """
    versions = _read_versions(state_dir)
    generation = versions.get("generation")
    path = {name: state_dir / f"{name}.{generation}.parquet" for name in _STATE_FILES}
    if generation is None or not all(p.is_file() for p in path.values()):
        return RunState(
            parsed=None,
            languages=pl.DataFrame(schema=LANGUAGE_SCHEMA),
            registry=pl.DataFrame(schema=REGISTRY_SCHEMA),
        )
    parsed = None
    if versions.get("parser_version") == PARSER_VERSION:
        parsed = ParsedFiles(
            dumps=pl.read_parquet(path["parsed_dumps"]), lines=pl.read_parquet(path["parsed_lines"])
        )
    languages = pl.DataFrame(schema=LANGUAGE_SCHEMA)
    if versions.get("detector_version") == DETECTOR_VERSION:
        languages = pl.read_parquet(path["languages"])
    return RunState(
        parsed=parsed, languages=languages, registry=pl.read_parquet(path["ruling_ids"])
    )


def save_state(
    state_dir: Path,
    parsed: ParsedFiles,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    generation: str,
) -> None:
    """Write the state for the next run as one unit.

    Every file of `generation` (the run id) is written first; replacing
    `state.json`, which names the generation, is what commits them; the
    files of other generations are deleted after. A run killed at any point
    leaves the previous state whole.
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    frames = {
        "parsed_dumps": parsed["dumps"],
        "parsed_lines": parsed["lines"],
        "languages": languages.select(list(LANGUAGE_SCHEMA)),
        "ruling_ids": registry,
    }
    for name, frame in frames.items():
        _write_parquet(frame, state_dir / f"{name}.{generation}.parquet")
    versions = {
        "generation": generation,
        "parser_version": PARSER_VERSION,
        "detector_version": DETECTOR_VERSION,
    }
    staged = state_dir / "state.json.tmp"
    staged.write_text(json.dumps(versions, indent=2) + "\n", encoding="utf-8")
    os.replace(staged, state_dir / "state.json")
    for old in state_dir.glob("*.parquet"):
        if not old.name.endswith(f".{generation}.parquet"):
            old.unlink()
    logger.info(
        "saved state: %d parsed dumps, %d languages, %d variant ids",
        parsed["dumps"].height,
        languages.height,
        registry.height,
    )


def split_cached(
    files: pl.DataFrame, parsed: ParsedFiles | None
) -> tuple[ParsedFiles, pl.DataFrame]:
    """Split current files into those parsed before and those to parse.

    Needs:
        files: dump_id (String), one row per file (repeats allowed).

    Returns:
        (cached, to_parse): the cached frames of current dump_ids only (a
        removed dump drops out), and the rows of `files` whose dump_id is new.
    """
    empty = ParsedFiles(dumps=pl.DataFrame(schema=PARSED_DUMP_SCHEMA), lines=pl.DataFrame())
    if parsed is None:
        return empty, files
    current = files["dump_id"].unique().implode()
    cached = ParsedFiles(
        dumps=parsed["dumps"].filter(pl.col("dump_id").is_in(current)),
        lines=parsed["lines"].filter(pl.col("dump_id").is_in(current)),
    )
    return cached, files.filter(~pl.col("dump_id").is_in(cached["dumps"]["dump_id"].implode()))


def _read_versions(state_dir: Path) -> dict[str, str]:
    path = state_dir / "state.json"
    if not path.is_file():
        return {}
    versions: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return versions


def _write_parquet(frame: pl.DataFrame, path: Path) -> None:
    staged = path.with_suffix(".parquet.tmp")
    frame.write_parquet(staged, compression="zstd")
    os.replace(staged, path)


def write_parts(parts_dir: Path, name: str, frames: dict[str, pl.DataFrame]) -> dict[str, str]:
    """Write a worker's frames as Parquet parts `parts_dir/<name>.<key>.parquet`.

    Returns:
        {key: path} to hand to `read_parts` (on the driver, which must see `parts_dir`).
    """
    parts_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for key, frame in frames.items():
        path = parts_dir / f"{name}.{key}.parquet"
        _write_parquet(frame, path)
        paths[key] = str(path)
    return paths


def read_parts(paths: dict[str, str]) -> dict[str, pl.DataFrame]:
    """Read back what `write_parts` wrote."""
    return {key: pl.read_parquet(path) for key, path in paths.items()}
