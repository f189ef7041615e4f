"""A benchmark file as a study: its spec and schema block (setup's axes as base keys). JAX- and pandas-free."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..breakdown import EXECUTABLE, Component
from ..contract import settings
from ..contract.interface import StudySpec
from .expectations import FIRST_RUN_MODE
from .reader import Axis, read

MODES = {
    "blocked": "one call, waited for (jax.block_until_ready on its outputs) before the next",
    "pipelined": "calls dispatched back to back, one wait at the end: JAX's asynchronous dispatch hides what "
                 "the host does while the device computes",
}
FIRST_RUN = {FIRST_RUN_MODE: "one call from cleared caches, waited for: tracing, compiling and running, as a "
                             "process's first call does (the file's FIRST_RUN; its jobs keep no persistent cache)"}


def components(file: Path) -> tuple[Component, ...]:
    """Where a traced call's time goes, for any file, matched innermost first (traces.py)."""
    return (
        Component("your_code", prefixes=(file.name,), description=f"Python in {file.name}"),
        Component("pytrees", prefixes=("tree_util.py", "<generated_flatten_", "<generated_unflatten_"),
                  description="flattening and unflattening pytrees in Python"),
        Component("equinox", prefixes=("_jit.py", "_compile_utils.py", "_filters.py", "_module.py"),
                  description="Equinox's Python: filter_jit's wrapper, filters, module attribute access"),
        Component("to_device", (("api.py", "device_put"), *(("pxla.py", f) for f in (
            "shard_args", "cc_shard_arg", "batched_device_put", "_shard_np_array", "_shard_python_scalar",
            "_shard_typed_scalar", "_shard_mutable_array"))), prefixes=("DevicePut", "H2D Dispatch"),
                  description="copies to the device (a NumPy argument to a jitted call, jax.device_put, pmap's "
                              "arguments; on a CPU a copy in host memory), carved out of the dispatch they run in"),
        Component("compiling", prefixes=("pxla.py", "compiler.py", "mlir.py", "partial_eval.py"),
                  description="tracing, lowering and compiling (none in a warm call, but RECOMPILES' variants)"),
        replace(EXECUTABLE, name="dispatch"),
        Component("wait", (("api.py", "block_until_ready"), ("api.py", "try_to_block"),
                           ("array.py", "block_until_ready")), prefixes=("CommonPjRtBuffer::Await",),
                  description="waiting for the program's outputs (the harness's block_until_ready after each call; a "
                              "variant's own x.block_until_ready() leaves no Python frame: your_code)"),
        Component("to_host", (("api.py", "device_get"), ("api.py", "_device_get"), ("array.py", "__array__"),
                              ("array.py", "_value"), ("array.py", "copy_to_host_async")),
                  prefixes=("$numpy asarray", "$numpy array"),
                  description="copies to the host (device_get, NumPy arrays), with the wait for a value not yet "
                              "computed"),
    )


@dataclass(frozen=True, kw_only=True)
class Calls:
    """A benchmark file's extra settings: blocked warm-up calls per variant and calls per timed sample."""

    warmup_steps: int = 2
    steps_per_sample: int = 1


@dataclass(frozen=True, kw_only=True)
class Timing(Calls, settings.Timing):
    """A benchmark file's timing settings."""


@dataclass(frozen=True, kw_only=True)
class Traced(Calls, settings.Traced):
    """A benchmark file's trace settings."""


# An axis' value: a number, a flag or a word (a dtype's name): it is written into the configuration's id, which
# names its result files.
VALUE = {"type": ["string", "number", "boolean"], "pattern": r"^[\w.+-]+$"}


def schema(setup: tuple[tuple[Axis, ...], bool]) -> dict[str, Any]:
    """The file's block under `studies:`: `file` and setup's (axes, open_axes), so a key setup does not take is
    refused at parse."""
    given, open_axes = setup
    axes = {a.name: VALUE | ({} if a.required else {"default": a.default}) for a in given}
    base: dict[str, Any] = {"properties": axes, "required": [a.name for a in given if a.required]}
    sweep = {"properties": {name: {"type": "array", "items": VALUE} for name in axes}}
    if open_axes:
        base["additionalProperties"] = VALUE
        sweep["additionalProperties"] = {"type": "array", "items": VALUE}
    calls = {"type": "integer", "minimum": 1}
    return {"properties": {
        "file": {"type": "string", "description": "the benchmark file (docs/your-own-code.md)"},
        "base": base, "sweep": sweep,
        "measure": {"properties": {
            "budget_s": {"$ref": "#/$defs/budget_s", "default": 10},
            # a fourth process where a ratio is not yet within +-5%
            "target_precision": {"default": 0.05}, "max_processes": {"default": 4},
            "warmup_steps": calls | {"default": 2, "description": "blocked calls per variant before timing"},
            "steps_per_sample": calls | {"default": 1, "description": "calls per timed sample"},
        }},
    }}


@cache
def spec(name: str, path: Path) -> StudySpec:
    """The study a benchmark file is, named `name` by the config."""
    bench = read(path)
    pairs: tuple[tuple[str, str], ...] = ()
    named = [e.pair for e in bench.expectations if bench.floor not in e.pair and not e.memory]
    for p in [*named, *bench.same_outputs_as.items()]:  # each pair timed once, whichever way a sentence names it
        pairs += (p,) if {p, p[::-1]}.isdisjoint(pairs) else ()
    return StudySpec(
        name=name, variants=tuple(bench.variants), floor=bench.floor, traced_mode="blocked",
        modes=MODES | (FIRST_RUN if bench.first_run else {}),
        trace_components=components(bench.path),
        claims={e.key: e.claim(bench.path.name) for e in bench.expectations},
        schema=schema((bench.axes, bench.open_axes)), extra_pairs=pairs, lockstep=True, timing=Timing, traced=Traced)


def compiles_on_purpose(path: Path) -> bool:
    """Whether a file times compiling (FIRST_RUN, RECOMPILES): its jobs then keep no persistent cache."""
    bench = read(path)
    return bench.first_run or bool(bench.recompiles)


def measured_code(name: str, path: Path) -> str:
    """A file's code as its measuring jobs' parameter: its syntax tree but docstring, EXPECT and the whys of
    OUTPUTS_DIFFER and RECOMPILES, and the pairs EXPECT adds, digested (an edited sentence times nothing again)."""
    body = ast.parse(path.read_text()).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    kept = [_without_whys(node) for node in body if _assigned(node) != "EXPECT"]
    # its name too: the trace names the file's own frames by it
    text = path.name + ast.dump(ast.Module(kept, type_ignores=[])) + repr(sorted(spec(name, path).extra_pairs))
    return hashlib.sha256(text.encode()).hexdigest()


def _without_whys(node: ast.stmt) -> ast.stmt:
    """A `{variant: why}` assignment (OUTPUTS_DIFFER, RECOMPILES) with its whys blanked: the report says them."""
    if _assigned(node) in ("OUTPUTS_DIFFER", "RECOMPILES") and isinstance(node.value, ast.Dict):
        return ast.Assign(node.targets if isinstance(node, ast.Assign) else [node.target],
                          ast.Dict(node.value.keys, [ast.Constant("")] * len(node.value.keys)))
    return node


def _assigned(node: ast.stmt) -> str | None:
    """The one name a statement assigns (`NAME = ...`, `NAME: T = ...`), as reader.py reads them; else None."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
