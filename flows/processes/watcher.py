"""No orphans: a run's child processes never outlive it, however it ends.

A run starts Prefect's temporary server, multiprocessing's resource tracker
and forkserver, language workers and Dask workers. When the run's own process
is killed with SIGKILL (by a user, the OOM killer, a supervisor signalling
only the main pid) nothing of it runs to stop them. So `watch_children` starts
one small watcher process first: it tags the run with a random token in the
environment, which every child started after inherits; the watcher notices
its parent is gone (its parent pid changes) and SIGKILLs every process that
carries the token, and every process it saw descending from the run.
Linux only (/proc); elsewhere it does nothing.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

#: The environment variable carrying a run's token.
TOKEN_VARIABLE = "RULING_DUMPS_RUN_TOKEN"
#: The environment variable naming the pid the token's watcher watches.
OWNER_VARIABLE = "RULING_DUMPS_RUN_OWNER"

_WATCHER = r"""
import os, signal, sys, time
token, parent = sys.argv[1].encode(), int(sys.argv[2])
needle = b"RULING_DUMPS_RUN_TOKEN=" + token + b"\0"

def processes():
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            yield int(entry)

def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None

def tagged(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return needle in environ.read()
    except OSError:
        return False

def descendants(roots):
    found, children = set(roots), {}
    for pid in processes():
        children.setdefault(parent_of(pid), []).append(pid)
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found - {parent}

seen = set()
while os.getppid() == parent:
    seen = descendants({parent})
    time.sleep(0.5)
for _ in range(20):  # until nothing is left (a forkserver may fork while dying)
    doomed = {pid for pid in processes() if tagged(pid)} | (descendants(seen) & set(processes()))
    doomed.discard(os.getpid())
    if not doomed:
        break
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    seen = set()
    time.sleep(0.2)
"""


def watch_children() -> subprocess.Popen[bytes] | None:
    """Start the watcher for this process (once); returns it, or None where /proc is absent.

    Sets `RULING_DUMPS_RUN_TOKEN` (and the owner's pid) in this process's
    environment, so call it before starting any child. A process started by a
    watched one (a served run's flow-run process, which Prefect's runner
    starts from `ruling-dumps serve`) gets a watcher and a token of its own:
    its children end with it, and it ends with its parent.
    """
    if os.environ.get(OWNER_VARIABLE) == str(os.getpid()):
        return None  # this process is watched already
    if not Path("/proc/self/environ").exists():
        return None
    token = secrets.token_hex(16)
    os.environ[TOKEN_VARIABLE] = token  # children started from now on carry this run's token
    os.environ[OWNER_VARIABLE] = str(os.getpid())
    watcher_env = {k: v for k, v in os.environ.items() if k not in (TOKEN_VARIABLE, OWNER_VARIABLE)}
    return subprocess.Popen(
        [sys.executable, "-c", _WATCHER, token, str(os.getpid())],
        env=watcher_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C in the terminal reaches the run, not the watcher
    )
