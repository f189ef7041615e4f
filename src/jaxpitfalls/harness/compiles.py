"""Count XLA compilations, so a timed region that compiled is caught instead of silently reported. Eager ops
(`jnp.ones`) compile too: make inputs before opening a counter."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jax

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"
# JAX's spans of tracing a function to a jaxpr and lowering it to a module, before XLA compiles it; a JAX that
# reports no spans (an older release a history times) records neither, never zeros
STAGES = {"tracing": "/jax/core/compile/jaxpr_trace_duration",
          "lowering": "/jax/core/compile/jaxpr_to_mlir_module_duration"}
SPANS = hasattr(jax.monitoring, "register_event_time_span_listener")

_lock = threading.Lock()
_open: list[CompileCount] = []
_registered = False


@dataclass(eq=False)  # identity, not field equality: open counters are removed from a list by identity
class CompileCount:
    """Compilations while open, their seconds, and persistent-cache hits; `thread`: only that thread's."""

    count: int = 0
    seconds: float = 0.0
    cache_hits: int = 0
    thread: int | None = None
    spans: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # STAGES' (start, end)

    def sees(self) -> bool:
        """Whether an event reported now, in the calling thread, is this counter's."""
        return self.thread is None or self.thread == threading.get_ident()

    def stage_seconds(self, stage: str) -> float:
        """A stage's time while open (stats.COMPILING_STAGES): XLA's compiles, or JAX's spans merged (an inner jit
        traced inside an outer one counts once)."""
        if stage == "compile":
            return self.seconds
        total, reach = 0.0, -math.inf
        for start, end in sorted(self.spans.get(stage, ())):
            total += max(0.0, end - max(start, reach))
            reach = max(reach, end)
        return total


def _listener(event: str, duration_secs: float, **_: object) -> None:
    if event != COMPILE_EVENT:
        return
    with _lock:
        for counter in _open:
            if counter.sees():
                counter.count += 1
                counter.seconds += duration_secs


def _span_listener(event: str, start: float, end: float, **_: object) -> None:
    stage = next((name for name, named in STAGES.items() if named == event), None)
    if stage is None:
        return
    with _lock:
        for counter in _open:
            if counter.sees():
                counter.spans.setdefault(stage, []).append((start, end))


def _hit_listener(event: str, **_: object) -> None:
    if event != CACHE_HIT_EVENT:
        return
    with _lock:
        for counter in _open:
            if counter.sees():
                counter.cache_hits += 1


@contextmanager
def count_compiles(this_thread: bool = False):
    """`with count_compiles() as c:` counts compilations in the block (`this_thread`: caller's only)."""
    global _registered
    with _lock:
        if not _registered:
            jax.monitoring.register_event_duration_secs_listener(_listener)
            jax.monitoring.register_event_listener(_hit_listener)
            if SPANS:
                jax.monitoring.register_event_time_span_listener(_span_listener)
            _registered = True
        counter = CompileCount(thread=threading.get_ident() if this_thread else None)
        _open.append(counter)
    try:
        yield counter
    finally:
        with _lock:
            _open.remove(counter)


def first_calls(calls: Mapping[str, Callable[[], Any]]) -> dict[str, tuple[Any, int]]:
    """Each variant's first (compiling) call: its output and compilations, one variant per core at once (XLA
    compiles on one core). Never for a timed call."""

    def first(call: Callable[[], Any]) -> tuple[Any, int]:
        with count_compiles(this_thread=True) as counter:
            out = jax.block_until_ready(call())
        return out, counter.count

    with ThreadPoolExecutor(max(1, min(len(calls), len(os.sched_getaffinity(0))))) as pool:
        return dict(zip(calls, pool.map(first, calls.values()), strict=True))


class CompiledInTimedRegion(RuntimeError):
    """A timed region compiled: its time includes compilation, so the measurement is invalid."""


def require_no_compiles(counts: dict[str, int], where: str) -> None:
    """Fail, naming the variants, when any timed region compiled."""
    bad = {name: n for name, n in counts.items() if n}
    if bad:
        detail = ", ".join(f"{name}: {n}" for name, n in sorted(bad.items()))
        raise CompiledInTimedRegion(
            f"{where}: compilations inside the timed region ({detail}). The warmup did not use the "
            "timed shapes and settings, so these timings include compile time and are discarded."
        )


class NotAFirstRun(RuntimeError):
    """A sample meant to compile (a first run) did not, or loaded the program from a cache."""


class NotRecompiling(NotAFirstRun):
    """A variant declared to compile in every call (RECOMPILES) did not in some call of a sample."""


def require_compiled(samples: dict[str, list[CompileCount]], where: str,
                     meant: str = "a first run",
                     calls: Mapping[str, int] | None = None, error: type[NotAFirstRun] = NotAFirstRun) -> None:
    """Every sample compiled, at least once a call where `calls` gives a sample's calls, none from the cache."""
    for name, counts in samples.items():
        least = (calls or {}).get(name, 1)
        for i, c in enumerate(counts):
            if c.count < least or c.cache_hits:
                cached = f", {c.cache_hits} read from the persistent compilation cache (turn it off)" * bool(
                    c.cache_hits)
                raise error(f"{where}: sample {i} of {name!r} compiled {c.count} program(s) in {least} call(s)"
                            f"{cached}: it did not measure {meant}")
