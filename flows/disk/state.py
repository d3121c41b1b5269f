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
- `state.json`: the committed records, `current` and `previous` (the fallback),
  its format version and where the state belongs (`records`).

A save is two steps (`generation`): `stage_state` writes a generation's files
and record (flushed to disk); `commit_state` makes it current by replacing
`state.json`. A generation's files are written, and read back,
`files.IO_THREADS` at a time. A run stages before switching `latest` and
commits after, so on load the
generation matching the published snapshot is preferred (a run killed between
the switch and the commit is rolled forward). A file whose sha256 differs from
its record, or that does not read back with the schema this code writes
(`state_files.checked_frame`), makes that generation unusable: the previous
one is used, else the run starts cold and says so (`RunState.recovered`). A
state of another output dir is not used at all (`foreign_state`).

A cache is used only when its key matches (`cache_keys`: the code and
libraries that shape it, found from the imports); `reuse` decides what of a
usable cache a run takes. `load_inputs` reads what a run starts from: this
state, the raw dir's listing and the published manifest, at once.
"""

from __future__ import annotations

import contextvars
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from flows.disk.cache_keys import cache_keys
from flows.disk.files import IO_THREADS, results_in_order, sha256_file
from flows.disk.paths import OutputPaths, state_file
from flows.disk.raw import list_dump_paths
from flows.disk.records import (
    StateCorruptError,
    StateRecord,
    committed_generations,
    read_committed,
    read_record,
)
from flows.disk.snapshot import own_latest, read_manifest
from flows.disk.state_files import (
    CACHE_OF,
    REQUIRED,
    RESULT_FRAMES,
    STATE_FILES,
    checked_frame,
    generation_of,
    state_schemas,
)
from flows.stages.dedupe import REGISTRY_SCHEMA
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.parse import ParsedFiles
from flows.stages.reuse import FILE_INDEX_SCHEMA, usable_caches

logger = logging.getLogger(__name__)


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
    published = own_latest(output.root)  # None: no `latest`, or one of another output's
    manifest = output.snapshot(published) / "manifest.json" if published else None
    with ThreadPoolExecutor(2) as pool:
        # Each in a copy of this context: their log lines belong to the run (Prefect).
        loaded = pool.submit(
            contextvars.copy_context().run, load_state, output.state, published, (output, raw_dir)
        )
        previous = pool.submit(contextvars.copy_context().run, read_manifest, manifest)
        paths = list_dump_paths(raw_dir)  # on an error, the pool ends before it is raised
        loaded_state, previous_manifest = results_in_order([loaded, previous])
    return Inputs(paths=paths, state=loaded_state, previous_manifest=previous_manifest)


def load_state(
    state_dir: Path, published: str | None = None, owner: tuple[OutputPaths, Path] | None = None
) -> RunState:
    """Read the state kept under `state_dir`; outdated caches come back empty.

    Tries, in order: the generation of the published snapshot `published` (a
    run id, when its record is on disk), `state.json`'s current and previous
    generations, then any other generation record, newest first. The first
    whose files all match their sha256 and schema is read.

    When no generation reads whole, the run starts cold (empty caches) but
    keeps the id registry of the first of them whose `ruling_ids` file is
    sound: the caches can be rebuilt from `raw/`, the registry cannot.

    `owner`: the output and the raw dir of the run reading it. A state that
    belongs to another output dir (`foreign_state`) is not used at all: a
    cold start with an empty registry, said in `recovered`. A state last
    committed by a run reading another raw dir is used without its file index
    (every file is read and hashed again), with a warning.

    Returns:
        The state, with `recovered` set (and a warning logged) when a
        generation was skipped as broken; a cold start (empty caches, and an
        empty id registry when no generation's registry was sound either)
        when nothing whole was left.

    Raises:
        StateFormatError: `state.json` was written by newer code.
    """
    problems: list[str] = []
    foreign = foreign_state(state_dir, owner[0]) if owner else None
    candidates = [] if foreign else _candidate_records(state_dir, published, problems)
    if foreign:
        problems.append(f"{foreign}: not used")
    for record in candidates:
        try:
            loaded = _read_generation(state_dir, record)
        except StateCorruptError as exc:
            problems.append(f"generation {record['generation']}: {exc}")
            continue
        if owner is not None:
            _check_raw_dir(state_dir, owner[1], loaded)
        if problems:
            loaded["recovered"] = "; ".join([*problems, f"used generation {record['generation']}"])
            logger.warning("state recovered: %s", loaded["recovered"])
        return loaded
    return _cold_start(state_dir, candidates, problems)


def _cold_start(state_dir: Path, candidates: list[StateRecord], problems: list[str]) -> RunState:
    """Empty caches, with the registry of the first candidate whose registry is sound."""
    cold = _empty_state()
    if not problems:
        return cold
    for record in candidates:  # the caches are lost; the ids need only the registry
        try:
            cold["registry"] = _read_state_file(state_dir, record, "ruling_ids")
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


def foreign_state(state_dir: Path, output: OutputPaths) -> str | None:
    """Why the state under `state_dir` belongs to another output dir; None when it is `output`'s.

    A state belongs to the output whose real path `state.json` records
    (`records.Committed.output_dir`), or, recorded elsewhere, to the output
    holding the snapshot of its current generation (a generation is its run's
    id: `snapshots/<run_id>/`; two outputs copied from one ancestor share the
    older ones); a state of format 1 (no path recorded), to one holding a
    snapshot of any of its generations. So an output dir moved or
    copied whole keeps its state; `state/` put under another output (state
    dirs swapped between two outputs) does not, and would otherwise give that
    output's ruling ids to this one's rulings. A state naming no generation
    belongs anywhere.
    """
    committed = read_committed(state_dir)
    names = {*committed_generations(committed)}
    if state_dir.is_dir():
        names |= {g for p in state_dir.glob("generation.*.json") if (g := generation_of(p))}
    if not names or committed.get("output_dir") == os.path.realpath(output.root):
        return None
    current = committed.get("current")
    if committed.get("output_dir") and current:  # recorded elsewhere: its current snapshot
        names = {current["generation"]}  # (outputs copied from one ancestor share older ones)
    if any(output.snapshot(name).is_dir() for name in names):
        return None
    recorded = committed.get("output_dir", "an output dir not recorded")
    return (
        f"{state_dir} belongs to another output dir ({recorded}): none of its generations "
        f"({', '.join(sorted(names)[-2:])}) is a snapshot of {output.root}"
    )


def _check_raw_dir(state_dir: Path, raw_dir: Path, loaded: RunState) -> None:
    """Drop the file index of a state committed by a run reading another raw dir (a warning)."""
    recorded = read_committed(state_dir).get("raw_dir")
    if recorded is None or recorded == os.path.realpath(raw_dir):
        return
    loaded["file_index"] = pl.DataFrame(schema=FILE_INDEX_SCHEMA)
    logger.warning(
        "state was committed by a run reading %s, this run reads %s: every file is read and "
        "hashed again (the caches by content and the ruling ids are kept)",
        recorded,
        raw_dir,
    )


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
    records = {
        r["generation"]: r for r in (committed.get("current"), committed.get("previous")) if r
    }
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
    """Read one generation's files this run uses, checking each sha256 and schema.

    The caches made under other code (`reuse.usable_caches`) are not read at all.

    Raises:
        StateCorruptError: a file is missing, altered, unreadable or of another
            schema, or the id registry holds merge rules this code does not know.
    """
    usable = usable_caches(record["cache_keys"], cache_keys(), set(record["files"]))
    kinds = [k for k in STATE_FILES if CACHE_OF.get(k, "always") in {*usable, "always"}]
    with ThreadPoolExecutor(IO_THREADS) as pool:  # sha256 and polars reads release the GIL
        read = [pool.submit(_read_state_file, state_dir, record, kind) for kind in kinds]
        frames = dict(zip(kinds, results_in_order(read), strict=True))
    results = None
    if "results" in usable:
        results = {name: frames[f"results_{name}"] for name in RESULT_FRAMES}
    return RunState(
        parsed=ParsedFiles(dumps=frames["parsed_dumps"], lines=frames["parsed_lines"])
        if "parsed" in usable
        else None,
        languages=frames.get("languages", pl.DataFrame(schema=LANGUAGE_SCHEMA)),
        registry=frames["ruling_ids"],
        file_index=frames["file_index"],
        results=results,
        clusters=frames.get("clusters"),
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
    schema = state_schemas()[kind]
    if spec is None and kind not in REQUIRED:
        return pl.DataFrame(schema=schema)
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
    return checked_frame(frame, kind, path.name)
