"""What a benchmark file's variant runs: the programs its first call compiles, the Python a warm call goes through,
the call as written. Variants recording the same ran the same code (harness.variants.require_distinct)."""

from __future__ import annotations

import dis
import functools
import logging
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import jax

from ..harness.compiled import compiled_programs
from ..harness.compiles import count_compiles
from ..harness.program_memory import largest
from ..harness.variants import RETRACES, fingerprint

_MODULE_NAME = re.compile(r"^module @[\w.$-]+", re.MULTILINE)


@contextmanager
def _dumped_programs() -> Iterator[list[str]]:
    """The StableHLO of every program compiled inside the block, without locations or module names."""
    names = ("jax_dump_ir_to", "jax_dump_ir_modes", "jax_include_debug_info_in_dumps")
    before = {name: jax.config.read(name) for name in names}
    programs: list[str] = []
    said = logging.getLogger("jax._src.compiler")  # "Dumped the module to ..." once per program: not the job's news
    level = said.level
    said.setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="programs-") as tmp:
        jax.config.update("jax_dump_ir_to", tmp)
        jax.config.update("jax_dump_ir_modes", "stablehlo")
        jax.config.update("jax_include_debug_info_in_dumps", False)
        try:
            yield programs
        finally:
            for name, value in before.items():
                jax.config.update(name, value)
            said.setLevel(level)
            programs.extend(sorted(_MODULE_NAME.sub("module", p.read_text())
                                   for p in Path(tmp).glob("*_compile.mlir")))


def python_path(call: Callable[[], Any]) -> list[str]:
    """The Python functions and builtins one call goes through, in order: tells `jax.jit` from `eqx.filter_jit`."""
    own = getattr(call, "__code__", None)
    seen: list[str] = []

    def record(frame, event: str, arg) -> None:
        if event == "call" and frame.f_code is not own:
            seen.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_qualname}")
        elif event == "c_call" and arg is not sys.setprofile:
            seen.append(f"{getattr(arg, '__module__', None) or ''}.{getattr(arg, '__qualname__', repr(arg))}")

    sys.setprofile(record)
    try:
        out = call()
    finally:
        sys.setprofile(None)
    jax.block_until_ready(out)
    return seen


def _kind(value: Any) -> str:
    """A value by its type, an array's with its dtype and shape."""
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if isinstance(value, type):  # a class (np.float32): its shape is a descriptor, not a shape
        return f"{kind}:{value.__module__}.{value.__qualname__}"
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    try:
        return kind if dtype is None or shape is None else f"{kind}[{dtype}{tuple(shape)}]"
    except TypeError:  # a `shape` that is no sequence
        return kind


def _bound(call: Callable[[], Any]) -> list[Any]:
    """A function's object (a bound method's), defaults and filled closure cells."""
    values = [call.__self__] if hasattr(call, "__self__") else []
    values += list(getattr(call, "__defaults__", None) or ())
    for cell in getattr(call, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # a cell not yet filled
            continue
    return values


def call_code(call: Callable[[], Any]) -> str:
    """The call as written: bytecode, names, what it is bound to by kind. A loop of jitted calls, or one on a host
    array, runs the same programs through no Python the profiler sees."""
    if isinstance(call, functools.partial):
        return ";".join([call_code(call.func), *map(_kind, call.args), *map(_kind, call.keywords.values())])
    code = getattr(call, "__code__", None)
    if code is None:
        return _kind(call)
    return ";".join([code.co_code.hex(), ",".join(code.co_names), *map(_kind, _bound(call))])


def makes_calls(call: Callable[[], Any]) -> bool:
    """Whether a call's own code calls anything (True where it has none to read: a partial, a jitted function)."""
    code = getattr(call, "__code__", None)
    return code is None or any(i.opname.startswith("CALL") for i in dis.get_instructions(code))


class SecondCallFailed(Exception):
    """A variant's call that ran once and failed the next time (a buffer donated in its first, say)."""


class FirstCall(NamedTuple):
    """A first call from cleared caches: signature, compilations, JAX's unusable-donation warning (or ""), the
    largest program's memory plan (None: none kept), its optimized programs' fingerprint."""

    signature: dict[str, Any]
    compiles: int
    unused_donation: str
    program_memory: dict[str, int] | None
    executable: str | None


def first_call(call: Callable[[], Any], recompiles: bool = False) -> FirstCall:
    """A variant's first call from cleared caches, then a warm traced one (`recompiles`: declared to compile in
    every call, and marked so where the warm one did)."""
    jax.clear_caches()
    with _dumped_programs() as programs, count_compiles() as counter, compiled_programs() as built, \
            warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        jax.block_until_ready(call())
    for w in said:  # recorded, and still said where JAX says them (the job's log)
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    unused = next((str(w.message) for w in said if "donated buffers were not usable" in str(w.message)), "")
    try:
        with count_compiles() as again:
            path = python_path(call)
    except Exception as e:
        raise SecondCallFailed(f"{type(e).__name__} in its second call (its first ran): {e}") from e
    signature = {
        "program": fingerprint("\n".join(programs)),
        "programs_compiled": len(programs),
        "python": fingerprint("\n".join(sorted(set(path)))),
        "python_calls": len(path),
        "call": fingerprint(call_code(call)),
    } | ({RETRACES: True} if recompiles and again.count else {})
    texts = [c.text for c in built]
    executable = fingerprint("\n".join(sorted(texts))) if texts and None not in texts else None
    return FirstCall(signature, counter.count, unused, largest([c.plan for c in built if c.plan]), executable)
