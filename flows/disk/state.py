"""The state kept between runs under `output/state/` (caches, the id registry), read back.

- `parsed_dumps.<generation>.parquet`, `parsed_lines.<generation>.parquet`: each dump's decoding and
  classified lines, keyed by dump_id (the sha256 of its bytes), so a dump
  whose bytes did not change is not decoded or parsed again.
- `languages.<generation>.parquet`: language results by normalized text.
- `file_index.<generation>.parquet` (optional): each raw file's path, size,
  mtime_ns, ctime_ns, inode, device and dump_id at that run, so a file whose
  metadata did not change is not read or hashed again (as git's index;
  `raw.stat_dumps`, `reuse.unchanged_files`). A generation without one (older
  code, `save_state` without an index) reads every file.
- `ruling_ids.<generation>.parquet`: every variant_id ever published, its ruling_id,
  whether it was its ruling's representative and the merge rules version
  (see `flows.stages.ruling_ids`), so a ruling keeps its id when dumps are
  added, removed or renamed, or when a new variant joins it.
- `generation.<generation>.json`: the record of one generation (the run id that
  wrote it): each file's name and sha256, and the cache keys it was made with.
- `state.json`: the committed records, `current` and `previous` (the fallback).

A save is two steps (`generation`): `stage_state` writes a generation's files
and record (flushed to disk); `commit_state` makes it current by replacing
`state.json`. A generation's files are written, and read back,
`files.IO_THREADS` at a time. A run stages before switching `latest` and
commits after, so on load the
generation matching the published snapshot is preferred (a run killed between
the switch and the commit is rolled forward). A file whose sha256 differs from
its record, or that does not read back with its schema, makes that generation
unusable: the previous one is used, else the run starts cold and says so
(`RunState.recovered`).

A cache is used only when its key matches (`cache_keys`: the code and
libraries that shape it, found from the imports); `reuse` decides what of a
usable cache a run takes. `load_inputs` reads what a run starts from: this
state, the raw dir's listing and the published manifest, at once.
"""

from __future__ import annotations

import contextvars
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from flows.disk.cache_keys import cache_keys
from flows.disk.files import IO_THREADS, results_in_order, sha256_file
from flows.disk.paths import OutputPaths, state_file
from flows.disk.raw import list_dump_paths
from flows.disk.snapshot import latest_target, read_latest_manifest
from flows.stages.dedupe import REGISTRY_SCHEMA, complete_registry
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.dumps import RESULTS_ORDER
from flows.stages.parse import PARSED_DUMP_SCHEMA, ParsedFiles
from flows.stages.reuse import FILE_INDEX_SCHEMA, usable_caches

logger = logging.getLogger(__name__)

#: The frames of `dumps.DumpResults`, each kept as state file `results_<name>`.
RESULT_FRAMES = tuple(RESULTS_ORDER)

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
STATE_FILES = (*_REQUIRED, *_OPTIONAL)


class RunState(TypedDict):
    """Everything kept from earlier runs (empty frames on a first run)."""

    parsed: ParsedFiles | None  # None when absent or made by other parser code or libraries
    languages: pl.DataFrame  # LANGUAGE_SCHEMA
    registry: pl.DataFrame  # REGISTRY_SCHEMA
    file_index: pl.DataFrame  # FILE_INDEX_SCHEMA (empty on a first run)
    #: `dumps.DumpResults` by frame name; None when absent or made by other code or libraries
    results: dict[str, pl.DataFrame] | None
    #: `reuse.CLUSTER_CACHE_SCHEMA` of the last run; None as `results`
    clusters: pl.DataFrame | None
    generation: str | None  # the generation read (a run id); None on a cold start
    recovered: str | None  # what was broken and what was used instead; None when all was sound


class StateRecord(TypedDict):
    """One generation's record (`generation.<run_id>.json`)."""

    generation: str
    cache_keys: dict[str, str]  # "parsed", "languages", "results": `cache_keys.cache_keys`
    files: dict[str, dict[str, str]]  # state file kind -> {"file": name, "sha256": hex}


class StateCorruptError(Exception):
    """A state generation cannot be used (a file missing, altered or unreadable)."""


class Inputs(TypedDict):
    """What a run starts from (`load_inputs`)."""

    paths: list[str]  # the dump files, relative to the raw dir (`raw.list_dump_paths`)
    state: RunState
    previous_manifest: dict[str, Any] | None  # the published snapshot's manifest


def load_inputs(raw_dir: Path, output: OutputPaths) -> Inputs:
    """List the raw files; read the state of earlier runs and the latest manifest.

    The state and the manifest are read in threads while the files are listed
    (sha256 and Parquet reads release the GIL); an error is the one reading
    them one after the other (files, state, manifest) would raise first.

    Raises:
        RawDirError: see `raw.list_dump_paths`.
        OSError: a read failed.
    """
    target = latest_target(output.root)
    published = Path(target).name if target else None
    with ThreadPoolExecutor(2) as pool:
        # Each in a copy of this context: their log lines belong to the run (Prefect).
        loaded = pool.submit(contextvars.copy_context().run, load_state, output.state, published)
        previous = pool.submit(contextvars.copy_context().run, read_latest_manifest, output.root)
        paths = list_dump_paths(raw_dir)  # on an error, the pool ends before it is raised
        loaded_state, previous_manifest = results_in_order([loaded, previous])
    return Inputs(paths=paths, state=loaded_state, previous_manifest=previous_manifest)


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
        committed = read_committed(state_dir, strict=True)
    except StateCorruptError as exc:
        problems.append(f"state.json: {exc}")
        committed = {}
    records = {r["generation"]: r for r in committed.values() if r}
    names += list(records)
    names += sorted(
        (g for p in state_dir.glob("generation.*.json") if (g := generation_of(p))),
        reverse=True,
    )
    candidates: list[StateRecord] = []
    for name in dict.fromkeys(names):
        try:
            candidates.append(read_record(state_file(state_dir, "generation", name, "json")))
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
        read = [pool.submit(_read_state_file, state_dir, record, kind) for kind in STATE_FILES]
        frames = dict(zip(STATE_FILES, results_in_order(read), strict=True))
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
    if sha256_file(path) != spec["sha256"]:
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

    Each is empty (None) unless `reuse.usable_caches` takes it.
    """
    usable = usable_caches(record["cache_keys"], cache_keys(), set(record["files"]))
    parsed = None
    if "parsed" in usable:
        parsed = ParsedFiles(dumps=frames["parsed_dumps"], lines=frames["parsed_lines"])
    languages = frames["languages"]
    if "languages" not in usable:
        languages = pl.DataFrame(schema=LANGUAGE_SCHEMA)
    results = None
    if "results" in usable:
        results = {name: frames[f"results_{name}"] for name in RESULT_FRAMES}
    clusters = frames["clusters"] if "clusters" in usable else None
    return parsed, languages, results, clusters


def read_committed(state_dir: Path, strict: bool = False) -> dict[str, StateRecord | None]:
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


def read_record(path: Path) -> StateRecord:
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
