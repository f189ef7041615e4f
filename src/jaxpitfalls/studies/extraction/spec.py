"""What the `extraction` study is, as the rest of the workflow reads it (interface.StudySpec). JAX-free: the
plan, the config check, the trace parser and the report read it without importing measure.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...breakdown import Component
from ..interface import Claim, Number, StudySpec

# The extractors (measure.py checks its EXTRACTORS are these, in this order), slowest first.
VARIANTS = ("eager", "jit", "jit_padded", "jit_padded_async", "pipelined")

# Each phase against the one before it (the write-up's cumulative gains); each is also compared with the floor.
PHASES = (("eager", "jit"), ("jit", "jit_padded"), ("jit_padded", "jit_padded_async"))

MODES = {"extract": "one whole pass over the dataset: every batch forward, copied to the host, stored"}

COMPONENTS = (
    Component("store", (("extractors.py", "store"),), description="writing the real tokens' rows (np.save)"),
    Component("to_host", (("extractors.py", "to_host"),), description="device-to-host copies (and waiting)"),
    Component("executable", prefixes=("PjitFunction(",),
              description="C++ dispatch and the compiled program (PjitFunction)"),
    Component("dispatch", (("extractors.py", "dispatch"),), description="preparing and dispatching a batch"),
)

# Each fix, as the write-up estimates its gain: (variant before, variant after) -> what it is, the estimate
# (low, high: x faster).
FIXES = {
    ("eager", "jit"): ("jit-compiling the extraction forward", (5, 10)),
    ("jit", "jit_padded"): ("padding every batch to a fixed shape (no recompiling on the ragged batch)", (2, 2)),
    ("jit_padded", "jit_padded_async"): ("one async batched copy instead of blocking copies per sample and layer",
                                         (2, 3)),
    ("jit_padded_async", "pipelined"): ("pipelining: batch i+1 dispatched before batch i is stored", (1.5, 2)),
    ("eager", "pipelined"): ("all fixes together", (4, 7)),
}
QWEN2_05B = {"layers": 24, "hidden": 896}  # the write-up's model's shape


def estimate(low: float, high: float) -> str:
    return f"{low:g}x" if low == high else f"{low:g}-{high:g}x"


CLAIMS = {f"{slow}/{fast}": Claim(f"{what} speeds up extraction", f"{estimate(*gain)} (estimated, not measured)",
                                  numbers=(Number(*gain, "x", structural=False, at=QWEN2_05B),))
          for (slow, fast), (what, gain) in FIXES.items()}


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
)
