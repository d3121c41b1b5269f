"""Every path a run reads or writes under its output dir, named in one place; and the
published form of a raw file's name (`escape_path`).

As kedro's data catalog names datasets, `OutputPaths` names the output dir's
layout; the steps that read and write and the benchmark take their paths
from it instead of joining folder names themselves:

    output/
      .lock                              the run lock (`lock`)
      latest -> snapshots/<run_id>       the published snapshot (`snapshot`)
      .latest.<run_id>.tmp               a `latest` link being switched
      snapshots/<run_id>/                one complete snapshot per run
      snapshots/.<run_id>.partial/       a snapshot being written
      state/                             caches and the id registry (`state`, `generation`)
        <kind>.<generation>.parquet      one generation's state files: parse and
                                         language caches, per-dump results
                                         (results_*), clusters, file index, registry
        generation.<generation>.json     its record; state.json: the committed ones
        parts/<run_id>/                  the parse batches' Parquet parts (removed after use)
        catalog/<sha256>/                the catalog's tables (`catalog`)
        word_lists/<code key>/<lang>.<sha256>.arrow  wordfreq's lists (`word_lists`)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from flows.errors import RawDirError


@dataclass(frozen=True)
class OutputPaths:
    """The layout of one output dir (see the module docstring)."""

    root: Path

    @property
    def lock(self) -> Path:
        """The run lock file."""
        return self.root / ".lock"

    @property
    def latest(self) -> Path:
        """The symlink to the published snapshot."""
        return self.root / "latest"

    @property
    def latest_manifest(self) -> Path:
        """The published snapshot's manifest."""
        return self.latest / "manifest.json"

    def latest_staging(self, name: str) -> Path:
        """A `latest` link being made before it replaces `latest` (`name`: run id or "restore")."""
        return self.root / f".latest.{name}.tmp"

    @property
    def snapshots(self) -> Path:
        """The folder of snapshots."""
        return self.root / "snapshots"

    def snapshot(self, run_id: str) -> Path:
        """One run's complete snapshot folder."""
        return self.snapshots / run_id

    def snapshot_staging(self, run_id: str) -> Path:
        """One run's snapshot while it is written (renamed to `snapshot` when complete)."""
        return self.snapshots / f".{run_id}.partial"

    @property
    def state(self) -> Path:
        """The state folder (caches, id registry, generation records)."""
        return self.root / "state"

    @property
    def parts_root(self) -> Path:
        """The folder of every run's parse parts (a run removes it when done)."""
        return self.state / "parts"

    def parts(self, run_id: str) -> Path:
        """One run's parse parts."""
        return self.parts_root / run_id

    @property
    def catalog_cache(self) -> Path:
        """The catalog's cached tables, one folder per catalog sha256."""
        return self.state / "catalog"

    @property
    def word_lists(self) -> Path:
        """wordfreq's lists as the weighing reads them, one folder per code key."""
        return self.state / "word_lists"


def foreign_links(output_dir: Path) -> list[Path]:
    """The symlinks where a run writes its own files and folders under `output_dir`.

    The run lock, `snapshots/`, `state/` and everything under them, the staged
    `latest` links: a run writes, renames and deletes there, and must never
    follow a link out (`ln -s raw/000.txt output/.lock` made a run write its pid
    into a raw dump, then empty it). `latest` is a link by design, replaced,
    never written through: not one of these. Sorted; [] for an output dir that
    does not exist yet.
    """
    paths = OutputPaths(output_dir)
    found = [p for p in (paths.lock, paths.snapshots, paths.state) if p.is_symlink()]
    found += [p for p in output_dir.glob(".latest.*.tmp") if p.is_symlink()]
    for folder in (paths.snapshots, paths.state):
        if not folder.is_dir() or folder.is_symlink():
            continue
        for parent, dirs, files in os.walk(folder):  # never into a link
            found += [Path(parent) / n for n in [*dirs, *files] if (Path(parent) / n).is_symlink()]
    return sorted(found)


#: Folders under the output dir that a run writes, deletes or prunes.
OUTPUT_WORK_FOLDERS: tuple[str, ...] = (
    OutputPaths(Path()).snapshots.name,
    OutputPaths(Path()).state.name,
)


def check_raw_output_overlap(raw_dir: Path, output_dir: Path) -> None:
    """Refuse a raw dir and an output dir that share files a run would write or delete.

    A run writes and prunes `output_dir/snapshots/` and `output_dir/state/`.
    When the raw dir contains one of them (`--raw d --output d`), or lies
    inside one of them, retention or a state save could delete raw dumps,
    and a run could read its own output. Paths are compared after resolving
    symlinks, whether or not the folders exist yet. An output dir that merely
    contains the raw dir elsewhere (`output/raw`) is allowed.

    Raises:
        RawDirError: the folders overlap (the message names both and the fix).
    """
    raw = raw_dir.resolve()
    for name in OUTPUT_WORK_FOLDERS:
        work = (output_dir / name).resolve()
        if work == raw or raw in work.parents or work in raw.parents:
            raise RawDirError(
                f"raw dir {raw_dir} and output folder {output_dir / name} overlap: "
                "a run writes and prunes that folder and would delete or read raw dumps; "
                "keep raw and output in separate folders"
            )


def state_file(state_dir: Path, kind: str, generation: str, suffix: str = "parquet") -> Path:
    """One state generation's file: `<kind>.<generation>.<suffix>` in `state_dir`."""
    return state_dir / f"{kind}.{generation}.{suffix}"


def staged_file(path: Path) -> Path:
    """Where `path` is written before it is renamed into place (`<name>.tmp`)."""
    return path.with_name(path.name + ".tmp")


def escape_path(name: str) -> str:
    """A file path as published: `os.fsdecode` text, bytes that are not UTF-8 as `\\xNN`.

    A name with bytes that are not valid UTF-8 (`caf\\xe9.txt` saved in
    Latin-1) comes from the file system with surrogate escapes; they become
    the four characters `\\xe9`. A backslash in a name is doubled, so the
    escaped form is unambiguous and `unescape_path` gives the name back.
    """
    return _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", name.replace("\\", "\\\\"))


def unescape_path(path: str) -> str:
    """The file system name (`os.fsdecode` form) of a path `escape_path` gave."""
    return _ESCAPE.sub(
        lambda m: "\\" if m.group() == "\\\\" else chr(0xDC00 + int(m.group()[2:], 16)), path
    )


_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPE = re.compile(r"\\\\|\\x[0-9a-f]{2}")
