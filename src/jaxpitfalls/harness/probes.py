"""Two calls probed against each other outside the interleaved rounds (an un-jitted decode step):
each warmed up once, then alternating so drift falls on both."""

from __future__ import annotations

from collections.abc import Callable

import jax

from .compiles import count_compiles
from .stats import paired_comparison
from .timing import timed

PROBES = 15  # alternating pairs of calls: the paired ratio's median and bootstrap 95% interval


def _ms(call: Callable[[], object]) -> float:
    return timed(lambda: jax.block_until_ready(call())) * 1e3


def paired_calls(slow: tuple[str, Callable[[], object]], fast: tuple[str, Callable[[], object]],
                 probes: int = PROBES) -> dict[str, object]:
    """Each call's warm-up compilations and median ms over `probes` alternating calls, and the slow / fast
    ratio with a bootstrap 95% interval."""
    found: dict[str, object] = {"probes": probes}
    for name, call in (slow, fast):
        with count_compiles() as counter:
            _ms(call)  # a jitted call compiles its program, operations called one by one theirs, for this shape
        found[f"{name}_compiles"] = counter.count
    times: dict[str, list[float]] = {slow[0]: [], fast[0]: []}
    for _ in range(probes):
        for name, call in (slow, fast):
            times[name].append(_ms(call))
    ratio = paired_comparison(times[slow[0]], times[fast[0]])
    return found | {f"{name}_ms": float(sorted(xs)[probes // 2]) for name, xs in times.items()} | {
        "ratio": ratio["ratio"], "ratio_ci_low": ratio["ratio_ci_low"], "ratio_ci_high": ratio["ratio_ci_high"]}
