"""Peak memory of reading one large dump.

Run: `python -m bench memory --results bench/read-memory.json`.

Each measurement runs in a fresh process: a file of the given size (the five
seed dumps of `raw/` repeated, so every line is a real dump line) is read and
parsed by the run's parse steps (`disk.raw.parse_batch`: read, hash, decode,
split, classify, its parts written and read back; `dumps.assemble_dumps`:
dates, entries, headers, stubs), and the process's peak resident set size is taken
from `getrusage`. A process that reads a one-line file gives the baseline
(Python, polars, Babel data). Sizes default to fractions of the size limit,
up to `raw.MAX_FILE_BYTES`, the largest file a run accepts.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from flows.disk.raw import MAX_FILE_BYTES

SEED_DIR = Path(__file__).resolve().parents[1] / "raw"

_CHILD = """
import datetime as dt, resource, sys, json
from pathlib import Path
from typing import Any
import polars as pl
from flows.disk.raw import parse_batch, read_parts
from flows.stages.dumps import assemble_dumps
raw = Path(sys.argv[1])
none = pl.Series("dump_id", [], pl.String)
part = parse_batch(raw, pl.Series(["big.txt"]), none, raw.parent / "parts", "b", int(sys.argv[2]))
[files], parsed = read_parts([part])
assembled = assemble_dumps(files, parsed, dt.date(2026, 11, 30))
lines = assembled["resolved"].height
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"lines": lines, "peak_rss_bytes": peak}))
"""


def write_dump(folder: Path, size: int) -> Path:
    """A dump of about `size` bytes (whole seed files repeated) in `folder`/big.txt."""
    seeds = b"".join(p.read_bytes() for p in sorted(SEED_DIR.glob("*.txt")))
    path = folder / "big.txt"
    with path.open("wb") as dump:
        written = 0
        while written + len(seeds) <= size or written == 0:
            dump.write(seeds)
            written += len(seeds)
    return path


def measure(size: int) -> dict[str, int]:
    """Peak RSS of a fresh process parsing one file of about `size` bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        raw.mkdir()
        file_bytes = write_dump(raw, size).stat().st_size
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(raw), str(MAX_FILE_BYTES)],
            check=True,
            capture_output=True,
            text=True,
        )
    result: dict[str, int] = json.loads(out.stdout.strip().splitlines()[-1])
    return {"file_bytes": file_bytes, **result}


def measure_sizes(sizes_mb: list[int]) -> dict[str, Any]:
    """`measure` of each size (MiB), with its growth over the first (JSON-ready)."""
    rows: list[dict[str, Any]] = [measure(mb * 2**20) for mb in sizes_mb]
    baseline = rows[0]["peak_rss_bytes"]
    for row in rows:
        growth = row["peak_rss_bytes"] - baseline
        row["rss_over_baseline_per_file_byte"] = round(growth / row["file_bytes"], 2)
    return {
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version()},
        "size_limit_bytes": MAX_FILE_BYTES,
        "stages": "raw.parse_batch, raw.read_parts, dumps.assemble_dumps (no languages)",
        "rows": rows,
    }
