"""Publish a snapshot: tables as Parquet (zstd) and JSON Lines, a manifest, then `latest`.

Layout under the output dir (`paths.OutputPaths`):
    snapshots/<run_id>/<table>.parquet, <table>.jsonl, manifest.json
    latest -> snapshots/<run_id>   (a relative symlink)

A snapshot is written into `snapshots/.<run_id>.partial/` and flushed to disk
(`stage_snapshot`), then renamed to `snapshots/<run_id>/` (`complete_snapshot`);
`latest` is then switched with `os.replace` on a new symlink, which is atomic
on POSIX (`switch_latest`). A run killed at any point leaves `latest` on the
previous complete snapshot. Retention deletes old snapshots
(`prune_snapshots`); `verify.verify_snapshot` checks a published one.

The files are written `files.IO_THREADS` at a time (polars' writes and sha256
release the GIL) while the manifest is encoded; the bytes are those of a
write one file after the other, and an error is the first such a write
would meet (`files.results_in_order`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from flows.disk.files import (
    IO_THREADS,
    describe_file,
    fsync_path,
    indented_json,
    make_folder,
    naming_full_disk,
    open_new,
    results_in_order,
)
from flows.disk.paths import OutputPaths
from flows.errors import PublishError

logger = logging.getLogger(__name__)

PARQUET_COMPRESSION = "zstd"


def stage_snapshot(
    tables: dict[str, pl.DataFrame],
    manifest: dict[str, Any],
    output_dir: Path,
    run_id: str,
    documents: dict[str, str] | None = None,
) -> Path:
    """Write every table, `documents` (name -> text, e.g. report.md) and the manifest
    into the run's partial snapshot folder, flushed (then `complete_snapshot`).

    The manifest gains `files`: for each written file, its name, bytes and sha256.

    Returns:
        The partial folder `output_dir/snapshots/.<run_id>.partial`.

    Raises:
        PublishError: a snapshot folder of this run id exists already.
        DiskFullError: the file system is full (the file it names, else the folder).
        OSError: a write failed (the flow retries transient errors: the partial
            folder is rewritten).
    """
    check_new_run_id(output_dir, run_id)
    staging = OutputPaths(output_dir).snapshot_staging(run_id)
    if staging.is_dir() and not staging.is_symlink():  # a retried write starts afresh
        shutil.rmtree(staging)
    make_folder(staging, output_dir)
    with naming_full_disk(staging):
        _write_files(tables, manifest, staging, documents or {})
    return staging


def _write_files(
    tables: dict[str, pl.DataFrame],
    manifest: dict[str, Any],
    staging: Path,
    documents: dict[str, str],
) -> None:
    """`stage_snapshot`'s writes: the tables and documents, then the manifest, flushed."""
    jobs = [
        *(
            (_write_table, table, staging / f"{name}.{ext}")
            for name, table in tables.items()
            for ext in ("parquet", "jsonl")
        ),
        *((_write_document, text, staging / name) for name, text in documents.items()),
    ]
    with ThreadPoolExecutor(IO_THREADS) as pool:
        # Largest first, so the longest write starts at once; the manifest lists them in order.
        order = sorted(range(len(jobs)), key=lambda i: -_job_size(jobs[i][1]))
        pending = {i: pool.submit(*jobs[i]) for i in order}
        head = _manifest_head(manifest)  # meanwhile (it holds the GIL, the writes do not)
        files = results_in_order([pending[i] for i in range(len(jobs))])
    manifest_path = staging / "manifest.json"
    with naming_full_disk(manifest_path):
        with open_new(manifest_path) as out:
            out.write((_manifest_text(manifest, files, head) + "\n").encode())
        fsync_path(manifest_path)
    fsync_path(staging)


def complete_snapshot(output_dir: Path, run_id: str) -> Path:
    """Rename the run's staged snapshot into place: `snapshots/<run_id>/`, whole.

    Returns:
        The snapshot folder.

    Raises:
        OSError: the rename failed (retried: a folder an earlier attempt renamed is kept).
    """
    snapshots = OutputPaths(output_dir).snapshots
    final = OutputPaths(output_dir).snapshot(run_id)
    staging = OutputPaths(output_dir).snapshot_staging(run_id)
    if not staging.exists() and _is_complete_snapshot(final, run_id):  # renamed, then failed
        fsync_path(snapshots)
        return final
    os.rename(staging, final)
    fsync_path(snapshots)
    logger.info("wrote snapshot %s", final)
    return final


def _write_table(table: pl.DataFrame, path: Path) -> dict[str, Any]:
    """Write `table` as Parquet (zstd) or JSON Lines, by `path`'s suffix; flush; describe it."""
    with naming_full_disk(path):
        with open_new(path) as out:
            if path.suffix == ".parquet":
                table.write_parquet(out, compression=PARQUET_COMPRESSION)
            else:
                table.write_ndjson(out)
        fsync_path(path)
    return describe_file(path)


def _write_document(text: str, path: Path) -> dict[str, Any]:
    with naming_full_disk(path):
        with open_new(path) as out:
            out.write(text.encode())
        fsync_path(path)
    return describe_file(path)


def _job_size(content: pl.DataFrame | str) -> int:
    return content.estimated_size() if isinstance(content, pl.DataFrame) else len(content)


def _manifest_head(manifest: dict[str, Any]) -> str | None:
    """`indented_json(manifest)` when `files` can be appended to it, else None.

    None too when it cannot be encoded: `_manifest_text` then raises that error
    after the tables' own errors, as a write one file after the other would.
    """
    if not manifest or "files" in manifest or not all(isinstance(k, str) for k in manifest):
        return None
    try:
        return indented_json(manifest)
    except (TypeError, ValueError, RecursionError):
        return None


def _manifest_text(manifest: dict[str, Any], files: list[dict[str, Any]], head: str | None) -> str:
    """`indented_json({**manifest, "files": files})`; only `files` is encoded when `head`
    (`_manifest_head(manifest)`) is given."""
    if head is None:
        return indented_json({**manifest, "files": files})
    still_open = head.removesuffix("\n}")  # the manifest's members, without the closing brace
    return still_open + ',\n  "files": ' + indented_json(files, "\n  ") + "\n}"


def check_output_dir(output_dir: Path) -> None:
    """Fail early when a run could not publish into `output_dir`.

    Raises:
        PublishError: `output_dir` exists and is not a folder, or its `latest`
            exists and is not a symlink (a folder or file made by hand).
    """
    if output_dir.exists() and not output_dir.is_dir():
        raise PublishError(f"output dir {output_dir} exists and is not a folder")
    latest = OutputPaths(output_dir).latest
    if latest.exists() and not latest.is_symlink():
        raise PublishError(f"{latest} exists and is not a symlink; move it away and rerun")


def switch_latest(output_dir: Path, snapshot: Path) -> Path:
    """Point `output_dir/latest` at `snapshot` atomically (symlink + os.replace).

    Returns:
        The `latest` link path.

    Raises:
        PublishError: `latest` exists and is not a symlink (a folder or file an
            operator made by hand): it is left alone.
    """
    check_output_dir(output_dir)
    latest = OutputPaths(output_dir).latest
    staged_link = OutputPaths(output_dir).latest_staging(snapshot.name)
    staged_link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(snapshot, output_dir), staged_link)
    os.replace(staged_link, latest)
    fsync_path(output_dir)
    logger.info("latest -> %s", snapshot.relative_to(output_dir))
    return latest


def check_new_run_id(output_dir: Path, run_id: str) -> None:
    """Raise PublishError when a snapshot folder of `run_id` exists already (run ids are
    unique; a clock stepped back or a run id given twice must not replace a snapshot)."""
    final = OutputPaths(output_dir).snapshot(run_id)
    if final.exists():
        raise PublishError(f"snapshot {final} already exists; run ids must be unique")


def latest_target(output_dir: Path) -> str | None:
    """Where `output_dir/latest` points (as the link says), or None before the first publish."""
    latest = OutputPaths(output_dir).latest
    return os.readlink(latest) if latest.is_symlink() else None


def restore_latest(output_dir: Path, target: str | None) -> None:
    """Point `latest` back at `target` (from `latest_target`), or remove it when None.

    Used to roll a failed publish back; atomic like `switch_latest`. A `latest`
    that still says `target` is left as it is: it never moved (a run that
    failed before its switch), or it is no link of ours (a file an operator
    made reads as None, as before the run).
    """
    latest = OutputPaths(output_dir).latest
    if latest_target(output_dir) == target:
        return
    if target is None:
        latest.unlink(missing_ok=True)
    else:
        staged_link = OutputPaths(output_dir).latest_staging("restore")
        staged_link.unlink(missing_ok=True)
        os.symlink(target, staged_link)
        os.replace(staged_link, latest)
    fsync_path(output_dir)
    logger.warning("latest restored to %s", target)


def resolve_latest(output_dir: Path) -> Path:
    """The snapshot folder `output_dir/latest` points at, resolved once.

    Read every table of one run through this path: a `latest` switched in
    between would otherwise mix two snapshots.

    Raises:
        PublishError: there is no `latest` yet.
    """
    latest = OutputPaths(output_dir).latest
    if not latest.is_dir():
        raise PublishError(f"{latest} does not exist; run `ruling-dumps run` first")
    return latest.resolve()


def own_latest(output_dir: Path, warn: bool = True) -> str | None:
    """The run id of the snapshot `output_dir/latest` points at, when it is one of this output's.

    None before the first publish, and (with a warning) when `latest` leads
    anywhere but a snapshot folder under `output_dir/snapshots/` (another
    output's snapshot, a folder elsewhere, a dangling link): a run then has no
    previous snapshot to compare with (`since_previous`) and uses no state
    generation by it. `warn`: log that warning (once per run: `state.load_inputs`).
    """
    paths = OutputPaths(output_dir)
    target = latest_target(output_dir)
    if target is None:
        return None
    real = os.path.realpath(paths.latest)
    name = os.path.basename(real)
    own = os.path.join(os.path.realpath(paths.snapshots), name)
    if real == own and os.path.isdir(real) and not os.path.islink(paths.snapshot(name)):
        return name
    if warn:
        logger.warning(
            "latest -> %s is not one of this output's snapshots: taken as no previous snapshot",
            target,
        )
    return None


def read_manifest(path: Path | None) -> dict[str, Any] | None:
    """A snapshot's manifest (`path`: its manifest.json); None when `path` is None or absent.

    Raises:
        ValueError: the file is not JSON.
    """
    if path is None or not path.is_file():
        return None
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


#: A run id as `rulings_flow` makes it (UTC start time, `%Y%m%dT%H%M%S%fZ`):
#: the only folder names under `snapshots/` that retention may delete.
RUN_ID_PATTERN = re.compile(r"\d{8}T\d{12}Z")


def prune_snapshots(output_dir: Path, keep: int, previous: str | None = None) -> list[str]:
    """Delete all but the `keep` newest snapshots, and leftovers of killed runs.

    `previous`: where `latest` pointed before this run (`latest_target`): that
    snapshot is kept too, whatever `keep` says, so a reader who resolved
    `latest` before the run can read it to the end of the next run.

    Only folders this product wrote are candidates: `snapshots/<run_id>/`
    (a name matching RUN_ID_PATTERN) and `snapshots/.<run_id>.partial/`;
    anything else under `snapshots/` (an archive of raw dumps, a folder an
    operator made) is left alone. The snapshot `latest` points at is always
    kept. Run ids sort by time, so "newest" is by name. Call only while
    holding the run lock (a `.partial` folder of a running publish would look
    like a leftover).

    Returns:
        The names of the folders deleted.
    """
    snapshots = OutputPaths(output_dir).snapshots
    if not snapshots.is_dir():
        return []
    kept = {OutputPaths(output_dir).latest.resolve()}
    if previous is not None:
        kept.add((output_dir / previous).resolve())
    folders = [p for p in snapshots.iterdir() if p.is_dir() and not p.is_symlink()]
    complete = sorted(p for p in folders if RUN_ID_PATTERN.fullmatch(p.name))
    doomed = [p for p in complete[: max(0, len(complete) - keep)] if p.resolve() not in kept]
    doomed += [
        p
        for p in folders
        if p.name.startswith(".")
        and p.name.endswith(".partial")
        and RUN_ID_PATTERN.fullmatch(p.name[1 : -len(".partial")])
    ]
    for path in doomed:
        shutil.rmtree(path)
    for stale_link in output_dir.glob(".latest.*.tmp"):
        if stale_link.is_symlink():
            stale_link.unlink()
    if doomed:
        logger.info("retention: deleted %d old snapshot folders", len(doomed))
    return sorted(p.name for p in doomed)


def _is_complete_snapshot(folder: Path, run_id: str) -> bool:
    """`folder` was renamed into place by this run (it is renamed only when complete)."""
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return False
    try:
        return bool(json.loads(manifest.read_text(encoding="utf-8")).get("run_id") == run_id)
    except ValueError:
        return False
