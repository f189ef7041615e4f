"""What the report shows of the dispatch study: how to read its traces, its figures, and the write-up's
claims against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...harness.stats import difference_of_estimates, ratio_of_estimates
from ...report.aggregate import base_config_id
from ...report.magnitude import at_write_up_structure, median_with_range
from ...report.markdown import above, interval, opposite, verdict
from .spec import SPEC

FIGURES = {
    "overhead_vs_leaves": "Per-step overhead against the jit_flat floor vs the model's pytree leaves "
                          "(layers sweep), with 95% bootstrap intervals.",
    "step_vs_compute": "Median step time per variant vs each compute setting, at fixed structure.",
    "overhead_vs_compute": "Per-step overhead against the floor vs each compute setting: flat lines "
                           "mean the overhead does not depend on computation.",
}
COMPUTE_AXES = ("hidden", "batch", "seq", "dropout")


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
        measured = comp[(comp.config_id == config_id) & (comp.variant == "filter_jit")
                        & (comp.baseline == "jit_partition") & (comp["mode"] == SPEC.traced_mode)].iloc[0]
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


def _interval(row) -> str:
    return interval(row["ratio"], row["ratio_ci_low"], row["ratio_ci_high"], "x")


def _ms(row) -> str:
    return interval(row["diff_ms"], row["diff_ci_low_ms"], row["diff_ci_high_ms"], " ms")


def claims(tables: dict[str, Any]) -> list[dict[str, str]]:
    """The write-up's claims, each against what this run measured, with a verdict and its rule."""
    comp, steps, overhead = tables["comparisons"], tables["steps"], tables["overhead"]
    base_id = base_config_id(comp)

    def pair(variant, baseline, mode="blocked", config_id=base_id):
        sel = comp[(comp.variant == variant) & (comp.baseline == baseline) & (comp["mode"] == mode)
                   & (comp.config_id == config_id)]
        return sel.iloc[0]

    def gap_at_write_up_structure(key, ratio: bool):
        """filter_jit vs jit_partition (estimate, low, high) where the claim's write-up number was measured."""
        config_id = at_write_up_structure(comp, SPEC.claims[key].numbers[0])
        if config_id is None:
            return None
        row = pair("filter_jit", "jit_partition", config_id=config_id)
        return ((row.ratio, row.ratio_ci_low, row.ratio_ci_high) if ratio
                else (row.diff_ms, row.diff_ci_low_ms, row.diff_ci_high_ms))

    def step_ms(variant, number):
        """A variant's blocked median step (and the samples' range) where the write-up measured `number`."""
        config_id = at_write_up_structure(comp, number)
        return None if config_id is None else median_with_range(steps, config_id, variant, "blocked")

    rows = []
    fj = pair("filter_jit", "jit_partition")
    slower = comp[(comp.variant == "filter_jit") & (comp.baseline == "jit_partition") & (comp["mode"] == "blocked")]
    n_slower = int((slower.ratio_ci_low > 1).sum())
    rows.append({
        "claim": "slower",
        "measured": f"{_interval(fj)} at {base_id}; significantly slower in {n_slower}/{len(slower)} configurations",
        "verdict": verdict(above(fj.ratio_ci_low, fj.ratio_ci_high, 1)),
        "rule": "95% interval of the paired ratio above 1",
        "ours": (gap_at_write_up_structure("slower", ratio=True),
                 *(step_ms(variant, number) for variant, number in zip(
                     ("filter_jit", "jit_partition"), SPEC.claims["slower"].numbers[1:], strict=True))),
    })

    def postprocess_share(config_id):
        fo = overhead[(overhead.variant == "filter_jit") & (overhead.config_id == config_id)].set_index("component")
        pre, post = fo.loc["_preprocess", "inclusive_ms"], fo.loc["_postprocess", "inclusive_ms"]
        return pre, post, (post / (pre + post) if pre + post > 0 else float("nan"))

    pre, post, post_share = postprocess_share(base_id)
    tree_id = at_write_up_structure(comp, SPEC.claims["where"].numbers[0])
    ours_share = (postprocess_share(tree_id)[2] * 100 if tree_id in set(overhead.config_id) else None)
    rows.append({
        "claim": "where",
        "measured": f"_preprocess {1 - post_share:.0%}, _postprocess {post_share:.0%} "
                    f"(traced: {pre:.3f} ms + {post:.3f} ms per step at {base_id})",
        "verdict": verdict(bool(post_share > 0.5)),
        "rule": "_postprocess (with combine) takes more than half of the two",
        "ours": (None if ours_share is None else (ours_share, ours_share, ours_share),),
    })

    def overhead_on(axis):
        blocked = comp[(comp.variant == "filter_jit") & (comp.baseline == SPEC.floor) & (comp["mode"] == "blocked")]
        on = _on_axis(blocked, axis)
        leaves = steps.drop_duplicates("config_id").set_index("config_id")["structure_model_leaves"]
        return on.assign(leaves=on.config_id.map(leaves)).sort_values("value")

    layers = overhead_on("layers")
    structure_row = {
        "claim": "structure",
        "measured": "not measured: the config sweeps fewer than 2 layer counts",
        "verdict": verdict(None),
        "rule": "overhead at the most leaves minus at the fewest (95% interval of the difference): above 0 "
                "reproduced, below 0 not reproduced",
    }
    if len(layers) >= 2:
        lo, hi = layers.iloc[0], layers.iloc[-1]
        growth = difference_of_estimates(hi.diff_ms, (hi.diff_ci_low_ms, hi.diff_ci_high_ms),
                                         lo.diff_ms, (lo.diff_ci_low_ms, lo.diff_ci_high_ms))
        structure_row |= {
            "measured": f"{_ms(lo)} at {int(lo.leaves)} leaves -> {_ms(hi)} at {int(hi.leaves)} leaves: "
                        f"+{interval(*growth, ' ms')} "
                        f"(~{growth[0] / (hi.leaves - lo.leaves) * 1e3:.2f} us per leaf)",
            "verdict": verdict(above(growth[1], growth[2], 0)),
        }
    rows.append(structure_row | {"ours": (gap_at_write_up_structure("structure", ratio=False),)})

    compute = pd.concat([overhead_on(a) for a in COMPUTE_AXES], ignore_index=True).drop_duplicates("config_id")
    compute_row = {
        "claim": "not_compute",
        "measured": "not measured: the config sweeps fewer than 2 compute settings besides the base",
        "verdict": verdict(None),
        "rule": "max - min overhead within 50% of the base configuration's",
    }
    if len(compute) >= 3:
        base_overhead = compute[compute.config_id == base_id].diff_ms.iloc[0]
        spread = (compute.diff_ms.max() - compute.diff_ms.min()) / base_overhead
        compute_row |= {
            "measured": f"{compute.diff_ms.min():.3f}-{compute.diff_ms.max():.3f} ms over "
                        f"{len(compute)} compute settings (spread {spread:.0%} of base)",
            "verdict": verdict(bool(spread <= 0.5)),
        }
    rows.append(compute_row)

    part = pair("jit_partition", SPEC.floor)
    rows.append({
        "claim": "partition_free",
        "measured": f"{_ms(part)} vs the flat-leaves floor ({_interval(part)})",
        "verdict": verdict(opposite(above(part.ratio_ci_low, part.ratio_ci_high, 1.05))),
        "rule": "ratio to jit_flat at most 1.05 (whole interval); above 1.05 (whole interval): not reproduced",
    })

    blocked, pipelined = pair("filter_jit", SPEC.floor), pair("filter_jit", SPEC.floor, "pipelined")
    # filter_jit gains less from pipelining than the floor <=> its ratio to the floor rises when pipelined.
    rise = ratio_of_estimates(pipelined.ratio, (pipelined.ratio_ci_low, pipelined.ratio_ci_high),
                              blocked.ratio, (blocked.ratio_ci_low, blocked.ratio_ci_high))
    rows.append({
        "claim": "pipelining",
        "measured": f"filter_jit / {SPEC.floor}: blocked {_interval(blocked)}, pipelined {_interval(pipelined)}; "
                    f"pipelined / blocked {interval(*rise, 'x')}",
        "verdict": verdict(above(rise[1], rise[2], 1)),
        "rule": f"filter_jit's ratio to {SPEC.floor} higher pipelined than blocked (95% interval of the quotient "
                "above 1; below 1: not reproduced)",
    })
    return rows
