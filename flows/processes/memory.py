"""An address-space limit (`ulimit -v`, `prlimit --as`): fit the run under it, or refuse it.

A run's process reserves much more address space than it uses: glibc's
malloc reserves 64 MiB per arena (up to 8 per core, one per busy thread),
every thread its stack, polars' jemalloc its own. Under RLIMIT_AS a run
that reaches the limit cannot fail cleanly: polars (Rust) aborts the process
(exit 134, `memory allocation of N bytes failed`), or Python cannot start a
thread. So, only when such a limit is set:

- `fit_address_space` (the console script's first step, before polars is
  imported) caps glibc at ADDRESS_SPACE_ARENAS arenas in this process and,
  through the environment, in its children (Prefect's server, the workers),
  turns off jemalloc's background threads and caps polars' thread pool;
  a run on the seeds then reserves 1.20 GiB instead of 2.10;
- `check_address_space` refuses a run whose limit is below what its raw
  dumps need (`address_space_needed`), with one line, before anything is
  read or written;
- `describe_memory_failure` turns what can still be caught (MemoryError,
  `can't start new thread`) into one line naming the limit.

Environment (set only under a limit, and only when unset): MALLOC_ARENA_MAX,
POLARS_MAX_THREADS, _RJEM_MALLOC_CONF (polars' jemalloc).
"""

from __future__ import annotations

import ctypes
import os
import resource
from contextlib import suppress

from flows.errors import AddressSpaceError

GIB = 2**30
MIB = 2**20
#: glibc malloc arenas under a limit (each reserves 64 MiB of address space).
ADDRESS_SPACE_ARENAS = 2
#: polars threads under a limit, at most (each reserves ~6 MiB).
ADDRESS_SPACE_POLARS_THREADS = 4
#: Address space the command line needs to load (polars, pandera, numpy's OpenBLAS:
#: 0.41 GiB measured; below ~0.35 GiB OpenBLAS's own line ends the process).
LOAD_NEED = 0.5 * GIB
#: Address space a run needs whatever its input, and per byte of raw dumps: measured
#: VmPeak of the run's process with `fit_address_space` on the bench corpus (fourteen
#: languages; wordfreq loads each one's word list) and the seeds, plus about 10 %:
#: 1.20 GiB (the seeds, 19 kB), 1.44 GiB (0.5 MB), 1.66 GiB (9.6 MB, 100k lines),
#: 2.81 GiB (96 MB, a million lines); docs/operations.md.
BASE_NEED = 1.7 * GIB
NEED_PER_RAW_BYTE = 15 * MIB / 1_000_000
_M_ARENA_MAX = -8  # mallopt's parameter (glibc's malloc.h)


def address_space_limit() -> int | None:
    """This process's soft RLIMIT_AS in bytes, or None when unlimited."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def fit_address_space() -> None:
    """Under an address-space limit: reserve less of it (see the module docstring).

    Call before polars is imported (it reads POLARS_MAX_THREADS and its
    jemalloc's settings once) and before threads start; without a limit it
    does nothing.
    """
    if address_space_limit() is None:
        return
    cores = os.cpu_count() or 1
    os.environ.setdefault("MALLOC_ARENA_MAX", str(ADDRESS_SPACE_ARENAS))  # for child processes
    os.environ.setdefault("POLARS_MAX_THREADS", str(min(cores, ADDRESS_SPACE_POLARS_THREADS)))
    os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:false")
    # this process read MALLOC_ARENA_MAX at its start: tell its malloc now (glibc only)
    with suppress(AttributeError, OSError, ValueError):
        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, int(os.environ["MALLOC_ARENA_MAX"]))


def check_loadable(limit: int | None) -> None:
    """Refuse to load the command line under an address-space `limit` it cannot load in.

    Raises:
        AddressSpaceError: `limit` is below LOAD_NEED.
    """
    if limit is not None and limit < LOAD_NEED:
        raise AddressSpaceError(
            f"the address-space limit ({_gib(limit)}, ulimit -v) is below what ruling-dumps "
            f"needs to start (about {_gib(LOAD_NEED)}): raise it (ulimit -v unlimited)"
        )


def address_space_needed(raw_bytes: int) -> int:
    """Bytes of address space a cold run over `raw_bytes` of dumps needs (without --catalog)."""
    return int(BASE_NEED + NEED_PER_RAW_BYTE * raw_bytes)


def check_address_space(raw_bytes: int, limit: int | None) -> None:
    """Refuse a run whose address-space limit is below what `raw_bytes` of dumps need.

    Args:
        raw_bytes: the dumps' size (`raw.dump_bytes`).
        limit: the address-space limit in bytes (`address_space_limit`); None: unlimited.

    Raises:
        AddressSpaceError: the limit is set and too low (the line says both
            figures and the fix); nothing was read or written.
    """
    needed = address_space_needed(raw_bytes)
    if limit is not None and limit < needed:
        raise AddressSpaceError(
            f"the address-space limit ({_gib(limit)}, ulimit -v) is below what a run over "
            f"{_megabytes(raw_bytes)} of dumps needs (about {_gib(needed)}): raise it "
            "(ulimit -v unlimited) or run on fewer dumps; nothing was read"
        )


def describe_memory_failure(exc: BaseException, limit: int | None) -> str | None:
    """One line for a failure to get memory or a thread (MemoryError, `can't start new
    thread`), naming the address-space `limit` (`address_space_limit`) if there is one;
    None for other errors."""
    if isinstance(exc, MemoryError):
        what = "out of memory"
    elif isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
        what = "out of memory: can't start a new thread"
    else:
        return None
    if limit is None:
        return what
    return (
        f"{what} under the address-space limit ({_gib(limit)}, ulimit -v): raise it "
        "(docs/operations.md says what a run needs)"
    )


def _gib(size: float) -> str:
    return f"{size / GIB:.2f} GiB"


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
