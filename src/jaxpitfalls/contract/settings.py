"""A study's `measure` settings, typed: `Timing` for timing jobs, `Traced` for traces, exactly what the plan hands
each rule, so a trace-only key reruns no timing job."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..harness.sampling import Sampling


def _refuse_unknown(cls: type, settings: dict[str, Any], known: tuple[str, ...]) -> None:
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ValueError(f"measure settings {unknown}: {cls.__module__}.{cls.__qualname__} reads only {list(known)}")


def processes_problem(processes: int, target_precision: float, max_processes: int,
                      target_share: float = 1.0) -> str | None:
    """What is wrong with a `measure` block's processes (None: nothing)."""
    if target_share < 1 and not target_precision:
        return f"target_share: {target_share} is a share of rows reaching target_precision: set target_precision"
    if target_precision and processes < 2:
        return (f"target_precision: {target_precision} is reached over fresh processes: set processes to at "
                f"least 2 (it is {processes}), or target_precision to 0 for a fixed number")
    if max_processes and max_processes < processes:
        return f"max_processes: {max_processes} is below processes ({processes})"
    return None


def without_idle_share(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` without a `target_share` that changes nothing (every row, or no precision target), so that the
    schema's default reruns no job timed before the key existed."""
    if settings.get("target_share", 1) == 1 or not settings.get("target_precision"):
        return {k: v for k, v in settings.items() if k != "target_share"}
    return settings


@dataclass(frozen=True, kw_only=True)
class Timing:
    """What every timing job reads: `processes`, the fresh processes (the interval's units); with
    `target_precision`, more until `target_share` of the ratios' 95% intervals (every one at 1) are within that
    share, or `max_processes` (0: three times `processes`)."""

    sampling: Sampling
    processes: int = 3
    target_precision: float = 0.0
    target_share: float = 1.0
    max_processes: int = 0

    def __post_init__(self) -> None:
        problem = processes_problem(self.processes, self.target_precision, self.max_processes, self.target_share)
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
        """The `measure` keys it reads."""
        return (*(f.name for f in fields(Sampling)), *(f.name for f in fields(cls) if f.name != "sampling"))

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Timing:
        _refuse_unknown(cls, settings, cls.keys())
        own = {f.name for f in fields(cls)} - {"sampling"}
        return cls(sampling=Sampling.of(settings), **{k: v for k, v in settings.items() if k in own})


@dataclass(frozen=True, kw_only=True)
class Traced:
    """What every trace job reads."""


    trace_steps: int = 3
    captures: int = 1

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Traced:
        _refuse_unknown(cls, settings, cls.keys())
        return cls(**settings)
