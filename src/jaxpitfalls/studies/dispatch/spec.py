"""The `dispatch` study as the workflow reads it: JAX-free."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...breakdown import EXECUTABLE, Component
from ...contract import settings
from ...contract.interface import Advice, Claim, Number, StudySpec
from ...contract.naming import value_label
from ...harness.stats import difference_side

FLATTEN_MODE = "flatten"  # the jitted no-op's mode (noop.py), read by flattening.py, left out of the step figures
MODES = {
    "blocked": "each step waited for (a sample averages several); where the configuration differs from the base "
               "only in layers, the base's filter_jit and jit_partition too (`base_*`, the anchor: ANCHOR); at the "
               "base, filter_jit and jit_partition of each compute setting beside it (`<variant>@<setting>`: "
               "beside_name)",
    "pipelined": "several steps dispatched back to back, one wait at the end",
    "infer": "one forward call of the batch, logits out, dropout off, waited for (filter_jit and jit_partition "
             "only, against jit_partition, at the base configuration only): no model or optimizer state returned",
    FLATTEN_MODE: "one call of a jitted no-op (one scalar out) on the model's arrays and optimizer state, waited for: "
               "jit_partition's arguments against the same leaves as jit_flat's flat list, at the base configuration "
               "only: jax.jit's handling of the arguments alone (noop.py)",
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
    EXECUTABLE,
    Component("wait", (("api.py", "block_until_ready"), ("array.py", "block_until_ready"),
                       ("_jit.py", "_call")),
              description="waiting for outputs: block_until_ready, or filter_jit's own block inside _call"),
)

# BERT-base's pytree is its 12 layers' (the hidden size changes the arrays, not the tree, but the compute); the
# write-up's batch and sequence set its step's compute, so the step ratio's size.
BERT_BASE_TREE, BERT_BASE, WRITE_UP_BATCH = {"layers": 12}, {"layers": 12, "hidden": 768}, {"batch": 64, "seq": 512}
# The write-up's no-dropout pair (slower's rule says where); its step 3, one profiled step a variant: the trace's own.
NO_DROPOUT = BERT_BASE | {"dropout": 0.0}
TRACED_STEP = ("one profiled step on hardware the write-up does not name there; {here}'s traced steps here: the "
               "tracer inflates Python 1.7-3x")
WRITE_UP_SIZES = "batch 64 x seq 512 on hardware the write-up does not name there, {here} at the preset's sizes here"
AT_WRITE_UP_STEP = {"structural": False, "at": BERT_BASE, "scale": WRITE_UP_BATCH, "differs": WRITE_UP_SIZES}

COMPUTE_BAND = 0.25  # "does not depend": within 25% of the base configuration's overhead, either way
# "acceptable for inference (small outputs)": a forward call pays at most this share of filter_jit's overhead per
# training step (whose rebuilding of the model and optimizer state a forward does not return)
INFERENCE_SHARE = 0.5
# "all of the extra time is Python around the program": at least this share of the gap (a tenth for trace error)
ALL_OF_GAP = 0.9
# "leaves ~0 ms of per-call overhead": at most this share of filter_jit's own per-call steps left (traced)
LEFT_OF_OVERHEAD = 0.1
UNPAIRED = "an earlier reference run's two shares disagreed: docs/decisions.md#unpaired-no-op-share"  # why not
# filter_jit's own steps around the program on every call (trace components, with the partitioning, combining and
# flattening each calls): what partitioning once and combining inside jax.jit removes
PER_CALL_STEPS = ("_preprocess", "_postprocess")

CLAIMS = {
    "slower": Claim(
        "filter_jit is slower per training step than jax.jit + partition/combine",
        "1.23-1.27x (BERT-base, batch 64, seq 512); 159.7 vs 130.1 ms/step with dropout, 133.5 vs 104.7 "
        "without",
        numbers=(Number(1.23, 1.27, "x", **AT_WRITE_UP_STEP),
                 Number(159.7, 159.7, " ms/step filter_jit", **AT_WRITE_UP_STEP),
                 Number(130.1, 130.1, " ms/step jit_partition", **AT_WRITE_UP_STEP),
                 *(Number(ms, ms, f" ms/step {variant}, no dropout", **AT_WRITE_UP_STEP | {"at": NO_DROPOUT})
                   for ms, variant in ((133.5, "filter_jit"), (104.7, "jit_partition")))),
        rule="95% interval of filter_jit / jit_partition (paired, blocked) above 1, at BERT-base's structure where "
             "the preset runs it; not testable where the base's overhead (same pytree) added to that step gives a "
             "largest ratio below the write-up's 1.23x. Its no-dropout pair is measured where a preset runs "
             "BERT-base's shape with dropout 0 as a configuration of its own (seeds-cpu does not: not testable there)",
        advice=Advice("In a training loop, partition the model once and call jax.jit on its arrays, combining inside "
                      "the program, instead of eqx.filter_jit on the whole model.",
                      "eqx.filter_jit cost no more than jit + partition at this structure: keep it.",
                      "At BERT-base's width (a smaller batch and sequence than the write-up's) this run cannot tell "
                      "filter_jit's fixed per-step cost from the step's own spread, though the same pytree shows it "
                      "on a short step: where steps are short, partition once and call jax.jit instead.")),
    "where": Claim(
        "of filter_jit's pre/postprocessing outside the compiled program, _postprocess + combine is most",
        "_postprocess + combine 73% in its table (74% in its summary); the traced step 3: 156.63 vs 109.43 ms",
        numbers=(Number(73, 74, "%", structural=True, at=BERT_BASE_TREE),
                 *(Number(ms, ms, f" ms traced step {variant}", structural=False, at=BERT_BASE, differs=TRACED_STEP)
                   for ms, variant in ((156.63, "filter_jit"), (109.43, "jit_partition")))),
        rule="_postprocess (with combine) takes more than half of the two in the traced step (one trace: no "
             "interval), at BERT-base's whole shape where a trace was taken there, else at its 12-layer pytree (the "
             "split is Python walking the pytree's leaves: batch and sequence set the arrays' sizes, not the leaves)",
        advice=Advice("Where a call must go through filter_jit, return small outputs: rebuilding a large output "
                      "pytree (_postprocess + combine) is most of its overhead per call (not of the call).",
                      "Most of filter_jit's cost here is splitting its inputs: pass it fewer leaves.")),
    "structure": Claim(
        "the overhead depends on the model's structure (number of pytree leaves)",
        "~47 ms per step for BERT-base's tree (47.2 ms is its one traced step's; its timed steps differ by 28.8 "
        "and 29.6 ms)",
        numbers=(Number(46.8, 47.2, " ms", structural=False, at=BERT_BASE_TREE,
                        differs="the host's Python speed and equinox's version (not given there, 0.13 here): the "
                                "overhead is Python on the host"),),
        rule="filter_jit - jit_partition (blocked) at the layers configuration farthest from the base in leaves, "
             "against the base's timed in that configuration's own job (paired in time): the overhead at more "
             "leaves minus at fewer (95% interval of the difference) above 0 reproduced, below 0 not reproduced. "
             "More layers also add compute: the difference of the two variants cancels it only where both run the "
             "program alike, which the breakdown's program_run column shows per traced depth (a leaves axis at fixed "
             "compute is not built)",
        advice=Advice("The per-call cost grows with the pytree's leaves: keep what a jitted step takes and returns "
                      "small or flat.")),
    "not_compute": Claim(
        "the overhead does not depend on the computation (dropout, attention implementation)",
        "47.2 ms without dropout (SDPA attention) vs 46.9 ms with dropout (eager attention), in a table whose step "
        "times differ by 28.8 and 29.6 ms",
        rule=f"per dropout and attention setting timed in the base's job (the config's `beside`), 95% interval of "
             f"its overhead minus the base's (filter_jit - jit_partition, blocked, paired round by round) within "
             f"+-{COMPUTE_BAND:.0%} of the base's overhead; any wholly outside: not reproduced. Configurations timed "
             "in jobs of their own (sizes: hidden, batch, seq; dropout or attention swept) are shown apart, not "
             "judged: the write-up varied no size, and the machine's drift between jobs is in their difference",
        advice=Advice("The overhead is a fixed cost per call: it matters most where steps are short (small batches "
                      "or models, fast accelerators).",
                      "The overhead changed with dropout or the attention implementation here: measure it with your "
                      "model's own settings.")),
    "partition_free": Claim(
        "partition once + combine inside jax.jit leaves ~0 ms of per-call overhead (read against jax.jit on a flat "
        "list of leaves: its pre/postprocessing is gone by construction)",
        "~0 ms (combine happens inside the program)",
        rule=f"timed: jit_partition - jit_flat as a share of filter_jit - jit_flat (blocked, paired by round, at "
             f"BERT-base's 12-layer pytree, 95% interval): below {LEFT_OF_OVERHEAD:.0%} of filter_jit's overhead "
             f"reproduced, above not reproduced. What a call still pays is jax.jit's own flattening (a flat list "
             "of leaves, which the write-up never timed, is the floor): filter_jit's own steps around the program "
             f"({' and '.join(PER_CALL_STEPS)}) are gone by construction (the trace breakdown shows them), and the "
             "flatten mode's jitted no-op (flattening_left) does not judge this share: timed in a mode of its own, "
             "minutes from the steps whose overhead divides it, while this VM's speed for Python moves between "
             "such minutes (" + UNPAIRED + ")",
        advice=Advice("Partition once and combine inside the jitted function: almost nothing of filter_jit's per-call "
                      "overhead stays.",
                      "Partitioning once takes filter_jit's splitting and rebuilding out of each call, not all of its "
                      "per-call cost: jax.jit still flattens the partitioned pytree on every call (pass a flat list "
                      "of leaves for the rest).",
                      "Partitioning once takes filter_jit's splitting and rebuilding out of each call; jax.jit still "
                      "flattens the pytree on every call, a share of the old overhead this run could not pin down.")),
    "flattening_left": Claim(
        "(beyond the write-up) jax.jit still flattens the partitioned model and state on every call: a flat list "
        "of leaves is faster",
        "the write-up compared filter_jit with partition + jax.jit only (no flat-leaves variant)",
        beyond=True,
        rule="jit_partition - jit_flat per step (blocked, at BERT-base's 12-layer pytree, paired, 95% interval) "
             "above 0 reproduced, below 0 not reproduced; its share of filter_jit's overhead over jit_flat shown "
             "(paired by round). Where the job timed the `flatten` mode, a jitted no-op on the same arguments "
             "(at most the step's difference) wholly above 0 reproduces it",
        advice=Advice("For the last milliseconds per call, pass jax.jit a flat list of leaves: it flattens the "
                      "module and optimizer state on every call.",
                      "jax.jit's flattening of the partitioned pytree costs nothing measurable here: partitioning "
                      "once is enough.")),
    "pipelining": Claim(
        "(beyond the write-up) filter_jit blocks on every call, so pipelining gains it less than jax.jit",
        "not in the write-up (equinox >= 0.11.8 blocks inside filter_jit; jax.jit dispatches asynchronously)",
        beyond=True,
        rule="filter_jit's ratio to jit_flat higher pipelined than blocked (95% interval of the quotient above 1; "
             "below 1: not reproduced); not testable where jit_flat's own gain from dispatching back to back, the "
             "largest quotient filter_jit's waits could make, lies below 1",
        advice=Advice("Do not block on every step: jax.jit steps queue asynchronously, while filter_jit "
                      "(equinox >= 0.11.8) waits inside each call.")),
    "attribution_complete": Claim(
        "all of filter_jit's extra time is Python pre/postprocessing outside the compiled program",
        "46.8 ms of traced _preprocess, hashable_partition, _postprocess and combine for a 47.2 ms gap",
        rule="the traced Python around the program (filter_jit - jit_partition, each component's share, the mean "
             "of the base's profiler captures, applied to the untraced median; its interval carried from the "
             "medians' and the captures' spread, Student's t; one capture: undecided) as a share of the measured gap "
             f"(95% interval, end divided by end) above {ALL_OF_GAP:g}; wholly below it: not reproduced (the rest "
             "is the program's run or its dispatch)",
        advice=Advice("The gap is Python around the program: partition once and combine inside jax.jit to move it "
                      "into the compiled program (jax.jit's own flattening stays: see flattening_left).",
                      "Part of the gap is not Python around the program (the program's run differs): profile "
                      "before moving code into jit.")),
    "every_call": Claim(
        "filter_jit pays the overhead on every call, so it compounds over a run's steps",
        "partition and combine run per step, over thousands of steps",
        rule="filter_jit - jit_partition per warm step (paired, blocked, 95% interval) at the base above 0: every "
             "warm call pays it (a one-off cost would leave warm steps equal), so N steps pay N times it; below 0: "
             "not reproduced",
        advice=Advice("Count filter_jit's overhead per step: warm calls pay it every time, so over a run it grows "
                      "with the steps taken.",
                      "Warm filter_jit steps cost no more than jit + partition here: nothing compounds.")),
    "inference_ok": Claim(
        "filter_jit's overhead is acceptable for inference (small outputs): a forward pays far less than a step",
        "hybrid advice: manual partition for training, filter_jit for inference",
        rule=f"filter_jit - jit_partition per forward call (`infer` mode) against {INFERENCE_SHARE:g} of it per "
             "training step (blocked), at the base configuration: that share of the training step's overhead minus "
             "the forward call's, 95% interval (the two estimates' intervals combined), above 0 reproduces (the "
             "overhead a training step pays mostly goes with its large outputs, the write-up's reason), below 0 does "
             "not; the forward call's own ratio is shown beside it (a forward's noise here leaves it wide)",
        advice=Advice("For inference, eqx.filter_jit on the model costs a small part of what it costs per training "
                      "step (no optimizer state in, only logits out): keep its simpler API there and partition "
                      "manually in training loops.",
                      "Even a forward call pays much of filter_jit's per-step overhead here: partition the model "
                      "once and call jax.jit on its arrays for inference too.",
                      "Whether a forward call escapes filter_jit's per-step overhead is too close to tell here: time "
                      "your own model's inference both ways.")),
    "flax_reference": Claim(
        "a Flax comparison point", "'flax: 80ms, 150s' (no model, size or baseline given)",
        not_measured="the write-up gives no model, size or baseline for it: nothing to reproduce"),
}


def check_sizes(at, conf, model, config) -> Iterator[str]:
    if conf["seq"] > model["max_positions"]:
        yield f"{at('seq')}: longer than {model.label('max_positions')}; raise max_positions or lower seq"


def kinds(conf: dict[str, Any], timing: settings.Timing, at_base: bool) -> Iterator[str]:
    """What changes the traced program (dropout, attention, own or beside) and whether anchored to the base."""
    for setting in (conf, *(conf | s for s in conf.get("beside", []))):
        yield f"dropout {'on' if setting['dropout'] > 0 else 'off'}"
        yield f"attention {setting['attention']}"
    if conf.get("beside"):
        yield "compute settings timed beside the base"
    if "anchor" in conf:
        yield "anchored to the base (its pair timed beside)"


@dataclass(frozen=True, kw_only=True)
class Steps:
    """Steps per variant, in timing and trace alike: blocked warmup steps (losses compared), steps per sample."""

    warmup_steps: int = 3
    steps_per_sample: int = 10


@dataclass(frozen=True, kw_only=True)
class Timing(Steps, settings.Timing):
    """dispatch's timing settings."""


@dataclass(frozen=True, kw_only=True)
class Traced(Steps, settings.Traced):
    """dispatch's trace settings."""


# Timed in the blocked rounds of every configuration that differs from the base only in what `structure`
# compares (ANCHORED): the base configuration's own filter_jit and jit_partition, by the names they are recorded
# under. Each configuration's overhead is read over the base's timed in its own job, paired in time: jobs minutes
# apart on a shared VM ran 1.15-1.8x apart in speed (from unpaired jobs, the per-leaf cost came out over 3x apart
# in two reference runs; docs/decisions.md#anchors).
ANCHOR = {"base_filter_jit": "filter_jit", "base_jit_partition": "jit_partition"}
ANCHOR_PAIR = tuple(ANCHOR)  # compared with each other: the base's overhead in the anchored job
ANCHORED = ("layers",)
# `not_compute`'s pair, timed at the base for each of the config's `beside` settings (dropout, attention: the same
# model's weights) in the base's own blocked rounds: each setting's overhead shift is paired in time with the base's
# and costs two variants, not a job (two jobs took 475 s of a 66-minute run; docs/decisions.md#beside-settings).
BESIDE = ("filter_jit", "jit_partition")
# `flattening_left`'s share: jit_partition's time over the flat-leaves floor against filter_jit's, in every job's
# blocked rounds (a ratio of two differences' medians, both resampled by the same rounds: paired, so the machine's
# drift between rounds cancels instead of widening the share end divided by end, to 7-31%;
# docs/decisions.md#paired-shares)
LEFT_SHARE = (difference_side("jit_partition", "jit_flat"), difference_side("filter_jit", "jit_flat"))


BESIDE_KEYS = ("dropout", "attention")  # what a `beside` setting may set (config.schema.yaml), in its label's order


def setting_label(setting: dict[str, Any]) -> str:
    """A compute setting as configuration ids write it (`dropout0-attentionfused`), in a fixed key order."""
    return "-".join(f"{key}{value_label(setting[key])}" for key in BESIDE_KEYS if key in setting)


def beside_name(variant: str, setting: dict[str, Any]) -> str:
    """A beside setting's variant as recorded: `filter_jit@dropout0`."""
    return f"{variant}@{setting_label(setting)}"

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
    lockstep=True,  # measure.samplers: other environments timed against it (compare.sides)
    timing=Timing,
    traced=Traced,
    kinds=kinds,
    anchored=ANCHORED,
)
