"""How a traced step breaks down: the step annotation, the named components a study's spec lists, and where a
trace directory keeps its captures. JAX-free, so a spec, the trace parser and the report can name them without
importing the measuring code."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

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


# jaxlib's C++ call of a compiled program, in every study's trace: on one CPU device the program runs inside it;
# on a GPU or TPU, and over several CPU devices (a sharded program), much of its run is in the wait after it
EXECUTABLE = Component("executable", prefixes=("PjitFunction(",),
                       description="C++ dispatch (PjitFunction), with the program's run where it runs inline (one "
                                   "CPU device; over several, much of it is in the wait)")


def find_xplanes(trace_dir: str | os.PathLike) -> list[Path]:
    """Each capture's `.xplane.pb` under a trace directory, in capture order; one per capture."""
    captures = sorted(Path(trace_dir).glob("capture*"), key=lambda p: int(p.name.removeprefix("capture")))
    found = [sorted(c.glob("plugins/profile/*/*.xplane.pb")) for c in captures]
    if not captures or any(len(f) != 1 for f in found):
        raise FileNotFoundError(f"expected one .xplane.pb under each capture directory of {trace_dir}, found "
                                f"{[len(f) for f in found]}")
    return [f[0] for f in found]
