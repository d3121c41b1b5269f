"""memory: under an address-space limit a run fits itself, or is refused in one line."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from flows.errors import AddressSpaceError
from flows.processes import memory
from flows.processes.memory import GIB, MIB
from tests.conftest import REPO, SEED_DIR, cli_run


def _under(limit: int) -> None:
    """As `prlimit --as=<limit>` or `ulimit -v`: this process's address space limited."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


def _run_under(
    limit: int, tmp_path: Path, api: str | None = None
) -> subprocess.CompletedProcess[str]:
    command, env = cli_run(tmp_path, tmp_path / "out", api)
    return subprocess.run(
        command, cwd=REPO, env=env, preexec_fn=lambda: _under(limit), capture_output=True,
        text=True, timeout=900, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("raw_bytes", "needed"),
    [(0, 1.7 * GIB), (19_000, 1.7 * GIB + 0.285 * MIB), (96_000_000, 1.7 * GIB + 1440 * MIB)],
    ids=["nothing", "the-seeds", "a-million-lines"],
)
def test_what_a_run_needs(raw_bytes: int, needed: float) -> None:
    assert memory.address_space_needed(raw_bytes) == int(needed)


def test_a_limit_below_the_need_is_refused_in_one_line() -> None:
    memory.check_address_space(10**9, None)  # no limit: nothing to check
    memory.check_address_space(19_000, 2 * GIB)
    with pytest.raises(AddressSpaceError) as refused:
        memory.check_address_space(19_000, 1_500_000_000)
    assert str(refused.value) == (
        "the address-space limit (1.40 GiB, ulimit -v) is below what a run over 19 kB of dumps "
        "needs (about 1.70 GiB): raise it (ulimit -v unlimited) or run on fewer dumps; "
        "nothing was read"
    )
    with pytest.raises(AddressSpaceError, match=r"over 96\.0 MB of dumps needs \(about 3\.11 GiB"):
        memory.check_address_space(96_000_000, 3 * GIB)


@pytest.mark.parametrize(
    ("failure", "limit", "line"),
    [
        (MemoryError(), None, "out of memory"),
        (
            RuntimeError("can't start new thread"),
            1_200_000_000,
            "out of memory: can't start a new thread under the address-space limit (1.12 GiB, "
            "ulimit -v): raise it (docs/operations.md says what a run needs)",
        ),
        (RuntimeError("dictionary changed size during iteration"), None, None),
    ],
    ids=["memory-error", "no-thread-under-a-limit", "other"],
)
def test_what_can_be_caught_of_a_memory_failure(
    failure: BaseException, limit: int | None, line: str | None
) -> None:
    assert memory.describe_memory_failure(failure, limit) == line


def test_the_issue_limit_is_one_line_before_anything_is_written(tmp_path: Path) -> None:
    # `prlimit --as=1500000000 ruling-dumps run`: exit 134 and a Rust `stack backtrace:`, or
    # `RuntimeError: can't start new thread`
    refused = _run_under(1_500_000_000, tmp_path)
    seeds = sum(p.stat().st_size for p in SEED_DIR.glob("*.txt"))
    assert (refused.returncode, refused.stderr) == (
        1,
        "error: the address-space limit (1.40 GiB, ulimit -v) is below what a run over "
        f"{seeds / 1e3:.0f} kB of dumps needs (about 1.70 GiB): raise it (ulimit -v unlimited) "
        "or run on fewer dumps; nothing was read\n",
    )
    assert not (tmp_path / "out").exists()


def test_a_limit_too_low_to_load_is_one_line(tmp_path: Path) -> None:
    refused = _run_under(300_000_000, tmp_path)  # OpenBLAS (numpy) could not even start
    assert (refused.returncode, refused.stderr) == (
        1,
        "error: the address-space limit (0.28 GiB, ulimit -v) is below what ruling-dumps needs "
        "to start (about 0.50 GiB): raise it (ulimit -v unlimited)\n",
    )


@pytest.mark.flow
def test_a_run_fits_under_a_limit_above_its_need(prefect_api: str, tmp_path: Path) -> None:
    # glibc's arenas capped, polars' threads and jemalloc's background threads too: the
    # seeds' run reserves 1.20 GiB (2.10 GiB without)
    done = _run_under(memory.address_space_needed(30_000), tmp_path, prefect_api)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "latest" / "manifest.json").is_file()


#: Prints what `fit_address_space` set for this process and its children.
FIT = (
    "import os; from flows.processes.memory import fit_address_space; fit_address_space(); "
    "print(sorted(n for n in ('MALLOC_ARENA_MAX', 'POLARS_MAX_THREADS', '_RJEM_MALLOC_CONF') "
    "if n in os.environ))"
)
SETTINGS = ("MALLOC_ARENA_MAX", "POLARS_MAX_THREADS", "_RJEM_MALLOC_CONF")


@pytest.mark.parametrize("limited", [False, True], ids=["no-limit", "a-limit"])
def test_the_process_is_fitted_only_under_a_limit(limited: bool) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FIT], cwd=REPO, capture_output=True, text=True, check=False,
        env={k: v for k, v in os.environ.items() if k not in SETTINGS},
        preexec_fn=(lambda: _under(4 * GIB)) if limited else None,
    )  # fmt: skip
    assert done.stdout == (f"{sorted(SETTINGS)}\n" if limited else "[]\n"), done.stderr
