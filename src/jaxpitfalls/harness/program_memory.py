"""What XLA plans each compiled program to hold: its buffer assignment's peak (arguments, outputs and temporaries
live at once, a donated argument counted once). The compiler's own figure, exact on every run and backend, where a
process's peak mixes in the allocator's caches. A call to time is any Python, so the block watches the one
function every compile goes through; a JAX without it records nothing (blank, never zero)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

FIELDS = {"peak_bytes": "peak_memory_in_bytes", "argument_bytes": "argument_size_in_bytes",
          "output_bytes": "output_size_in_bytes", "donated_bytes": "alias_size_in_bytes",
          "temporary_bytes": "temp_size_in_bytes"}


def _plan(executable: Any) -> dict[str, int] | None:
    try:
        stats = executable.get_compiled_memory_stats()
        return {name: int(getattr(stats, field)) for name, field in FIELDS.items()}
    except (AttributeError, RuntimeError, TypeError):  # no plan kept (an older jaxlib, another PJRT plugin)
        return None


@contextmanager
def planned_memory() -> Iterator[list[dict[str, int]]]:
    """`with planned_memory() as plans:` each program compiled in the block (persistent-cache hits too), its plan."""
    plans: list[dict[str, int]] = []
    try:
        from jax._src import compiler
        compile_ = compiler.compile_or_get_cached
    except (ImportError, AttributeError):
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


def largest(plans: list[dict[str, int]]) -> dict[str, int] | None:
    """The plan of the program holding the most at its peak (programs run one after another); None: none kept."""
    return max(plans, key=lambda plan: plan["peak_bytes"]) if plans else None
