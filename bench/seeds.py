"""`make run` on the seeds, timed: Prefect's temporary server start apart from the pipeline's work.

`python -m bench seeds` records it in bench/results-seeds.json.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.timing import TARGETS, MeasuredRunError, count_lines, load_average, machine

#: The CLI's summary lines with its times (`flows.cli._time_rows`).
_TIME_LINE = re.compile(r"^time: (prefect server start|pipeline): ([0-9.]+) s$", re.MULTILINE)


def time_seed_run(raw_dir: Path, output: Path, env: dict[str, str]) -> dict[str, float]:
    """One `ruling-dumps run` of `raw_dir` into `output` (emptied first), as `make run` runs it.

    Returns (seconds):
        wall_s: the whole command, Python's start to its exit;
        server_start_s: Prefect's temporary server, start to first API answer
            (the summary's `time: prefect server start`);
        pipeline_s: from then until the flow returned (`time: pipeline`);
        exit_s: from the summary's last line to the process's end (Prefect's
            last logs sent, the server stopped, the interpreter's exit);
        after_server_s: pipeline_s + exit_s, the issue's "pipeline's own work";
        after_server_cpu_s: the CPU time (user + system, all threads, not the
            server's) the run's process spent from the server-up line to its
            end: on a shared machine, steadier than the wall times;
        before_server_s: the rest (Python's start, the CLI's imports and checks).

    Raises:
        MeasuredRunError: the run failed.
    """
    shutil.rmtree(output, ignore_errors=True)
    command = [sys.executable, "-m", "flows", "run", "--raw", str(raw_dir), "--output", str(output)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    stderr, last_line_at, cpu_at_up = "", started, 0.0
    for line in process.stderr:  # the summary ends the output: its last line is `time: pipeline`
        stderr, last_line_at = stderr + line, time.perf_counter()
        if "temporary server is up" in line:
            cpu_at_up = _own_cpu_s(process.pid)
    # ended but not reaped yet: /proc still has its CPU times
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
    ended, cpu_at_end = time.perf_counter(), _own_cpu_s(process.pid)
    code = process.wait()
    if code != 0:
        raise MeasuredRunError(command, code, stderr)
    times = {name: float(value) for name, value in _TIME_LINE.findall(stderr)}
    wall, server = ended - started, times["prefect server start"]
    after = times["pipeline"] + (ended - last_line_at)
    return {
        "wall_s": round(wall, 2),
        "server_start_s": server,
        "pipeline_s": times["pipeline"],
        "exit_s": round(ended - last_line_at, 2),
        "after_server_s": round(after, 2),
        "after_server_cpu_s": round(cpu_at_end - cpu_at_up, 2),
        "before_server_s": round(wall - server - after, 2),
    }


def _own_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` itself (all its threads, no children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_seed_benchmark(raw_dir: Path, work: Path, runs: int = 3) -> dict[str, Any]:
    """Time `runs` runs of `ruling-dumps run` on `raw_dir` (the seeds), each into a fresh output.

    Prefect's home is `work/prefect-home` for every run: the first run's server
    start includes creating its database, as on a fresh checkout; later ones
    start as `make run` does on a machine that ran it before. `median` is each
    field's median over the runs; the target is on that of `after_server_s`.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PREFECT_HOME"] = str(work / "prefect-home")
    load = {"before": load_average()}
    measured = [time_seed_run(raw_dir, work / "output", env) for _ in range(runs)]
    load["after"] = load_average()
    median = {key: sorted(m[key] for m in measured)[len(measured) // 2] for key in measured[0]}
    return {
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "load_average": load,
        "corpus": dict(zip(("files", "lines", "bytes"), count_lines(raw_dir), strict=True)),
        "runs": measured,
        "median": median,
        "against_targets": {
            "seeds_after_server_s": median["after_server_s"],
            "seeds_after_server_cpu_s": median["after_server_cpu_s"],
            "seeds_server_start_s": median["server_start_s"],
            "met": median["after_server_s"] <= TARGETS["seeds_after_server_s_max"],
            "target_s": TARGETS["seeds_after_server_s_max"],
        },
    }
