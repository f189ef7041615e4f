"""The `generation` study as the workflow reads it: JAX-free."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...breakdown import EXECUTABLE, Component
from ...contract import settings
from ...contract.interface import Advice, Claim, Number, StudySpec

# The decoders (measure.py checks its DECODERS are these, in this order).
VARIANTS = ("uncached_eager", "uncached", "uncached_padded", "kv_cache", "kv_cache_scan")
# The variants the warmup pitfall's demonstration times: those with jitted programs to rebuild fresh.
DEMONSTRATED = VARIANTS[1:]

MODES = {"generate": "one whole greedy generation of `new_tokens` tokens after the prompt, tokens on the host"}

COMPONENTS = (
    Component("eager_forward", (("decoding.py", "_eager_step"),),
              description="uncached_eager's forward, operation by operation under jax.disable_jit()"),
    Component("python_loop", (("decoding.py", "generate"),),
              description="the decoding loop in Python, between jitted calls"),
    Component("jitted_call", (("decoding.py", "__call__"),),
              description="calling a jitted function: dispatch and, where the backend runs the program before "
                          "returning (XLA's CPU backend may), its run; a scanned loop's whole generation is one"),
    EXECUTABLE,
    Component("to_host", (("array.py", "__int__"), ("array.py", "_value"), ("api.py", "device_get"),
                          ("array.py", "__array__")),
              description="waiting for tokens and copying them to the host (kv_cache_scan: the whole scanned "
                          "program's run, which its dispatch returned before)"),
)

def warmup_tokens(conf: dict[str, Any]) -> int:
    """`warmup_fraction` of `new_tokens`, rounded, at least 1 (fewer than all: the pitfall, on purpose)."""
    return max(1, round(conf["warmup_fraction"] * conf["new_tokens"]))


GPT2_SMALL = {"layers": 12, "hidden": 768}  # GPT-2 124M's shape

UNDISTORTED = 1.05  # a short warmup whose speedup stays within 5% of the proper one's did not distort it
# The write-up's speedup with its short warmup over the proper one, 2.44 / 16.32 (understated, 6.7x off), and the
# like of ours (its baseline held at its proper time): kv_cache's proper speed over its short-warmup one, 4.23 / 24.45
# Why the warmup's slow-down is not sized: its size is the number of compilations in the timed run, which its
# cache implementation sets.
CACHE_COMPILES = ("the write-up's cached path compiled each new length while timed ('Shapes [1,9] to [1,18]'); ours "
                  "preallocates its cache and compiles twice: the count of compilations sets the slow-down")
WRITE_UP_DISTORTION = 2.44 / 16.32
WRITE_UP_DISTORTION_HELD = 4.23 / 24.45
# "beats" is a gain a user would act on: the scanned loop at most 95% of the Python loop's time (5%, the change
# compare counts); a gain wholly under 5% is "as fast", not an undecided beat.
SCAN_BEATS = 0.95

@dataclass(frozen=True, kw_only=True)
class Timing(settings.Timing):
    """generation's timing settings, plus where uncached_eager is timed (`base`: where its claims are; `all`)."""

    eager: str = "base"


def untimed(conf: dict[str, Any], eager: str, at_base: bool) -> dict[str, str]:
    """Variants left out, with why: demonstrations keep only rebuildable programs; `measure.eager: base` times
    uncached_eager at the base only."""
    if conf["warmup_fraction"] < 1:
        return {name: "the warmup demonstration rebuilds jitted programs before every sample; it has none"
                for name in VARIANTS if name not in DEMONSTRATED}
    if eager == "base" and not at_base:
        return {"uncached_eager": "measure.eager: base (timed at the base configuration only)"}
    return {}


def kinds(conf: dict[str, Any], timing: Timing, at_base: bool) -> Iterator[str]:
    """A demonstration or a proper run, and which variants it leaves out."""
    yield "warmup demonstration" if conf["warmup_fraction"] < 1 else "proper warmup"
    for name, why in untimed(conf, timing.eager, at_base).items():
        yield f"{name} left out: {why}"


CLAIMS = {
    "cache_faster": Claim(
        "a KV cache makes greedy generation faster than rerunning the whole sequence",
        "16.32x (GPT-2 124M, 15 new tokens, proper warmup; 24.45 tok/s on an RTX 4070)",
        numbers=(Number(16.32, 16.32, "x", structural=False, at=GPT2_SMALL,
                        differs="INT8 on an RTX 4070 there (its reporting template's), float32 weights on {here} "
                                "here",
                        unsized="the write-up's uncached baseline ran at 1.50 tok/s, the pace of a compilation per "
                                "token, not of a warm loop, and it does not say how many its timed region held: "
                                "that count sets the 16.32x"),
                 Number(24.45, 24.45, " tok/s kv_cache", structural=False, at=GPT2_SMALL,
                        differs="INT8 on an RTX 4070 there (its reporting template's), float32 weights on {here} "
                                "here")),
        rule="95% interval of uncached / kv_cache, both warm, above 1, at GPT-2 124M's structure where the preset "
             "runs it: the write-up's pair, its 'Non-Cached' path compiled per length ('warmup(use_cache=False)  # "
             "Compiles non-cached path') against 'Cached + JIT'; the write-up's 16.32x is not sized (its baseline "
             "ran at the pace of a compilation per token, their count unknown). Beside it, not sized: the same "
             "pair with the uncached loop compiling in its timed region (the warmup demonstration's), a "
             "conjecture of how the write-up's baseline ran (1.50 tok/s with the proper warmup, 1.73 with the "
             "short one: the pace of one compilation per token), and the un-jitted loop (uncached_eager)",
        advice=Advice("Decode with a preallocated KV cache and one jitted single-token step.")),
    "recompiles": Claim(
        "without a cache every new sequence length compiles a new program",
        "one compilation per shape, ~0.5-2 s each",
        numbers=(Number(0.5, 2, " s per program", structural=False, at=GPT2_SMALL,
                        differs="compiling for an RTX 4070 with JAX 0.4.23 there, for {here} with this run's "
                                "JAX here"),),
        rule="uncached compiles at least once per new token in its first run, uncached_padded once",
        advice=Advice("Keep shapes static: preallocate the cache, or pad to the final length where start-up counts "
                      "(a padded step computes the whole length), so decoding compiles one or two programs, not one "
                      "per token.")),
    "short_warmup": Claim(
        "a warmup shorter than the timed run leaves compilation inside the timed region",
        "warmup 5 tokens, test 15: shapes compiled during the measurement",
        rule="the compile guard counts compilations in every variant's timed region",
        advice=Advice("Warm up with exactly the shapes and lengths you time (a longer warmup covers a loop that "
                      "compiles a program per length, not a cache or padding sized to prompt plus new tokens) and "
                      "count compilations inside the timed region (jax_log_compiles or a compile listener).")),
    "distortion": Claim(
        "insufficient warmup distorts the measured speedup of the cache",
        "2.44x measured instead of 16.32x: understated, '6.8x' (its numbers give 6.7x, 0.15x); its baseline held: "
        "4.23 / 24.45 = 0.17x",
        numbers=(Number(round(WRITE_UP_DISTORTION, 2), round(WRITE_UP_DISTORTION_HELD, 2),
                        "x (short-warmup speedup / proper)",
                        structural=False, at=GPT2_SMALL,
                        differs="an RTX 4070 there, {here} here: what a compilation costs against a decode step",
                        unsized=CACHE_COMPILES),),
        rule=f"the speedup measured with the short warmup over the proper one, the write-up's way (its non-cached "
             f"baseline nearly kept its speed, 1.50 and 1.73 tok/s from its numbers, so the baseline is held at its "
             f"proper time: kv_cache's proper median over its short-warmup one, ratio of the two medians' 95% "
             f"intervals), 95% interval "
             f"excluding 1 (the warmup changed the answer; within 1/{UNDISTORTED}-{UNDISTORTED}x: not reproduced); "
             f"the write-up's two readings, its own {WRITE_UP_DISTORTION:.2f}x (2.44 / 16.32, carrying its "
             f"baseline's 15% change) and {WRITE_UP_DISTORTION_HELD:.2f}x (4.23 / 24.45: its baseline held, as "
             "ours), listed beside it, not sized: the compilations inside the timed region set the quotient, and "
             "the write-up's cache compiled each new length where ours compiles twice. "
             "Both variants warmed short are shown beside it: that direction follows which variant compiles more "
             "inside its timed region",
        advice=Advice("A speedup timed with compilation inside can be off several times, either way: never "
                      "compare variants that are not both fully warmed up."),
        restates="slowed_cached"),
    "slowed_cached": Claim(
        "the short warmup slowed the cached variant (it compiled inside the timed region)",
        "24.45 -> 4.23 tok/s: 5.8x slower",
        numbers=(Number(5.8, 5.8, "x slower", structural=False, at=GPT2_SMALL,
                        differs="one compile against one decode step on an RTX 4070 there, on {here} here",
                        unsized=CACHE_COMPILES),),
        rule="kv_cache's median generation with the short warmup over the proper one (ratio of the two medians' "
             "95% intervals) above 1"),
    "scan": Claim(  # the estimate its rule cites: docs/decisions.md#scans-have-no-bound
        f"(beyond the write-up) the whole decode loop in one lax.scan beats a Python loop of steps by more than "
        f"{1 - SCAN_BEATS:.0%}",
        "not measured",
        beyond=True,
        rule=f"kv_cache_scan / kv_cache, 95% interval below {SCAN_BEATS:g} (a gain of at least "
             f"{1 - SCAN_BEATS:.0%}); wholly above {SCAN_BEATS:g}: not reproduced (as fast, or slower). No bound: "
             f"a scan also removes work no phase of the loop shows (each step's runtime setup, its cache's copies), "
             f"as an earlier reference run's estimate beyond what removing the loop's whole host side could give "
             f"showed (docs/decisions.md#scans-have-no-bound)",
        advice=Advice("Fuse the decode loop with lax.scan where per-token dispatch is a visible share.",
                      "A Python loop of jitted steps is as fast as lax.scan here: keep the loop where it is "
                      "simpler (streaming tokens).")),
    "cold_start": Claim(
        "the first run (compilation, lazy initialization) is much slower than later runs: warm up, discard it",
        "first measurement much slower; warm up and discard it",
        rule="every variant's first run slower than its median generation's 95% upper bound (the excess is its "
             "compilation: shown beside it)",
        advice=Advice("Report start-up (the first call) and the steady state separately; never average them.")),
    "match_warmup_config": Claim(
        "a warmup with other settings (use_cache, temperature) compiles the timed path inside the measurement",
        "warming up use_cache=False, then timing use_cache=True, compiles during the test",
        rule="shown in every proper job after its timed rounds: kv_cache's programs built afresh, warmed up by "
             "the uncached loop's generation, then one kv_cache generation with the compile guard counting: "
             "compilations there, and none after a warmup by kv_cache itself, reproduce it; none there: not "
             "reproduced (counts: no interval needed; the two times are one generation each, for scale)",
        advice=Advice("Warm up exactly what you time (the same function, settings and shapes): a warmup of another "
                      "setting leaves the timed path to compile inside the measurement.",
                      "Here a warmup of another setting left nothing to compile: still warm up exactly what you "
                      "time.")),
    "load_outside_timing": Claim(
        "load the model before the timer starts", "model loading is slow and must not be timed",
        checked="followed by every job: models load and convert before any timer starts"),
    "multiple_trials": Claim(
        "run several trials and report mean +- std", "3-5 trials, mean +- std, min and max",
        checked="exceeded by every job: paired ratios with 95% intervals (Student's t) over fresh worker "
                "processes where the preset runs several (measure.processes)"),
    "trial_variance": Claim(
        "high variance (std above 10%) means interference: background processes, throttling",
        "24.45 +- 0.83 tok/s (3.4%)",
        rule="the write-up's rule as written (a row's std / mean above 10%) as a diagnostic, against what every "
             "job's machine watch saw (rounds caught busy, re-timed or kept: the audit's machine table), on every "
             "proper row (each worker process's, and pooled): no false alarm (a row above 10% in a job the watch saw "
             "quiet) and no miss (a job caught busy with no row above 10%) reproduced; either not reproduced. The "
             "warmup demonstration's rows are shown beside it, not judged (it compiles in its timed region on "
             "purpose)",
        advice=Advice("A spread above 10% of the mean is worth chasing: watch the machine while timing, re-time the "
                      "rounds it catches busy, and count compilations in the timed region (they widen a spread "
                      "too).",
                      "The 10% rule misread this machine (its alarms and misses are named in the judging table): "
                      "watch the machine while timing instead of inferring interference from a spread.")),
    "document_environment": Claim(
        "record hardware, JAX version, model size and configuration with results", "minimum reporting list",
        checked="followed by every job: every result carries its environment (the audit's environment table)"),
    "verify_outputs": Claim(
        "check that outputs are correct while measuring", "a quality check",
        checked="every job requires all variants' greedy tokens to agree bitwise, and "
                     "the tests compare them with PyTorch's"),
    "disable_jit_baseline": Claim(
        "jax.disable_jit() measures non-JIT performance", "for debugging",
        rule="uncached_eager / uncached (the same loop without and with jit), 95% interval above 1: disable_jit "
             "shows what jit buys; below 1: not reproduced",
        advice=Advice("To see what jit buys, time the same loop under jax.disable_jit(): it is the un-jitted "
                      "baseline.", "Under jax.disable_jit() the loop ran as fast as jitted here: the forward's "
                      "compute dominates both.")),
    "memory_profiling": Claim(
        "measure memory with device.memory_stats() peaks", "bytes_in_use, peak_bytes_in_use",
        rule="every timing job records the device's peak_bytes_in_use from memory_stats() beside the host's "
             "resident peak (the audit's checks table): recorded by every job checked (the API answers on this "
             "backend; the write-up's peak after minus peak before is not exercised), by none not measured",
        accelerator="a CPU backend's memory_stats() reports no peak (the host's resident peak is the memory there)",
        advice=Advice("Record the device's peak_bytes_in_use (memory_stats()) with every result; on a CPU, the "
                      "process's resident peak.")),
    "deterministic_env": Claim(
        "set --xla_gpu_deterministic_ops for reproducible benchmarks", "GPU determinism flags",
        not_measured="GPU-only flags that no job sets; XLA flags are recorded with every result"),
    "oom_fixes": Claim(
        "on OOM, shorten the cache, shrink the batch, checkpoint or quantize", "advice without a number",
        not_measured="advice without a measurable claim; INT8 is not available here"),
}


def check_sizes(at, conf, model, config) -> Iterator[str]:
    warmup = warmup_tokens(conf)
    if conf["warmup_fraction"] < 1 and warmup >= conf["new_tokens"]:
        yield (f"{at('warmup_fraction')}: warms up with {warmup} of {conf['new_tokens']} new tokens (rounded), "
               "every length the timed generation reaches, so the pitfall it demonstrates would not happen; "
               "lower warmup_fraction or raise new_tokens")
    length = conf["prompt"] + conf["new_tokens"]
    if length > model["max_positions"]:
        key = "prompt" if conf["prompt"] != config["studies"]["generation"]["base"]["prompt"] else "new_tokens"
        yield (f"{at(key)}: prompt ({conf['prompt']}) + new_tokens ({conf['new_tokens']}) = {length} positions, "
               f"more than {model.label('max_positions')}; raise max_positions or lower prompt or new_tokens")


SPEC = StudySpec(
    name="generation",
    variants=VARIANTS,
    floor="kv_cache",
    extra_pairs=(("uncached_eager", "uncached"),),  # what jit alone buys the uncached loop
    modes=MODES,
    traced_mode="generate",
    trace_components=COMPONENTS,
    claims=CLAIMS,
    schema=Path(__file__).with_name("config.schema.yaml"),
    reads_corpus=True,
    check_sizes=check_sizes,
    timing=Timing,
    kinds=kinds,
)
