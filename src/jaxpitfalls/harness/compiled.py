"""Each program a block compiles (persistent-cache hits too): its memory plan and its optimized program printed
canonically, alike for two spellings XLA built alike (`jnp.einsum`, a transpose and `@`). A call to time is any
Python, so the block watches the function every compile goes through."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from .program_memory import plan_of

log = logging.getLogger(__name__)
_MODULE_NAME = re.compile(r"^HloModule [^\s,]+", re.MULTILINE)  # the jitted function's name: not what runs
_COMPUTATION = re.compile(r"^(ENTRY )?\S+ \{$", re.MULTILINE)  # `main.2`: numbered by lowering (calls print inline)


class Compiled(NamedTuple):
    plan: dict[str, int] | None  # None: this JAX keeps no plan
    text: str | None  # the optimized program, names numbered in order, no metadata; None: not printable here


def optimized_text(executable: Any) -> str | None:
    """An executable's optimized HLO as canonical text."""
    try:
        from jaxlib import _hlo

        options = _hlo.HloPrintOptions.canonical()
        options.print_metadata = False
        text = "\n".join(m.to_string(options) for m in executable.hlo_modules())
    except (ImportError, AttributeError, RuntimeError, TypeError):  # another jaxlib or PJRT plugin
        return None
    return _COMPUTATION.sub(r"\1computation {", _MODULE_NAME.sub("HloModule", text))


@contextmanager
def compiled_programs() -> Iterator[list[Compiled]]:
    """`with compiled_programs() as found:` each program compiled in the block, as it compiles."""
    found: list[Compiled] = []
    try:
        from jax._src import compiler
        compile_ = compiler.compile_or_get_cached
    except (ImportError, AttributeError):
        log.info("this JAX has no jax._src.compiler.compile_or_get_cached: no compiled program is read")
        yield found
        return

    def watched(*args: Any, **kwargs: Any) -> Any:
        executable = compile_(*args, **kwargs)
        found.append(Compiled(plan_of(executable), optimized_text(executable)))
        return executable

    compiler.compile_or_get_cached = watched
    try:
        yield found
    finally:
        compiler.compile_or_get_cached = compile_
