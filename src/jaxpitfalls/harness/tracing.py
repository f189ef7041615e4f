"""The traced pass: a few blocked steps per variant under the JAX profiler, each step annotated.

Kept apart from the timed pass because the Python tracer inflates Python time 1.7-3x: a trace gives
fractions of a step, the timed pass gives wall times.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax

from ..breakdown import STEP_EVENT
from ..results import write_dir_atomically
from .protocol import Runner


def capture(runners: dict[str, Runner], steps: int, out_dir: str | os.PathLike) -> Path:
    """Trace `steps` steps of every (already warm) variant into a fresh directory, moved into place whole.

    Returns the path of the `.xplane.pb` file. A fresh directory per capture: two traces written into one
    directory within the same second would overwrite each other.
    """
    def trace(tmp: str) -> None:
        with jax.profiler.trace(tmp, profiler_options=_options()):
            for name, runner in runners.items():
                for i in range(steps):
                    with jax.profiler.TraceAnnotation(STEP_EVENT, variant=name, step=i):
                        jax.block_until_ready(runner.step())

    write_dir_atomically(out_dir, trace)
    return find_xplane(out_dir)


def _options() -> jax.profiler.ProfileOptions:
    """Python calls and our step annotations only: the runtime's own host events (level 2, every XLA op
    on the CPU's threads) are not parsed, and at BERT-base they cost gigabytes of memory per traced step."""
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 1
    options.host_tracer_level = 1
    return options


def find_xplane(trace_dir: str | os.PathLike) -> Path:
    """The one `.xplane.pb` under a trace directory (`plugins/profile/<stamp>/<host>.xplane.pb`)."""
    found = sorted(Path(trace_dir).glob("plugins/profile/*/*.xplane.pb"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one .xplane.pb under {trace_dir}, found {len(found)}")
    return found[0]
