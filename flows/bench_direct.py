"""The cold run's steps without Prefect, for the benchmark's orchestration share.

Usage: python -m flows.bench_direct RAW_DIR OUTPUT_DIR
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

import polars as pl

from flows import pipeline
from flows.stages import language, manifest, read, report, state, write

BATCH_FILES = 5000


def run_direct(raw_dir: Path, output_dir: Path) -> Path:
    """Parse in batches, detect languages across processes, build, validate, publish."""
    today = dt.datetime.now(dt.UTC).date()
    paths = read.list_dump_paths(raw_dir)
    none = pl.Series("dump_id", [], pl.String)
    batches = [
        pipeline.parse_batch(raw_dir, pl.Series(paths[i : i + BATCH_FILES]), none)
        for i in range(0, len(paths), BATCH_FILES)
    ]
    files = pl.concat([b["files"] for b in batches]).sort("path")
    parsed_files = pipeline.merge_parsed(*(b["parsed"] for b in batches))
    parsed = pipeline.assemble_dumps(files, parsed_files, today)
    reused, new_texts = pipeline.split_known_texts(parsed, None)
    fresh = language.detect_languages(new_texts, processes=os.cpu_count() or 1)
    detected = pipeline.combine_languages(reused, [fresh], new_texts)
    built = pipeline.build_tables(parsed, detected["languages"])
    published = pipeline.validate_tables(built["tables"])
    run_manifest = manifest.build_manifest(
        run_id="direct",
        started_at=dt.datetime.now(dt.UTC),
        finished_at=dt.datetime.now(dt.UTC),
        package_version="direct",
        schema_version="direct",
        files=parsed["files"],
        tables=published,
        line_accounting=manifest.account_lines(built["lines"]),
        ruling_ids=built["ruling_ids"],
    )
    snapshot = write.write_snapshot(
        published,
        run_manifest,
        output_dir,
        "direct",
        {"report.md": report.build_report(run_manifest, published)},
    )
    state.save_state(
        output_dir / "state", parsed_files, detected["languages"], built["registry"], "direct"
    )
    return snapshot


if __name__ == "__main__":
    run_direct(Path(sys.argv[1]), Path(sys.argv[2]))
