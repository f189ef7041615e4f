"""The traced pass: a few blocked steps per variant under the JAX profiler, each annotated; apart from the
timed pass, since the Python tracer inflates Python time."""

from __future__ import annotations

import os
from pathlib import Path

import jax

from ..breakdown import STEP_EVENT
from ..results import write_dir_atomically
from .protocol import Runner


def capture(runners: dict[str, Runner], steps: int, out_dir: str | os.PathLike, captures: int = 1) -> str:
    """Trace `steps` steps of every warm variant `captures` times (shares vary between captures), each in its
    own `capture<k>` directory (two traces within a second in one overwrite each other)."""
    def trace(tmp: str) -> None:
        for k in range(captures):
            with jax.profiler.trace(os.path.join(tmp, f"capture{k}"), profiler_options=_options()):
                for name, runner in runners.items():
                    for i in range(steps):
                        with jax.profiler.TraceAnnotation(STEP_EVENT, variant=name, step=i):
                            jax.block_until_ready(runner.step())

    write_dir_atomically(out_dir, trace)
    find_xplanes(out_dir)  # one per capture, or it fails here
    return str(out_dir)


def _options() -> jax.profiler.ProfileOptions:
    """Python calls and our annotations only: host events (level 2) are not parsed and cost much memory."""
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 1
    options.host_tracer_level = 1
    return options


def find_xplanes(trace_dir: str | os.PathLike) -> list[Path]:
    """Each capture's `.xplane.pb` under a trace directory, in capture order; one per capture."""
    captures = sorted(Path(trace_dir).glob("capture*"), key=lambda p: int(p.name.removeprefix("capture")))
    found = [sorted(c.glob("plugins/profile/*/*.xplane.pb")) for c in captures]
    if not captures or any(len(f) != 1 for f in found):
        raise FileNotFoundError(f"expected one .xplane.pb under each capture directory of {trace_dir}, found "
                                f"{[len(f) for f in found]}")
    return [f[0] for f in found]
