"""What the report shows of the extraction study: throughput and its split, the gains phase by phase, the
figures, and the write-up's estimated gains against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

import pandas as pd

from ...report.aggregate import base_config_id, measured, setting_labels
from ...report.claims import (
    NOT_MEASURED,
    NOT_TESTABLE,
    Bound,
    Judged,
    decide,
    judged_at,
    ratio_interval,
    ratio_of,
    row,
    verdict,
)
from .spec import FIRST_PASS_VARIANTS, FIXES, SPEC, STACKED_COPY_GAIN, estimate

FIGURES = {
    "throughput": "Tokens per second of one pass per variant and configuration (log scale).",
    "time_split": "Where a pass's time goes per variant (base configuration): forward, device-to-host "
                  "transfer, storage (pipelined: the phases overlap, the bars show the time spent in each).",
}


def in_mode(table: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The proper measurements' rows of one mode (`extract`: the timed passes; `first_pass`: fresh ones)."""
    rows = measured(table)
    return rows[rows["mode"] == mode]


def throughput(steps: pd.DataFrame) -> pd.DataFrame:
    s = in_mode(steps, "extract")
    seconds = s.median_ms / 1e3
    return pd.DataFrame({
        "config_id": s.config_id, "variant": s.variant, "batch": s.batch,
        "sequences_per_s": s.structure_sequences / seconds, "tokens_per_s": s.structure_tokens / seconds,
        "tokens_per_s_low": s.structure_tokens / (s.median_ci_high_ms / 1e3),
        "tokens_per_s_high": s.structure_tokens / (s.median_ci_low_ms / 1e3),
        "pass_ms": s.median_ms, "forward_ms": s.phase_forward_ms, "transfer_ms": s.phase_transfer_ms,
        "storage_ms": s.phase_storage_ms, "first_pass_s": s.first_run_seconds,
        "compiles_first_pass": s.first_run_compiles,
    })


def warmup_pass_seconds(steps: pd.DataFrame) -> pd.Series:
    """Each variant's single warmup pass (its first, compilation included) in seconds, by configuration."""
    return in_mode(steps, "extract").set_index(["config_id", "variant"]).first_run_seconds


def _first_pass_gain(comp: pd.DataFrame, first: pd.Series, config_id: str, slow: str, fast: str) -> str:
    """The fix's gain on a first pass: the interval over fresh first passes where the `first_pass` mode timed
    the pair, else the ratio of the two variants' single warmup passes (no interval)."""
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


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return [
        ("Throughput and where a pass's time goes",
         "Per configuration and variant, from the median pass: sequences and tokens per second, the pass "
         "split into forward, transfer and storage (ms per pass), and the first pass (the warmup) with its "
         "compilations.", throughput(tables["steps"])),
        ("Gains phase by phase",
         "Each fix against the variant before it (time before / time after, paired samples, bootstrap 95% "
         "interval), beside the write-up's estimate, and the same ratio for first passes (compilations "
         "included): over fresh first passes, timed interleaved, for padding; from the single warmup pass of "
         "each variant for the others.", gains(tables)),
    ]


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...report.plots import bars, stacked_bars

    t = throughput(tables["steps"])
    base_id = base_config_id(measured(tables["checks"]))
    split = t[t.config_id == base_id].set_index("variant").loc[list(SPEC.variants),
                                                               ["forward_ms", "transfer_ms", "storage_ms"]]
    return {
        "throughput": bars(t.assign(configuration=t.config_id.map(setting_labels(tables["steps"]))), x="variant",
                           y="tokens_per_s", hue="configuration", order=SPEC.variants, log=True,
                           low="tokens_per_s_low", high="tokens_per_s_high",
                           ylabel="tokens per second (95% interval)", title="Activation extraction throughput"),
        "time_split": stacked_bars(split.rename(columns=lambda c: c.removesuffix("_ms")), ylabel="ms per pass",
                                   title=f"Where a pass goes ({base_id})"),
    }


# What a fix removes at best, from the pass's phases of the variant before it (ms per pass): the blocking
# copies (all of the transfer), or pipelining's overlap (the smaller side of device work and host work).
REMOVABLE = {
    ("jit_padded", "jit_padded_async"): lambda p: p.transfer_ms,
    ("jit_padded_async", "pipelined"): lambda p: min(p.forward_ms, p.transfer_ms + p.storage_ms),
}
# Claims about the first pass, where the cost the fix removes lives (padding: recompiling on the ragged batch).
FIRST_PASS = {FIRST_PASS_VARIANTS}


def _bound(before: pd.Series, fix: tuple[str, str]) -> Bound | None:
    """The largest gain this hardware can show for a fix: removing all it removes from the pass of the variant
    before it (None where REMOVABLE does not say what that is)."""
    if fix not in REMOVABLE:
        return None
    removable = REMOVABLE[fix](before)
    return Bound(before.pass_ms, removable, f"removing all it can ({removable:.1f} ms of a {before.pass_ms:.1f} ms "
                                            "pass)")


def _first_pass_fix(comp: pd.DataFrame, config_id: str, where: str, fix: tuple[str, str], at_structure: bool) -> Judged:
    """Padding judged on what it removes: the ragged batch's recompilation, in whole first passes."""
    slow, fast = fix
    fresh = row(comp, variant=slow, baseline=fast, config_id=config_id, mode="first_pass")
    steady = row(comp, variant=slow, baseline=fast, config_id=config_id, mode="extract")
    faster = decide(fresh.ratio_ci_low, fresh.ratio_ci_high, 1, log=True, of="the first-pass ratio")
    return Judged(
        claim=f"{slow}/{fast}",
        measured=(f"first pass (compilation included) {ratio_interval(fresh)} {where} ({config_id}), "
                  f"over fresh first passes; warm passes {ratio_interval(steady)} (padding's compute)"),
        reason=faster.reason,
        verdict=faster.verdict(),
        ours=(ratio_of(fresh) if at_structure else None,),
        judged_ratio=ratio_of(fresh),
    )


def _fix(comp: pd.DataFrame, speeds: pd.DataFrame, first: pd.Series, base_id: str, fix: tuple[str, str]) -> Judged:
    slow, fast = fix
    key = f"{slow}/{fast}"
    config_id, where, at_structure = judged_at(comp, SPEC.claims[key].numbers[0], base_id)
    if fix in FIRST_PASS:
        return _first_pass_fix(comp, config_id, where, fix, at_structure)
    r = row(comp, variant=slow, baseline=fast, config_id=config_id, mode="extract")
    first_gain = first[(config_id, slow)] / first[(config_id, fast)]
    faster = decide(r.ratio_ci_low, r.ratio_ci_high, 1, log=True)
    return Judged(
        claim=key, ours=(ratio_of(r) if at_structure else None,), judged_ratio=ratio_of(r),
        measured=f"{ratio_interval(r)} {where} ({config_id}); first pass {first_gain:.2f}x (one pass each)",
        reason=faster.reason, verdict=faster.verdict(),
        bound=_bound(row(speeds, config_id=config_id, variant=slow), fix),
    )


def _batched_copy(speeds: pd.DataFrame, comp: pd.DataFrame, base_id: str) -> Judged:
    """Vectorizing bounded by what it could remove at most: all of jit_padded's copies (no variant times a
    stacked blocking copy)."""
    config_id, where, _ = judged_at(comp, SPEC.claims["jit/jit_padded"].numbers[0], base_id)
    before = row(speeds, config_id=config_id, variant="jit_padded")
    bound = Bound(before.pass_ms, before.transfer_ms, "a stacked copy (removing all of jit_padded's copies)",
                  needs=STACKED_COPY_GAIN)
    return Judged(claim="batched_copy", verdict=NOT_MEASURED, bound=bound,
                  measured=f"not measured: needs a variant with one stacked blocking copy (removing all of "
                           f"jit_padded's copies, {before.transfer_ms:.1f} ms of a {before.pass_ms:.1f} ms pass "
                           f"{where}, gives at most {bound.ratio:.3f}x)")


def _copies_small_batches(speeds: pd.DataFrame, backend: str, base_id: str) -> Judged:
    """The copies' share of a pass with blocking copies at the base's (small) batch; a CPU backend has no
    transfer to weigh (its device memory is the host's)."""
    before = row(speeds, config_id=base_id, variant="jit_padded")
    share = (f"jit_padded's copies take {before.transfer_ms / before.pass_ms:.1%} of its pass at batch "
             f"{int(before.batch)} ({before.transfer_ms:.1f} of {before.pass_ms:.1f} ms)")
    if backend == "cpu":
        why = "not testable on this hardware: on a CPU backend a copy is a host memcpy, not a transfer over a bus"
        return Judged(claim="copies_small_batches", measured=f"{why}; {share}", verdict=NOT_TESTABLE)
    return Judged(claim="copies_small_batches", verdict=NOT_MEASURED,
                  measured=f"not measured: needs a batch sweep judged on the share's interval; {share}")


def _ragged_recompiles(steps: pd.DataFrame, base_id: str) -> Judged:
    """Programs compiled per fresh first pass (the `first_pass` mode: every sample a fresh jax.jit): one per batch
    shape without padding, one per length bucket used with it."""
    fresh = in_mode(steps, "first_pass")
    fresh = fresh[fresh.config_id == base_id].set_index("variant")
    jit, padded = (fresh.loc[v, "compiles_in_timed_region"] / fresh.loc[v, "n"] for v in FIRST_PASS_VARIANTS)
    batches, buckets = fresh.loc["jit", "structure_batches"], fresh.loc["jit", "structure_buckets"]
    return Judged(
        claim="ragged_recompiles",
        measured=f"programs compiled per fresh first pass at {base_id}: jit {jit:g} for {int(batches)} batches "
                    f"(one per batch shape, the ragged last batch's among them), jit_padded {padded:g} (length "
                    f"buckets {buckets})",
        verdict=verdict(bool(padded < jit)),
    )


def _return_activations(steps: pd.DataFrame, checks: pd.DataFrame, base_id: str) -> Judged:
    """The guards' finding as the verdict: every layer's activations came back from one jitted call per batch
    with no compilation in the timed passes, and the same values as eager's."""
    jit = row(in_mode(steps, "extract"), config_id=base_id, variant="jit")
    agree = row(checks, config_id=base_id).outputs_agree
    calls, batches = int(jit.signature_forward_calls_per_pass), int(jit.structure_batches)
    held = bool(jit.compiles_in_timed_region == 0 and calls == batches)  # agreement: the job fails without it
    return Judged(
        claim="return_activations",
        measured=f"jit returned {int(jit.structure_layers_extracted)} layers' hidden states per batch from "
                 f"{calls} jitted calls per pass of {batches} batches at {base_id}: {int(jit.first_run_compiles)} "
                 f"compilations in its first pass, {int(jit.compiles_in_timed_region)} in its timed passes; "
                 f"every variant's outputs alike ({agree})",
        verdict=verdict(None if not held else False),
    )


def claims(tables: dict[str, pd.DataFrame]) -> list[Judged]:
    comp = measured(tables["comparisons"])
    base_id = base_config_id(measured(tables["checks"]))
    first = warmup_pass_seconds(tables["steps"])
    speeds = throughput(tables["steps"])
    eager = row(comp, variant="eager", baseline="jit", config_id=base_id, mode="extract")
    compiled = row(measured(tables["steps"]), config_id=base_id, variant="eager", mode="extract")
    no_gain = decide(eager.ratio_ci_low, eager.ratio_ci_high, 1 / 1.1, 1.1, holds="inside", log=True)
    return [_fix(comp, speeds, first, base_id, fix) for fix in FIXES] + [
        Judged(claim="apply_auto_jit",
         measured=(f"the un-jitted call (eager) / jit {ratio_interval(eager)} at {base_id}, "
                   f"{int(compiled.first_run_compiles)} per-operation compilations in its first pass"),
         reason=no_gain.reason,
         verdict=no_gain.verdict()),
        _ragged_recompiles(tables["steps"], base_id),
        _return_activations(tables["steps"], measured(tables["checks"]), base_id),
        _batched_copy(speeds, comp, base_id),
        _copies_small_batches(speeds, tables["environment"].backend.iloc[0], base_id),
        Judged(claim="eager_recompiles",
         measured=f"eager's timed passes compiled {int(compiled.compiles_in_timed_region)} times at {base_id} "
                     f"(its first pass: {int(compiled.first_run_compiles)})",
         verdict=verdict(bool(compiled.compiles_in_timed_region > 0))),
    ]
