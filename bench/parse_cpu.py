"""CPU time of each step of a cold parse, without Prefect or langdetect.

Run: `python -m bench parse-cpu RAW_DIR --results bench/parse-cpu-100k.json`.

Reads every dump of RAW_DIR and runs the stages of `disk.raw.parse_batch` and
`dumps.assemble_dumps` one by one (read, hash, decode, split, classify,
dates, entries, stubs), taking each step's CPU time (`time.process_time`:
user + system, all threads of this process) and wall time. CPU time is the
figure to compare: on a shared machine wall time mostly measures the others.
Then the parse again in batches of `run.BATCH_FILES` files against one call over
all of them (`measure_batches`): the CPU each batch adds.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from flows.disk import raw
from flows.run import BATCH_FILES
from flows.stages import dates, decode, parse, stubs


def measure(raw_dir: Path, today: dt.date) -> dict[str, Any]:
    """{step: {cpu_s, wall_s}} for each parse step over every dump of `raw_dir`, and totals."""
    steps: dict[str, dict[str, float]] = {}

    def timed(name: str, step: Callable[..., Any], *args: Any) -> Any:
        cpu, wall = time.process_time(), time.perf_counter()
        result = step(*args)
        steps[name] = {
            "cpu_s": round(time.process_time() - cpu, 3),
            "wall_s": round(time.perf_counter() - wall, 3),
        }
        return result

    paths = timed("list_dump_paths", raw.list_dump_paths, raw_dir)
    loaded = timed("load_raw_dumps", raw.load_raw_dumps, raw_dir, paths)
    hashed = timed("hash_dumps", decode.hash_dumps, loaded)
    decoded = timed("decode_dumps", decode.decode_dumps, hashed)
    readable = decoded.filter(pl.col("reject_reason").is_null())
    split = timed("split_lines", decode.split_lines, readable)
    classified = timed("classify_lines", parse.classify_lines, split)
    published = timed(
        "parse_published_dates", dates.parse_published_dates, classified["date_text"], today
    )
    resolved = timed("resolve_entries", parse.resolve_entries, classified, published)
    timed("parse_card_stubs", stubs.parse_card_stubs, resolved)
    return {
        "files": len(paths),
        "lines": split.height,
        "steps": steps,
        "total_cpu_s": round(sum(s["cpu_s"] for s in steps.values()), 3),
        "total_wall_s": round(sum(s["wall_s"] for s in steps.values()), 3),
        "batches": measure_batches(hashed, BATCH_FILES),
    }


def measure_batches(hashed: pl.DataFrame, batch_files: int) -> dict[str, Any]:
    """CPU of `parse.parse_files` over `hashed` in batches of `batch_files`, one after
    another in one thread (as a parse worker runs a cold run's batches), against one call
    over all of it: what each batch costs beyond its files (null with one batch: the two
    then parse the same files, and their difference is noise). (polars keeps 32 compiled
    regexes per thread: a parse using more compiles each again in every batch.)"""
    parse.parse_files(hashed.head(batch_files))  # imports and first compiles: not counted
    started = time.process_time()
    for start in range(0, hashed.height, batch_files):
        parse.parse_files(hashed.slice(start, batch_files))
    batched = time.process_time() - started
    started = time.process_time()
    parse.parse_files(hashed)
    whole = time.process_time() - started
    batches = -(-hashed.height // batch_files)
    return {
        "batch_files": batch_files,
        "batches": batches,
        "batched_cpu_s": round(batched, 3),
        "one_call_cpu_s": round(whole, 3),
        "overhead_per_batch_cpu_s": round((batched - whole) / batches, 3) if batches > 1 else None,
    }


def measure_parse(raw_dir: Path) -> dict[str, Any]:
    """`measure` of `raw_dir` today, with the machine and its load (JSON-ready)."""
    return {
        "raw_dir": str(raw_dir),
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"polars {pl.__version__}",
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        **measure(raw_dir, dt.datetime.now(dt.UTC).date()),
    }
