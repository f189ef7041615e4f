"""What the report shows of the extraction study: throughput and its split, the gains phase by phase, the
figures, and the write-up's estimated gains against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

import pandas as pd

from ...report.aggregate import base_config_id, measured
from ...report.markdown import above, interval, verdict
from .spec import FLOOR, VARIANTS

FIGURES = {
    "throughput": "Tokens per second of one pass per variant and configuration (log scale).",
    "time_split": "Where a pass's time goes per variant (base configuration): forward, device-to-host "
                  "transfer, storage (pipelined: the phases overlap, the bars show the time spent in each).",
}
# The write-up's estimate for each phase: (variant before, variant after) -> expected speedup.
EXPECTED = {("eager", "jit"): "5-10x", ("jit", "jit_padded"): "2x", ("jit_padded", "jit_padded_async"): "2-3x",
            ("jit_padded_async", FLOOR): "1.5-2x", ("eager", FLOOR): "4-7x overall"}


def throughput(steps: pd.DataFrame) -> pd.DataFrame:
    s = measured(steps)
    seconds = s.median_ms / 1e3
    return pd.DataFrame({
        "config_id": s.config_id, "variant": s.variant, "batch": s.batch,
        "sequences_per_s": s.structure_sequences / seconds, "tokens_per_s": s.structure_tokens / seconds,
        "pass_ms": s.median_ms, "forward_ms": s.phase_forward_ms, "transfer_ms": s.phase_transfer_ms,
        "storage_ms": s.phase_storage_ms, "first_pass_s": s.first_run_seconds,
        "compiles_first_pass": s.first_run_compiles,
    })


def gains(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Each phase's speedup per configuration: the timed passes (paired) and the first passes."""
    comp, steps = measured(tables["comparisons"]), measured(tables["steps"])
    first = steps.set_index(["config_id", "variant"]).first_run_seconds
    rows = []
    for (slow, fast), expected in EXPECTED.items():
        for r in comp[(comp.variant == slow) & (comp.baseline == fast)].itertuples():
            rows.append({"config_id": r.config_id, "phase": f"{slow} -> {fast}", "write_up": expected,
                         "speedup": interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, "x"),
                         "first_pass_speedup": f"{first[(r.config_id, slow)] / first[(r.config_id, fast)]:.2f}x"})
    return pd.DataFrame(rows)


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return [
        ("Throughput and where a pass's time goes",
         "Per configuration and variant, from the median pass: sequences and tokens per second, the pass "
         "split into forward, transfer and storage (ms per pass), and the first pass (the warmup) with its "
         "compilations.", throughput(tables["steps"])),
        ("Gains phase by phase",
         "Each fix against the variant before it (time before / time after, paired samples, bootstrap 95% "
         "interval), beside the write-up's estimate, and the same ratio for the first passes (compilations "
         "included, one pass each).", gains(tables)),
    ]


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...report.plots import bars, stacked_bars

    t = throughput(tables["steps"])
    base_id = base_config_id(measured(tables["checks"]))
    split = t[t.config_id == base_id].set_index("variant").loc[list(VARIANTS),
                                                               ["forward_ms", "transfer_ms", "storage_ms"]]
    return {
        "throughput": bars(t, x="variant", y="tokens_per_s", hue="config_id", order=VARIANTS, log=True,
                           ylabel="tokens per second", title="Activation extraction throughput"),
        "time_split": stacked_bars(split.rename(columns=lambda c: c.removesuffix("_ms")), ylabel="ms per pass",
                                   title=f"Where a pass goes ({base_id})"),
    }


def claims(tables: dict[str, pd.DataFrame]) -> list[dict[str, str]]:
    comp = measured(tables["comparisons"])
    base_id = base_config_id(measured(tables["checks"]))
    first = measured(tables["steps"]).set_index(["config_id", "variant"]).first_run_seconds
    what = {("eager", "jit"): "jit-compiling the extraction forward",
            ("jit", "jit_padded"): "padding every batch to a fixed shape (no recompiling on the ragged batch)",
            ("jit_padded", "jit_padded_async"): "one async batched copy instead of blocking copies per sample "
                                                "and layer",
            ("jit_padded_async", FLOOR): "pipelining: batch i+1 dispatched before batch i is stored",
            ("eager", FLOOR): "all fixes together"}
    rows = []
    for (slow, fast), expected in EXPECTED.items():
        r = comp[(comp.variant == slow) & (comp.baseline == fast) & (comp.config_id == base_id)].iloc[0]
        rows.append({
            "claim": f"{what[(slow, fast)]} speeds up extraction",
            "write_up": f"{expected} (estimated, not measured)",
            "measured": f"{interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 'x')} at {base_id}; first pass "
                        f"{first[(base_id, slow)] / first[(base_id, fast)]:.2f}x",
            "verdict": verdict(above(r.ratio_ci_low, r.ratio_ci_high, 1)),
            "rule": f"{slow} / {fast} time, 95% interval above 1 (below 1: not reproduced)",
        })
    return rows
