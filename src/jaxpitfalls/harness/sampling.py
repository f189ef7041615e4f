"""How a mode is sampled (a study's `measure` settings); JAX-free, for jobs that only plan or read."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

ON_CONTENTION = ("retry", "fail", "warn")
MIN_ROUNDS = 2  # rounds a time budget never stops a mode below (harness.timing.interleaved)


@dataclass(frozen=True)
class Sampling:
    """How a mode is sampled in one process: rounds, budget, sample length, what a busy round means."""

    rounds: int
    budget_s: float | None = None
    min_sample_s: float = 0.0
    on_contention: str = "retry"
    max_busy_share: float = 0.2
    max_wait_s: float = 300.0

    def __post_init__(self) -> None:
        if self.on_contention not in ON_CONTENTION:
            raise ValueError(f"on_contention={self.on_contention!r}: expected one of {', '.join(ON_CONTENTION)}")

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Sampling:
        return cls(**{f.name: settings[f.name] for f in dataclasses.fields(cls) if f.name in settings})
