"""What the `generation` study is, as the rest of the workflow reads it (interface.StudySpec). JAX-free: the
plan, the config check, the trace parser and the report read it without importing measure.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...breakdown import Component
from ..interface import Claim, Number, StudySpec

# The decoders (measure.py checks its DECODERS are these, in this order).
VARIANTS = ("uncached", "uncached_padded", "kv_cache", "kv_cache_scan")

MODES = {"generate": "one whole greedy generation of `new_tokens` tokens after the prompt, tokens on the host"}

COMPONENTS = (
    Component("python_loop", (("decoding.py", "generate"), ("decoding.py", "__call__")),
              description="the decoding loop in Python (between jitted calls)"),
    Component("executable", prefixes=("PjitFunction(",),
              description="C++ dispatch and the compiled program (PjitFunction)"),
    Component("to_host", (("array.py", "__int__"), ("array.py", "_value"), ("api.py", "device_get"),
                          ("array.py", "__array__")),
              description="waiting for a token and copying it to the host"),
)

def warmup_tokens(conf: dict[str, Any]) -> int:
    """The tokens a generation configuration warms up with: `warmup_fraction` of `new_tokens`, rounded,
    at least 1 (below all of them is the warmup pitfall, demonstrated on purpose)."""
    return max(1, round(conf["warmup_fraction"] * conf["new_tokens"]))


GPT2_SMALL = {"layers": 12, "hidden": 768}  # GPT-2 124M's shape

CLAIMS = {
    "cache_faster": Claim("a KV cache makes greedy generation faster than rerunning the whole sequence",
                          "16.32x (GPT-2 124M, 15 new tokens, proper warmup; 24.45 tok/s on an RTX 4070)",
                          numbers=(Number(16.32, 16.32, "x", structural=False, at=GPT2_SMALL),
                                   Number(24.45, 24.45, " tok/s kv_cache", structural=False, at=GPT2_SMALL))),
    "recompiles": Claim("without a cache every new sequence length compiles a new program",
                        "one compilation per shape, ~0.5-2 s each",
                        numbers=(Number(0.5, 2, " s per program", structural=False, at=GPT2_SMALL),)),
    "short_warmup": Claim("a warmup shorter than the timed run leaves compilation inside the timed region",
                          "warmup 5 tokens, test 15: shapes compiled during the measurement"),
    "distortion": Claim("insufficient warmup distorts the measured speedup of the cache",
                        "2.44x measured instead of 16.32x (6.8x off)",
                        numbers=(Number(6.7, 6.7, "x off", structural=False, at=GPT2_SMALL),)),
    "scan": Claim("(beyond the write-up) the whole decode loop in one lax.scan beats a Python loop of steps",
                  "not measured"),
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
    modes=MODES,
    traced_mode="generate",
    trace_components=COMPONENTS,
    claims=CLAIMS,
    schema=Path(__file__).with_name("config.schema.yaml"),
    reads_corpus=True,
    check_sizes=check_sizes,
)
