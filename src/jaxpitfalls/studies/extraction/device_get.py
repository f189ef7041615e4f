"""Whether `jax.device_get` returns before the computation it reads ends, as the write-up's async transfer assumes."""

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
    """Per probe of `dispatch()`: the calls' times and device_get's share of the run left after dispatch."""
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
