"""The traced pass: a few blocked steps per variant under the JAX profiler, each annotated; apart from the
timed pass, since the Python tracer inflates Python time."""

from __future__ import annotations

import os

import jax

from ..breakdown import STEP_EVENT, find_xplanes
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
    """Python calls and our annotations (level-2 host events go unparsed, costing memory); a GPU's device tracer
    runs too (no option stops it)."""
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 1
    options.host_tracer_level = 1
    return options

