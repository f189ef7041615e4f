"""What the `dispatch` study is, as the rest of the workflow reads it: its variants, the floor they are
compared with, its modes (with what each measures), the mode its trace is taken in and the components the
trace breaks a step into. JAX-free: the report's jobs and the trace parser read it without importing the
measuring code (measure.py)."""

from __future__ import annotations

from ...breakdown import Component

VARIANTS = ("filter_jit", "jit_partition", "jit_flat", "jit_static_arg")

# The floor every variant is compared with.
FLOOR = "jit_flat"

# Besides each variant against the floor: the write-up's own comparison.
EXTRA_PAIRS = (("filter_jit", "jit_partition"),)

MODES = {
    "blocked": "each step waited for (a sample averages several)",
    "pipelined": "several steps dispatched back to back, one wait at the end",
}

# The mode the traced pass runs (its untraced median turns trace shares into milliseconds).
TRACED_MODE = "blocked"

# The parts of a step the trace breakdown reports (innermost match wins; the first listed wins a tie).
TRACE_COMPONENTS = (
    Component("_preprocess", (("_jit.py", "_preprocess"),), description="filter_jit: split arguments"),
    Component("hashable_partition", (("_compile_utils.py", "hashable_partition"),),
              description="filter_jit: arrays vs hashable static parts"),
    Component("_bind", (("_jit.py", "_bind"),), description="filter_jit: bind call signature"),
    Component("_postprocess", (("_jit.py", "_postprocess"),), description="filter_jit: rebuild outputs"),
    Component("combine", (("_filters.py", "combine"),), description="eqx.combine outside the program"),
    Component("tree_flatten",
              (("tree_util.py", "tree_flatten"), ("tree_util.py", "tree_unflatten"),
               ("tree_util.py", "tree_leaves")),
              prefixes=("<generated_flatten_", "<generated_unflatten_"),
              description="pytree flattening in Python (incl. modules' flatten callbacks)"),
    Component("static_hash", (("_module.py", "__hash__"),), description="hashing a static argument"),
    Component("executable", prefixes=("PjitFunction(",),
              description="C++ dispatch and the compiled program (PjitFunction)"),
    Component("wait", (("api.py", "block_until_ready"), ("array.py", "block_until_ready"),
                       ("_jit.py", "_call")),
              description="waiting for outputs: block_until_ready, or filter_jit's own block inside _call"),
)
