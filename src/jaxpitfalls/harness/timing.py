"""Interleaved timing: variants take turns, so a drifting machine affects all of them alike."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from .compiles import count_compiles

log = logging.getLogger(__name__)

Sampler = Callable[[], float]


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` takes; `fn` must block on its outputs itself."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(
    samplers: dict[str, Sampler], repeats: int, label: str = ""
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Run every sampler `repeats` times in turn (forward, then reversed order, alternately).

    Returns the raw samples per variant and the compilations counted inside each variant's samples.
    """
    names = list(samplers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    compiles = dict.fromkeys(names, 0)
    for rep in range(repeats):
        for name in names if rep % 2 == 0 else reversed(names):
            with count_compiles() as counter:
                samples[name].append(samplers[name]())
            compiles[name] += counter.count
        if (rep + 1) % max(1, repeats // 5) == 0 or rep + 1 == repeats:
            log.info("%s: repetition %d/%d", label, rep + 1, repeats)
    return samples, compiles
