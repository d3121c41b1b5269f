"""runner: a step called beside the caller runs in another thread, in the caller's context."""

from __future__ import annotations

import contextvars
import threading

import pytest

from flows.processes.runner import DirectRunner, call_beside, results_of

_CALLER = contextvars.ContextVar("caller", default="none")


def _where(label: str) -> tuple[str, str, str]:
    return label, _CALLER.get(), threading.current_thread().name


def _fails() -> None:
    raise OSError("disk gone")


def test_a_step_called_beside_runs_in_a_thread_of_this_process_in_the_callers_context() -> None:
    runner = DirectRunner(keep=(_where,))
    token = _CALLER.set("the flow's")  # as Prefect's flow run context
    try:
        pending = call_beside(runner, _where, "kept")
    finally:
        _CALLER.reset(token)
    [(label, context, thread)] = results_of([pending])
    assert (label, context) == ("kept", "the flow's") and thread.startswith("beside")
    assert thread != threading.current_thread().name
    assert runner.kept[_where] == [(label, context, thread)]  # through the runner's `call`
    with pytest.raises(OSError, match="disk gone"):
        results_of([call_beside(runner, _fails)])
