"""No orphans in a served run: kill -9 of the flow-run process alone ends its children."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: A served run: `serve` (watched by the CLI) starts a flow-run process, which
#: starts workers. The flow-run process is the one an OOM killer picks.
ENGINE = """
import os, subprocess, sys
from flows.processes.watcher import watch_children
watch_children()
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(worker.pid, flush=True)
import time; time.sleep(600)
"""
SERVE = f"""
import os, subprocess, sys
from flows.processes.watcher import watch_children
watch_children()
engine = subprocess.Popen([sys.executable, "-c", {ENGINE!r}], stdout=subprocess.PIPE,
                          env={{**os.environ, "PREFECT__FLOW_RUN_ID": "x"}})
print(engine.pid, engine.stdout.readline().decode().strip(), flush=True)
import time; time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="Linux /proc only")
def test_killing_a_served_flow_run_process_alone_ends_its_workers() -> None:
    serve = subprocess.Popen([sys.executable, "-c", SERVE], stdout=subprocess.PIPE)
    try:
        assert serve.stdout is not None
        engine, worker = (int(p) for p in serve.stdout.readline().split())
        assert _alive(worker)
        os.kill(engine, signal.SIGKILL)
        deadline = time.monotonic() + 300  # generous: the machine may be busy
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _alive(worker)
        assert serve.poll() is None  # serve itself goes on
    finally:
        serve.kill()
        serve.wait()
