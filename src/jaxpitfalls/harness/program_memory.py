"""What XLA plans each compiled program's buffers to take, per device: arguments, outputs (a donated argument's
buffer is its output's), temporaries, and their total, all counted at once (an upper bound on the program's own
peak: XLA's `peak_memory_in_bytes` leaves temporaries out on a CPU). The compiler's figure, deterministic for one
program on one backend and XLA version, where a process's peak mixes in the allocator's caches (read as each
program compiles: harness.compiled)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

FIELDS = {"argument_bytes": "argument_size_in_bytes", "output_bytes": "output_size_in_bytes",
          "donated_bytes": "alias_size_in_bytes", "temporary_bytes": "temp_size_in_bytes"}


def plan_of(executable: Any) -> dict[str, int] | None:
    try:
        stats = executable.get_compiled_memory_stats()
        plan = {name: int(getattr(stats, field)) for name, field in FIELDS.items()}
        devices = len(executable.local_devices())  # an SPMD program's plan is each device's
    except (AttributeError, RuntimeError, TypeError):  # no plan kept (an older jaxlib, another PJRT plugin)
        return None
    return {"total_bytes": plan["argument_bytes"] + plan["output_bytes"] - plan["donated_bytes"]
            + plan["temporary_bytes"]} | plan | {"devices": devices}


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
