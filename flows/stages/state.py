"""State kept between runs under `output/state/`: caches and the id registry.

- `parsed_dumps.<generation>.parquet`, `parsed_lines.<generation>.parquet`: each dump's decoding and
  classified lines, keyed by dump_id (the sha256 of its bytes), so a dump
  whose bytes did not change is not decoded or parsed again.
- `languages.<generation>.parquet`: language results by normalized text.
- `file_index.<generation>.parquet` (optional): each raw file's path, size,
  mtime_ns, ctime_ns, inode, device and dump_id at that run, so a file whose
  metadata did not change is not read or hashed again (as git's index;
  `read.stat_dumps`, `read.unchanged_dumps`). A generation without one (older
  code, `save_state` without an index) reads every file.
- `ruling_ids.<generation>.parquet`: every variant_id ever published, its ruling_id,
  whether it was its ruling's representative and the merge rules version
  (see `flows.stages.ruling_ids`), so a ruling keeps its id when dumps are
  added, removed or renamed, or when a new variant joins it.
- `generation.<generation>.json`: the record of one generation (the run id that
  wrote it): each file's name and sha256, and the cache keys it was made with.
- `state.json`: the committed records, `current` and `previous` (the fallback).

A save is two steps: `stage_state` writes a generation's files and record
(flushed to disk); `commit_state` makes it current by replacing `state.json`.
A generation's files are written, and read back, `write.IO_THREADS` at a time.
The flow stages before switching `latest` and commits after, so on load the
generation matching the published snapshot is preferred (a run killed between
the switch and the commit is rolled forward). A file whose sha256 differs from
its record, or that does not read back with its schema, makes that generation
unusable: the previous one is used, else the run starts cold and says so
(`LoadedState.recovered`).

A cache is used only when its key matches: the sha256 of the versions of the
libraries that shape it and of the source code of the modules that make it
(`cache_keys`), so no constant has to be bumped by hand.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from flows.paths import staged_file, state_file
from flows.stages.read import STAT_SCHEMA
from flows.stages.ruling_ids import REGISTRY_COLUMNS, complete_registry
from flows.stages.write import IO_THREADS, fsync_path, results_in_order

logger = logging.getLogger(__name__)

#: What shapes the parse cache: decoding and line classification (with their dates).
PARSER_LIBRARIES = ("babel", "charset-normalizer", "ftfy", "polars")
PARSER_MODULES = (
    "flows.stages.read",
    "flows.stages.decode",
    "flows.stages.parse",
    "flows.stages.dates",
)
#: What shapes the language cache.
DETECTOR_LIBRARIES = ("langdetect", "hanzidentifier", "polars")
DETECTOR_MODULES = ("flows.stages.language",)
#: What shapes the per-dump results cache, besides the parser and the detector.
BUILD_MODULES = (
    "flows.pipeline",
    "flows.stages.translations",
    "flows.stages.tables",
    "flows.stages.dedupe",
    "flows.stages.stubs",
)
#: The frames of `pipeline.DumpResults`, each kept as state file `results_<name>`.
RESULT_FRAMES = ("headers", "entries", "kept_lines", "counts", "card_stubs", "attribution")

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
#: The file index: each raw file's metadata and dump_id at the last run (`read.stat_dumps`).
FILE_INDEX_SCHEMA = {**STAT_SCHEMA, "dump_id": pl.String}
#: The id registry: variant_id, ruling_id, is_representative, merge_rules_version.
REGISTRY_SCHEMA = dict(REGISTRY_COLUMNS)
#: Columns each state file must have (with these dtypes) to be read back; an
#: older registry without is_representative / merge_rules_version is completed.
_REQUIRED: dict[str, dict[str, Any]] = {
    "parsed_dumps": PARSED_DUMP_SCHEMA,
    "parsed_lines": {"dump_id": pl.String},
    "languages": LANGUAGE_SCHEMA,
    "ruling_ids": {"variant_id": pl.String, "ruling_id": pl.String},
}
#: State files a generation may lack (written by older code): read as empty.
_OPTIONAL: dict[str, dict[str, Any]] = {
    "file_index": FILE_INDEX_SCHEMA,
    **{f"results_{name}": {"dump_id": pl.String} for name in RESULT_FRAMES},
    "results_counts": {"dump_id": pl.String, "built_on": pl.Date, "depends_on_date": pl.Boolean},
    "clusters": {"variant_id": pl.String, "block": pl.String},
}
_STATE_FILES = (*_REQUIRED, *_OPTIONAL)


class ParsedFiles(TypedDict):
    """Decoded and classified dumps, keyed by dump_id."""

    dumps: pl.DataFrame  # PARSED_DUMP_SCHEMA, one row per dump_id
    lines: pl.DataFrame  # `parse.classify_lines` output, with control_char_count


class RunState(TypedDict):
    """Everything kept from earlier runs (empty frames on a first run)."""

    parsed: ParsedFiles | None  # None when absent or made by other parser code or libraries
    languages: pl.DataFrame  # LANGUAGE_SCHEMA
    registry: pl.DataFrame  # REGISTRY_SCHEMA
    file_index: pl.DataFrame  # FILE_INDEX_SCHEMA (empty on a first run)
    #: `pipeline.DumpResults` by frame name; None when absent or made by other code or libraries
    results: dict[str, pl.DataFrame] | None
    #: `pipeline.CLUSTER_CACHE_SCHEMA` of the last run; None as `results`
    clusters: pl.DataFrame | None
    generation: str | None  # the generation read (a run id); None on a cold start
    recovered: str | None  # what was broken and what was used instead; None when all was sound


class StateRecord(TypedDict):
    """One generation's record (`generation.<run_id>.json`)."""

    generation: str
    cache_keys: dict[str, str]  # "parsed", "languages": see `cache_keys`
    files: dict[str, dict[str, str]]  # state file kind -> {"file": name, "sha256": hex}


class StateCorruptError(Exception):
    """A state generation cannot be used (a file missing, altered or unreadable)."""


@cache
def cache_keys() -> dict[str, str]:
    """The keys of the three caches: sha256 of the library versions and module sources.

    Returns:
        {"parsed": hex, "languages": hex, "results": hex}: a cache written
        under another key (another Babel/CLDR, charset-normalizer, ftfy,
        langdetect, hanzidentifier or polars version, or edited parser,
        detector or table-building code) is not used.
    """
    return {
        "parsed": _code_key(PARSER_LIBRARIES, PARSER_MODULES),
        "languages": _code_key(DETECTOR_LIBRARIES, DETECTOR_MODULES),
        "results": _code_key(
            tuple(dict.fromkeys(PARSER_LIBRARIES + DETECTOR_LIBRARIES)),
            PARSER_MODULES + DETECTOR_MODULES + BUILD_MODULES,
        ),
    }


def _code_key(libraries: tuple[str, ...], modules: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for library in libraries:
        digest.update(f"{library}=={version(library)}\n".encode())
    for module in modules:
        source = importlib.import_module(module).__file__
        digest.update(Path(str(source)).read_bytes())
    return digest.hexdigest()


def load_state(state_dir: Path, published: str | None = None) -> RunState:
    """Read the state kept under `state_dir`; outdated caches come back empty.

    Tries, in order: the generation of the published snapshot `published` (a
    run id, when its record is on disk), `state.json`'s current and previous
    generations, then any other generation record, newest first. The first
    whose files all match their sha256 and schema is read.

    When no generation reads whole, the run starts cold (empty caches) but
    keeps the id registry of the first of them whose `ruling_ids` file is
    sound: the caches can be rebuilt from `raw/`, the registry cannot.

    Returns:
        The state, with `recovered` set (and a warning logged) when a
        generation was skipped as broken; a cold start (empty caches, and an
        empty id registry when no generation's registry was sound either)
        when nothing whole was left.
    """
    problems: list[str] = []
    candidates = _candidate_records(state_dir, published, problems)
    for record in candidates:
        try:
            loaded = _read_generation(state_dir, record)
        except StateCorruptError as exc:
            problems.append(f"generation {record['generation']}: {exc}")
            continue
        if problems:
            loaded["recovered"] = "; ".join([*problems, f"used generation {record['generation']}"])
            logger.warning("state recovered: %s", loaded["recovered"])
        return loaded
    cold = _empty_state()
    if not problems:
        return cold
    for record in candidates:  # the caches are lost; the ids need only the registry
        try:
            cold["registry"] = complete_registry(_read_state_file(state_dir, record, "ruling_ids"))
        except StateCorruptError:
            continue
        cold["recovered"] = "; ".join(
            [
                *problems,
                "no whole generation left: cold run, ruling ids kept from generation "
                f"{record['generation']}'s registry",
            ]
        )
        logger.warning("state recovered: %s", cold["recovered"])
        return cold
    cold["recovered"] = "; ".join(
        [*problems, "no readable state left: cold run, ruling ids are content ids again"]
    )
    logger.warning("STATE LOST: %s", cold["recovered"])
    return cold


def stage_state(
    state_dir: Path,
    parse_cache: dict[str, dict[str, str]],
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    generation: str,
    file_index: pl.DataFrame | None = None,
    results: dict[str, pl.DataFrame] | None = None,
    clusters: pl.DataFrame | None = None,
) -> StateRecord:
    """Write the rest of a generation's files and its record, flushed to disk (not yet current).

    `parse_cache`: the record entries `stage_parse_cache` wrote for this
    generation (first, so a run can let go of the largest frames early).
    `results`: `pipeline.DumpResults` of every current dump; `clusters`:
    `pipeline.CLUSTER_CACHE_SCHEMA` (None: not kept).

    Returns:
        The record to hand to `commit_state`.

    Raises:
        OSError: a write failed (nothing current changed; retrying rewrites).
    """
    frames = {
        "languages": languages.select(list(LANGUAGE_SCHEMA)),
        "ruling_ids": registry,
        **({"file_index": file_index} if file_index is not None else {}),
        **{f"results_{name}": results[name] for name in RESULT_FRAMES if results is not None},
        **({"clusters": clusters} if clusters is not None else {}),
    }
    files = {**parse_cache, **stage_files(state_dir, generation, frames)}
    record = StateRecord(generation=generation, cache_keys=cache_keys(), files=files)
    _write_json(record, state_file(state_dir, "generation", generation, "json"))
    return record


def stage_parse_cache(
    state_dir: Path, parsed: ParsedFiles, generation: str
) -> dict[str, dict[str, str]]:
    """Write a generation's parse cache, the first of its files (then `stage_state`).

    So a run can let go of the cache's frames early (the largest state
    files: 202 MB of lines in memory at a million lines).

    Returns:
        The record entries of parsed_dumps and parsed_lines.

    Raises:
        OSError: a write failed.
    """
    frames = {"parsed_dumps": parsed["dumps"], "parsed_lines": parsed["lines"]}
    return stage_files(state_dir, generation, frames)


def stage_files(
    state_dir: Path, generation: str, frames: dict[str, pl.DataFrame]
) -> dict[str, dict[str, str]]:
    """Write state files of a generation (kind -> frame), flushed, `write.IO_THREADS` at a time.

    Returns:
        kind -> record entry ({"file": name, "sha256": hex}), in the order of `frames`.

    Raises:
        OSError: a write failed (the first in order).
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(IO_THREADS) as pool:  # polars writes and sha256 release the GIL
        written = [
            pool.submit(_write_state_file, frame, state_file(state_dir, kind, generation))
            for kind, frame in frames.items()
        ]
        return dict(zip(frames, results_in_order(written), strict=True))


def commit_state(state_dir: Path, record: StateRecord, used: str | None = None) -> None:
    """Make a staged generation current (replace `state.json`, flushed); tidy the rest.

    Args:
        used: the generation this run's state was read from (`RunState.generation`):
            it becomes `previous`, the fallback, so a generation the run skipped
            as broken is never kept as one. None (a cold start, or unknown): the
            committed current generation becomes `previous`.

    Files of any other generation and `*.tmp` leftovers of killed runs are
    deleted, best effort: what cannot be deleted is logged and left (the new
    generation is committed whatever is left over).
    """
    committed = _read_committed(state_dir)
    previous = committed.get("current")
    if used is not None and used != record["generation"]:
        previous = _record_of(state_dir, used) or previous
    if previous and previous["generation"] == record["generation"]:  # a retried commit
        previous = committed.get("previous")
    _write_json({"current": record, "previous": previous}, state_dir / "state.json")
    keep = {record["generation"], *([previous["generation"]] if previous else [])}
    for path in state_dir.iterdir():
        generation = _generation_of(path)
        if path.name.endswith(".tmp") or (generation is not None and generation not in keep):
            _remove(path)
    logger.info(
        "saved state %s: %s",
        record["generation"],
        ", ".join(f"{kind} {spec['sha256'][:12]}" for kind, spec in record["files"].items()),
    )


def _record_of(state_dir: Path, generation: str) -> StateRecord | None:
    """A generation's record from its `generation.<id>.json`; None when unreadable."""
    try:
        return _read_record(state_file(state_dir, "generation", generation, "json"))
    except (OSError, ValueError, StateCorruptError):
        return None


def _remove(path: Path) -> None:
    """Delete a stale state file, or a folder left in its place (best effort, logged)."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:
        logger.warning("stale state file %s not removed: %s", path.name, exc)


def discard_state(state_dir: Path, generation: str) -> None:
    """Delete a staged generation that will not be committed (a failed run); best effort.

    Its files and their `*.tmp` forerunners (a write cut short, by Ctrl-C) both go.
    """
    if not state_dir.is_dir():
        return
    committed = {r["generation"] for r in _read_committed(state_dir).values() if r}
    if generation in committed:
        return
    for path in state_dir.iterdir():
        if _generation_of(path.with_name(path.name.removesuffix(".tmp"))) == generation:
            path.unlink(missing_ok=True)


def is_committed(state_dir: Path, generation: str) -> bool:
    """True when `state.json` names `generation` current (its `commit_state` got that far)."""
    return (_read_committed(state_dir).get("current") or {}).get("generation") == generation


def save_state(
    state_dir: Path,
    parsed: ParsedFiles,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    generation: str,
) -> None:
    """Stage and commit in one go (runners that publish no snapshot, e.g. the benchmark)."""
    parse_cache = stage_parse_cache(state_dir, parsed, generation)
    commit_state(state_dir, stage_state(state_dir, parse_cache, languages, registry, generation))


def empty_parsed() -> ParsedFiles:
    """Parsed files of no dump (PARSED_DUMP_SCHEMA; lines without columns)."""
    return ParsedFiles(dumps=pl.DataFrame(schema=PARSED_DUMP_SCHEMA), lines=pl.DataFrame())


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
    if parsed is None:
        return empty_parsed(), files
    current = files["dump_id"].unique().implode()
    cached = ParsedFiles(
        dumps=parsed["dumps"].filter(pl.col("dump_id").is_in(current)),
        lines=parsed["lines"].filter(pl.col("dump_id").is_in(current)),
    )
    return cached, files.filter(~pl.col("dump_id").is_in(cached["dumps"]["dump_id"].implode()))


def _empty_state() -> RunState:
    return RunState(
        parsed=None,
        languages=pl.DataFrame(schema=LANGUAGE_SCHEMA),
        registry=pl.DataFrame(schema=REGISTRY_SCHEMA),
        file_index=pl.DataFrame(schema=FILE_INDEX_SCHEMA),
        results=None,
        clusters=None,
        generation=None,
        recovered=None,
    )


def _candidate_records(
    state_dir: Path, published: str | None, problems: list[str]
) -> list[StateRecord]:
    """Generation records to try, best first (see `load_state`); bad ones go to `problems`."""
    if not state_dir.is_dir():
        if state_dir.exists():
            problems.append(f"{state_dir} is not a folder")
        return []
    names: list[str] = []
    if published and state_file(state_dir, "generation", published, "json").is_file():
        names.append(published)
    try:
        committed = _read_committed(state_dir, strict=True)
    except StateCorruptError as exc:
        problems.append(f"state.json: {exc}")
        committed = {}
    records = {r["generation"]: r for r in committed.values() if r}
    names += list(records)
    names += sorted(
        (g for p in state_dir.glob("generation.*.json") if (g := _generation_of(p))),
        reverse=True,
    )
    candidates: list[StateRecord] = []
    for name in dict.fromkeys(names):
        try:
            candidates.append(_read_record(state_file(state_dir, "generation", name, "json")))
        except StateCorruptError as exc:
            if name in records:  # its copy in state.json still names the files
                candidates.append(records[name])
            else:
                problems.append(f"generation {name}: {exc}")
    return candidates


def _read_generation(state_dir: Path, record: StateRecord) -> RunState:
    """Read one generation's files, checking each sha256 and schema.

    Raises:
        StateCorruptError: a file is missing, altered or unreadable.
    """
    with ThreadPoolExecutor(IO_THREADS) as pool:  # sha256 and polars reads release the GIL
        read = [pool.submit(_read_state_file, state_dir, record, kind) for kind in _STATE_FILES]
        frames = dict(zip(_STATE_FILES, results_in_order(read), strict=True))
    parsed, languages, results, clusters = _current_caches(record, frames)
    return RunState(
        parsed=parsed,
        languages=languages.select(list(LANGUAGE_SCHEMA)),
        registry=complete_registry(frames["ruling_ids"]),
        file_index=frames["file_index"].select(list(FILE_INDEX_SCHEMA)),
        results=results,
        clusters=clusters,
        generation=record["generation"],
        recovered=None,
    )


def _read_state_file(state_dir: Path, record: StateRecord, kind: str) -> pl.DataFrame:
    """One state file of a generation, its sha256 and schema checked (empty when optional).

    Raises:
        StateCorruptError: the record names no such required file, or the file
            is missing, altered, unreadable or of the wrong schema.
    """
    spec = record["files"].get(kind)
    if spec is None and kind in _OPTIONAL:
        return pl.DataFrame(schema=_OPTIONAL[kind])
    if spec is None:
        raise StateCorruptError(f"its record names no {kind} file")
    path = state_dir / spec["file"]
    if not path.is_file():
        raise StateCorruptError(f"{path.name} is missing")
    if _sha256(path) != spec["sha256"]:
        raise StateCorruptError(f"{path.name} differs from its recorded sha256")
    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # polars raises several error types on a bad file
        raise StateCorruptError(f"{path.name} does not read back: {exc}") from exc
    schema = {**_REQUIRED, **_OPTIONAL}[kind]
    wrong = {c: t for c, t in schema.items() if frame.schema.get(c) != t}
    if wrong:
        raise StateCorruptError(f"{path.name} lacks columns {sorted(wrong)}")
    return frame


def _current_caches(
    record: StateRecord, frames: dict[str, pl.DataFrame]
) -> tuple[ParsedFiles | None, pl.DataFrame, dict[str, pl.DataFrame] | None, pl.DataFrame | None]:
    """The parse cache, language cache, per-dump results and clusters of a generation's frames.

    Each is empty (None) when its cache key differs from this code's (`cache_keys`).
    """
    keys = cache_keys()
    parsed = None
    if record["cache_keys"].get("parsed") == keys["parsed"]:
        parsed = ParsedFiles(dumps=frames["parsed_dumps"], lines=frames["parsed_lines"])
    languages = frames["languages"]
    if record["cache_keys"].get("languages") != keys["languages"]:
        languages = pl.DataFrame(schema=LANGUAGE_SCHEMA)
    results = None
    if record["cache_keys"].get("results") == keys["results"] and all(
        f"results_{name}" in record["files"] for name in RESULT_FRAMES
    ):
        results = {name: frames[f"results_{name}"] for name in RESULT_FRAMES}
    clusters = None
    if record["cache_keys"].get("results") == keys["results"] and "clusters" in record["files"]:
        clusters = frames["clusters"]
    return parsed, languages, results, clusters


def _read_committed(state_dir: Path, strict: bool = False) -> dict[str, StateRecord | None]:
    """`state.json` ({"current": record, "previous": record or None}); {} when absent.

    Raises:
        StateCorruptError: (only when `strict`) it is not such a JSON object.
    """
    path = state_dir / "state.json"
    if not path.is_file():
        return {}
    try:
        committed = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(committed, dict) or not isinstance(committed.get("current"), dict):
            raise ValueError("no current generation in it")
        for record in (committed["current"], committed.get("previous")):
            if record is not None:
                _check_record(record)
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
        if strict:
            raise StateCorruptError(f"unreadable ({exc})") from exc
        return {}
    return committed


def _read_record(path: Path) -> StateRecord:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        _check_record(record)
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise StateCorruptError(f"{path.name} is unreadable ({exc})") from exc
    return StateRecord(**record)


def _check_record(record: Any) -> None:
    """Raise ValueError unless `record` has a generation record's shape (any JSON may come in)."""
    files = record.get("files") if isinstance(record, dict) else None
    if not (
        isinstance(files, dict)
        and isinstance(record.get("generation"), str)
        and isinstance(record.get("cache_keys"), dict)
        and all(
            isinstance(s, dict)
            and isinstance(s.get("file"), str)
            and isinstance(s.get("sha256"), str)
            for s in files.values()
        )
    ):
        raise ValueError("not a generation record")


def _generation_of(path: Path) -> str | None:
    """The generation a state file belongs to (`<kind>.<generation>.parquet|json`), or None."""
    parts = path.name.split(".")
    if (
        len(parts) == 3
        and parts[2] in ("parquet", "json")
        and parts[0] in (*_STATE_FILES, "generation")
    ):
        return parts[1]
    return None


def _sha256(path: Path) -> str:
    with path.open("rb") as data:
        return hashlib.file_digest(data, "sha256").hexdigest()


def _write_state_file(frame: pl.DataFrame, path: Path) -> dict[str, str]:
    """Write one state file (`_write_parquet`); its record entry: file name and sha256."""
    _write_parquet(frame, path)
    return {"file": path.name, "sha256": _sha256(path)}


def _write_parquet(frame: pl.DataFrame, path: Path) -> None:
    staged = staged_file(path)
    frame.write_parquet(staged, compression="lz4")  # a local cache: speed over size
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


def _write_json(value: Any, path: Path) -> None:
    staged = staged_file(path)
    staged.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    fsync_path(staged)
    os.replace(staged, path)
    fsync_path(path.parent)


def write_parts(parts_dir: Path, name: str, frames: dict[str, pl.DataFrame]) -> dict[str, str]:
    """Write a worker's frames as Parquet parts `parts_dir/<name>.<key>.parquet`.

    Returns:
        {key: path} to hand to `read_parts` (on the driver, which must see `parts_dir`).
    """
    parts_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for key, frame in frames.items():
        path = parts_dir / f"{name}.{key}.parquet"
        staged = staged_file(path)
        frame.write_parquet(staged, compression="lz4")  # a local cache: speed over size
        os.replace(staged, path)
        paths[key] = str(path)
    return paths


def read_parts(paths: dict[str, str]) -> dict[str, pl.DataFrame]:
    """Read back what `write_parts` wrote."""
    return {key: pl.read_parquet(path) for key, path in paths.items()}
