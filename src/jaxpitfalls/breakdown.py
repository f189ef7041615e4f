"""How a traced step breaks down: the step annotation and the named components a study's spec lists.
JAX-free, so a spec and the report can name them without importing the measuring code."""

from __future__ import annotations

from dataclasses import dataclass

STEP_EVENT = "benchmark_step"


@dataclass(frozen=True)
class Component:
    """A named part of a step and the events that belong to it."""

    name: str
    files_functions: tuple[tuple[str, str], ...] = ()
    prefixes: tuple[str, ...] = ()
    description: str = ""

    def matches(self, file: str | None, function: str, raw: str) -> bool:
        if file is not None and (file, function) in self.files_functions:
            return True
        if file is not None and any(file.startswith(p) for p in self.prefixes):
            return True
        return any(raw.startswith(p) for p in self.prefixes)
