"""Publish a snapshot: tables as Parquet (zstd) and JSON Lines, a manifest, then `latest`.

Layout under the output dir:
    snapshots/<run_id>/<table>.parquet, <table>.jsonl, manifest.json
    latest -> snapshots/<run_id>   (a relative symlink)

A snapshot is written into `snapshots/.<run_id>.partial/`, flushed to disk,
and renamed to `snapshots/<run_id>/` only when complete; `latest` is then
switched with `os.replace` on a new symlink, which is atomic on POSIX. A run
killed at any point leaves `latest` on the previous complete snapshot.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import polars as pl

from flows.errors import PublishError

logger = logging.getLogger(__name__)

PARQUET_COMPRESSION = "zstd"


def write_snapshot(
    tables: dict[str, pl.DataFrame], manifest: dict[str, Any], output_dir: Path, run_id: str
) -> Path:
    """Write every table and the manifest into a new complete snapshot folder.

    The manifest gains `files`: for each written file, its name, bytes and sha256.

    Returns:
        The snapshot folder `output_dir/snapshots/<run_id>`.

    Raises:
        PublishError: the snapshot folder already exists.
        OSError: a write failed (the flow retries; the partial folder is rewritten).
    """
    snapshots = output_dir / "snapshots"
    final = snapshots / run_id
    if final.exists():
        raise PublishError(f"snapshot {final} already exists; run ids must be unique")
    staging = snapshots / f".{run_id}.partial"
    staging.mkdir(parents=True, exist_ok=True)
    files = []
    for name, table in tables.items():
        table.write_parquet(staging / f"{name}.parquet", compression=PARQUET_COMPRESSION)
        table.write_ndjson(staging / f"{name}.jsonl")
        files += [_describe_file(staging / f"{name}.{ext}") for ext in ("parquet", "jsonl")]
    manifest_path = staging / "manifest.json"
    manifest_path.write_text(
        json.dumps({**manifest, "files": files}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    for path in [*staging.iterdir(), staging]:
        _fsync(path)
    os.rename(staging, final)
    _fsync(snapshots)
    logger.info("wrote snapshot %s (%d tables)", final, len(tables))
    return final


def switch_latest(output_dir: Path, snapshot: Path) -> Path:
    """Point `output_dir/latest` at `snapshot` atomically (symlink + os.replace).

    Returns:
        The `latest` link path.

    Raises:
        PublishError: `latest` exists and is not a symlink (a folder or file an
            operator made by hand): it is left alone.
    """
    latest = output_dir / "latest"
    if latest.exists() and not latest.is_symlink():
        raise PublishError(f"{latest} exists and is not a symlink; move it away and rerun")
    staged_link = output_dir / f".latest.{snapshot.name}.tmp"
    staged_link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(snapshot, output_dir), staged_link)
    os.replace(staged_link, latest)
    _fsync(output_dir)
    logger.info("latest -> %s", snapshot.relative_to(output_dir))
    return latest


def _describe_file(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return {"name": path.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
