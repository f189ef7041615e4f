"""What XLA plans each compiled program's buffers to take, per device: arguments, outputs (a donated argument's
buffer is its output's), temporaries, and their total, all counted at once (an upper bound on the program's own
peak: XLA's `peak_memory_in_bytes` leaves temporaries out on a CPU). The compiler's figure, deterministic for one
program on one backend and XLA version, where a process's peak mixes in the allocator's caches. A call to time is
any Python, so the block watches the function every compile goes through (not one compiled before it)."""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

FIELDS = {"argument_bytes": "argument_size_in_bytes", "output_bytes": "output_size_in_bytes",
          "donated_bytes": "alias_size_in_bytes", "temporary_bytes": "temp_size_in_bytes"}


def _plan(executable: Any) -> dict[str, int] | None:
    try:
        stats = executable.get_compiled_memory_stats()
        plan = {name: int(getattr(stats, field)) for name, field in FIELDS.items()}
        devices = len(executable.local_devices())  # an SPMD program's plan is each device's
    except (AttributeError, RuntimeError, TypeError):  # no plan kept (an older jaxlib, another PJRT plugin)
        return None
    return {"total_bytes": plan["argument_bytes"] + plan["output_bytes"] - plan["donated_bytes"]
            + plan["temporary_bytes"]} | plan | {"devices": devices}


@contextmanager
def planned_memory() -> Iterator[list[dict[str, int]]]:
    """`with planned_memory() as plans:` each program compiled in the block (persistent-cache hits too), its plan."""
    plans: list[dict[str, int]] = []
    try:
        from jax._src import compiler
        compile_ = compiler.compile_or_get_cached
    except (ImportError, AttributeError):
        log.info("this JAX has no jax._src.compiler.compile_or_get_cached: no program's memory plan is recorded")
        yield plans
        return

    def watched(*args: Any, **kwargs: Any) -> Any:
        executable = compile_(*args, **kwargs)
        if (plan := _plan(executable)) is not None:
            plans.append(plan)
        return executable

    compiler.compile_or_get_cached = watched
    try:
        yield plans
    finally:
        compiler.compile_or_get_cached = compile_


def widest(plans: list[dict[str, int]]) -> dict[str, int]:
    """Of one variant's plans in several processes (a GPU's autotuning may differ), the largest total."""
    return max(plans, key=lambda plan: plan["total_bytes"])


def widest_each(found: Iterable[tuple[Hashable, dict[str, int] | None]]) -> dict[Hashable, dict[str, int]]:
    """Plans gathered under keys (a variant, a configuration and variant) from several processes or jobs: each
    key's widest; a None (no plan kept) left out."""
    by_key: dict[Hashable, list[dict[str, int]]] = {}
    for key, plan in found:
        if plan:
            by_key.setdefault(key, []).append(plan)
    return {key: widest(plans) for key, plans in by_key.items()}


def largest(plans: list[dict[str, int]]) -> dict[str, int] | None:
    """The plan of the largest total, with `programs`, how many were planned; None: none kept. A call of several
    programs also holds the arrays passed between them, which no plan counts."""
    return widest(plans) | {"programs": len(plans)} if plans else None
