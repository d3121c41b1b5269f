"""A real Prefect server for the benchmark: `prefect server start` on loopback.

The nightly deployment runs against a real server (`ruling-dumps serve`), so
the benchmark measures flows against one.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


@contextmanager
def prefect_server(home: Path, timeout: float = 180) -> Iterator[str]:
    """Run `prefect server start` on a free loopback port and its own PREFECT_HOME; yield its API.

    Raises:
        TimeoutError: the server did not answer its health check in `timeout` seconds.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    api = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(
        {
            "PREFECT_HOME": str(home),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_UI_ENABLED": "false",
        }
    )
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "prefect"),
            "server",
            "start",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while not _healthy(api):
            if time.monotonic() > deadline or server.poll() is not None:
                raise TimeoutError(f"the Prefect server at {api} did not start")
            time.sleep(0.5)
        # a fresh server builds its database engine on its first API call (0.55-0.64 s):
        # part of its start, as the command line's temporary server counts it, not of a run
        httpx.get(f"{api}/admin/version", timeout=timeout).raise_for_status()
        yield api
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def _healthy(api: str) -> bool:
    try:
        return httpx.get(f"{api}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
