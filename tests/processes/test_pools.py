"""pools: the forkserver ignores a Ctrl-C from its first import on; its workers end on one."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

#: Starts the forkserver and a pool as a run does; prints the forkserver's blocked
#: signals (/proc SigBlk), a worker's, and this thread's after the start.
PROBE = """
import signal, time, psutil
from flows.processes.pools import process_pool, start_forkserver

def forkserver():  # once exec'd: its command line names multiprocessing's forkserver
    for child in psutil.Process().children():
        try:
            if "multiprocessing.forkserver" in " ".join(child.cmdline()):
                return child
        except psutil.Error:
            pass

if __name__ == "__main__":
    start_forkserver(["flows.processes.pools"])
    deadline = time.monotonic() + 300  # generous: a busy machine may take long to exec it
    while (server := forkserver()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    status = open(f"/proc/{server.pid}/status").read()
    blocked = int(status.split("SigBlk:")[1].split()[0], 16)
    print("forkserver", bool(blocked & 1 << (signal.SIGINT - 1)))
    with process_pool(1, ["flows.processes.pools"]) as pool:
        worker = pool.submit(signal.pthread_sigmask, signal.SIG_BLOCK, []).result()
        action = pool.submit(signal.getsignal, signal.SIGINT).result()
    print("worker", signal.SIGINT in worker, action is signal.SIG_DFL)
    print("caller", signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))
"""


def test_the_forkserver_blocks_sigint_and_its_workers_do_not() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["forkserver True", "worker False True", "caller False"]
