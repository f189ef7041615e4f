"""The `extraction` study as the workflow reads it: JAX-free."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ...breakdown import EXECUTABLE, Component
from ...contract import settings
from ...contract.interface import Advice, Claim, Number, StudySpec
from ...harness.sampling import Sampling
from .fixes import AT_WRITE_UP_PASS, fix_claims

# The extractors (measure.py checks its EXTRACTORS are these, in this order), slowest first.
VARIANTS = ("eager", "jit", "jit_padded", "jit_padded_stacked", "jit_padded_async", "pipelined", "scanned")

SCAN = ("pipelined", "scanned")  # lax.scan over batches, against the loop it replaces
STACKED = ("jit_padded", "jit_padded_stacked")  # one stacked copy ('vectorizing'), against a copy per sample and layer
# Each phase against the one before it (the write-up's cumulative gains), and its phase 1 (jit, padding, async
# copies) as one; each variant is also compared with the floor (pipelined; scanned is its phase 2 after it).
PHASES = (("eager", "jit"), ("jit", "jit_padded"), ("jit_padded", "jit_padded_async"), ("eager", "jit_padded_async"),
          STACKED, SCAN)

# The variants before and after padding, whose first passes (compilation included) the padding claim is about.

MODES = {"extract": "one whole pass over the dataset: every batch forward, copied to the host, stored",
         "first_pass": "a whole pass of a fresh jax.jit of the forward (jit and jit_padded only): its programs "
                       "compile from scratch in every sample, the persistent cache off; measures compilation "
                       "on purpose (labelled, every sample must compile); its own rounds "
                       "(measure.first_pass_rounds), after one untimed round of both variants"}


@dataclass(frozen=True, kw_only=True)
class Timing(settings.Timing):
    """extraction's timing settings plus `first_pass_rounds` (None: `rounds`): noisy first passes need more
    (docs/decisions.md#first-pass-rounds)."""

    first_pass_rounds: int | None = None

    @property
    def first_pass_sampling(self) -> Sampling:
        """The common sampling settings with `first_pass`'s own rounds."""
        return replace(self.sampling, rounds=self.first_pass_rounds or self.sampling.rounds)


COMPONENTS = (
    Component("store", (("extractors.py", "store"),), description="writing the real tokens' rows (np.save)"),
    Component("to_host", (("extractors.py", "to_host"),), description="device-to-host copies (and waiting)"),
    EXECUTABLE,
    Component("dispatch", (("extractors.py", "dispatch"),), description="preparing and dispatching a batch"),
    Component("wait", (("api.py", "block_until_ready"), ("array.py", "block_until_ready")),
              description="waiting for a batch's forward (the compiled program's run)"),
)

STACKED_COPY_GAIN = 1.5  # the write-up's "~1.5x" from one stacked copy of all layers ('vectorizing')
# What the copy claims' effect consists of on an accelerator, and is not on a CPU backend (Claim.accelerator).
COPY_IS_A_MEMCPY = "a copy is a host memcpy on a CPU, not a transfer over a bus"
SPLIT_SHARE = 20  # % of eager's pass in copies and Python that reproduces the write-up's third (33-50%)


NOT_BUILT = "; not built"


CLAIMS = {
    **fix_claims(),
    "apply_auto_jit": Claim(
        "a Flax-style model.apply is JIT-compiled automatically", "'all nn.Module methods are automatically "
        "JIT-compiled when used with model.apply()'",
        rule="a Flax linen model of the base's depth and width (transformers ships no Flax models any more), its "
             "model.apply called on a new input shape: a compiled apply compiles one program, as jax.jit(model.apply) "
             "does; one program per operation is not compiled. More programs than jax.jit's: not reproduced; as many: "
             "reproduced (un-jitted / jitted per call shown, paired, 95% interval)",
        advice=Advice("", "Flax's model.apply is not compiled by itself: wrap it in jax.jit (as eqx.filter_jit for "
                          "an Equinox model).")),
    "eager_recompiles": Claim(
        "without jit, every forward pass re-compiles", "'repeated compilation overhead on every batch'",
        rule="the compile guard counts compilations in eager's warm passes (none: not reproduced)",
        advice=Advice("", "Eager mode is slow because each operation dispatches on its own, not because it "
                          "recompiles: jit fuses them.")),
    "batched_copy": Claim(
        "one stacked copy of all layers instead of many ('vectorizing')", "~1.5x",
        numbers=(Number(STACKED_COPY_GAIN, STACKED_COPY_GAIN, "x", **AT_WRITE_UP_PASS,
                        differs="estimated for an accelerator, where each copy crosses a bus; measured here on "
                                "{here}"),),
        rule=f"{STACKED[0]} / {STACKED[1]} time per pass (blocking copies per sample and layer against one "
             "blocking copy of the stacked batch), 95% interval above 1 (below 1: not reproduced); not testable "
             "where removing all of jit_padded's copies and the Python storing them could give less than the "
             "write-up's 1.5x",
        advice=Advice("Copy a batch's activations to the host as one stacked array, not per sample and layer.",
                      "One stacked copy was not faster than many small ones here: copies are not where the time "
                      "goes on this hardware.")),
    "ragged_recompiles": Claim(
        "a smaller last batch recompiles; fixed-size padding compiles once for all batches",
        "one compilation per shape (jax_log_compiles)",
        rule="jit_padded compiles fewer programs per fresh first pass than jit (as in the write-up, every sequence "
             "is padded to one fixed length: jit compiles the full batches' shape and the ragged last batch's, "
             "jit_padded one)",
        advice=Advice("Every new batch shape is a new program: pad the last batch to the full batch's shape so "
                      "it compiles nothing new.")),
    "return_activations": Claim(
        "returning every layer's activations creates dynamic shapes that break JIT", "'prevents JIT compilation'",
        rule="what every job's guards find, as a verdict: the jit variant returns every layer's hidden states from "
             "one jitted call per batch, compiles nothing in its timed passes and agrees with eager (a job where "
             "that broke fails): where it does, not reproduced",
        advice=Advice("", "Return every layer's activations from the jitted forward: with the layers to return "
                          "static, the shapes are static too (one program per batch shape).")),
    "device_get_async": Claim(
        "jax.device_get is asynchronous: it starts the transfer and returns", "'returns immediately'",
        rule="probed in every job after its timed passes (a warm jitted forward, 15 probes): jax.device_get's time "
             "on a freshly dispatched result as a share of the run left once the dispatch returned, median with "
             "a bootstrap 95% interval: above 0.5 it waits for the run (not reproduced), below 0.1 it returns "
             "immediately (reproduced); where the dispatch itself waits for most of the run, no probe can tell",
        advice=Advice("jax.device_get returned before the computation finished here: it can overlap a transfer.",
                      "jax.device_get waits for the computation and the copy: to overlap them, call "
                      "copy_to_host_async() when dispatching and read the arrays later.",
                      "Start copies with copy_to_host_async() when dispatching; do not rely on jax.device_get "
                      "returning early.")),
    "time_split": Claim(
        "a batch's time splits into forward 0.3 s, extraction overhead 1.5 s, copies 0.5 s, Python 0.5 s",
        "~2-3 s per 32-sample batch (estimated): copies and Python 1.0 s of it",
        numbers=(Number(33, 50, "% of a pass in copies and Python", **AT_WRITE_UP_PASS,
                        differs="estimated for an accelerator, where a copy crosses a bus; measured here on "
                                "{here}"),),
        rule="copies and Python (transfer + storage) as a share of eager's pass (the write-up's loop before its "
             "fixes: extraction un-jitted, blocking copies), at the write-up's structure where run: 95% interval "
             f"above {SPLIT_SHARE}% reproduces its third, below does not; the phases are means over every timed "
             "pass (no interval of their own), the interval is the pass median's",
        accelerator="the write-up's split is an accelerator's (copies over a bus); on a CPU a copy is a memcpy",
        advice=Advice("Measure where a batch's time goes before fixing it: copies and Python take a real share of "
                      "it here.",
                      "On this hardware the un-jitted forward, not copies or Python, takes a batch's time: jit it "
                      "first.",
                      "Measure where a batch's time goes on your hardware before fixing it: here the un-jitted "
                      "forward takes nearly all of it (jit it first); on an accelerator the write-up estimated "
                      "copies and Python at a third.")),
    "copies_small_batches": Claim(
        "memory copies dominate runtime for small batches", "qualitative",
        rule="the transfer's share of jit_padded's pass (blocking copies per sample and layer) at the base's "
             "batch is given; not measured: needs a batch sweep judged on the share's interval" + NOT_BUILT,
        accelerator=COPY_IS_A_MEMCPY),
    "scan_batches": Claim(
        "pipelining batches with lax.scan (one dispatch per chunk of batches) speeds up extraction",
        "1.3x on multihost (estimated, not measured)",
        numbers=(Number(1.3, 1.3, "x", **AT_WRITE_UP_PASS,
                        differs="expected on several hosts, where a dispatch per batch weighs more; one host "
                                "here ({here})",
                        unsized="expected on multihost; one host here"),),
        rule=f"{SCAN[0]} / {SCAN[1]} time per pass, 95% interval above 1 (below 1: not reproduced); no bound: "
             "besides the per-batch dispatch a scan removes each call's runtime setup, which no phase of a pass "
             "shows",
        advice=Advice("Scan over chunks of batches (jax.lax.scan in one jitted call) to dispatch once per chunk.",
                      "Scanning over batches did not beat a loop that dispatches each batch ahead (pipelined) "
                      "here: keep the loop.",
                      "Scanning over batches saves only the per-batch dispatch: it pays where a dispatch is a real "
                      "share of a batch (several hosts, tiny batches).")),
    "decode_activations": Claim(
        "the decode step that returns activations is not jitted, so decode-time extraction is slow",
        "prefill and decode jitted, decode_step_with_activations not",
        rule="probed in every job after its timed passes: the write-up's decode_step_with_activations as written "
             "(the model on one token, every layer's activations returned) called un-jitted and jitted, 15 "
             "alternating blocked calls each after a warm one: eager / jit per pair, median with a bootstrap 95% "
             "interval above 1 reproduces (the un-jitted step is the slower), below 1 does not",
        advice=Advice("Jit the decode step that returns activations as well as prefill and decode: un-jitted, each "
                      "of its operations dispatches on its own.",
                      "The un-jitted decode step that returns activations was not the slower here.")),
    "donate_params": Claim(
        "jit the extraction with the parameters donated: they are freed after use",
        "donate_argnums=(1,) on params ('garbage collected after use if last reference')",
        rule="probed in every job after its timed passes: the jitted forward with a copy of the parameters donated "
             "(donate_argnums), on one batch and then the next with the same parameters: reproduced where the first "
             "call freed at least half the parameters' bytes, not reproduced where it freed less (XLA reuses a "
             "donated buffer only for an output of its shape and dtype); the probe says whether the next batch "
             "could still pass them",
        advice=Advice("Donating the parameters frees them, and a freed buffer cannot be passed to the next batch: "
                      "donate only what an output replaces (a cache, an optimizer state), never weights used again.",
                      "Do not donate the parameters to an extraction forward: XLA frees only the buffers an output "
                      "of the same shape can take (few or none of the weights; JAX warns about the others), and a "
                      "freed one cannot be passed to the next batch.")),
    "ranking": Claim(
        "the bottlenecks rank jit > async copies > padding > pipelining > vectorizing > scan", "qualitative",
        rule="the fixes' gains as their own rows judge them, in the write-up's order: reproduced where each fix's "
             "95% interval lies wholly above the next one's, not reproduced where a later fix's lies wholly above an "
             "earlier one's, inconclusive otherwise",
        accelerator=f"{COPY_IS_A_MEMCPY}, so the copy fixes (async copies, vectorizing) cannot rank"),
    "device_idle": Claim(
        "with the fixes, device idle time falls below 5%", "from a device timeline",
        not_measured="needs an accelerator's device timeline"),
    "multihost": Claim(
        "multihost runs balance load and scale near-linearly with hosts", "qualitative",
        not_measured="needs multiple hosts"),
    "effort": Claim(
        "phase 1 takes 2-3 hours of work, phase 2 4-6 hours", "engineering time",
        not_measured="engineering hours, not a performance claim"),
}


def check_sizes(at, conf, model, config) -> Iterator[str]:
    if conf["min_len"] > conf["max_len"]:
        yield f"{at('min_len')}: above max_len ({conf['max_len']}); lower min_len or raise max_len"
    if conf["max_len"] > model["max_positions"]:
        yield f"{at('max_len')}: longer than {model.label('max_positions')}; raise max_positions or lower max_len"
    key = "batch" if conf["batch"] != config["studies"]["extraction"]["base"]["batch"] else "sequences"
    if conf["sequences"] <= conf["batch"]:
        yield (f"{at(key)}: sequences ({conf['sequences']}) not more than batch ({conf['batch']}): the dataset "
               "must fill a batch and leave a ragged one; raise sequences or lower batch")
    elif conf["sequences"] % conf["batch"] == 0:
        yield (f"{at(key)}: sequences ({conf['sequences']}) a multiple of batch ({conf['batch']}): the last "
               "batch would not be ragged, and the study measures what a ragged one costs; change either")


SPEC = StudySpec(
    name="extraction",
    variants=VARIANTS,
    floor="pipelined",
    extra_pairs=PHASES,
    modes=MODES,
    traced_mode="extract",
    trace_components=COMPONENTS,
    claims=CLAIMS,
    schema=Path(__file__).with_name("config.schema.yaml"),
    reads_corpus=True,
    check_sizes=check_sizes,
    timing=Timing,
)
