"""`--catalog` on the CLI and the flow: one `error:` line when bad, cached tables reused."""

from __future__ import annotations

import json
import shutil
from contextlib import ExitStack
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from flows import cli
from flows.cli import app
from flows.disk.catalog import cache_entry, checked_catalog, hash_catalog, load_catalog
from flows.disk.paths import OutputPaths
from flows.prefect_flow import nightly_deployment, rulings_flow
from flows.run import run_direct
from tests.conftest import SEED_DIR, run_cli

runner = CliRunner()


@pytest.mark.parametrize("command", ["run", "serve"])
def test_bad_catalog_is_one_error_line_before_anything_runs(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # serve stops before using it
    catalog = tmp_path / "AllPrintings.json"
    catalog.write_text("<html>not the catalog</html>")
    output = tmp_path / "output"
    result = runner.invoke(
        app, [command, "--raw", str(SEED_DIR), "--output", str(output), "--catalog", str(catalog)]
    )
    assert result.exit_code == 1
    started, error = result.output.splitlines()  # the parse's first progress line, the error
    assert started[8:] == (
        f" catalog {catalog}: parsing it (once: later runs read it from the cache)..."
    )
    assert error.startswith(f"error: catalog {catalog} is not readable MTGJSON JSON: ")
    assert not (output / "snapshots").exists()


def test_deployment_carries_the_catalog(small_catalog_dir: Path, tmp_path: Path) -> None:
    deployment = nightly_deployment(SEED_DIR, tmp_path, catalog=small_catalog_dir)
    assert deployment.parameters["catalog"] == str(small_catalog_dir.resolve())


def test_the_clis_catalog_check_hands_its_parse_to_the_run(
    small_catalog_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ruling-dumps run` parses and caches the catalog, then the flow takes it as its own parse."""
    output = OutputPaths(tmp_path / "output")
    monkeypatch.chdir(tmp_path)  # the flow may name the output dir otherwise than the CLI
    with checked_catalog(small_catalog_dir, OutputPaths(Path("output")).catalog_cache):
        assert load_catalog(small_catalog_dir, output.catalog_cache)[1] is False  # the run's parse
        assert load_catalog(small_catalog_dir, output.catalog_cache)[1] is True  # then the cache
    with checked_catalog(small_catalog_dir, output.catalog_cache):  # cached: nothing held
        assert load_catalog(small_catalog_dir, output.catalog_cache)[1] is True


def test_a_checked_catalog_no_run_took_is_let_go(small_catalog_dir: Path, tmp_path: Path) -> None:
    """A run that failed before reading the catalog leaves nothing held for a later one."""
    cache = OutputPaths(tmp_path / "output").catalog_cache
    with checked_catalog(small_catalog_dir, cache):
        pass  # the run failed before it read the catalog
    shutil.rmtree(cache)
    assert load_catalog(small_catalog_dir, cache)[1] is False  # parsed again ...
    assert [entry.name for entry in cache.iterdir()] == [
        cache_entry(cache, hash_catalog(small_catalog_dir)).name
    ]  # ... and cached again (held tables would have been taken, and nothing written)


@pytest.mark.flow
def test_flow_after_the_clis_catalog_check_says_it_parsed_the_catalog(
    prefect_harness: None, small_catalog_dir: Path, tmp_path: Path
) -> None:
    output = tmp_path / "output"
    with checked_catalog(small_catalog_dir, OutputPaths(output).catalog_cache):  # as the CLI
        first = rulings_flow(raw_dir=SEED_DIR, output_dir=output, catalog=small_catalog_dir)
    second = rulings_flow(raw_dir=SEED_DIR, output_dir=output, catalog=small_catalog_dir)
    assert [first["work"]["catalog_parsed"], second["work"]["catalog_parsed"]] == [1, 0]


@pytest.mark.flow
def test_cli_run_with_a_catalog_twice(
    prefect_api: str, small_catalog_dir: Path, tmp_path: Path
) -> None:
    """Both runs exit 0 with their summary; the manifest and the summary agree on the parse."""
    output = tmp_path / "output"
    said = []
    for _ in range(2):
        run = run_cli(tmp_path, output, "--catalog", str(small_catalog_dir), api=prefect_api)
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
        manifest = json.loads((output / "latest" / "manifest.json").read_text())
        summary = run.stderr[run.stderr.index("run: ") :]  # no terminal: key: value lines
        said.append((manifest["work"]["catalog_parsed"], summary.count("\ncatalog: "), summary))
    assert [(parsed, lines) for parsed, lines, _ in said] == [(1, 1), (0, 1)]
    assert "\ncatalog: parsed and cached\n" in said[0][2]
    assert "\ncatalog: read from its cache\n" in said[1][2]


@pytest.mark.flow
def test_flow_with_a_catalog_reuses_its_tables(
    prefect_harness: None, small_catalog_dir: Path, tmp_path: Path
) -> None:
    """First run parses the catalog, the nightly rerun reads the cached Parquet tables."""
    output = tmp_path / "output"
    runs = [
        rulings_flow(raw_dir=SEED_DIR, output_dir=output, catalog=small_catalog_dir)
        for _ in range(2)
    ]
    assert [r["work"]["catalog_parsed"] for r in runs] == [1, 0]
    assert len(list((output / "state" / "catalog").iterdir())) == 1
    dumps = pl.read_parquet(output / "latest" / "dumps.parquet").sort("path")
    assert dumps["oracle_id"].to_list() == [
        None,
        None,
        "2b2f2abd-6c0f-49a5-a44b-f366614c944d",
        None,
        None,
    ]
    manifest = json.loads((output / "latest" / "manifest.json").read_text())
    assert (
        manifest["rows"]["ruling_cards"]
        == pl.read_parquet(output / "latest" / "ruling_cards.parquet").height
        > 0
    )


def _table_bytes(snapshot: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(snapshot.glob("*.parquet"))}


def test_warm_runs_keep_attributions_and_a_new_catalog_rebuilds_every_dump(
    small_catalog_dir: Path, tmp_path: Path
) -> None:
    raw = tmp_path / "raw"
    shutil.copytree(SEED_DIR, raw)
    output = tmp_path / "output"
    run_direct(raw, output, catalog=small_catalog_dir)
    seed = raw / "002_14b9121c30f5c5b3.txt"
    seed.write_bytes(seed.read_bytes() + "08 mars 2024 · source : wotc\nA new ruling.\n".encode())
    shutil.copytree(output, tmp_path / "copy", symlinks=True)
    warm = run_direct(raw, output, catalog=small_catalog_dir)
    assert warm["manifest"]["work"]["dumps_built"] == 1
    whole = run_direct(raw, tmp_path / "copy", catalog=small_catalog_dir, reuse_results=False)
    assert _table_bytes(warm["snapshot"]) == _table_bytes(whole["snapshot"])
    dumps = pl.read_parquet(warm["snapshot"] / "dumps.parquet").sort("path")
    assert dumps["oracle_id"].to_list()[2] == "2b2f2abd-6c0f-49a5-a44b-f366614c944d"
    other = tmp_path / "catalog-two-sets"
    other.mkdir()
    for name in ("KLD.json.gz", "AER.json.gz"):  # NEO left out: another catalog
        shutil.copy(small_catalog_dir / name, other / name)
    rebuilt = run_direct(raw, output, catalog=other)
    assert rebuilt["manifest"]["work"]["dumps_built"] == 5


def test_the_clis_catalog_check_waits_for_the_server_start_unless_none_starts(
    small_catalog_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run` checks and parses the catalog while Prefect's temporary server starts (given to
    `start_prefect` as `meanwhile`); with PREFECT_API_URL no server starts: done at once."""
    cache = OutputPaths(tmp_path / "output").catalog_cache
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    with ExitStack() as held:
        check = cli._catalog_check(held, small_catalog_dir, tmp_path / "output")
        assert not cache.exists()  # not yet: the server's start will
        check()
        assert load_catalog(small_catalog_dir, cache)[1] is False  # the check's parse, held
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    shutil.rmtree(cache)
    with ExitStack() as held:
        cli._catalog_check(held, small_catalog_dir, tmp_path / "output")
        assert load_catalog(small_catalog_dir, cache)[1] is False  # parsed already, held
    shutil.rmtree(cache)
    with ExitStack() as held:
        cli._catalog_check(held, None, tmp_path / "output")()  # no catalog: nothing to do
    assert not cache.exists()
