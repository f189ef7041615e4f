"""A study's `measure` settings as its measuring code reads them: typed, read by attribute, built once where a
job starts from the validated config (the schema has filled in every default: `$defs/study` and the study's
fragment, whose descriptions are each key's help text; a study may raise a default there, as dispatch's
rounds).

A timing job gets its study's `Timing`, a trace its `Traced`; their fields are exactly what the plan hands
each rule (plan.timing_settings, plan.trace_settings), so editing a key only the traces read reruns no timing
job, and the reverse. A study that reads more declares a subclass in its spec (dispatch: the steps it warms
up and samples with, in both; generation: which configurations time its eager baseline)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..harness.sampling import Sampling


def _refuse_unknown(cls: type, settings: dict[str, Any], known: tuple[str, ...]) -> None:
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ValueError(f"measure settings {unknown}: {cls.__module__}.{cls.__qualname__} reads only {list(known)}")


def processes_problem(processes: int, target_precision: float, max_processes: int) -> str | None:
    """What is wrong with a `measure` block's processes, starting with the key (None: nothing): a precision
    target is reached over fresh processes, so it needs two to start from; the most cannot be below the first."""
    if target_precision and processes < 2:
        return (f"target_precision: {target_precision} is reached over fresh processes: set processes to at "
                f"least 2 (it is {processes})")
    if max_processes and max_processes < processes:
        return f"max_processes: {max_processes} is below processes ({processes})"
    return None


@dataclass(frozen=True, kw_only=True)
class Timing:
    """What every timing job reads: how each mode is sampled (`Sampling`: rounds, budget, calibration,
    contention policy) and how many fresh worker processes time the configuration: `processes`, and with a
    `target_precision` more, one at a time, until every ratio of two variants' times has its 95% interval within
    that share of the ratio either way, or `max_processes` have timed it (0: three times `processes`). The
    processes are the independent units of a job's interval (harness.moderated), so its precision grows with
    them, not with rounds in one."""

    sampling: Sampling
    processes: int = 1
    target_precision: float = 0.0
    max_processes: int = 0

    def __post_init__(self) -> None:
        problem = processes_problem(self.processes, self.target_precision, self.max_processes)
        if problem:
            raise ValueError(f"measure.{problem}")

    @property
    def most_processes(self) -> int:
        """The most fresh processes a configuration is timed in."""
        if not self.target_precision:
            return self.processes
        return self.max_processes or 3 * self.processes

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The `measure` keys it reads: Sampling's and its own."""
        return (*(f.name for f in fields(Sampling)), *(f.name for f in fields(cls) if f.name != "sampling"))

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Timing:
        _refuse_unknown(cls, settings, cls.keys())
        own = {f.name for f in fields(cls)} - {"sampling"}
        return cls(sampling=Sampling.of(settings), **{k: v for k, v in settings.items() if k in own})


@dataclass(frozen=True, kw_only=True)
class Traced:
    """What every trace job reads: how many steps per variant the profiler records, and how many captures of
    them it takes one after another (at the base configuration: `plan.trace_settings`)."""

    trace_steps: int = 3
    captures: int = 1

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Traced:
        _refuse_unknown(cls, settings, cls.keys())
        return cls(**settings)
