"""extraction's report tables and figures, apart from measuring so edits rerun only report jobs."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import ratio_interval
from ...contract.stacked_bars import PANELS
from ...contract.tables import base_config_id, measured, per_second, setting_labels
from .fixes import FIXES, estimate
from .spec import SPEC

FINDINGS = ("eager/jit", "jit/jit_padded", "jit_padded/jit_padded_async", "time_split")  # fix by fix, then where
FIGURES = {
    "throughput": "Tokens per second of one pass per variant and configuration, with its 95% interval (log scale).",
    "time_split": "Where a pass's time goes per variant (base configuration, ms per pass, means over the timed "
                  "passes): forward, device-to-host transfer, storage. pipelined and scanned dispatch the forward "
                  "without waiting for it, so their parts are the dispatch and the wait for the forward with the "
                  "transfer after it; the black bar is each pass's median with its 95% interval. " + PANELS,
}


def in_mode(table: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The proper measurements' rows of one mode (`extract`: the timed passes; `first_pass`: fresh ones)."""
    rows = measured(table)
    return rows[rows["mode"] == mode]


def throughput(steps: pd.DataFrame) -> pd.DataFrame:
    s = in_mode(steps, "extract")
    tokens, low, high = per_second(s.structure_tokens, s)
    return pd.DataFrame({
        "config_id": s.config_id, "variant": s.variant, "batch": s.batch,
        "sequences_per_s": per_second(s.structure_sequences, s)[0], "tokens_per_s": tokens,
        "tokens_per_s_low": low, "tokens_per_s_high": high,
        "pass_ms": s.median_ms, "pass_ms_low": s.median_ci_low_ms, "pass_ms_high": s.median_ci_high_ms,
        "forward_ms": s.phase_forward_ms, "transfer_ms": s.phase_transfer_ms,
        "storage_ms": s.phase_storage_ms, "first_pass_s": s.first_run_seconds,
        "compiles_first_pass": s.first_run_compiles,
    })


def warmup_pass_seconds(steps: pd.DataFrame) -> pd.Series:
    """Each variant's single warmup pass (its first, compilation included) in seconds, by configuration."""
    return in_mode(steps, "extract").set_index(["config_id", "variant"]).first_run_seconds


def _first_pass_gain(comp: pd.DataFrame, first: pd.Series, config_id: str, slow: str, fast: str) -> str:
    """A fix's first-pass gain: over fresh first passes where timed, else the two warmup passes' ratio."""
    fresh = in_mode(comp, "first_pass")
    fresh = fresh[(fresh.variant == slow) & (fresh.baseline == fast) & (fresh.config_id == config_id)]
    if len(fresh):
        return ratio_interval(fresh.iloc[0])
    return f"{first[(config_id, slow)] / first[(config_id, fast)]:.2f}x (one pass each)"


def gains(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Each phase's speedup per configuration: the timed passes (paired) and the first passes."""
    comp, first = in_mode(tables["comparisons"], "extract"), warmup_pass_seconds(tables["steps"])
    rows = []
    for (slow, fast), (_, gain) in FIXES.items():
        for r in comp[(comp.variant == slow) & (comp.baseline == fast)].itertuples():
            rows.append({"config_id": r.config_id, "phase": f"{slow} -> {fast}", "write_up": estimate(*gain),
                         "speedup": ratio_interval(r),
                         "first_pass_speedup": _first_pass_gain(tables["comparisons"], first, r.config_id, slow,
                                                                fast)})
    return pd.DataFrame(rows)


def stored_where(steps: pd.DataFrame) -> str:
    """Where each configuration's passes stored their activations (a disk's storing moves process to process)."""
    if "structure_storage" not in steps or steps.structure_storage.isna().all():
        return ""
    where = steps.dropna(subset=["structure_storage"]).groupby("structure_storage", sort=True).config_id.unique()
    if len(where) == 1:
        return f" Passes stored in (`structure_storage`): {where.index[0]}, at every configuration."
    said = "; ".join(f"{kind}{' (its processes chose apart)' if ' / ' in kind else ''} at {', '.join(configs)}"
                     for kind, configs in where.items())
    return f" Passes stored in (`structure_storage`): {said}; a pass stored to disk is slower and moves more between " \
        "processes."


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return [
        ("Throughput and where a pass's time goes",
         "Per configuration and variant, from the median pass: sequences and tokens per second, the pass "
         "split into forward, transfer and storage (ms per pass), and the first pass (the warmup) with its "
         "compilations." + stored_where(tables["steps"]), throughput(tables["steps"])),
        ("Gains phase by phase",
         "Each fix against the variant before it (time before / time after, paired by round, 95% "
         "interval), beside the write-up's estimate, and the same ratio for first passes (compilations "
         "included): over fresh first passes, timed interleaved, for padding; from the single warmup pass of "
         "each variant for the others.", gains(tables)),
    ]


UNWAITED = ("pipelined", "scanned")  # dispatch the forward without waiting: their transfer phase waits for it
SPLIT = {"forward_ms": ("forward", "dispatch (not waited for)"),
         "transfer_ms": ("transfer", "waiting for the forward, then transfer"), "storage_ms": ("storage", "storage")}


def time_split(base: pd.DataFrame) -> pd.DataFrame:
    """A pass's parts for the stacked bars (UNWAITED: dispatch, wait, storage: never waiting as transfer)."""
    unwaited = base.index.isin(UNWAITED)
    parts = {}
    for column, (waited, not_waited) in SPLIT.items():
        parts[waited] = parts.get(waited, 0) + base[column].where(~unwaited, 0.0)
        parts[not_waited] = parts.get(not_waited, 0) + base[column].where(unwaited, 0.0)
    return pd.DataFrame(parts, index=base.index)


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...contract.figures import bars
    from ...contract.stacked_bars import stacked_bars

    t = throughput(tables["steps"])
    base_id = base_config_id(measured(tables["checks"]))
    base = t[t.config_id == base_id].set_index("variant").loc[list(SPEC.variants)]
    split = time_split(base)
    return {
        "throughput": bars(t.assign(configuration=t.config_id.map(setting_labels(tables["steps"]))), x="variant",
                           y="tokens_per_s", hue="configuration", order=SPEC.variants, log=True,
                           low="tokens_per_s_low", high="tokens_per_s_high",
                           ylabel="tokens per second (95% interval)", title="Activation extraction throughput"),
        "time_split": stacked_bars(split, ylabel="ms per pass",
                                   title=f"Where a pass goes ({base_id})",
                                   total=base[["pass_ms", "pass_ms_low", "pass_ms_high"]]),
    }
