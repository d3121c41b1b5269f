"""The runs at scale (10M lines, an archive of ten sites): cold, warm and unchanged flows,
and the steps of a direct cold run, without the floor and naive references.

`run_scale` measures, on a corpus from `corpus.generate_corpus`:

- the flow (`python -m flows run`) against a running Prefect server, cold,
  warm (1 % of dumps changed) and unchanged: wall and CPU seconds, µs per
  line, peak RSS of the run's process and of its whole tree (`timing.measure`);
- a direct cold run (`bench/steps.py`: `run.run_direct` with each step
  timed), so that a step growing faster than its input shows up when two
  sizes are compared (bench/results-scale-*.json, docs/benchmarks.md).

The floor and the naive reference (`bench run`) would take most of an hour
at 10M lines and say nothing new there: they are per distinct text and per
line, measured at 1M.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from bench.server import prefect_server
from bench.timing import change_dumps, count_lines, load_average, machine, measure
from flows.disk.paths import OutputPaths


def run_scale(corpus: Path, work: Path, changed_share: float = 0.01) -> dict[str, Any]:
    """Measure the flow's cold, warm and unchanged runs and a direct cold run's steps.

    `corpus` is copied to `work/raw` (the warm run changes dumps); outputs go to `work/`.
    Returns the results (JSON-ready): corpus, load averages, each run's
    `measure` figures with lines_per_s, us_per_line and its manifest's work
    and rows, and `direct_steps_s` (step name -> seconds, the run's main thread).
    """
    raw, output, direct = work / "raw", work / "output", work / "direct"
    for path in (raw, output, direct):
        shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(corpus, raw)
    files, lines, size = count_lines(raw)
    env = {**os.environ, "PREFECT_HOME": str(work / "prefect-home")}
    flow_run = [sys.executable, "-m", "flows", "run", "--raw", str(raw), "--output", str(output)]
    steps = work / "steps.json"
    direct_run = [sys.executable, str(Path(__file__).with_name("steps.py")), str(raw), str(direct)]
    load, runs = {"before": load_average()}, {}
    with prefect_server(work / "prefect-server-home") as api:
        served = {**env, "PREFECT_API_URL": api}
        for kind in ("cold", "warm", "unchanged"):
            if kind == "warm":  # the direct cold run reads the corpus as the cold run did
                runs["direct"] = measure([*direct_run, str(steps)], work, env)
                load["after_direct"] = load_average()
                runs["changed_for_warm"] = change_dumps(raw, changed_share)
            runs[kind] = measure(flow_run, work, served)
            manifest = json.loads(OutputPaths(output).latest_manifest.read_text())
            runs[kind] |= {
                "lines_per_s": round(lines / runs[kind]["wall_s"]),
                "us_per_line": round(runs[kind]["wall_s"] / lines * 1e6, 1),
                "work": manifest["work"],
                "rows": manifest["rows"],
            }
            load[f"after_{kind}"] = load_average()
    return {
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "load_average": load,
        "corpus": {"files": files, "lines": lines, "bytes": size},
        **runs,
        "direct_steps_s": json.loads(steps.read_text()),
    }
