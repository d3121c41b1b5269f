"""Writing a state generation: its files and record staged, then committed, or discarded.

A generation is what one run (its run id) keeps for the next: the files of
`state_files.STATE_FILES` and its record `generation.<run_id>.json` (each file's
name and sha256, and the cache keys). `stage_parse_cache` and `stage_state`
write them, flushed, not yet current; `commit_state` makes the generation
current by replacing `state.json` (whose `previous` is the fallback) and
removes what no committed generation needs; `discard_state` removes a staged
generation that will not be committed (a failed run), `discard_run` all an
unpublished run wrote, and `roll_back` undoes a publish that failed halfway.
"""

from __future__ import annotations

import logging
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl

from flows.disk.cache_keys import cache_keys
from flows.disk.files import (
    IO_THREADS,
    make_folder,
    remove_tree,
    results_in_order,
    sha256_file,
    write_json,
    write_parquet,
)
from flows.disk.paths import OutputPaths, state_file
from flows.disk.records import (
    StateCorruptError,
    StateRecord,
    committed_generations,
    committed_text,
    read_committed,
    read_record,
)
from flows.disk.snapshot import latest_target, own_latest, restore_latest
from flows.disk.state_files import RESULT_FRAMES, generation_of
from flows.stages.detector import LANGUAGE_SCHEMA
from flows.stages.parse import ParsedFiles

logger = logging.getLogger(__name__)

#: The caches a generation keeps, by their `cache_keys` kind (the catalog's are apart).
STATE_CACHES = ("parsed", "languages", "results")


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
    `results`: `dumps.DumpResults` of every current dump; `clusters`:
    `reuse.CLUSTER_CACHE_SCHEMA` (None: not kept).

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
    record = StateRecord(generation=generation, cache_keys=state_cache_keys(), files=files)
    write_json(record, state_file(state_dir, "generation", generation, "json"))
    return record


def state_cache_keys() -> dict[str, str]:
    """The cache keys a generation's record holds: `cache_keys.cache_keys` of STATE_CACHES.

    Found once per process (0.2 s: the libraries' metadata, every shaping
    module's source), so a run finds them while its languages are detected.
    """
    return {kind: key for kind, key in cache_keys().items() if kind in STATE_CACHES}


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
    """Write state files of a generation (kind -> frame), flushed, `files.IO_THREADS` at a time.

    Returns:
        kind -> record entry ({"file": name, "sha256": hex}), in the order of `frames`.

    Raises:
        OSError: a write failed (the first in order).
    """
    make_folder(state_dir, state_dir.parent)  # the output dir
    with ThreadPoolExecutor(IO_THREADS) as pool:  # polars writes and sha256 release the GIL
        written = [
            pool.submit(_write_state_file, frame, state_file(state_dir, kind, generation))
            for kind, frame in frames.items()
        ]
        return dict(zip(frames, results_in_order(written), strict=True))


def commit_state(
    state_dir: Path, record: StateRecord, used: str | None = None, raw_dir: Path | None = None
) -> None:
    """Make a staged generation current (replace `state.json`, flushed); tidy the rest.

    Args:
        used: the generation this run's state was read from (`RunState.generation`):
            it becomes `previous`, the fallback, so a generation the run skipped
            as broken is never kept as one. None (a cold start, or unknown): the
            committed current generation becomes `previous`.
        raw_dir: the raw dir the run read, recorded (`records.committed_text`).

    Files of any other generation and `*.tmp` leftovers of killed runs are
    deleted, best effort: what cannot be deleted is logged and left (the new
    generation is committed whatever is left over).
    """
    committed = read_committed(state_dir)
    previous = committed.get("current")
    if used is not None and used != record["generation"]:
        previous = _record_of(state_dir, used) or previous
    if previous and previous["generation"] == record["generation"]:  # a retried commit
        previous = committed.get("previous")
    write_json(
        committed_text(record, previous, state_dir.parent, raw_dir), state_dir / "state.json"
    )
    keep = {record["generation"], *([previous["generation"]] if previous else [])}
    for path in state_dir.iterdir():
        generation = generation_of(path)
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
        return read_record(state_file(state_dir, "generation", generation, "json"))
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
    if generation in committed_generations(read_committed(state_dir)):
        return
    for path in state_dir.iterdir():
        if generation_of(path.with_name(path.name.removesuffix(".tmp"))) == generation:
            path.unlink(missing_ok=True)


def is_committed(state_dir: Path, generation: str) -> bool:
    """True when `state.json` names `generation` current (its `commit_state` got that far)."""
    return (read_committed(state_dir).get("current") or {}).get("generation") == generation


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


def _write_state_file(frame: pl.DataFrame, path: Path) -> dict[str, str]:
    """Write one state file (`files.write_parquet`); its record entry: file name and sha256."""
    write_parquet(frame, path)
    return {"file": path.name, "sha256": sha256_file(path)}


def discard_run(output: OutputPaths, run_id: str) -> None:
    """Remove what an unpublished run wrote: its snapshot, half-written (`.partial`) or
    whole (a Ctrl-C just after it), and its staged state generation (best effort)."""
    remove_tree(output.snapshot_staging(run_id))
    remove_tree(output.snapshot(run_id))
    discard_state(output.state, run_id)


def roll_back(output: OutputPaths, previous: str | None, run_id: str) -> str | None:
    """Undo a publish that failed halfway: `latest` back to `previous` (where it pointed,
    `snapshot.latest_target`), then the run's snapshot and staged state removed.

    Returns:
        None when `latest` is back where it was (a failure to remove the run's
        files is logged: the next run's retention and commit tidy them). When
        `latest` cannot be switched back (a read-only output dir), a line saying
        what the output holds: `latest` on this run's snapshot, complete and
        validated, and its state staged, not committed, which the next run
        commits first (`roll_forward`); both are kept.
    """
    try:
        restore_latest(output.root, previous)
    except OSError as exc:
        left = (
            f"the rollback failed too ({exc}): latest -> {latest_target(output.root)}, this "
            "run's complete, validated snapshot, with its state staged but not committed; "
            "the next run commits that state first and goes on from it"
        )
        logger.warning("rollback step failed: %s", left)
        return left
    try:
        discard_run(output, run_id)
    except OSError as exc:
        logger.warning("rollback step failed: %s", exc)
    return None


def roll_forward(output: OutputPaths) -> str | None:
    """Commit the state of a snapshot left published uncommitted; first thing of a run.

    A run that switched `latest` and then failed to commit its state and to
    switch `latest` back (`roll_back`), or was killed between the switch and
    the commit, leaves `latest` on its complete snapshot with its generation
    staged. When `latest` points at one of this output's snapshots whose
    generation is not `state.json`'s current and whose record is on disk, that
    generation is committed: the output's state follows what readers see
    (`state.load_state` checks its files; a broken one falls back as ever).

    Returns:
        What was done (also logged as a warning), or None when nothing was to do.

    Raises:
        OSError: the commit failed (the run stops; nothing changed).
    """
    published = own_latest(output.root, warn=False)  # load_inputs warns
    record_path = state_file(output.state, "generation", published or "", "json")
    if published is None or not record_path.is_file():
        return None
    try:  # a broken state.json or record: nothing to repair here, the load falls back loudly
        current = read_committed(output.state, strict=True).get("current") or {}
        if current.get("generation") == published:
            return None
        record = read_record(record_path)
    except StateCorruptError:
        return None
    commit_state(output.state, record)
    done = (
        f"latest -> snapshots/{published} had its state uncommitted: committed it (rolled forward)"
    )
    logger.warning("repaired: %s", done)
    return done
