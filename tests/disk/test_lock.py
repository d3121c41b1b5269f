"""lock: the output dir's own paths are never followed out when they are symlinks (issue 23)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.disk import generation, snapshot
from flows.disk import lock as lock_module
from flows.disk import raw as raw_module
from flows.disk.lock import hold_run_lock
from flows.disk.paths import foreign_links
from flows.errors import OutputDirError
from flows.run import run_direct
from tests.conftest import SEED_DIR, run_dumps

runner = CliRunner()


def _raw(tmp_path: Path) -> Path:
    raw = tmp_path / "raw"
    shutil.copytree(SEED_DIR, raw)
    return raw


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    "link",
    [".lock", "state/state.json.tmp", "state/parts", "snapshots", "state", ".latest.x.tmp"],
)
def test_a_symlink_where_the_run_writes_is_one_error_before_anything(
    tmp_path: Path, link: str
) -> None:
    """`ln -s raw/000.txt output/.lock` made a run write its pid into the raw dump, then
    empty it; a link at state/state.json.tmp or state/parts wrote state into raw/. (A
    folder linked to raw/ itself is refused earlier, as raw and output overlapping.)"""
    raw = _raw(tmp_path)
    output = tmp_path / "output"
    (output / link).parent.mkdir(parents=True, exist_ok=True)
    elsewhere = tmp_path / "elsewhere"  # a folder of the operator's (raw/ itself: see below)
    elsewhere.mkdir()
    target = elsewhere if link in ("state/parts", "snapshots", "state") else next(raw.glob("*.txt"))
    (output / link).symlink_to(target)
    before = _digests(raw)
    result = runner.invoke(app, ["run", "--raw", str(raw), "--output", str(output)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert result.output.startswith("error: 1 path(s) the run writes under")
    assert str(output / link) in result.output
    assert _digests(raw) == before
    assert list(elsewhere.iterdir()) == []
    assert not (output / "latest").exists()


def test_a_published_output_has_no_foreign_link(tmp_path: Path) -> None:
    """`latest` links into snapshots/ by design: two runs leave nothing the check refuses."""
    raw = _raw(tmp_path)
    output = tmp_path / "output"
    run_dumps(raw, output)
    run_dumps(raw, output)
    assert (output / "latest").is_symlink()
    assert foreign_links(output) == []


def test_a_lock_linked_after_the_check_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """O_NOFOLLOW: a link put at `.lock` between the check and the open is refused."""
    dump = tmp_path / "dump.txt"
    dump.write_text("a raw dump\n")
    output = tmp_path / "output"
    output.mkdir()
    (output / ".lock").symlink_to(dump)
    monkeypatch.setattr(lock_module, "foreign_links", lambda _: [])
    with pytest.raises(OutputDirError, match="is a symlink or a folder"), hold_run_lock(output):
        pass
    assert dump.read_text() == "a raw dump\n"
    assert os.path.islink(output / ".lock")


def _plant_before(
    module: object, step: str, link: str, target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Make `link` (under the output dir, the step's first argument's output) a symlink to
    `target` just before `step` runs: after the check at the lock, as another process could."""
    real = getattr(module, step)

    def planted(*args: object, **kwargs: object) -> object:
        path = _OUTPUT[0] / link
        with _PLANTING:
            if not path.is_symlink():  # once (tables are written two at a time)
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_dir():
                    shutil.rmtree(path)
                path.symlink_to(target)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, step, planted)


_OUTPUT: list[Path] = []
_PLANTING = threading.Lock()


@pytest.mark.parametrize(
    ("module", "step", "link", "kind"),
    [
        (raw_module, "write_parts", "state/parts", "folder"),
        (generation, "stage_parse_cache", "state/parsed_dumps.{run}.parquet.tmp", "file"),
        (generation, "stage_state", "state/languages.{run}.parquet.tmp", "file"),
        (generation, "stage_state", "state/generation.{run}.json.tmp", "file"),
        (generation, "commit_state", "state/state.json.tmp", "file"),
        (snapshot, "stage_snapshot", "snapshots/.{run}.partial", "folder"),
        (snapshot, "_write_table", "snapshots/.{run}.partial/rulings.parquet", "file"),
        (snapshot, "_write_document", "snapshots/.{run}.partial/manifest.json", "file"),
    ],
    ids=[
        "parts",
        "parse-cache",
        "state-file",
        "generation-record",
        "state-json",
        "snapshot-folder",
        "table-file",
        "manifest",
    ],
)
def test_a_link_made_during_a_run_is_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: object, step: str, link: str, kind: str
) -> None:
    """Issue 23: every path a run writes under the output dir is opened without following a
    link (O_NOFOLLOW) and its folders checked against the output dir: a link put there after
    the check at the lock stops the run; its target is untouched, nothing is published."""
    raw = _raw(tmp_path)
    output = tmp_path / "output"
    first = run_direct(raw, output, started_at=dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC))
    run = "20261202T120000000000Z"
    _OUTPUT[:] = [output]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "operator.txt"
    victim.write_text("the operator's file\n")
    target = elsewhere if kind == "folder" else victim
    _plant_before(module, step, link.format(run=run), target, monkeypatch)
    before = _digests(raw)
    with pytest.raises(OutputDirError, match="symlink"):
        run_direct(
            raw,
            output,
            started_at=dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC),
            trust_metadata=False,
            reuse_results=False,
        )
    assert _digests(raw) == before
    assert victim.read_text() == "the operator's file\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["operator.txt"]
    assert os.path.realpath(output / "latest") == os.path.realpath(first["snapshot"])


@pytest.mark.parametrize(
    "link", [".lock", "state/state.json.tmp", "state/languages.{run}.parquet.tmp"]
)
def test_a_hard_link_to_a_raw_dump_where_the_run_writes_is_never_written_into(
    tmp_path: Path, link: str
) -> None:
    """A fresh check (issue 23): `ln raw/000.txt output/.lock` emptied the raw dump and
    published the run's pid as its header; at `state/state.json.tmp` it wrote the state's
    JSON into it. O_NOFOLLOW does not see hard links: the lock refuses a file of two names,
    and every other file is created afresh (its old name unlinked, never written through)."""
    raw = _raw(tmp_path)
    output = tmp_path / "output"
    run_direct(raw, output, started_at=dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC))
    dump = next(raw.glob("*.txt"))
    path = output / link.format(run="20261202T120000000000Z")
    path.unlink(missing_ok=True)
    os.link(dump, path)
    before = _digests(raw)
    started_at = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
    if link == ".lock":
        with pytest.raises(OutputDirError, match="hard link to another file"):
            run_direct(raw, output, started_at=started_at)
    else:
        result = run_direct(raw, output, started_at=started_at, reuse_results=False)
        assert result["manifest"]["rows"]["ruling_occurrences"] == 73
    assert _digests(raw) == before


def test_a_fifo_at_the_lock_is_one_line(tmp_path: Path) -> None:
    output = tmp_path / "output"
    output.mkdir()
    os.mkfifo(output / ".lock")
    with (
        pytest.raises(OutputDirError, match=r"is not a file of its own \(a FIFO"),
        hold_run_lock(output),
    ):
        pass
