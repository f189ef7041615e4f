"""What the report shows of the dispatch study: how to read its traces, its figures, and the write-up's
claims against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from ...harness.stats import difference_of_estimates, ratio_of_estimates
from ...plan import value_label
from ...report.aggregate import base_config_id
from ...report.claims import (
    Bound,
    Judged,
    at_write_up_structure,
    decide,
    difference_of,
    interval,
    judged_at,
    median_of,
    ratio_interval,
    ratio_of,
    row,
    verdict,
)
from .spec import COMPUTE_BAND, SPEC

FIGURES = {
    "overhead_vs_leaves": "Per-step overhead against the jit_flat floor vs the model's pytree leaves "
                          "(layers sweep), with 95% bootstrap intervals.",
    "step_vs_compute": "Median step time per variant vs each compute setting, at fixed structure.",
    "overhead_vs_compute": "Per-step overhead against the floor vs each compute setting: flat lines "
                           "mean the overhead does not depend on computation.",
}
COMPUTE_AXES = ("hidden", "batch", "seq", "dropout")  # the figures' numeric compute axes
COMPUTE_KEYS = (*COMPUTE_AXES, "attention")  # what a configuration may change at the base's structure
WRITE_UP_COMPUTE = ("dropout", "attention")  # the compute the write-up varied: dropout, SDPA vs eager attention


def _on_axis(table, axis: str):
    rows = table[table["axes"].str.split(",").apply(lambda axes: axis in axes)].copy()
    return rows.assign(axis=axis, value=rows[axis])


def figures(tables: dict[str, Any]) -> dict[str, Any]:
    from ...report.plots import facet_lines

    comparisons = tables["comparisons"]
    vs_floor = comparisons[comparisons["baseline"] == SPEC.floor]
    structure = _on_axis(vs_floor, "layers")
    compute_steps = pd.concat([_on_axis(tables["steps"], a) for a in COMPUTE_AXES])
    compute_overhead = pd.concat([_on_axis(vs_floor, a) for a in COMPUTE_AXES])
    return {
        "overhead_vs_leaves": facet_lines(
            structure, x="structure_model_leaves", y="diff_ms", low="diff_ci_low_ms",
            high="diff_ci_high_ms", hue="variant", col="mode", hue_order=SPEC.variants,
            xlabel="pytree leaves of the model",
            ylabel=f"overhead vs {SPEC.floor} (ms/step)", title="Overhead vs structure (layers sweep)"),
        "step_vs_compute": facet_lines(
            compute_steps[compute_steps["mode"] == "blocked"], x="value", y="median_ms", hue="variant",
            col="axis", sharex=False, hue_order=SPEC.variants, ylabel="median step, blocked (ms)",
            title="Step time vs compute"),
        "overhead_vs_compute": facet_lines(
            compute_overhead[compute_overhead["mode"] == "blocked"], x="value", y="diff_ms",
            low="diff_ci_low_ms", high="diff_ci_high_ms", hue="variant", col="axis", sharex=False,
            hue_order=SPEC.variants,
            ylabel=f"overhead vs {SPEC.floor}, blocked (ms/step)", title="Overhead vs compute"),
    }


def _leaves(steps: pd.DataFrame) -> pd.DataFrame:
    per_call = steps.drop_duplicates(["config_id", "variant"]).assign(
        leaves=lambda d: d.signature_leaves_in.astype(str) + " / " + d.signature_leaves_out.astype(str))
    table = per_call.pivot_table(index="config_id", columns="variant", values="leaves", aggfunc="first", sort=False)
    model = per_call.drop_duplicates("config_id").set_index("config_id")
    columns = {"structure_model_leaves": "model leaves", "structure_array_leaves": "of them arrays",
               "structure_parameters": "parameters"}
    return model[list(columns)].rename(columns=columns).join(table).reset_index()


# The traced components grouped by where a step's time goes (`rest`: what no component matched).
WHERE = {
    "python_around_program_ms": ("_preprocess", "hashable_partition", "_bind", "_postprocess", "combine",
                                 "tree_flatten", "static_hash"),
    "dispatch_ms": ("executable",),
    "program_run_ms": ("wait",),
    "unattributed_ms": ("rest",),
}


def _attribution(comp: pd.DataFrame, overhead: pd.DataFrame) -> pd.DataFrame:
    """filter_jit minus jit_partition per traced configuration, split by where the time goes (each traced
    component's share applied to its variant's untraced median), beside the paired measured difference."""
    rows = []
    for config_id, parts in overhead[overhead["mode"] == SPEC.traced_mode].groupby("config_id", sort=False):
        per_variant = parts.pivot_table(index="component", columns="variant", values="untraced_estimate_ms")
        if not {"filter_jit", "jit_partition"} <= set(per_variant.columns):
            continue
        gap = per_variant["filter_jit"] - per_variant["jit_partition"]
        measured = row(comp, config_id=config_id, variant="filter_jit", baseline="jit_partition",
                       mode=SPEC.traced_mode)
        split = {group: float(gap.reindex(list(components)).fillna(0).sum()) for group, components in WHERE.items()}
        total = sum(split.values())
        rows.append({"config_id": config_id, "measured_ms": _ms(measured)} | split | {
            "parts_sum_ms": total,
            "within_interval": "yes" if measured.diff_ci_low_ms <= total <= measured.diff_ci_high_ms else "**no**",
        })
    return pd.DataFrame(rows)


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    """The study's own tables in the report: (title, introduction, table)."""
    return [
        ("Pytree leaves per call (in / out)",
         "What each variant's call hands to and gets back from JAX, per configuration: the Python-side work the "
         "write-up blames scales with these.", _leaves(tables["steps"])),
        ("Where filter_jit's extra time per step goes",
         f"filter_jit minus jit_partition per traced configuration ({SPEC.traced_mode}, ms per step): the "
         "measured paired difference (95% interval), then the traced parts, each component's share of its "
         "variant's traced step applied to that variant's untraced median: Python around the program "
         "(filter_jit's pre/postprocess, flattening, hashing), dispatching the compiled program, waiting for "
         "its run, and `unattributed` (Python no component matched). The parts add up to the difference of "
         "the two medians; `within_interval` says whether that lies inside the paired interval. Where waiting "
         "dominates, the variants differ in the program's run (memory, threads), not in Python: the write-up's "
         "explanation covers only the first column.", _attribution(tables["comparisons"], tables["overhead"])),
    ]


def _ms(r) -> str:
    return interval(*difference_of(r), " ms")


@dataclass(frozen=True)
class _Run:
    """What every claim reads: the pooled (or one process's) tables, the base configuration, and the
    configuration at BERT-base's structure where the preset ran it (the headline verdicts are judged there)."""

    comp: pd.DataFrame
    steps: pd.DataFrame
    overhead: pd.DataFrame
    base_id: str

    def pair(self, variant: str, baseline: str, mode: str = "blocked", config_id: str | None = None) -> pd.Series:
        return row(self.comp, variant=variant, baseline=baseline, mode=mode, config_id=config_id or self.base_id)

    def at(self, key: str) -> str | None:
        """The configuration at the write-up's structure for claim `key` (its first number's), if run."""
        return at_write_up_structure(self.comp, SPEC.claims[key].numbers[0])

    def headline(self, key: str) -> tuple[str, str, bool]:
        """Where claim `key` is judged (`claims.judged_at`, by its first number's structure)."""
        return judged_at(self.comp, SPEC.claims[key].numbers[0], self.base_id)

    def overhead_on(self, axis: str, baseline: str) -> pd.DataFrame:
        """filter_jit's blocked difference to `baseline` along one sweep axis, by the axis's value."""
        on = _on_axis(self.comp[(self.comp.variant == "filter_jit") & (self.comp.baseline == baseline)
                                & (self.comp["mode"] == "blocked")], axis)
        leaves = self.steps.drop_duplicates("config_id").set_index("config_id")["structure_model_leaves"]
        return on.assign(leaves=on.config_id.map(leaves)).sort_values("value")


def _slower_bound(run: _Run, fj: pd.Series, config_id: str) -> Bound | None:
    """The largest ratio this hardware can show at `config_id` where its pytree is the base's (a step of ~1 s on
    this CPU against milliseconds of Python): the per-call overhead at the base (the same pytree: its 95% upper
    bound) added to jit_partition's step there. None at the base, or at another pytree."""
    base = run.pair("filter_jit", "jit_partition")
    if config_id == run.base_id or fj.layers != base.layers:  # `fj` is that pair at `config_id`
        return None
    step = median_of(run.steps, config_id, "jit_partition", "blocked")[0]
    overhead = max(base.diff_ci_high_ms, 0.0)
    return Bound(step + overhead, overhead, f"the per-call overhead at the same pytree (the base, at most "
                                            f"{base.diff_ci_high_ms:.2f} ms) on a {step:.0f} ms step")


def _slower(run: _Run) -> Judged:
    config_id, where, at_structure = run.headline("slower")
    fj = run.pair("filter_jit", "jit_partition", config_id=config_id)
    every = run.comp[(run.comp.variant == "filter_jit") & (run.comp.baseline == "jit_partition")
                     & (run.comp["mode"] == "blocked")]
    supporting = "" if config_id == run.base_id else (
        f"; at the base configuration {run.base_id}: {ratio_interval(run.pair('filter_jit', 'jit_partition'))}")
    slower = decide(fj.ratio_ci_low, fj.ratio_ci_high, 1, log=True, of=f"the ratio {where}")
    return Judged(
        claim="slower",
        measured=(f"{ratio_interval(fj)} {where} ({config_id}){supporting}; significantly slower in "
                  f"{int((every.ratio_ci_low > 1).sum())}/{len(every)} configurations"),
        reason=slower.reason,
        verdict=slower.verdict(),
        judged_ratio=ratio_of(fj),
        bound=_slower_bound(run, fj, config_id),
        ours=(None, None, None) if not at_structure else (
            ratio_of(fj), *(median_of(run.steps, config_id, v, "blocked") for v in ("filter_jit", "jit_partition"))),
    )


def _postprocess_share(run: _Run, config_id: str) -> tuple[float, float, float]:
    """filter_jit's traced _preprocess and _postprocess (ms per step) and the latter's share of the two."""
    traced = run.overhead[(run.overhead.variant == "filter_jit") & (run.overhead.config_id == config_id)]
    fo = traced.set_index("component")
    pre, post = fo.loc["_preprocess", "inclusive_ms"], fo.loc["_postprocess", "inclusive_ms"]
    return pre, post, (post / (pre + post) if pre + post > 0 else float("nan"))


def _where(run: _Run) -> Judged:
    at = run.at("where")
    config_id = at if at in set(run.overhead.config_id) else run.base_id
    pre, post, share = _postprocess_share(run, config_id)
    return Judged(
        claim="where",
        measured=f"_preprocess {1 - share:.0%}, _postprocess {share:.0%} (traced: {pre:.3f} ms + {post:.3f} ms "
                    f"per step at {config_id})",
        verdict=verdict(bool(share > 0.5)),
        ours=(None if config_id != at else (share * 100,) * 3,),
    )


def _structure(run: _Run) -> Judged:
    layers = run.overhead_on("layers", SPEC.floor)
    at = run.at("structure")
    judged = Judged(
        claim="structure",
        measured="not measured: the config sweeps fewer than 2 layer counts",
        verdict=verdict(None),
        ours=(None if at is None else difference_of(run.pair("filter_jit", "jit_partition", config_id=at)),),
    )
    if len(layers) < 2:
        return judged
    lo, hi = layers.iloc[0], layers.iloc[-1]
    growth = difference_of_estimates(hi.diff_ms, (hi.diff_ci_low_ms, hi.diff_ci_high_ms),
                                     lo.diff_ms, (lo.diff_ci_low_ms, lo.diff_ci_high_ms))
    grows = decide(growth[1], growth[2], 0)
    return replace(
        judged,
        measured=(f"{_ms(lo)} at {int(lo.leaves)} leaves -> {_ms(hi)} at {int(hi.leaves)} leaves: "
                  f"+{interval(*growth, ' ms')} (~{growth[0] / (hi.leaves - lo.leaves) * 1e3:.2f} us "
                  "per leaf)"),
        reason=grows.reason,
        verdict=grows.verdict(),
    )


def _compute_settings(run: _Run, base: pd.Series) -> list[tuple[tuple[str, ...], pd.Series]]:
    """filter_jit - jit_partition (blocked) at every other configuration with the base's structure (its layers),
    with the compute keys it changes: sweeps and points (e.g. the write-up's dropout off with fused attention)
    alike."""
    pairs = run.comp[(run.comp.variant == "filter_jit") & (run.comp.baseline == "jit_partition")
                     & (run.comp["mode"] == "blocked") & (run.comp.layers == base.layers)
                     & (run.comp.config_id != run.base_id)]
    return [(tuple(key for key in COMPUTE_KEYS if r[key] != base[key]), r) for _, r in pairs.iterrows()]


def _not_compute(run: _Run) -> Judged:
    """Each setting of the write-up's compute axis (dropout, attention), its overhead (filter_jit - jit_partition,
    the write-up's pair) minus the base configuration's as an interval: all inside the band reproduces, any
    wholly outside does not. Settings that change sizes are shown apart, not judged: the write-up varied no
    size."""
    base = run.pair("filter_jit", "jit_partition")
    band = COMPUTE_BAND * abs(base.diff_ms)
    judged, sizes = {}, {}
    for keys, s in _compute_settings(run, base):
        shift = difference_of_estimates(s.diff_ms, (s.diff_ci_low_ms, s.diff_ci_high_ms),
                                        base.diff_ms, (base.diff_ci_low_ms, base.diff_ci_high_ms))
        setting = " + ".join(f"{key} {value_label(s[key])}" for key in keys)
        (judged if set(keys) <= set(WRITE_UP_COMPUTE) else sizes)[setting] = shift
    shown = {which: ", ".join(f"{setting}: {interval(*shift, ' ms')}" for setting, shift in settings.items())
             for which, settings in (("judged", judged), ("sizes", sizes))}
    apart = f"; settings of sizes (not judged): {shown['sizes']}" if sizes else ""
    if not judged:
        return Judged(claim="not_compute", verdict=verdict(None),
                      measured=f"not measured: the config sets no dropout or attention besides the base's{apart}")
    decisions = [decide(shift[1], shift[2], -band, band, holds="inside", of=f"the {setting} shift", unit=" ms")
                 for setting, shift in judged.items()]
    outcomes = [d.outcome for d in decisions]
    outcome = False if False in outcomes else (True if all(outcomes) else None)
    return Judged(
        claim="not_compute",
        measured=f"base overhead {_ms(base)}; shift per dropout and attention setting: {shown['judged']}{apart}",
        reason="" if outcome is not None else "; ".join(d.reason for d in decisions if d.reason),
        verdict=verdict(outcome),
    )


def _partition_free(run: _Run) -> Judged:
    part = run.pair("jit_partition", SPEC.floor)
    free = decide(part.ratio_ci_low, part.ratio_ci_high, 1.05, holds="below", log=True)
    return Judged(
        claim="partition_free",
        measured=f"{_ms(part)} vs the flat-leaves floor ({ratio_interval(part)})",
        reason=free.reason,
        verdict=free.verdict(),
    )


def _pipelining(run: _Run) -> Judged:
    blocked, pipelined = run.pair("filter_jit", SPEC.floor), run.pair("filter_jit", SPEC.floor, "pipelined")
    # filter_jit gains less from pipelining than the floor <=> its ratio to the floor rises when pipelined.
    rise = ratio_of_estimates(pipelined.ratio, (pipelined.ratio_ci_low, pipelined.ratio_ci_high),
                              blocked.ratio, (blocked.ratio_ci_low, blocked.ratio_ci_high))
    rises = decide(rise[1], rise[2], 1, log=True, of="pipelined / blocked")
    return Judged(
        claim="pipelining",
        measured=(f"filter_jit / {SPEC.floor}: blocked {ratio_interval(blocked)}, pipelined "
                  f"{ratio_interval(pipelined)}; pipelined / blocked {interval(*rise, 'x')}"),
        reason=rises.reason,
        verdict=rises.verdict(),
    )


def _attribution_complete(run: _Run) -> Judged:
    """Whether the Python around the program accounts for filter_jit's whole gap to jit_partition."""
    traced = _attribution(run.comp, run.overhead)
    at = run.at("where")
    if traced.empty:
        return Judged(claim="attribution_complete", measured="not measured: no traced configuration",
                      verdict=verdict(None))
    config_id = at if at in set(traced.config_id) else run.base_id
    python = row(traced, config_id=config_id).python_around_program_ms
    gap = run.pair("filter_jit", "jit_partition", config_id=config_id)
    return Judged(
        claim="attribution_complete",
        measured=f"Python around the program {python:.3f} ms of a {_ms(gap)} gap at {config_id} "
                    f"({python / gap.diff_ms:.0%} of the estimate)",
        verdict=verdict(None if gap.diff_ci_high_ms <= 0 else bool(python >= gap.diff_ci_low_ms)),
    )


JUDGED = (_slower, _where, _structure, _not_compute, _partition_free, _pipelining, _attribution_complete)


def claims(tables: dict[str, Any]) -> list[Judged]:
    """The write-up's claims that this study measures, each judged by its own function."""
    comp = tables["comparisons"]
    run = _Run(comp, tables["steps"], tables["overhead"], base_config_id(comp))
    return [judge(run) for judge in JUDGED]
