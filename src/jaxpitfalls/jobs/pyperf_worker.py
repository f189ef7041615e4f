"""pyperf's own harness on a lockstep worker's callable, each call under the same paused garbage collector, so the
calibration compares two harnesses on the same work; preparation is recorded apart.

`python -m jaxpitfalls.jobs.pyperf_worker REQUEST.json MODE VARIANT LOG_PATH JAX_CACHE_DIR [pyperf's options]`:
pyperf's Runner starts this module again per worker process; only those prepare the study."""

from __future__ import annotations

import time
from typing import Any

from .. import runtime
from ..harness.timing import Sampler, gc_paused
from ..harness.workers import exit_with_job
from .lockstep_worker import prepared
from .pyperf_pair import PREPARE_KEY

POSITIONAL = ("request", "mode", "variant", "log_path", "jax_cache_dir")


def _pass_on(cmd: list[str], args: Any) -> None:
    """Hand the job's own arguments to every worker process pyperf starts."""
    cmd.extend(str(getattr(args, name)) for name in POSITIONAL)


def one_call(sampler: Sampler) -> Sampler:
    """The sampler as pyperf can time it: one with an untimed set-up per sample has no pyperf equivalent."""
    if hasattr(sampler, "setup"):
        raise ValueError("pyperf times plain calls: this variant's sampler has an untimed set-up per sample")
    return sampler


def main() -> None:
    import pyperf

    exit_with_job()  # before pyperf starts its workers, which then do not inherit the lifeline
    runner = pyperf.Runner(program_args=("-m", __spec__.name), add_cmdline_args=_pass_on)
    for name in POSITIONAL:
        runner.argparser.add_argument(name)
    args = runner.parse_args()
    call, metadata = None, None  # the manager process only starts the workers and collects their values
    if args.worker:
        runtime.start(args.log_path or None, args.jax_cache_dir or None, append=True)
        start = time.perf_counter()
        call = one_call(prepared(args.request)[1][args.mode][args.variant])
        metadata = {PREPARE_KEY: time.perf_counter() - start}  # what this process spent before pyperf timed

    def time_func(loops: int) -> float:
        """Wall time of `loops` calls, as a pyperf benchmark times itself."""
        with gc_paused():
            start = time.perf_counter()
            for _ in range(loops):
                call()
            return time.perf_counter() - start

    runner.bench_time_func(f"{args.mode}/{args.variant}", time_func, metadata=metadata)


if __name__ == "__main__":
    main()
