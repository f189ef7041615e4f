"""What the `tree_at` study is, as the rest of the workflow reads it (interface.StudySpec). JAX-free: the
plan, the config check, the trace parser and the report read it without importing measure.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ...breakdown import Component
from ..interface import Claim, Number, StudySpec

MODES = {
    "direct": "the plan applied outside JIT, once per sample",
    "first_run": "a fresh `eqx.filter_jit(make_module_opt)` called once: trace (applying the plan) + compile "
                 "+ execute, persistent cache off; measures compilation on purpose (labelled, every sample "
                 "must compile)",
    "steady": "the compiled `make_module_opt` called again (reshard the model, create the optimizer state)",
}

# The parts of one direct application the trace breakdown reports (innermost match wins).
COMPONENTS = (
    Component("find_matches",
              (("tensor_parallel.py", "find_matches"), ("tensor_parallel.py", "iter_modules"),
               ("tensor_parallel.py", "path_matches")),
              description="walking the modules and matching the plan's patterns"),
    Component("transform", (("tensor_parallel.py", "shard_output"), ("tensor_parallel.py", "shard_input")),
              description="building the replacement modules"),
    Component("tree_at", (("_tree.py", "tree_at"),), description="eqx.tree_at outside pytree flattening"),
    Component("tree_flatten",
              (("tree_util.py", "tree_flatten"), ("tree_util.py", "tree_unflatten"),
               ("tree_util.py", "tree_leaves"), ("tree_util.py", "tree_map"),
               ("tree_util.py", "tree_structure")),
              prefixes=("<generated_flatten_", "<generated_unflatten_"),
              description="pytree flattening and rebuilding (mostly inside tree_at)"),
)

BERT_4L_768H = {"layers": 4, "hidden": 768}  # the write-up's direct measurement

CLAIMS = {
    "faster": Claim("one batched tree_at applies a tensor-parallel plan faster than one tree_at per match",
                    "7.6x (130 ms -> 17 ms; BERT-4L-768H, 24 transforms)",
                    numbers=(Number(7.6, 7.6, "x", structural=True, at=BERT_4L_768H),)),
    "per_transform": Claim("per-transform cost: unbatched is O(transforms x tree size), batched O(tree size)",
                           "5.4 ms vs 0.7 ms per transform at 24 transforms; O(N*L) -> O(L)",
                           numbers=(Number(5.4, 5.4, " ms unbatched", structural=True, at=BERT_4L_768H),
                                    Number(0.7, 0.7, " ms batched", structural=True, at=BERT_4L_768H))),
    "same_with_depth": Claim("the direct speedup stays the same with depth (extrapolated linearly to 12L and 24L)",
                             "7.6x at 24, 72 and 144 transforms (extrapolated, not measured)"),
    "first_run_linear": Claim("the first run of make_module_opt scales near-linearly with the number of transforms",
                              "~90 ms per transform; 1.24 s at 24 -> 32.4 s at 360 transforms (TPU v4)",
                              numbers=(Number(52, 90, " ms/transform", structural=False),)),
    "jit_negligible": Claim("under JIT (compiled make_module_opt) batching makes a negligible difference",
                            "~35 ms per call either way once compiled",
                            numbers=(Number(34.5, 34.5, " ms batched", structural=False, at=BERT_4L_768H),)),
    "less_compilation": Claim("batching reduces the JIT's work: less compilation overhead",
                              "expected, not measured directly"),
}


def forced_devices(xla_flags: str) -> int | None:
    """The CPU device count XLA is told to create, where the flags say (GPUs and TPUs count their own)."""
    found = re.findall(r"--xla_force_host_platform_device_count=(\d+)", xla_flags)
    return int(found[-1]) if found else None


def check_sizes(at, conf, model, config) -> Iterator[str]:
    devices = forced_devices(" ".join([config["xla_flags"], config["studies"]["tree_at"]["xla_flags"]]))
    if devices and conf["hidden"] % devices:
        yield (f"{at('hidden')}: not divisible by the {devices} CPU devices its xla_flags create "
               "(--xla_force_host_platform_device_count), across which the tensor-parallel plan splits it; "
               f"use a multiple of {devices}")


SPEC = StudySpec(
    name="tree_at",
    variants=("unbatched", "batched"),
    floor="batched",
    modes=MODES,
    traced_mode="direct",
    trace_components=COMPONENTS,
    claims=CLAIMS,
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_sizes=check_sizes,
)
