"""lock: the output dir's own paths are never followed out when they are symlinks (issue 23)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.disk import lock as lock_module
from flows.disk.lock import hold_run_lock
from flows.disk.paths import foreign_links
from flows.errors import OutputDirError
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
    with pytest.raises(OutputDirError, match="became a symlink"), hold_run_lock(output):
        pass
    assert dump.read_text() == "a raw dump\n"
    assert os.path.islink(output / ".lock")
