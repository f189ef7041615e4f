"""tree_at's report tables and figures, apart from measuring so edits rerun only report jobs."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import interval
from ...contract.tables import variants_only
from ...harness.stats import power_law_exponent
from .spec import SPEC, START_UP_STEPS

# the gain, how it grows, where it stops (compiled), what it buys at start-up
FINDINGS = ("faster", "same_with_depth", "jit_negligible", "init_faster")
FIGURES = {
    "time_vs_transforms": "Median time of one call of each mode (ms, 95% interval) vs the plan's transforms "
                          "(log-log; one panel per mode timed at several sizes, the step-by-step mode in its table). "
                          "A slope of 1 is linear scaling, 2 quadratic.",
    "speedup_vs_transforms": "unbatched / batched per mode vs transforms, with 95% intervals: "
                             "above 1, batching is faster.",
}


def scaling(steps: pd.DataFrame) -> pd.DataFrame:
    """Per mode and variant: the fitted exponent of time vs transforms, and the time per transform."""
    rows = []
    for (mode, variant), part in variants_only(steps, SPEC.variants).groupby(["mode", "variant"], sort=False):
        part = part.sort_values("structure_transforms")
        if part.structure_transforms.nunique() < 2:
            continue
        fit = power_law_exponent(part.structure_transforms, part.median_ms, part.median_ci_low_ms,
                                 part.median_ci_high_ms)
        first, last = part.iloc[0], part.iloc[-1]
        rows.append({"mode": mode, "variant": variant} | fit | {
            "transforms": f"{int(first.structure_transforms)}-{int(last.structure_transforms)}",
            "ms_per_transform_first": first.median_ms / first.structure_transforms,
            "ms_per_transform_last": last.median_ms / last.structure_transforms,
        })
    return pd.DataFrame(rows, columns=["mode", "variant", "exponent", "exponent_ci_low", "exponent_ci_high", "points",
                                       "scatter", "transforms", "ms_per_transform_first", "ms_per_transform_last"])


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    """The study's own report tables: (title, introduction, table)."""
    steps = variants_only(tables["steps"], SPEC.variants)
    signatures = steps.drop_duplicates(["config_id", "variant"]).pivot_table(
        index=["config_id", "structure_transforms", "structure_model_leaves", "structure_sharded_leaves"],
        columns="variant", values="signature_tree_at_calls_per_application", sort=False).astype(int).reset_index()
    fits = scaling(steps)
    if len(fits):
        fits = fits.assign(exponent=[exponent_text(r) for r in fits.itertuples()]).drop(
            columns=["exponent_ci_low", "exponent_ci_high", "points", "scatter"])
    stepped = steps[steps["mode"] == "step_by_step"]
    split = stepped[["config_id", "variant", "median_ms"]].assign(**{
        f"{step}_ms": stepped[f"step_{step}_ms"] for step in START_UP_STEPS} | {
        f"{step}_share": stepped[f"step_{step}_share"].map("{:.1%}".format) for step in START_UP_STEPS}) \
        if len(stepped) else None
    return [
        ("Transforms and tree_at calls per application",
         "Per configuration: the plan's transforms, the model's pytree leaves, the leaves sharded after "
         "make_module_opt, and the `eqx.tree_at` calls each variant made per application (recorded at run "
         "time: the proof that the two code paths differ).", signatures),
        ("Scaling with the number of transforms",
         "Exponent b of time ~ transforms^b (weighted least squares on log-log; 95% interval from the medians' own, "
         "widened by their scatter about the line), and time per "
         "transform at the fewest and the most transforms.", fits),
        *([("The start-up step by step, un-jitted",
            "make_module_opt's four steps each blocked and timed (the write-up's table): median ms per step and "
            "the median of the calls' shares.", split)] if split is not None else []),
    ]


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...contract.figures import facet_lines

    steps, comp = (variants_only(tables[name], SPEC.variants) for name in ("steps", "comparisons"))
    transforms = steps.drop_duplicates("config_id").set_index("config_id")["structure_transforms"]
    comp = comp[comp.baseline == SPEC.floor].assign(transforms=lambda d: d.config_id.map(transforms))
    scaled = steps.groupby("mode").structure_transforms.transform("nunique") > 1  # a lone point is in its table
    return {
        "time_vs_transforms": facet_lines(
            steps[scaled] if scaled.any() else steps, x="structure_transforms", y="median_ms", low="median_ci_low_ms",
            high="median_ci_high_ms",
            hue="variant", col="mode", hue_order=SPEC.variants,
            wrap=3, sharex=True, log="xy", xlabel="transforms in the plan", ylabel="median time per call (ms)",
            title="Applying a tensor-parallel plan: time vs transforms"),
        "speedup_vs_transforms": facet_lines(
            comp, x="transforms", y="ratio", low="ratio_ci_low", high="ratio_ci_high", hue="mode",
            col="variant", hue_order=list(SPEC.modes), xlabel="transforms in the plan", log="xy", reference=1.0,
            ylabel=f"unbatched / {SPEC.floor} time", title="Speedup of batching, per mode (1 = no difference)"),
    }


def exponent_text(fit) -> str:
    """`1.234 [1.100, 1.300]`, saying so where two sizes cannot show whether a power law fits at all."""
    fitted = interval(fit.exponent, fit.exponent_ci_low, fit.exponent_ci_high)
    return fitted if fit.points > 2 else f"{fitted} (2 sizes: a power law assumed, not tested)"
