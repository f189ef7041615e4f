"""Count XLA compilations, so a timed region that compiled is caught instead of silently reported.

JAX reports each backend compilation as the duration event below (also when the executable comes from
the persistent cache, which it reports as a separate hit event); one process-wide listener feeds whichever
counters are open. Eager ops (`jnp.ones`) compile too: make inputs before opening a counter.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass

import jax

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"

_lock = threading.Lock()
_open: list[CompileCount] = []
_registered = False


@dataclass(eq=False)  # identity, not field equality: open counters are removed from a list by identity
class CompileCount:
    """Compilations seen while the counter was open, the seconds they took, and how many of them were
    loaded from the persistent compilation cache instead of compiled."""

    count: int = 0
    seconds: float = 0.0
    cache_hits: int = 0


def _listener(event: str, duration_secs: float, **_: object) -> None:
    if event != COMPILE_EVENT:
        return
    with _lock:
        for counter in _open:
            counter.count += 1
            counter.seconds += duration_secs


def _hit_listener(event: str, **_: object) -> None:
    if event != CACHE_HIT_EVENT:
        return
    with _lock:
        for counter in _open:
            counter.cache_hits += 1


@contextmanager
def count_compiles():
    """`with count_compiles() as c: ...` then `c.count` is the compilations inside the block."""
    global _registered
    with _lock:
        if not _registered:
            jax.monitoring.register_event_duration_secs_listener(_listener)
            jax.monitoring.register_event_listener(_hit_listener)
            _registered = True
        counter = CompileCount()
        _open.append(counter)
    try:
        yield counter
    finally:
        with _lock:
            _open.remove(counter)


class CompiledInTimedRegion(RuntimeError):
    """A timed region compiled: its time includes compilation, so the measurement is invalid."""


def require_no_compiles(counts: dict[str, int], where: str) -> None:
    """Fail loudly, naming the variants, when any timed region compiled."""
    bad = {name: n for name, n in counts.items() if n}
    if bad:
        detail = ", ".join(f"{name}: {n}" for name, n in sorted(bad.items()))
        raise CompiledInTimedRegion(
            f"{where}: compilations inside the timed region ({detail}). The warmup did not use the "
            "timed shapes and settings, so these timings include compile time and are discarded."
        )


class NotAFirstRun(RuntimeError):
    """A sample labelled as measuring compilation did not compile (or loaded the program from a cache)."""


def require_compiled(samples: dict[str, list[CompileCount]], where: str) -> None:
    """Every sample of a compile-measuring mode compiled, and none came from the persistent cache."""
    for name, counts in samples.items():
        for i, c in enumerate(counts):
            if c.count == 0 or c.cache_hits:
                raise NotAFirstRun(
                    f"{where}: sample {i} of {name!r} compiled {c.count} program(s), {c.cache_hits} from the "
                    "persistent cache: it did not measure a first run (turn the study's compilation cache off)"
                )
