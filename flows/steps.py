"""The run's steps, listed once, and their one sequence.

`STEPS` lists every step of a run (a plain function, and whether it does I/O
worth retrying); `run_steps` sequences them under the output dir's run lock.
Who executes a step is a `Runner`: `DirectRunner` calls each step plainly in
this process (the benchmark's "without Prefect", tests); the Prefect flow
(`flows.rulings_flow`) passes a runner that wraps each step in a task. So the
flow and the direct run do exactly the same work, and the benchmark's
orchestration share compares one composition with and without Prefect.

The publish steps look their stage function up at call time
(`state.commit_state`, `write.switch_latest`…), so a test can replace one.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypedDict

import polars as pl

import flows
from flows import pipeline
from flows.hooks import pause_point
from flows.paths import OutputPaths
from flows.stages import language, manifest, read, report, report_html, state, write
from flows.stages.attribution import CatalogIndex, index_catalog
from flows.stages.catalog import load_catalog
from flows.stages.runlock import hold_run_lock
from schemas import SCHEMA_VERSION
from schemas.json_schema import json_schema_documents

logger = logging.getLogger(__name__)

#: Files per parse batch: few batches (orchestration stays small), enough to share work.
BATCH_FILES = 5000


class Inputs(TypedDict):
    """What a run starts from."""

    paths: list[str]  # the dump files, relative to the raw dir
    state: state.RunState
    previous_manifest: dict[str, Any] | None


@dataclass(frozen=True)
class RunSettings:
    """One run's identity and knobs (see `rulings_flow` for each)."""

    raw_dir: Path
    output: OutputPaths
    run_id: str
    started_at: dt.datetime
    retention: int = 7
    language_batches: int = 1
    processes: int = 1
    batch_files: int = BATCH_FILES
    max_file_bytes: int = read.MAX_FILE_BYTES
    catalog: Path | None = None
    #: False: read and hash every file, whatever the file index says (for checks).
    trust_metadata: bool = True


def new_run_id(started_at: dt.datetime) -> str:
    """A run id: the UTC start time, `%Y%m%dT%H%M%S%fZ` (`write.RUN_ID_PATTERN`)."""
    return started_at.strftime("%Y%m%dT%H%M%S%fZ")


# The steps. Each takes and returns plain values and polars frames.


def load_inputs(raw_dir: Path, output: OutputPaths) -> Inputs:
    """List the raw files; read the state of earlier runs and the latest manifest (I/O only)."""
    target = write.latest_target(output.root)
    return Inputs(
        paths=read.list_dump_paths(raw_dir),
        state=state.load_state(output.state, published=Path(target).name if target else None),
        previous_manifest=write.read_latest_manifest(output.root),
    )


def parse_batch(
    raw_dir: Path,
    paths: pl.Series,
    known_ids: pl.Series,
    file_index: pl.DataFrame | None,
    parts_dir: Path,
    name: str,
    max_file_bytes: int = read.MAX_FILE_BYTES,
) -> dict[str, str]:
    """Read, hash and parse one batch of files; write its Parquet parts.

    See `pipeline.parse_batch`; `file_index`: the last run's (`state.FILE_INDEX_SCHEMA`).
    """
    batch = pipeline.parse_batch(raw_dir, paths, known_ids, max_file_bytes, file_index)
    return state.write_parts(
        parts_dir, name, {"files": batch["files"], "index": batch["index"], **batch["parsed"]}
    )


def assemble_dumps(
    parts: list[dict[str, str]], cached: state.ParsedFiles | None, today: dt.date
) -> tuple[pipeline.ParsedDumps, state.ParsedFiles, pl.DataFrame, dict[str, int]]:
    """Gather the batches' parts with the cached parse; find entries, headers and stubs.

    Returns:
        (parsed dumps, the parse cache for the next run, the file index for
        the next run, work counts).
    """
    batches = [state.read_parts(p) for p in parts]
    files = pl.concat([b["files"] for b in batches]).sort("path")
    index = pl.concat([b["index"] for b in batches]).sort("path")
    fresh = pipeline.merge_parsed(
        *(state.ParsedFiles(dumps=b["dumps"], lines=b["lines"]) for b in batches)
    )
    reused, _ = state.split_cached(files, cached)
    parsed_files = pipeline.merge_parsed(reused, fresh)
    counts = {"dumps_parsed": fresh["dumps"].height, "dumps_reused": reused["dumps"].height}
    logger.debug(
        "read %d of %d files (the others unchanged by metadata)", index["read"].sum(), index.height
    )
    return (
        pipeline.assemble_dumps(files, parsed_files, today),
        parsed_files,
        index.drop("read"),
        counts,
    )


def split_known_texts(
    parsed: pipeline.ParsedDumps, known: pl.DataFrame
) -> tuple[pl.DataFrame, pl.Series]:
    """The texts whose language is known from earlier runs, and the new ones."""
    return pipeline.split_known_texts(parsed, known)


def detect_languages(texts: pl.Series, processes: int) -> pl.DataFrame:
    """Detect the language of a batch of new texts (langdetect in `processes` processes)."""
    return language.detect_languages(texts, processes=processes)


def load_catalog_index(catalog: Path, output: OutputPaths) -> tuple[CatalogIndex, bool]:
    """The catalog's lookups, from the catalog cache when this catalog was read before."""
    tables, reused = load_catalog(catalog, output.catalog_cache)
    return index_catalog(tables), reused


def build_tables(
    parsed: pipeline.ParsedDumps,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    catalog: CatalogIndex | None = None,
) -> pipeline.BuiltTables:
    """Separate translations, deduplicate rulings (ids from the registry), build every table."""
    return pipeline.build_tables(parsed, languages, registry, catalog)


def validate_tables(built: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Validate every table; move failing rows to rejects; stop on a broken table."""
    return pipeline.validate_tables(built)


def describe_run(
    run: RunSettings,
    inputs: Inputs,
    parsed: pipeline.ParsedDumps,
    built: pipeline.BuiltTables,
    published: dict[str, pl.DataFrame],
    work: dict[str, int],
) -> tuple[dict[str, Any], dict[str, str]]:
    """The run's manifest and its documents (report.md, report.html, JSON Schemas)."""
    run_manifest = manifest.build_manifest(
        run_id=run.run_id,
        started_at=run.started_at,
        finished_at=dt.datetime.now(dt.UTC),
        package_version=flows.__version__,
        schema_version=SCHEMA_VERSION,
        files=parsed["files"],
        tables=published,
        line_accounting=manifest.account_lines(built["lines"]),
        ruling_ids=built["ruling_ids"],
        since_previous={
            "previous_run_id": (inputs["previous_manifest"] or {}).get("run_id"),
            **manifest.compare_inputs(inputs["previous_manifest"], parsed["files"]),
        },
        work=work,
    )
    run_manifest["state_recovered"] = inputs["state"]["recovered"]
    documents = {
        "report.md": report.build_report(run_manifest, published) + _recovery_note(inputs["state"]),
        "report.html": report_html.build_report_html(run_manifest, published),
        **json_schema_documents(),  # typed readers work on empty tables too
    }
    return run_manifest, documents


def write_snapshot(
    published: dict[str, pl.DataFrame],
    run_manifest: dict[str, Any],
    output: OutputPaths,
    documents: dict[str, str],
) -> Path:
    """Write the complete snapshot folder, documents included."""
    return write.write_snapshot(
        published, run_manifest, output.root, run_manifest["run_id"], documents
    )


def stage_state(
    output: OutputPaths,
    parsed_files: state.ParsedFiles,
    languages: pl.DataFrame,
    registry: pl.DataFrame,
    file_index: pl.DataFrame,
    generation: str,
) -> state.StateRecord:
    """Write the next state generation (caches, file index, id registry), not yet current."""
    return state.stage_state(
        output.state, parsed_files, languages, registry, generation, file_index
    )


def switch_latest(output: OutputPaths, snapshot: Path) -> Path:
    """Point `latest` at the new snapshot atomically."""
    return write.switch_latest(output.root, snapshot)


def commit_state(output: OutputPaths, record: state.StateRecord) -> None:
    """Make the staged state generation current (the last step of a publish)."""
    state.commit_state(output.state, record)


def prune_snapshots(output: OutputPaths, retention: int) -> list[str]:
    """Delete snapshots beyond the newest `retention` (never the one `latest` points at)."""
    return write.prune_snapshots(output.root, retention)


@dataclass(frozen=True)
class Step:
    """A step: its function, and whether it touches the disk (retried on transient OS errors)."""

    fn: Callable[..., Any]
    io: bool = False


#: Every step of a run, by name, in the order `run_steps` calls them.
STEPS: dict[str, Step] = {
    "load_catalog": Step(load_catalog_index, io=True),
    "load_inputs": Step(load_inputs, io=True),
    "parse_batch": Step(parse_batch, io=True),
    "assemble_dumps": Step(assemble_dumps),
    "split_known_texts": Step(split_known_texts),
    "detect_languages": Step(detect_languages),
    "build_tables": Step(build_tables),
    "validate_tables": Step(validate_tables),
    "describe_run": Step(describe_run),
    "write_snapshot": Step(write_snapshot, io=True),
    "stage_state": Step(stage_state, io=True),
    "switch_latest": Step(switch_latest, io=True),
    "commit_state": Step(commit_state, io=True),
    "prune_snapshots": Step(prune_snapshots, io=True),
}


class Pending(Protocol):
    """A submitted step: `result()` waits for its value (or raises its error)."""

    def result(self) -> Any: ...


class Runner(Protocol):
    """Executes the steps of `STEPS` by name."""

    def call(self, name: str, *args: Any) -> Any:
        """Run a step and return its value."""
        ...

    def submit(self, name: str, *args: Any) -> Pending:
        """Start a step that may run alongside others; `result()` gives its value."""
        ...


@dataclass(frozen=True)
class _Done:
    value: Any

    def result(self) -> Any:
        return self.value


class DirectRunner:
    """Calls each step plainly, one after the other, in this process (no Prefect)."""

    def call(self, name: str, *args: Any) -> Any:
        """Run a step and return its value."""
        return STEPS[name].fn(*args)

    def submit(self, name: str, *args: Any) -> Pending:
        """Run a step now; its value is ready."""
        return _Done(self.call(name, *args))


class RunResult(TypedDict):
    """What `run_steps` returns."""

    manifest: dict[str, Any]
    snapshot: Path
    report: str  # report.md's text


def run_steps(runner: Runner, run: RunSettings) -> RunResult:
    """Every step of a run, under the output dir's run lock: raw dumps to a published snapshot.

    Raises:
        RunLockedError, RawDirError, ContractError, PublishError: see `rulings_flow`.
    """
    write.check_raw_output_overlap(run.raw_dir, run.output.root)  # before anything is read
    with hold_run_lock(run.output.root):
        return _sequence(runner, run)


def _sequence(runner: Runner, run: RunSettings) -> RunResult:
    out = run.output
    catalog_index, catalog_reused = (
        runner.call("load_catalog", run.catalog, out) if run.catalog else (None, True)
    )
    inputs = runner.call("load_inputs", run.raw_dir, out)
    cached = inputs["state"]["parsed"]
    known_ids = cached["dumps"]["dump_id"] if cached else pl.Series("dump_id", [], pl.String)
    parts = [
        runner.submit(
            "parse_batch",
            run.raw_dir,
            batch,
            known_ids,
            inputs["state"]["file_index"] if run.trust_metadata else None,
            out.parts(run.run_id),
            f"batch{i:05d}",
            run.max_file_bytes,
        )
        for i, batch in enumerate(_batches(inputs["paths"], run.batch_files))
    ]
    parsed, parsed_files, file_index, work = runner.call(
        "assemble_dumps", [p.result() for p in parts], cached, run.started_at.date()
    )
    write.remove_tree(out.parts_root)  # the run lock keeps other runs out
    reused, new_texts = runner.call("split_known_texts", parsed, inputs["state"]["languages"])
    fresh = [
        runner.submit("detect_languages", chunk, run.processes)
        for chunk in _chunks(new_texts, run.language_batches)
    ]
    detected = pipeline.combine_languages(reused, [f.result() for f in fresh], new_texts)
    built = runner.call(
        "build_tables", parsed, detected["languages"], inputs["state"]["registry"], catalog_index
    )
    published = runner.call("validate_tables", built["tables"])
    work = {
        **work,
        "languages_detected": detected["detected"],
        "languages_reused": detected["reused"],
        **({"catalog_parsed": int(not catalog_reused)} if run.catalog else {}),
    }
    run_manifest, documents = runner.call(
        "describe_run", run, inputs, parsed, built, published, work
    )
    snapshot = runner.call("write_snapshot", published, run_manifest, out, documents)
    pause_point("snapshot_written")
    _publish(runner, run, snapshot, parsed_files, detected["languages"], built, file_index)
    try:
        runner.call("prune_snapshots", out, max(1, run.retention))
    except Exception as exc:  # best effort: the run is published
        logger.warning("retention skipped (the run is published): %s", exc)
    logger.info("published %s: %s", snapshot, run_manifest["rows"])
    return RunResult(manifest=run_manifest, snapshot=snapshot, report=documents["report.md"])


def _publish(
    runner: Runner,
    run: RunSettings,
    snapshot: Path,
    parsed_files: state.ParsedFiles,
    languages: pl.DataFrame,
    built: pipeline.BuiltTables,
    file_index: pl.DataFrame,
) -> None:
    """Stage the new state, switch `latest`, commit the state; on any failure roll back.

    After a failure `latest` points where it pointed before, the new
    snapshot folder and the staged state are removed, and the error is raised.
    """
    out = run.output
    previous = write.latest_target(out.root)
    try:
        staged = runner.call(
            "stage_state",
            out,
            parsed_files,
            languages,
            built["registry"],
            file_index,
            run.run_id,
        )
        pause_point("state_staged")
        runner.call("switch_latest", out, snapshot)
        pause_point("latest_switched")
        runner.call("commit_state", out, staged)
        pause_point("state_committed")
    except BaseException:
        _roll_back(out, previous, snapshot, run.run_id)
        raise


def _roll_back(out: OutputPaths, previous: str | None, snapshot: Path, run_id: str) -> None:
    """Undo a publish that failed halfway (best effort: each step is tried)."""
    steps = (
        lambda: write.restore_latest(out.root, previous),
        lambda: write.remove_tree(snapshot),
        lambda: state.discard_state(out.state, run_id),
    )
    for step in steps:
        try:
            step()
        except OSError as exc:
            logger.warning("rollback step failed: %s", exc)


def _recovery_note(loaded: state.RunState) -> str:
    """A report section when the state had to be recovered (empty otherwise)."""
    if loaded["recovered"] is None:
        return ""
    return f"\n## State recovered\n\n**Warning**: {loaded['recovered']}\n"


def _batches(paths: list[str], size: int) -> list[pl.Series]:
    """`paths` in batches of `size` (String Series: Prefect does not walk a Series)."""
    return [pl.Series("path", paths[i : i + size], pl.String) for i in range(0, len(paths), size)]


def _chunks(texts: pl.Series, parts: int) -> list[pl.Series]:
    """`texts` in `parts` contiguous slices (fewer when there are few texts)."""
    size = max(1, -(-texts.len() // max(1, parts)))
    return [texts.slice(i, size) for i in range(0, texts.len(), size)] or [texts]


def run_direct(raw_dir: Path, output_dir: Path, processes: int = 1, **settings: Any) -> RunResult:
    """A whole run without Prefect (same steps, same sequence as the flow)."""
    started_at = dt.datetime.now(dt.UTC)
    return run_steps(
        DirectRunner(),
        RunSettings(
            raw_dir=raw_dir,
            output=OutputPaths(output_dir),
            run_id=new_run_id(started_at),
            started_at=started_at,
            processes=processes,
            **settings,
        ),
    )
