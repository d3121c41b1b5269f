"""Shared fixtures: the real seed dumps in raw/, and the product's own run over them."""

from __future__ import annotations

import datetime as dt
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl
import pytest
from hypothesis import settings

from flows.run import DirectRunner, RunResult, run_direct
from flows.stages.decode import decode_dumps, hash_dumps, split_lines
from flows.stages.dumps import build_dump_results

# Prefect reads its settings at import: no telemetry from test runs (these machines are offline).
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")

REPO = Path(__file__).resolve().parents[1]
#: The five real dumps from ../shared/seeds, committed in raw/.
SEED_DIR = REPO / "raw"
#: Real public data (../shared/data/real beside the project, or RULING_DUMPS_REAL_DATA).
REAL_DATA = Path(os.environ.get("RULING_DUMPS_REAL_DATA", REPO.parent / "shared" / "data" / "real"))
needs_real_data = pytest.mark.skipif(
    not (REAL_DATA / "derived").is_dir(),
    reason=f"real data not found at {REAL_DATA} (set RULING_DUMPS_REAL_DATA)",
)
#: Seconds a test lets Prefect's temporary server take to start: generous, so that no
#: test fails because the machine is busy (three starts at once took 50 s on 2 cores).
SERVER_STARTUP_TIMEOUT = 600
#: Small dumps of faults found in the field, with their right values in CASES.md
#: (../shared/cases/realworld beside the project, or RULING_DUMPS_CASES).
CASES_DIR = Path(
    os.environ.get("RULING_DUMPS_CASES", REPO.parent / "shared" / "cases" / "realworld")
)
needs_cases = pytest.mark.skipif(
    not CASES_DIR.is_dir(),
    reason=f"field-fault cases not found at {CASES_DIR} (set RULING_DUMPS_CASES)",
)
#: The third round of them (../shared/cases/round3 beside the project, or RULING_DUMPS_ROUND3).
ROUND3_DIR = Path(
    os.environ.get("RULING_DUMPS_ROUND3", REPO.parent / "shared" / "cases" / "round3")
)
needs_round3 = pytest.mark.skipif(
    not ROUND3_DIR.is_dir(),
    reason=f"round-3 field-fault cases not found at {ROUND3_DIR} (set RULING_DUMPS_ROUND3)",
)
#: The run date the seed tests use (every seed date is before it).
TODAY = dt.date(2026, 11, 30)

# Property tests draw the same examples on every run (a landing never fails on a new
# draw); `pytest --hypothesis-profile=explore` draws new ones, to look for faults. No
# deadline: on a busy machine one example took 325 ms against Hypothesis's 200 ms
# (`test_taiwan_republic_year_dates_round_trip` failed as flaky at load 10).
settings.register_profile("landing", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile("landing")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that run Prefect (`flow`, the slowest) first: `make test`'s two processes
    (pytest-xdist, `--dist load`) take them in turn, and the quick tests fill the end."""
    items.sort(key=lambda item: item.get_closest_marker("flow") is None)


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """Prefect's temporary test server for the whole session (starts once, 10–60 s)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=SERVER_STARTUP_TIMEOUT):
        yield


@pytest.fixture(scope="session")
def prefect_api(prefect_harness: None) -> str:
    """The API URL of the session's one Prefect server (`prefect_harness`'), for subprocesses:
    a command given it as PREFECT_API_URL starts no temporary server of its own."""
    from prefect.settings import PREFECT_API_URL

    return str(PREFECT_API_URL.value())


class Run(NamedTuple):
    """A run of the product (`run_direct`) and every line it built, with its final kind."""

    result: RunResult
    lines: pl.DataFrame  # `dumps.build_dump_results`' lines: dump_id, line_number, kind, …
    runner: DirectRunner  # its `kept` values: build_dump_results' and those asked for

    @property
    def tables(self) -> dict[str, pl.DataFrame]:
        """The published tables."""
        return self.result["tables"]


def noon(day: dt.date) -> dt.datetime:
    """Noon UTC on `day`: a run's start for a run date of `day`."""
    return dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)


#: Microseconds added to each run's noon start: every run of the session has its own run id.
_RUNS = itertools.count()


def run_dumps(
    raw: Path,
    output: Path,
    day: dt.date = TODAY,
    keep: tuple[Callable[..., Any], ...] = (),
    **settings: Any,
) -> Run:
    """The product's own run of `raw` into `output` (no Prefect), as if started at noon on `day`.

    Each call's run id is later than the one before (a microsecond after). `keep`:
    more steps whose values the runner keeps. `settings`: more `run_direct`
    settings (catalog, processes, batch_files…).
    """
    runner = DirectRunner(keep=(build_dump_results, *keep))
    started_at = noon(day) + dt.timedelta(microseconds=next(_RUNS))
    result = run_direct(raw, output, started_at=started_at, runner=runner, **settings)
    built = runner.kept[build_dump_results]
    lines = pl.concat([every_line for _, every_line in built], how="vertical_relaxed")
    return Run(result, lines, runner)


def write_dumps(folder: Path, dumps: dict[str, bytes]) -> Path:
    """`folder` holding each dump's bytes under its path; made if missing."""
    folder.mkdir(parents=True, exist_ok=True)
    for path, content in dumps.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(content)
    return folder


def run_raw(raw: Path, **settings: Any) -> Run:
    """`run_dumps` of the raw folder `raw`, published into a temporary folder removed after."""
    with tempfile.TemporaryDirectory(prefix="ruling-dumps-test-") as tmp:
        return run_dumps(raw, Path(tmp) / "output", **settings)


def run_contents(dumps: dict[str, bytes], **settings: Any) -> Run:
    """`run_dumps` of `dumps` (path -> bytes) in a temporary folder, removed after (the
    frames stay)."""
    with tempfile.TemporaryDirectory(prefix="ruling-dumps-test-") as tmp:
        return run_dumps(write_dumps(Path(tmp) / "raw", dumps), Path(tmp) / "output", **settings)


@pytest.fixture(scope="session")
def seed_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The product's run of the five seed dumps (no Prefect), with every line's kind."""
    return run_dumps(SEED_DIR, tmp_path_factory.mktemp("seeds") / "output")


@pytest.fixture(scope="session")
def seed_tables(seed_run: Run) -> dict[str, pl.DataFrame]:
    """The published tables of the seed dumps, keyed by name."""
    return seed_run.tables


def copy_seeds(tmp_path: Path, name: str, skip: tuple[str, ...] = ()) -> Path:
    """A raw folder `tmp_path/name` holding the seed dumps but those named in `skip`."""
    raw = tmp_path / name
    raw.mkdir()
    for seed in sorted(SEED_DIR.glob("*.txt")):
        if seed.name not in skip:
            shutil.copy(seed, raw / seed.name)
    return raw


def content_of(*lines: str, end: str = "\n") -> bytes:
    """A dump's bytes made of `lines` (UTF-8), each ended by `end`."""
    return (end.join(lines) + end).encode() if lines else b""


def dump_of(*lines: str, end: str = "\n") -> pl.DataFrame:
    """A one-file raw dump frame (path "t.txt") made of `lines` (for the stages' tests)."""
    return pl.DataFrame(
        {"path": ["t.txt"], "content": [content_of(*lines, end=end)]},
        schema={"path": pl.String, "content": pl.Binary},
    )


def lines_of(raw: pl.DataFrame) -> pl.DataFrame:
    """`read.split_lines` of raw dumps (path, content): dump_id, line_number, line, control_char_count."""
    return split_lines(decode_dumps(hash_dumps(raw)))


def files_of(raw: pl.DataFrame) -> pl.DataFrame:
    """Every file (path order) with its dump_id and decoding: the input of `split_readable_dumps`."""
    hashed = hash_dumps(raw)
    return hashed.drop("content").join(decode_dumps(hashed), on="dump_id").sort("path")


#: The issue's line accounting and table sizes of the five seeds.
SEED_LINE_ACCOUNTING = {
    "header": 5,
    "date_source": 73,
    "body": 73,
    "translation": 0,
    "stub": 3,
    "blank": 0,
    "rejected": 0,
    "lines_read": 154,
}
SEED_ROWS = {
    "dumps": 5,
    "ruling_occurrences": 73,
    "rulings": 36,
    "ruling_variants": 37,
    "ruling_translations": 0,
    "card_stubs": 1,
    "rejects": 0,
    "ruling_cards": 0,  # no catalog
    "dump_checks": 0,  # no catalog
}


def cli_run(
    tmp_path: Path, output: Path, api: str | None = None
) -> tuple[list[str], dict[str, str]]:
    """The command and environment of `python -m flows run` on the seeds in a subprocess.

    `api`: a running server's API URL (`prefect_api`) the run reports to; None: the
    run starts Prefect's temporary server, as `ruling-dumps run` does for a user.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    env["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = str(SERVER_STARTUP_TIMEOUT)
    if api is not None:
        env["PREFECT_API_URL"] = api
    return [
        sys.executable,
        "-m",
        "flows",
        "run",
        "--raw",
        str(SEED_DIR),
        "--output",
        str(output),
    ], env


def hangup_by_default() -> None:
    """A child's `preexec_fn`: SIGHUP's default action, as a terminal's job has it.

    Under `nohup make test` every child would inherit SIGHUP ignored, and a run
    keeps an ignored SIGHUP ignored (`processes.interrupt`, as `nohup` asks): a
    test that stops its run with SIGHUP would wait for it to the end instead.
    """
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.fixture
def hangup_default() -> Iterator[None]:
    """SIGHUP's default action in this process for the test (`hangup_by_default`), then as
    it was: a test that raises SIGHUP here would wait forever under `nohup make test`."""
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGHUP, before)


def run_cli(
    tmp_path: Path, output: Path, *arguments: str, api: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`cli_run`'s command with `arguments` added, run to its end (`env` added to its own)."""
    command, run_env = cli_run(tmp_path, output, api)
    return subprocess.run(
        [*command, *arguments],
        cwd=REPO,
        env={**run_env, **env},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


#: The real MTGJSON AllPrintings (April 2022) beside the real data.
REAL_CATALOG = REAL_DATA / "mtgjson_v5_AllPrintings_2022-04-25.json.xz"
needs_real_catalog = pytest.mark.skipif(
    not REAL_CATALOG.is_file(), reason=f"real catalog not found at {REAL_CATALOG}"
)


def shared_folder(
    tmp_path_factory: pytest.TempPathFactory, name: str, fill: Callable[[Path], object]
) -> Path:
    """A folder `name` the session's processes share (pytest-xdist's workers), filled once.

    The first process to take its lock calls `fill(folder)`; the others wait,
    then find it filled (pytest-xdist's advice for session fixtures).
    """
    import fcntl

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder, done = root / name, root / f"{name}.done"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            fill(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def real_catalog_cache(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """The real catalog's tables and a catalog cache folder holding them (`load_catalog`;
    parsed once per test session, ~13 s)."""
    from flows.disk.catalog import load_catalog

    if not REAL_CATALOG.is_file():
        pytest.skip(f"real catalog not found at {REAL_CATALOG}")
    cache = shared_folder(
        tmp_path_factory, "real-catalog-cache", lambda folder: load_catalog(REAL_CATALOG, folder)
    )
    return load_catalog(REAL_CATALOG, cache)[0], cache


#: Sets kept in the small catalog: energy (KLD, AER), reconfigure (NEO).
SMALL_CATALOG_SETS = ("AER", "KLD", "NEO")


@pytest.fixture(scope="session")
def small_catalog_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of real MTGJSON set files (KLD, AER, NEO as .json.gz) cut from the real catalog."""
    if not REAL_CATALOG.is_file():
        pytest.skip(f"real catalog not found at {REAL_CATALOG}")
    return shared_folder(tmp_path_factory, "catalog-sets", _cut_small_catalog)


def _cut_small_catalog(folder: Path) -> None:
    """Write SMALL_CATALOG_SETS of the real catalog into `folder` as MTGJSON set files."""
    import gzip
    import json
    import lzma

    import ijson

    missing = set(SMALL_CATALOG_SETS)
    with lzma.open(REAL_CATALOG, "rb") as stream:
        for code, data in ijson.kvitems(stream, "data", use_float=True):
            if code in missing:
                document = {"meta": {"version": "5.2.0+20220425"}, "data": data}
                with gzip.open(folder / f"{code}.json.gz", "wt", encoding="utf-8") as out:
                    json.dump(document, out)
                missing.discard(code)
            if not missing:  # the sets are in code order: the rest of the file is not read
                break
    assert not missing, f"sets not in the real catalog: {sorted(missing)}"


@pytest.fixture(scope="session")
def small_index(small_catalog_dir: Path) -> Any:
    """The attribution lookups (`attribution.CatalogIndex`) of the small catalog."""
    from flows.disk.catalog import read_catalog
    from flows.stages.attribution import index_catalog

    return index_catalog(read_catalog(small_catalog_dir))


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory, small_catalog_dir: Path) -> Path:
    """A folder whose `output/latest` is the product's run of the seeds with the small
    catalog (KLD, AER, NEO), as an analyst finds it."""
    root = tmp_path_factory.mktemp("published")
    run_dumps(SEED_DIR, root / "output", catalog=small_catalog_dir)
    return root
