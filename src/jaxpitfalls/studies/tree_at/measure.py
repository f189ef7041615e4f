"""tree_at's timed and traced runs, and their checks."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import numpy as np
import optax
from jax.sharding import Mesh

from ...contract.naming import is_base
from ...contract.settings import Timing, Traced
from ...harness import tracing
from ...harness.compiles import count_compiles
from ...harness.protocol import Runner, Timed, measure_mode, result_document
from ...harness.timing import timed
from ...harness.variants import VariantOutputsDisagree, fingerprint, require_distinct, require_same_trees
from . import tensor_parallel as tp
from .spec import ANCHOR, REFERENCE, SPEC, START_UP_STEPS, steps_timed
from .spec import Timing as TreeAtTiming


class _Variant:
    """One way to apply the plan, with its `tree_at` counter, outputs, call counts and step seconds."""

    def __init__(self, name: str, apply: Callable, model: eqx.Module, mesh: Mesh) -> None:
        self.name, self.apply, self.model, self.mesh = name, apply, model, mesh
        self.optimizer = optax.adamw(1e-4)
        self.calls = tp.TreeAtCalls()
        self.applied: eqx.Module | None = None
        self.started: Any = None
        self.stepped: Any = None
        self.step_seconds: dict[str, list[float]] = {step: [] for step in START_UP_STEPS}
        self.start_up: Callable | None = None
        self.direct_calls = self.first_run_calls = 0

    def direct(self, model: eqx.Module | None = None) -> eqx.Module:
        """The plan applied outside JIT: no device work, the transforms reuse the arrays."""
        before = self.calls.count
        self.applied = self.apply(self.model if model is None else model, tp.BERT_PLAN, self.calls)
        self.direct_calls = self.calls.count - before
        return self.applied

    def _jitted_start_up(self, calls: tp.TreeAtCalls) -> Callable:

        def make_module_opt(model):
            return tp.make_module_opt(model, tp.BERT_PLAN, self.mesh, self.optimizer, self.apply, calls)

        return eqx.filter_jit(make_module_opt)

    def first_run(self, model: eqx.Module | None = None) -> Any:
        """A fresh `eqx.filter_jit` of the start-up, called once: it traces (applying the plan) and compiles."""
        self.started = None  # see steady()
        self.start_up = self._jitted_start_up(self.calls)
        before = self.calls.count
        self.started = jax.block_until_ready(self.start_up(self.model if model is None else model))
        self.first_run_calls = self.calls.count - before
        return self.started

    def start_up_program(self) -> str:
        """The jitted start-up's StableHLO fingerprint: equal means the same XLA work."""
        return fingerprint(self._jitted_start_up(tp.TreeAtCalls()).lower(self.model).as_text())

    def steady(self) -> Any:
        """The compiled start-up again, the last output released first (held, it doubles memory)."""
        self.started = None
        self.started = jax.block_until_ready(self.start_up(self.model))
        return self.started

    def step_by_step(self) -> Any:
        """The start-up un-jitted, as the write-up's table: each step blocked and timed."""
        self.stepped = None
        start = time.perf_counter()
        for step, made in tp.start_up(self.model, tp.BERT_PLAN, self.mesh, self.optimizer, self.apply, self.calls):
            jax.block_until_ready(made)
            now = time.perf_counter()
            self.step_seconds[step].append(now - start)
            start = now
        self.stepped = made
        return self.stepped


def build_variants(model: eqx.Module, mesh: Mesh, apply: dict[str, Callable] | None = None) -> dict[str, _Variant]:
    """Both variants on one model and mesh; `apply` replaces their code paths (tests)."""
    apply = tp.APPLY if apply is None else apply
    return {name: _Variant(name, apply[name], model, mesh) for name in SPEC.variants}


def prepare(model_dir: str) -> tuple[eqx.Module, Mesh]:
    """The model and a one-axis mesh over every device."""
    from ...models.checkpoint import load_model

    model, _ = load_model(model_dir)
    return model, Mesh(np.array(jax.devices()), (tp.AXIS,))


def _samplers(variants: dict[str, _Variant], method: str) -> dict[str, Callable[[], float]]:
    return {name: (lambda v=v: timed(getattr(v, method))) for name, v in variants.items()}


class Rebuild:
    """The direct mode's reference workload: the same rebuild each call, so its spread is the run's."""

    def __init__(self, model: eqx.Module) -> None:
        self.model, self.calls = model, 0

    def __call__(self) -> float:
        self.calls += 1
        return timed(lambda: jax.tree_util.tree_map(lambda leaf: leaf, self.model))


def _sharded_leaves(tree: Any) -> int:
    return sum(not leaf.sharding.is_fully_replicated for leaf in jax.tree_util.tree_leaves(tree)
               if isinstance(leaf, jax.Array))


def one_layer(model: eqx.Module) -> eqx.Module:
    """The model cut to its first layer (embeddings and head kept): the warmup's slice and the anchor's."""
    return eqx.tree_at(lambda m: m.layers, model, model.layers[:1])


def anchored(variants: dict[str, _Variant]) -> dict[str, _Variant]:
    """The variants plus, deeper than one layer, the one-layer anchor as its own variant."""
    floor = variants[SPEC.floor]
    if len(floor.model.layers) == 1:
        return variants
    return variants | {ANCHOR: _Variant(ANCHOR, floor.apply, one_layer(floor.model), floor.mesh)}


def warm_up(variants: dict[str, _Variant], model: eqx.Module) -> dict[str, int]:
    """Run every path once on a one-layer slice (returns its compiles), compiling nothing a first run times."""
    sliced = one_layer(model)
    compiles = {}
    for name, v in variants.items():
        with count_compiles() as counter:
            v.direct(sliced)
            v.first_run(sliced)
        compiles[name] = counter.count
    return compiles


def _same_values(jitted: Any, stepped: Any, name: str) -> None:
    """The un-jitted start-up made the compiled one's tree, bitwise (shardings may differ)."""
    (a, a_def), (b, b_def) = jax.tree_util.tree_flatten(jitted), jax.tree_util.tree_flatten(stepped)
    if a_def != b_def or not all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)):
        raise VariantOutputsDisagree(f"{name!r}: the un-jitted start-up's model and optimizer state differ from "
                                     "the compiled start-up's")


def time_step_by_step(variants: dict[str, _Variant], mode: Callable[[str], Timed],
                      warmup_compiles: dict[str, int]) -> Timed:
    """The un-jitted start-up's mode, checked against the compiled one; the warm call kept as `first_run`."""
    first_calls = {}
    for name, v in variants.items():
        with count_compiles() as counter:
            start = time.perf_counter()
            v.step_by_step()
            seconds = time.perf_counter() - start
        warmup_compiles[name] += counter.count
        first_calls[name] = {"seconds": seconds, "compiles": counter.count, "compile_seconds": counter.seconds}
        _same_values(v.started, v.stepped, name)
        v.started = None
        v.step_seconds = {step: [] for step in START_UP_STEPS}
    timed = mode("step_by_step")
    for name, v in variants.items():
        timed.entries[name]["step_seconds"] = v.step_seconds
        timed.entries[name]["first_run"] = first_calls[name]
    require_same_trees({name: v.stepped for name, v in variants.items()}, SPEC.floor)
    return timed


def same_program(variants: dict[str, _Variant]) -> dict[str, Any]:
    """Whether both jitted start-ups lower to one program, with fingerprints."""
    programs = {name: v.start_up_program() for name, v in variants.items()}
    return {"same": len(set(programs.values())) == 1} | programs


def run_variants(variants: dict[str, _Variant], settings: Timing, label: str,
                 step_by_step: bool = False) -> dict[str, Any]:
    """Time both paths interleaved in three modes (four with `step_by_step`), checking outputs; plus `Rebuild`."""
    model = next(iter(variants.values())).model
    transforms = len(tp.find_matches(model, tp.BERT_PLAN))
    model_leaves = len(jax.tree_util.tree_leaves(model))
    warmup_compiles = warm_up(variants, model)

    def mode(name: str, timed: dict[str, _Variant] = variants, beside: dict[str, Callable] | None = None, **kwargs):
        beside = beside or {}
        return measure_mode(_samplers(timed, name) | beside, name, SPEC.floor, settings.sampling, label,
                            beside=tuple(beside), **kwargs)

    reference = Rebuild(model)
    results = {"direct": mode("direct", beside={REFERENCE: reference})}
    signatures = {name: {"tree_at_calls_per_application": v.direct_calls, "transforms_applied": transforms}
                  for name, v in variants.items()}
    distinct = require_distinct(signatures)
    require_same_trees({name: v.applied for name, v in variants.items()}, SPEC.floor)  # before more timing
    first_run = anchored(variants)
    results["first_run"] = mode("first_run", first_run, compiles="required")
    agreement = require_same_trees({name: (v.applied, v.started) for name, v in variants.items()}, SPEC.floor)
    for name, v in variants.items():
        signatures[name]["tree_at_calls_per_first_run"] = v.first_run_calls
        v.steady()  # the warmup of the steady mode: the program is the one the last first run compiled
    results["steady"] = mode("steady")
    sharded_leaves = _sharded_leaves(variants[SPEC.floor].started[0])
    if step_by_step:
        results["step_by_step"] = time_step_by_step(variants, mode, warmup_compiles)

    records = {name: {"signature": signatures[name], "calls": v.calls.count,  # tree_at calls, warmup and timed
                      "compiles_in_warmup": warmup_compiles[name]} for name, v in variants.items()}
    if ANCHOR in first_run:  # timed in the first_run mode alone; its warmup was the variants' (the same slice)
        anchor = first_run[ANCHOR]
        records[ANCHOR] = {"signature": {"transforms_applied": len(tp.find_matches(anchor.model, tp.BERT_PLAN)),
                                         "tree_at_calls_per_first_run": anchor.first_run_calls},
                           "calls": anchor.calls.count, "compiles_in_warmup": 0}
    records[REFERENCE] = {"signature": {"model_leaves": model_leaves},
                          "calls": reference.calls, "compiles_in_warmup": 0}  # timed in the direct mode alone
    checks = {"outputs_agree": agreement | {"outputs": "trees after direct application and after make_module_opt "
                                                       "(model and optimizer state; un-jitted, the same values, and "
                                                       "the same trees across variants)"},
              "signatures_distinct": distinct, "findings": {"start_up_program": same_program(variants)}}
    array_leaves = jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array))
    return result_document(SPEC.floor, results, records, checks, structure={
        "model_leaves": model_leaves,
        "array_leaves": len(array_leaves),
        "parameters": sum(x.size for x in array_leaves),
        "transforms": transforms,
        "sharded_leaves": sharded_leaves,
        "devices": len(variants[SPEC.floor].mesh.devices.flat),
    })


def run(conf: dict[str, Any], inputs: dict[str, str], settings: TreeAtTiming) -> dict[str, Any]:
    """One configuration; the start-up step by step where `measure.step_by_step` says."""
    step_by_step = steps_timed(conf, settings.step_by_step, is_base(conf))
    return run_variants(build_variants(*prepare(inputs["model"])), settings, conf["id"], step_by_step)


def trace(conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
    """The traced pass: the plan applied directly, a few times per variant (after one untraced application)."""
    variants = build_variants(*prepare(inputs["model"]))
    runners = {name: Runner(name=name, step=v.direct, signature=dict) for name, v in variants.items()}
    for v in variants.values():
        v.direct()
    return tracing.capture(runners, settings.trace_steps, out_dir, settings.captures)
