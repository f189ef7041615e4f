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


@dataclass(frozen=True, kw_only=True)
class Timing:
    """What every timing job reads: how each mode is sampled (`Sampling`: rounds, budget, calibration,
    contention policy, precision target) and how many fresh worker processes time the configuration."""

    sampling: Sampling
    processes: int = 1

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
