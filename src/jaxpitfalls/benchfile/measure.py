"""The measuring side of a benchmark file: every study's protocol on its variants' calls."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np

from ..contract.naming import settings_of
from ..contract.settings import Traced
from ..harness import tracing
from ..harness.compiles import CompiledInTimedRegion, NotAFirstRun, count_compiles
from ..harness.protocol import NOW_AND_THEN, Runner, measure, measure_mode, mode_samplers, result_document
from ..harness.timing import timed
from ..harness.variants import (
    VariantOutputsDisagree,
    VariantsIndistinguishable,
    require_agree,
    require_distinct,
)
from .expectations import FIRST_RUN_MODE
from .outputs import host, idle_call, on_host, require_same_structure, structure
from .reader import BenchFile, BenchFileRefused, read
from .signature import SecondCallFailed, first_call, makes_calls
from .spec import Timing, spec

# Said where a warm call compiled: what makes a call compile every time, and how to time that on purpose.
UNDECLARED = ("A call compiles every time where it traces anew: a jax.jit made inside the call (of a new lambda), "
              "a new value for a static argument, a new shape or dtype (jax.config.update(\"jax_explain_cache_misses"
              "\", True) in the file logs why, in the job's log). If that is the cost to time, name the variant in "
              f"RECOMPILES with why. {NOW_AND_THEN}")


def load(bench: BenchFile, name: str):
    """The file imported as a module of its own, its folder on the path."""
    folder = str(bench.path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = f"jaxpitfalls_benchmark_{name}"
    spec = importlib.util.spec_from_file_location(module_name, bench.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before it runs, as an import does: pickling and dataclasses look it up
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[module_name]
        raise BenchFileRefused(f"{bench.path}: cannot be imported: {type(e).__name__}: {e}") from e
    return module


def _called(fn: Callable, inputs: Any) -> Any:
    """`fn` on setup's inputs: a tuple as positional arguments, a dict as keywords, anything else as one."""
    if isinstance(inputs, tuple):
        return fn(*inputs)
    if isinstance(inputs, dict):
        return fn(**inputs)
    return fn(inputs)


def calls(bench: BenchFile, name: str, conf: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """Each variant's call on this configuration's inputs."""
    module = load(bench, name)
    values = settings_of(conf)
    try:
        inspect.signature(module.setup).bind(**values)
    except TypeError as e:
        raise BenchFileRefused(f"{bench.path}: setup({', '.join(f'{k}={v!r}' for k, v in values.items())}) "
                               f"cannot take this configuration: {e}") from e
    try:
        inputs = module.setup(**values)
    except Exception as e:
        raise BenchFileRefused(f"{bench.path}: setup raised {type(e).__name__}: {e}") from e
    found = {}
    for variant, builder_name in bench.variants.items():
        builder = module.VARIANTS[variant] if isinstance(module.VARIANTS, dict) else getattr(module, builder_name)
        if not callable(builder):
            raise BenchFileRefused(f"{bench.path}: variant {variant!r}: {builder_name} is not callable")
        try:
            call = _called(builder, inputs)
        except Exception as e:
            raise BenchFileRefused(f"{bench.path}: variant {variant!r}: its builder raised "
                                   f"{type(e).__name__}: {e}") from e
        if not callable(call):
            raise BenchFileRefused(f"{bench.path}: variant {variant!r}: {builder_name}(...) returned "
                                   f"{type(call).__name__!r}, not the call to time (e.g. return lambda: f(x))")
        found[variant] = call
    return found


@dataclass
class Prepared:
    """A configuration's variants, run from cold and warmed."""

    runners: dict[str, Runner]
    signatures: dict[str, dict[str, Any]]
    compiles: dict[str, int]
    outputs: dict[str, np.ndarray]
    structures: dict[str, tuple]
    unusable_donations: dict[str, str]  # JAX's warning where it could not use a variant's donation
    program_memory: dict[str, dict[str, int] | None]  # the plan of the largest program its first call compiled
    executables: dict[str, str | None]  # a fingerprint of the optimized programs its first call compiled
    host_only: dict[str, bool]  # whether its outputs are all NumPy arrays or numbers: it waited for its work inside


def _runner(variant: str, call: Callable[[], Any], signature: dict[str, Any]) -> Runner:
    counted = [0]

    def step() -> Any:
        counted[0] += 1
        return call()

    return Runner(variant, step, lambda: signature, counted)


def prepare(bench: BenchFile, name: str, conf: dict[str, Any], settings: Timing | Traced) -> Prepared:
    """Each variant's first call from cold, then `warmup_steps` blocked calls and one pipelined sample, so the
    timed region compiles nothing."""
    signatures, compiles, outputs, runners, structures, unusable, memory, built = {}, {}, {}, {}, {}, {}, {}, {}
    host_only = {}
    calls_of = calls(bench, name, conf)
    for variant, call in calls_of.items():
        with _named(bench, variant, "its first call"):
            signatures[variant], compiles[variant], unusable[variant], memory[variant], built[variant] = first_call(
                call, variant in bench.recompiles)
        runners[variant] = _runner(variant, call, signatures[variant])
    # the caches were cleared between variants: the earlier ones compile again here, in their warm-up
    pipelined = mode_samplers(runners, settings.steps_per_sample)["pipelined"]
    for variant, runner in runners.items():
        with _named(bench, variant, "a warm-up call"), count_compiles() as again:
            outputs[variant], structures[variant], idle, host_only[variant] = _warm_up(
                runner, settings.warmup_steps, signatures[variant]["programs_compiled"], makes_calls(calls_of[variant]))
            pipelined[variant]()
        # a RECOMPILES variant's own; the others' here are the harness's (caches cleared for the next first call)
        compiles[variant] += again.count if variant in bench.recompiles else 0
        if idle:
            raise BenchFileRefused(f"{bench.path}: variant {variant!r}'s call {idle}.")
    return Prepared(runners, signatures, compiles, outputs, structures, unusable, memory, built, host_only)


def _warm_up(runner: Runner, steps: int, programs: int, makes: bool) -> tuple[np.ndarray, tuple, str, bool]:
    """`steps` blocked calls: their outputs on the host, one row a call, the first's structure, idle_call's
    reading of the last two, and whether the last returned host values alone."""
    rows, laid_out, before, idle = [], (), None, ""
    for i in range(steps):
        out = jax.block_until_ready(runner.step())
        rows.append(host(out))
        laid_out = structure(out) if i == 0 else laid_out
        idle, before = idle_call(before, out, programs, makes), out
    return np.stack(rows), laid_out, idle, on_host(before)


def _first_run(runner: Runner) -> Callable[[], float]:
    """A call from cleared caches, waited for: what tracing, compiling and running it cost a fresh process."""
    def sample() -> float:
        jax.clear_caches()
        return timed(lambda: jax.block_until_ready(runner.step()))
    return sample


@contextmanager
def _named(bench: BenchFile, variant: str, when: str):
    """What a variant raises, said with the file, the variant and when."""
    try:
        yield
    except SecondCallFailed as e:
        again = " (a buffer donated is gone after the call: make the call donate one of its own each time, as " \
                "examples/donation.py does)" if "donated" in str(e) else ""
        raise BenchFileRefused(f"{bench.path}: variant {variant!r} raised {e}{again}") from e
    except Exception as e:
        raise BenchFileRefused(f"{bench.path}: variant {variant!r} raised {type(e).__name__} in {when}: {e}") from e


def _checks(bench: BenchFile, prepared: Prepared) -> dict[str, Any]:
    apart = {**bench.outputs_differ, **bench.same_outputs_as}
    agreement = _agree(bench, prepared, [v for v in prepared.outputs if v not in apart], bench.floor)
    for variant, other in bench.same_outputs_as.items():
        found = _agree(bench, prepared, [other, variant], other)
        for key in ("max_abs_difference", "bitwise_equal"):
            agreement[key][variant] = found[key][variant]
    agreement |= {"outputs": "every array leaf of each variant's outputs over its warm-up calls",
                  "differ_on_purpose": dict(bench.outputs_differ)} | (
        {"against": dict(bench.same_outputs_as)} if bench.same_outputs_as else {})
    try:
        distinct = require_distinct(prepared.signatures)
    except VariantsIndistinguishable as e:
        unusable = "".join(f" JAX could not use {v!r}'s donation: {warned.splitlines()[0]}"
                           for v, warned in prepared.unusable_donations.items() if warned and f"'{v}'" in str(e))
        raise VariantsIndistinguishable(
            f"{bench.path}: {e}. Same programs compiled, same Python on the way, same call as written: one thing "
            "runs per call (under jax.jit, two spellings of one computation, jnp.einsum and @ say, lower to one "
            f"program and cost the same). Keep one of them, or time what differs where it runs.{unusable}") from e
    return {"outputs_agree": agreement, "signatures_distinct": distinct}


def _agree(bench: BenchFile, prepared: Prepared, variants: list[str], reference: str) -> dict[str, Any]:
    """`variants`' outputs held to `reference`'s: their structure, then every leaf within TOLERANCE."""
    declared = "check the variant's SAME_OUTPUTS_AS entry" if reference != bench.floor else (
        "if it should compute the floor's: does each call compute its result anew (nothing computed before the "
        "timer), carrying state as the floor does? If it computes something else on purpose, name it in "
        "OUTPUTS_DIFFER with why, or in SAME_OUTPUTS_AS with the variant whose outputs it must equal")
    try:
        require_same_structure({v: prepared.structures[v] for v in variants}, reference)
    except VariantOutputsDisagree as e:
        raise VariantOutputsDisagree(f"{bench.path}: {e} ({declared})") from e
    try:
        return require_agree({v: prepared.outputs[v] for v in variants}, reference, exact=False, rtol=bench.rtol,
                             atol=bench.atol)
    except VariantOutputsDisagree as e:
        raise VariantOutputsDisagree(f"{bench.path}: {e} ({declared}; a difference of rounding alone: set "
                                     "TOLERANCE)") from e


@dataclass(frozen=True)
class Measure:
    """A benchmark file's measuring code."""


    name: str
    path: Path

    @property
    def bench(self) -> BenchFile:
        return read(self.path)

    def run(self, conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
        bench = self.bench
        prepared = prepare(bench, self.name, conf, settings)
        checks = _checks(bench, prepared)
        pairs = spec(self.name, self.path).extra_pairs
        uncompiled = [v for v, s in prepared.signatures.items() if not s["programs_compiled"]]
        if bench.first_run and uncompiled:  # before any timing: a first run is its compile, and these have none
            raise BenchFileRefused(f"{bench.path}: FIRST_RUN times a first call's compiling, and {uncompiled} compile "
                                   "no program in theirs (NumPy, or compiled ahead of time): leave them or FIRST_RUN "
                                   "out")
        try:
            modes = measure(prepared.runners, bench.floor, settings.sampling, settings.steps_per_sample, conf["id"],
                            extra_pairs=pairs, recompiling=tuple(bench.recompiles))
            if bench.first_run:
                modes[FIRST_RUN_MODE] = measure_mode({v: _first_run(r) for v, r in prepared.runners.items()},
                                                     FIRST_RUN_MODE, bench.floor, settings.sampling, conf["id"],
                                                     pairs, compiles="required")
        except CompiledInTimedRegion as e:  # it names the variants and the mode; the file too
            raise CompiledInTimedRegion(f"{bench.path}: {e} {UNDECLARED}") from e
        except NotAFirstRun as e:
            raise type(e)(f"{bench.path}: {e}") from e
        variants = {v: {"signature": prepared.signatures[v], "calls": r.calls[0],
                        "compiles_in_warmup": prepared.compiles[v]} for v, r in prepared.runners.items()}
        for v, kept in variants.items():  # what a variant's result keeps only where known
            kept |= ({"program_memory": prepared.program_memory[v]} if prepared.program_memory[v] else {}) | (
                {"executable": prepared.executables[v]} if prepared.executables[v] else {}) | (
                {"returns_host": True} if prepared.host_only[v] else {})
        return result_document(bench.floor, modes, variants, checks, benchmark_file=str(bench.path))

    def trace(self, conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
        prepared = prepare(self.bench, self.name, conf, settings)
        return tracing.capture(prepared.runners, settings.trace_steps, out_dir, settings.captures)

    def samplers(self, conf: dict[str, Any], inputs: dict[str, str], settings: Timing,
                 variants: Sequence[str] = ()) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """Every variant prepared, as its checks pair them; only `variants`' samplers where it names some."""
        bench = self.bench
        prepared = prepare(bench, self.name, conf, settings)
        checks = _checks(bench, prepared)
        runners = {v: r for v, r in prepared.runners.items() if not variants or v in variants}
        return mode_samplers(runners, settings.steps_per_sample), {
            "signatures": prepared.signatures, "checks": checks, "program_memory": prepared.program_memory,
            "executables": prepared.executables,
            "recompiling": sorted(bench.recompiles)}
