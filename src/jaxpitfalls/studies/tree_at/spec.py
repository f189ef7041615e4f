"""What the `tree_at` study is, as the rest of the workflow reads it: its variants, the floor they are
compared with, its modes (with what each measures), the mode its trace is taken in and the components the
trace breaks a step into. JAX-free: the report's jobs and the trace parser read it without importing the
measuring code (measure.py)."""

from __future__ import annotations

from ...breakdown import Component

VARIANTS = ("unbatched", "batched")

# The floor every variant is compared with.
FLOOR = "batched"

MODES = {
    "direct": "the plan applied outside JIT, once per sample",
    "first_run": "a fresh `eqx.filter_jit(make_module_opt)` called once: trace (applying the plan) + compile "
                 "+ execute, persistent cache off; measures compilation on purpose (labelled, every sample "
                 "must compile)",
    "steady": "the compiled `make_module_opt` called again (reshard the model, create the optimizer state)",
}

TRACED_MODE = "direct"

# The parts of one direct application the trace breakdown reports (innermost match wins).
TRACE_COMPONENTS = (
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
