"""What the report shows of the extraction study: throughput and its split, the gains phase by phase, the
figures, and the write-up's estimated gains against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

import pandas as pd

from ...report.aggregate import base_config_id, measured
from ...report.magnitude import at_write_up_structure
from ...report.markdown import above, interval, verdict
from .spec import FIXES, SPEC, estimate

FIGURES = {
    "throughput": "Tokens per second of one pass per variant and configuration (log scale).",
    "time_split": "Where a pass's time goes per variant (base configuration): forward, device-to-host "
                  "transfer, storage (pipelined: the phases overlap, the bars show the time spent in each).",
}


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
    for (slow, fast), (_, gain) in FIXES.items():
        for r in comp[(comp.variant == slow) & (comp.baseline == fast)].itertuples():
            rows.append({"config_id": r.config_id, "phase": f"{slow} -> {fast}", "write_up": estimate(*gain),
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
    split = t[t.config_id == base_id].set_index("variant").loc[list(SPEC.variants),
                                                               ["forward_ms", "transfer_ms", "storage_ms"]]
    return {
        "throughput": bars(t, x="variant", y="tokens_per_s", hue="config_id", order=SPEC.variants, log=True,
                           ylabel="tokens per second", title="Activation extraction throughput"),
        "time_split": stacked_bars(split.rename(columns=lambda c: c.removesuffix("_ms")), ylabel="ms per pass",
                                   title=f"Where a pass goes ({base_id})"),
    }


def claims(tables: dict[str, pd.DataFrame]) -> list[dict[str, str]]:
    comp = measured(tables["comparisons"])
    base_id = base_config_id(measured(tables["checks"]))
    first = measured(tables["steps"]).set_index(["config_id", "variant"]).first_run_seconds
    rows = []
    for slow, fast in FIXES:
        r = comp[(comp.variant == slow) & (comp.baseline == fast) & (comp.config_id == base_id)].iloc[0]
        at = at_write_up_structure(comp, SPEC.claims[f"{slow}/{fast}"].numbers[0])
        there = comp[(comp.variant == slow) & (comp.baseline == fast) & (comp.config_id == at)]
        rows.append({
            "claim": f"{slow}/{fast}",
            "measured": f"{interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 'x')} at {base_id}; first pass "
                        f"{first[(base_id, slow)] / first[(base_id, fast)]:.2f}x",
            "verdict": verdict(above(r.ratio_ci_low, r.ratio_ci_high, 1)),
            "rule": f"{slow} / {fast} time, 95% interval above 1 (below 1: not reproduced)",
            "ours": (None if there.empty else tuple(there.iloc[0][["ratio", "ratio_ci_low", "ratio_ci_high"]]),),
        })
    return rows
