"""Errors the pipeline raises when a batch cannot go on.

Bad input lines are data (rows of the `rejects` table), never exceptions: these
errors are for conditions that stop the whole run before anything is published.
"""

from __future__ import annotations

import errno
import os

#: The line's text when a Ctrl-C stopped a run before it was published (`flows.cli`,
#: `flows.console`).
INTERRUPTED_UNPUBLISHED = "interrupted: nothing was published"


class RulingsError(Exception):
    """Base class: the run stops, nothing is published, the CLI prints one line."""


class RawDirError(RulingsError):
    """The raw dir is missing, holds no dump file, or overlaps the output's snapshots/ or state/."""


class ContractError(RulingsError):
    """An output table fails the data contract as a whole (a column missing or mistyped)."""


class PublishError(RulingsError):
    """A snapshot could not be written or `latest` could not be switched to it."""


class RunLockedError(RulingsError):
    """Another run is publishing into the same output dir."""


class ServerStartError(RulingsError):
    """Prefect's temporary local server did not start in time."""


class CatalogError(RulingsError):
    """The card catalog is missing, unreadable, not JSON, or not MTGJSON's layout."""


class WorkerDiedError(RulingsError):
    """A worker process of the run ended abruptly (killed, or out of memory)."""

    def __init__(self, work: str) -> None:
        super().__init__(
            f"a worker process ended abruptly while {work} (killed, or out of memory?); "
            "nothing was published"
        )


class DiskFullError(RulingsError, OSError):
    """A file could not be written: its file system is full (or the quota used up); not retried.

    Also an OSError (errno ENOSPC or EDQUOT), so code that handles a failed
    write as an OSError still does. Says `no space left on device writing <path>`.
    """

    def __init__(self, path: str, code: int = errno.ENOSPC) -> None:
        super().__init__(code, f"{os.strerror(code)[:1].lower()}{os.strerror(code)[1:]}", path)

    def __str__(self) -> str:
        return f"{self.strerror} writing {self.filename}"

    def __reduce__(self) -> tuple[type[DiskFullError], tuple[str, int]]:
        return type(self), (self.filename, self.errno)  # raised in a worker process too


class AddressSpaceError(RulingsError):
    """The process's address-space limit (ulimit -v) is below what the run needs."""


class OutputDirError(RulingsError):
    """A path the run writes under the output dir is a symlink: found before the run, nothing
    is read or written; found during it (a link made meanwhile), the run is rolled back."""


class StateFormatError(RulingsError):
    """`state/state.json` was written by newer code (a later `format_version`): the run stops."""
