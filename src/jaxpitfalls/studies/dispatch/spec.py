"""What the `dispatch` study is, as the rest of the workflow reads it (interface.StudySpec). JAX-free: the
plan, the config check, the trace parser and the report read it without importing measure.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...breakdown import Component
from ..interface import Claim, Number, StudySpec

MODES = {
    "blocked": "each step waited for (a sample averages several)",
    "pipelined": "several steps dispatched back to back, one wait at the end",
}

# The parts of a step the trace breakdown reports (innermost match wins; the first listed wins a tie).
COMPONENTS = (
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

# BERT-base's pytree is its 12 layers' (the hidden size changes the arrays, not the tree); its compute needs
# the hidden size too.
BERT_BASE_TREE = {"layers": 12}
BERT_BASE = {"layers": 12, "hidden": 768}

CLAIMS = {
    "slower": Claim("filter_jit is slower per training step than jax.jit + partition/combine",
                    "1.23-1.27x (BERT-base, batch 64, seq 512, GPU); 159.7 vs 130.1 ms/step with dropout",
                    numbers=(Number(1.23, 1.27, "x", structural=False, at=BERT_BASE),
                             Number(159.7, 159.7, " ms/step filter_jit", structural=False, at=BERT_BASE),
                             Number(130.1, 130.1, " ms/step jit_partition", structural=False, at=BERT_BASE))),
    "where": Claim("the overhead is pre/postprocessing outside the compiled program, mostly _postprocess + combine",
                   "_preprocess + hashable_partition 26%, _postprocess + combine 74%",
                   numbers=(Number(73, 74, "%", structural=True, at=BERT_BASE_TREE),)),
    "structure": Claim("the overhead depends on the model's structure (number of pytree leaves)",
                       "~47 ms per step for BERT-base's tree",
                       numbers=(Number(46.8, 47.2, " ms", structural=True, at=BERT_BASE_TREE),)),
    "not_compute": Claim("the overhead does not depend on the computation (dropout, sizes)",
                         "47.2 ms without dropout vs 46.9 ms with dropout"),
    "partition_free": Claim("partition once + combine inside jax.jit leaves ~0 ms of per-call overhead",
                            "~0 ms (combine happens inside the program)"),
    "pipelining": Claim("(beyond the write-up) filter_jit blocks on every call, so pipelining gains it less than "
                        "jax.jit", "equinox >= 0.11.8 blocks inside filter_jit; jax.jit dispatches asynchronously"),
}


def check_sizes(at, conf, model, config) -> Iterator[str]:
    if conf["seq"] > model["max_positions"]:
        yield f"{at('seq')}: longer than {model.label('max_positions')}; raise max_positions or lower seq"


SPEC = StudySpec(
    name="dispatch",
    variants=("filter_jit", "jit_partition", "jit_flat", "jit_static_arg"),
    floor="jit_flat",  # the floor every variant is compared with
    extra_pairs=(("filter_jit", "jit_partition"),),  # the write-up's own comparison
    modes=MODES,
    traced_mode="blocked",  # its untraced median turns trace shares into milliseconds
    trace_components=COMPONENTS,
    claims=CLAIMS,
    schema=Path(__file__).with_name("config.schema.yaml"),
    check_sizes=check_sizes,
)
