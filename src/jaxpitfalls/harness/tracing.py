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


def capture(runners: dict[str, Runner], steps: int, out_dir: str | os.PathLike, captures: int = 1) -> str:
    """Trace `steps` steps of every (already warm) variant, `captures` times one after another, each
    capture in a directory of its own (`capture<k>`: two traces written into one directory within the same
    second would overwrite each other), all moved into place whole. Returns `out_dir`.

    Several captures: one capture's shares differ from the next's by more than its own steps vary (the
    dispatch base's Python around the program, 3 steps: 5.4-10.4 ms over 9 captures), so a claim that reads a
    trace needs their spread.
    """
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
    """Python calls and our step annotations only: the runtime's own host events (level 2, every XLA op
    on the CPU's threads) are not parsed, and at BERT-base they cost gigabytes of memory per traced step."""
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 1
    options.host_tracer_level = 1
    return options


def find_xplanes(trace_dir: str | os.PathLike) -> list[Path]:
    """The `.xplane.pb` of each capture under a trace directory (`capture<k>/plugins/profile/<stamp>/<host>
    .xplane.pb`), in capture order; exactly one per capture directory."""
    captures = sorted(Path(trace_dir).glob("capture*"), key=lambda p: int(p.name.removeprefix("capture")))
    found = [sorted(c.glob("plugins/profile/*/*.xplane.pb")) for c in captures]
    if not captures or any(len(f) != 1 for f in found):
        raise FileNotFoundError(f"expected one .xplane.pb under each capture directory of {trace_dir}, found "
                                f"{[len(f) for f in found]}")
    return [f[0] for f in found]
