"""Interleaved timing: variants take turns, so a drifting machine affects all of them alike."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from .compiles import CompileCount, count_compiles

log = logging.getLogger(__name__)

Sampler = Callable[[], float]


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` takes; `fn` must block on its outputs itself."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(
    samplers: dict[str, Sampler],
    repeats: int,
    label: str = "",
    budget_s: float | None = None,
    min_repeats: int = 2,
) -> tuple[dict[str, list[float]], dict[str, list[CompileCount]]]:
    """Run every sampler up to `repeats` times in turn (forward, then reversed order, alternately).

    With `budget_s`, no new round starts once the rounds so far took that long and `min_repeats` are done:
    samples that cost seconds each (a 48-layer unbatched tree_at) stay affordable, cheap ones get all
    `repeats`. A sampler with a `setup()` method has it called before each of its samples, outside the timer
    and the compile counter. Returns the raw samples per variant and the compilations counted inside each
    sample.
    """
    names = list(samplers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    compiles: dict[str, list[CompileCount]] = {name: [] for name in names}
    start = time.perf_counter()
    for rep in range(repeats):
        for name in names if rep % 2 == 0 else reversed(names):
            setup = getattr(samplers[name], "setup", None)
            if setup is not None:
                setup()  # untimed and uncounted preparation of this sample (e.g. a deliberately short warmup)
            with count_compiles() as counter:
                samples[name].append(samplers[name]())
            compiles[name].append(counter)
        done = rep + 1
        out_of_budget = budget_s is not None and done >= min_repeats and time.perf_counter() - start >= budget_s
        if done % max(1, repeats // 5) == 0 or done == repeats or out_of_budget:
            log.info("%s: repetition %d/%d (%.1f s)", label, done, repeats, time.perf_counter() - start)
        if out_of_budget:
            break
    return samples, compiles
