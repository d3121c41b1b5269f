"""interrupt: SIGTERM and SIGHUP stop a run as Ctrl-C does, and end the workers it started."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import Any

import pytest

from flows.errors import RulingsError
from flows.processes import interrupt


@pytest.fixture
def stop_signals(hangup_default: None) -> Iterator[None]:
    """The stop signals' handlers and the run's flag, as they were after the test (SIGHUP's
    default action during it: `conftest.hangup_default`)."""
    before = {signum: signal.getsignal(signum) for signum in interrupt.STOP_SIGNALS}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)
    interrupt.interrupted.clear()


@pytest.mark.parametrize(
    ("signum", "published", "line"),
    [
        (signal.SIGINT, False, "interrupted: nothing was published"),
        (signal.SIGTERM, False, "terminated (SIGTERM): nothing was published"),
        (signal.SIGHUP, False, "terminated (SIGHUP): nothing was published"),
        (
            signal.SIGTERM,
            True,
            "terminated (SIGTERM) after the run was published (latest -> snapshots/new)",
        ),
    ],
    ids=["sigint", "sigterm", "sighup", "sigterm-published"],
)
def test_the_line_names_the_signal(
    stop_signals: None,
    signum: signal.Signals,
    published: bool,
    line: str,
) -> None:
    latest = ["snapshots/old"]
    with (
        pytest.raises(RulingsError) as stopped,
        interrupt.ctrl_c(lambda: latest[0], ends_with_run=False),
    ):
        handlers = {signal.getsignal(s) for s in interrupt.STOP_SIGNALS}
        assert handlers == {interrupt.on_stop_signal}
        if published:
            latest[0] = "snapshots/new"
        interrupt.on_stop_signal(signum, None)  # as the signal's delivery calls it
    assert str(stopped.value) == line
    assert not interrupt.interrupted.is_set()  # the process goes on: the next run is not stopped
    assert interrupt.on_stop_signal not in {signal.getsignal(s) for s in interrupt.STOP_SIGNALS}


def test_a_signal_ignored_from_the_start_stays_ignored(stop_signals: None) -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup
    with interrupt.ctrl_c(lambda: None, ends_with_run=False):
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is interrupt.on_stop_signal
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN


def test_a_stop_signal_ends_the_registered_workers_first(stop_signals: None) -> None:
    # SIGTERM to the main pid alone never reaches the pools' workers: the handler ends them
    ended: list[str] = []
    with (
        pytest.raises(RulingsError, match=r"^terminated \(SIGTERM\)"),
        interrupt.ctrl_c(lambda: None, ends_with_run=False),
        interrupt.ending_on_stop(lambda: ended.append("language workers")),
    ):
        interrupt.on_stop_signal(signal.SIGTERM, None)
    assert ended == ["language workers"]
    ended.clear()
    with pytest.raises(RulingsError), interrupt.ctrl_c(lambda: None, ends_with_run=False):
        interrupt.on_stop_signal(signal.SIGHUP, None)  # that pool has shut down since
    assert ended == []


def test_prefects_sigterm_handler_gives_way_only_under_the_command_line(
    stop_signals: None,
) -> None:
    def prefects(signum: int, frame: object) -> None:  # its flow engine's, during a flow run
        raise AssertionError("never called here")

    signal.signal(signal.SIGTERM, prefects)
    with interrupt.over_prefect_sigterm():  # a served run: Prefect's runner cancels by SIGTERM
        assert signal.getsignal(signal.SIGTERM) is prefects
    with interrupt.ctrl_c(lambda: None, ends_with_run=False):
        signal.signal(signal.SIGTERM, prefects)  # as Prefect's flow engine does
        with interrupt.over_prefect_sigterm():
            assert signal.getsignal(signal.SIGTERM) is interrupt.on_stop_signal
        assert signal.getsignal(signal.SIGTERM) is prefects


@pytest.mark.parametrize(
    ("before", "signum", "stops"),
    [
        (signal.default_int_handler, signal.SIGINT, True),
        (signal.SIG_IGN, signal.SIGINT, True),  # a background job of a script: stopped still
        (signal.SIG_DFL, signal.SIGTERM, True),
        (signal.SIG_DFL, signal.SIGHUP, True),
        (signal.SIG_IGN, signal.SIGHUP, False),  # under nohup: stays ignored
    ],
    ids=["sigint", "sigint-ignored", "sigterm", "sighup", "sighup-ignored"],
)
def test_serving_records_each_stop_signal_and_raises_none(
    stop_signals: None, before: Any, signum: signal.Signals, stops: bool
) -> None:
    signal.signal(signum, before)
    assert (signum in interrupt.serve_stops()) == stops
    if stops:
        with interrupt.recording_stops(interrupt.serve_stops()) as received:
            signal.raise_signal(signum)  # nothing raised: recorded
        assert received == [signum]
    assert signal.getsignal(signum) is before  # put back
