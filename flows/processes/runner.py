"""Who executes a run's steps: a `Runner` calls each step, and submits those that may run
alongside others; `call_beside` calls one in a thread of this process while the run goes on.

`flows.run` says which steps run in which order; a runner says how. `DirectRunner`
calls each step plainly in this process and runs submitted steps in threads
(tests, the benchmark's run "without Prefect", `run.run_direct`); the Prefect
flow's runner (`prefect_flow.PrefectRunner`) runs each step as a task.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol


class Pending(Protocol):
    """A submitted step: `result()` waits for its value (or raises its error)."""

    def result(self) -> Any: ...


class Runner(Protocol):
    """Executes steps: functions of `flows.disk` and `flows.stages`."""

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a step and return its value."""
        ...

    def submit(self, step: Callable[..., Any], *args: Any) -> Pending:
        """Start a step that may run alongside others; `result()` gives its value."""
        ...


class DirectRunner:
    """Calls each step plainly in this process (no Prefect); submitted steps run in threads.

    `threads`: submitted steps at a time (parse and language batches), as the
    flow's task runner (`prefect_flow.LOCAL_TASK_THREADS`: one per core).
    `keep`: steps whose values are kept in `kept` (step -> its values, in
    call order), for a look at what the run made on the way: the lines of
    `dumps.build_dump_results`, say.
    """

    def __init__(
        self, threads: int = os.cpu_count() or 1, keep: tuple[Callable[..., Any], ...] = ()
    ) -> None:
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="step")
        self.kept: dict[Callable[..., Any], list[Any]] = {step: [] for step in keep}

    def call(self, step: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run a step and return its value."""
        value = step(*args, **kwargs)
        if step in self.kept:
            self.kept[step].append(value)
        return value

    def submit(self, step: Callable[..., Any], *args: Any) -> Pending:
        """Start a step in a thread; `result()` waits for its value (or raises its error)."""
        return self._threads.submit(self.call, step, *args)


def results_of(pending: list[Pending]) -> list[Any]:
    """Each submitted step's value, in order; once every one has ended, the first error.

    So no step is left waiting or starting when its caller moves on (the parse
    workers are stopped): each batch ends with its own value or error.
    """
    values, errors = [], []
    for step in pending:
        try:
            values.append(step.result())
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
    return values


def call_beside(runner: Runner, step: Callable[..., Any], *args: Any) -> Pending:
    """`runner.call(step, *args)` in a thread of this process while the caller goes on, in the
    caller's context (under Prefect, a task of the flow, as its own task runner's threads run
    them). For a step whose arguments stay in this process: `submit` may send them to Dask's
    workers. Steps called beside run one at a time.
    """
    return _BESIDE.submit(contextvars.copy_context().run, runner.call, step, *args)


_BESIDE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beside")
