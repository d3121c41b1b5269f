"""The records of state generations and `state.json`: their shapes, read and checked.

`state.json` holds the committed records, `current` and `previous` (the
fallback), with its `format_version` and where the state belongs: the
output dir and the raw dir of the run that committed it (`commit_state`).
Any JSON may come in: what is not such a record is StateCorruptError, a
newer format than this code knows is StateFormatError (the run stops).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

from flows.errors import StateFormatError

#: The layout of `state.json` this code writes (`format_version`); a file without one is
#: format 1 (the same layout, before the version was written): it is read as it is.
STATE_FORMAT = 2


class StateRecord(TypedDict):
    """One generation's record (`generation.<run_id>.json`)."""

    generation: str
    cache_keys: dict[str, str]  # "parsed", "languages", "results": `cache_keys.cache_keys`
    files: dict[str, dict[str, str]]  # state file kind -> {"file": name, "sha256": hex}


class StateCorruptError(Exception):
    """A state generation cannot be used (a file missing, altered or unreadable)."""


class Committed(TypedDict, total=False):
    """`state.json` as read: only what this code knows of it (other keys are left)."""

    current: StateRecord
    previous: StateRecord | None
    output_dir: str  # the output dir's real path when committed (format 2)
    raw_dir: str  # the raw dir's real path of the run that committed it (format 2)


def read_committed(state_dir: Path, strict: bool = False) -> Committed:
    """`state.json`'s committed records and origin; {} when absent.

    Keys a later version added are left unread; a `format_version` above
    STATE_FORMAT is refused whatever `strict` says.

    Raises:
        StateFormatError: it was written by newer code (a later format_version).
        StateCorruptError: (only when `strict`) it is not such a JSON object.
    """
    path = state_dir / "state.json"
    if not path.is_file():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(found, dict) or not isinstance(found.get("current"), dict):
            raise ValueError("no current generation in it")
        version = found.get("format_version", 1)
        if type(version) is not int or version < 1:
            raise ValueError(f"format_version {version!r} is not a positive integer")
        if version > STATE_FORMAT:
            raise StateFormatError(
                f"{path} is state format {version}, written by a newer ruling-dumps; this one "
                f"reads formats 1 to {STATE_FORMAT}: upgrade it, or move {state_dir} away "
                "(the next run starts cold and ruling ids become content ids)"
            )
        committed = Committed(
            current=_record(found["current"]),
            previous=None if found.get("previous") is None else _record(found["previous"]),
        )
        for origin in ("output_dir", "raw_dir"):
            if isinstance(found.get(origin), str):
                committed[origin] = found[origin]  # type: ignore[literal-required]
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
        if strict:
            raise StateCorruptError(f"unreadable ({exc})") from exc
        return {}
    return committed


def committed_text(
    current: StateRecord, previous: StateRecord | None, output_dir: Path, raw_dir: Path | None
) -> dict[str, Any]:
    """What `state.json` holds (format STATE_FORMAT): the records and where they belong."""
    return {
        "format_version": STATE_FORMAT,
        "output_dir": str(output_dir.resolve()),
        **({"raw_dir": str(raw_dir.resolve())} if raw_dir is not None else {}),
        "current": current,
        "previous": previous,
    }


def committed_generations(committed: Committed) -> list[str]:
    """The generations `state.json` names: current, then previous when there is one."""
    records = (committed.get("current"), committed.get("previous"))
    return [r["generation"] for r in records if r]


def read_record(path: Path) -> StateRecord:
    """A generation's record file (`generation.<run_id>.json`).

    Raises:
        StateCorruptError: missing, not a regular file, unreadable, or not a record's shape.
    """
    if not path.is_file() or path.is_symlink():  # missing, a FIFO (never opened: it blocks)
        raise StateCorruptError(f"{path.name} is missing or not a regular file")
    try:
        return _record(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise StateCorruptError(f"{path.name} is unreadable ({exc})") from exc


def _record(value: Any) -> StateRecord:
    """`value` as a StateRecord (its three keys; others a later version added are left).

    Raises:
        ValueError: not a record's shape.
    """
    _check_record(value)
    return StateRecord(
        generation=value["generation"], cache_keys=value["cache_keys"], files=value["files"]
    )


def _check_record(record: Any) -> None:
    """Raise ValueError unless `record` has a generation record's shape (any JSON may come in)."""
    files = record.get("files") if isinstance(record, dict) else None
    if not (
        isinstance(files, dict)
        and isinstance(record.get("generation"), str)
        and isinstance(record.get("cache_keys"), dict)
        and all(
            isinstance(s, dict)
            and isinstance(s.get("file"), str)
            and isinstance(s.get("sha256"), str)
            for s in files.values()
        )
    ):
        raise ValueError("not a generation record")
