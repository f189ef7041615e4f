"""dispatch's report tables and figures, apart from measuring so edits rerun only report jobs."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...contract.decisions import difference_of, interval, median_of, row, rows
from ...contract.judging import Run
from ...contract.tables import variants_only
from ...harness.stats import difference_of_estimates, difference_side, side_parts
from .spec import BESIDE, COMPUTE_BAND, FLATTEN_MODE, SPEC

FINDINGS = ("slower", "where", "partition_free", "pipelining")  # the cost, its cause, the fix, the catch
FIGURES = {
    "overhead_vs_leaves": "Per-step overhead against the jit_flat floor vs the model's pytree leaves "
                          "(layers sweep), with 95% intervals; each point from its own job, so the "
                          "machine's drift between jobs is in the line (the structure claim reads each depth over "
                          "the base timed in the same job). More layers add compute with the leaves: a difference "
                          "of two variants cancels it only where both run the program alike (the breakdown's "
                          "program_run column says where they did not).",
    "step_vs_compute": "Median step time per variant (ms, 95% interval, log-log) vs each compute setting timed in a "
                       "job of its own, at fixed structure.",
    "overhead_vs_compute": "What the compute claim is judged on: per dropout and attention setting timed in the "
                           "base's job, filter_jit's overhead over jit_partition minus the base's (paired round by "
                           "round, 95% interval), inside the shaded band of +-25% of the base's overhead where the "
                           "overhead does not depend on the computation. Sizes timed in jobs of their own are in "
                           "step_vs_compute (drawn where a run sweeps one), not here: the machine's drift between "
                           "jobs is in their difference.",
}
COMPUTE_AXES = ("hidden", "batch", "seq", "dropout")  # the figures' numeric compute axes


def compute_shifts(run: Run) -> dict[str, tuple[float, float, float]]:
    """Per compute setting beside the base: its overhead minus the base's, paired by round (ms, 95%), by label."""
    shifts = rows(run.comp, config_id=run.base_id, baseline=difference_side(*BESIDE), mode="blocked")
    return {side_parts(r.variant)[0].split("@", 1)[1]: difference_of(r) for _, r in shifts.iterrows()}


def on_axis(table, axis: str):
    """One sweep axis's rows, its name and value as columns."""
    rows = table[table["axes"].str.split(",").apply(lambda axes: axis in axes)].copy()
    return rows.assign(axis=axis, value=rows[axis])


def figures(tables: dict[str, Any]) -> dict[str, Any]:
    from ...contract.figures import facet_lines, interval_dots

    comparisons = tables["comparisons"]
    # steps (the flatten mode's no-op against the floor, timed at the base only, would draw a lone point)
    vs_floor = comparisons[(comparisons["baseline"] == SPEC.floor) & (comparisons["mode"] != FLATTEN_MODE)]
    structure = on_axis(vs_floor, "layers")
    swept = [a for a in COMPUTE_AXES if on_axis(vs_floor, a)[a].nunique() > 1]  # a lone base point draws no line
    leaves = {"overhead_vs_leaves": facet_lines(
        structure, x="structure_model_leaves", y="diff_ms", low="diff_ci_low_ms",
        high="diff_ci_high_ms", hue="variant", col="mode", hue_order=SPEC.variants,
        xlabel="pytree leaves of the model",
        ylabel=f"overhead vs {SPEC.floor} (ms/step)", title="Overhead vs structure (layers sweep)")}
    shifts = _compute_shifts(tables)
    if swept:
        compute_steps = pd.concat([on_axis(tables["steps"], a) for a in swept])
        leaves["step_vs_compute"] = facet_lines(
            compute_steps[compute_steps["mode"] == "blocked"], x="value", y="median_ms", low="median_ci_low_ms",
            high="median_ci_high_ms", hue="variant", col="axis", sharex=False, hue_order=SPEC.variants,
            log="xy", ylabel="median step, blocked (ms)", title="Step time vs compute")
    if shifts is not None:
        leaves["overhead_vs_compute"] = interval_dots(
            *shifts, xlabel="filter_jit's overhead over jit_partition, minus the base's (ms/step)",
            title="Overhead vs computation, timed in the base's job")
    return leaves


def _compute_shifts(tables: dict[str, Any]) -> tuple[pd.DataFrame, float] | None:
    """`compute_shifts` as rows (label, value, low, high) with the band's half-width; None without beside settings."""
    run = Run(SPEC, tables)
    shifts = compute_shifts(run)
    if not shifts:
        return None
    base = row(run.comp, config_id=run.base_id, variant="filter_jit", baseline="jit_partition", mode="blocked")
    rows = pd.DataFrame([(label, *shift) for label, shift in shifts.items()],
                        columns=["label", "value", "low", "high"])
    return rows, COMPUTE_BAND * abs(base.diff_ms)


def _leaves(steps: pd.DataFrame) -> pd.DataFrame:
    per_call = variants_only(steps, SPEC.variants).drop_duplicates(["config_id", "variant"]).assign(
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


# A part below 0 says the two variants' traces split their steps differently (one trace each, no interval), not
# that filter_jit spends less there: the row's parts are not a breakdown to read, only their sum.
NEGATIVE_PART = ": not a breakdown (the two traces split their steps differently); read the sum only"


def _agree(measured, total: float, steps: pd.DataFrame, config_id: str) -> bool:
    """Whether the parts' sum (the difference of the two medians) and the paired difference agree: either inside the
    other's 95% interval, the medians' difference carrying both medians' own."""
    if measured.diff_ci_low_ms <= total <= measured.diff_ci_high_ms:
        return True
    if steps[steps.config_id == config_id].empty:  # no medians kept to carry: the paired interval alone
        return False
    fj, jp = (median_of(steps, config_id, v, SPEC.traced_mode) for v in ("filter_jit", "jit_partition"))
    _, low, high = difference_of_estimates(fj[0], fj[1:], jp[0], jp[1:])
    return bool(low <= measured.diff_ms <= high)


def attribution(comp: pd.DataFrame, overhead: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """filter_jit minus jit_partition per traced configuration by component, beside the measured difference."""
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
        negative = [f"{group.removesuffix('_ms')} < 0" for group, t in split.items() if t < 0]
        rows.append({"config_id": config_id, "measured_ms": ms(measured)} | split | {
            "parts_sum_ms": total,
            "within_interval": "yes" if _agree(measured, total, steps, config_id) else "**no**",
            "parts": ", ".join(negative) + NEGATIVE_PART if negative else "",
        })
    return pd.DataFrame(rows)


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    """The study's own report tables: (title, introduction, table)."""
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
         "the two medians; `within_interval` says whether that and the paired difference agree, either inside "
         "the other's 95% interval (the medians' difference carries both medians' own: the two estimate one gap, "
         "paired round by round or not). Where waiting "
         "dominates, the variants differ in the program's run (memory, threads), not in Python: the write-up's "
         "explanation covers only the first column. The parts come from one trace each, without intervals: "
         "the tracer slows Python more than the program, so a Python part can exceed the gap and leave the "
         "others negative; `within_interval` checks their sum only, and `parts` marks a row with a part below 0, "
         "whose split is not to be read.",
         attribution(tables["comparisons"], tables["overhead"], tables["steps"])),
    ]


def ms(r) -> str:
    """A row's paired difference in ms, as every claim writes it."""
    return interval(*difference_of(r), " ms")
