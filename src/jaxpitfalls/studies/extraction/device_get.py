"""Whether `jax.device_get` returns before the computation it reads has finished, as the write-up's async
transfer assumes ("starts the transfer, returns immediately"). Measured after the timed passes, on a warm
jitted forward of one batch: its dispatch alone, the whole forward blocked, `jax.device_get` on a freshly
dispatched result, and `copy_to_host_async` on one (which only starts the copy). Where the dispatch returns
before the run ends, a `device_get` that returns immediately takes no part of the run; one that waits takes the
rest of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import jax
import numpy as np

from ...harness.stats import bootstrap_median_ci

PROBES = 15  # each quantity's samples: medians, and the median share's bootstrap 95% interval


def _seconds(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def probe(dispatch: Callable[[], jax.Array], probes: int = PROBES) -> dict[str, object]:
    """`dispatch()` starts one warm forward and returns its (pending) result. Per probe: the dispatch's own
    time, the forward blocked, device_get after a fresh dispatch, copy_to_host_async's call after one; and
    what device_get returned; and per probe, device_get's time as a share of the run left once the dispatch
    returned (blocked - dispatch): its median with a bootstrap 95% interval."""
    found: dict[str, list[float]] = {"dispatch_ms": [], "blocked_ms": [], "device_get_ms": [],
                                     "copy_to_host_async_ms": []}
    returned = ""
    for _ in range(probes):
        seconds, pending = _seconds(dispatch)
        found["dispatch_ms"].append(seconds * 1e3)
        jax.block_until_ready(pending)
        found["blocked_ms"].append(_seconds(lambda: jax.block_until_ready(dispatch()))[0] * 1e3)
        pending = dispatch()
        seconds, host = _seconds(lambda p=pending: jax.device_get(p))
        found["device_get_ms"].append(seconds * 1e3)
        returned = type(host).__module__ + "." + type(host).__name__
        pending = dispatch()
        found["copy_to_host_async_ms"].append(_seconds(pending.copy_to_host_async)[0] * 1e3)
        jax.block_until_ready(pending)
    medians = {key: float(np.median(values)) for key, values in found.items()}
    waited = [get / max(blocked - sent, 1e-9) for get, blocked, sent in
              zip(found["device_get_ms"], found["blocked_ms"], found["dispatch_ms"], strict=True)]
    low, high = bootstrap_median_ci(waited)
    return medians | {"probes": probes, "returned": returned, "share_of_run": float(np.median(waited)),
                      "share_of_run_ci_low": float(low), "share_of_run_ci_high": float(high)}
