"""What the report shows of the tree_at study: how to read its trace, its scaling table and figures, and
the write-ups' claims against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...harness.stats import geometric_mean_ratio, power_law_exponent, ratio_of_estimates
from ...report.aggregate import base_config_id
from ...report.claims import (
    Judged,
    at_write_up_structure,
    decide,
    interval,
    judged_at,
    median_of,
    ratio_interval,
    ratio_of,
    row,
    verdict,
)
from .spec import DOMINATES, FAR_LESS, GROWS, JIT_GAIN, SPEC, START_UP_STEPS

FIGURES = {
    "time_vs_transforms": "Median time per sample vs the plan's transforms (log-log; one panel per mode). "
                          "A slope of 1 is linear scaling, 2 quadratic.",
    "speedup_vs_transforms": "unbatched / batched per mode vs transforms, with 95% bootstrap intervals: "
                             "above 1, batching is faster.",
}


def scaling(steps: pd.DataFrame) -> pd.DataFrame:
    """Per mode and variant: the fitted exponent of time vs transforms, and the time per transform."""
    rows = []
    for (mode, variant), part in steps.groupby(["mode", "variant"], sort=False):
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
    """The study's own tables in the report: (title, introduction, table)."""
    steps = tables["steps"]
    signatures = steps.drop_duplicates(["config_id", "variant"]).pivot_table(
        index=["config_id", "structure_transforms", "structure_model_leaves", "structure_sharded_leaves"],
        columns="variant", values="signature_tree_at_calls_per_application", sort=False).astype(int).reset_index()
    fits = scaling(steps)
    if len(fits):
        fits = fits.assign(exponent=[_exponent(r) for r in fits.itertuples()]).drop(
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
         "Exponent b of time ~ transforms^b (least squares on log-log, 95% t-interval), and time per "
         "transform at the fewest and the most transforms.", fits),
        *([("The start-up step by step, un-jitted",
            "make_module_opt's four steps each blocked and timed (the write-up's table): median ms per step and "
            "the median of the calls' shares.", split)] if split is not None else []),
    ]


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...report.plots import facet_lines

    steps, comp = tables["steps"], tables["comparisons"]
    transforms = steps.drop_duplicates("config_id").set_index("config_id")["structure_transforms"]
    comp = comp[comp.baseline == SPEC.floor].assign(transforms=lambda d: d.config_id.map(transforms))
    return {
        "time_vs_transforms": facet_lines(
            steps, x="structure_transforms", y="median_ms", hue="variant", col="mode", hue_order=SPEC.variants,
            wrap=3, sharex=True, log="xy", xlabel="transforms in the plan", ylabel="median time (ms)",
            title="Applying a tensor-parallel plan: time vs transforms"),
        "speedup_vs_transforms": facet_lines(
            comp, x="transforms", y="ratio", low="ratio_ci_low", high="ratio_ci_high", hue="mode",
            col="variant", hue_order=list(SPEC.modes), xlabel="transforms in the plan", log="xy", reference=1.0,
            ylabel=f"unbatched / {SPEC.floor} time", title="Speedup of batching, per mode (1 = no difference)"),
    }


def _exponent(fit) -> str:
    """`1.234 [1.100, 1.300]`, saying so where two sizes cannot show whether a power law fits at all."""
    fitted = interval(fit.exponent, fit.exponent_ci_low, fit.exponent_ci_high)
    return fitted if fit.points > 2 else f"{fitted} (2 sizes: a power law assumed, not tested)"


@dataclass(frozen=True)
class _Run:
    """What every claim reads: the steps, the paired ratios against the floor (with each configuration's
    transforms), the fitted exponents, and the base configuration."""

    steps: pd.DataFrame
    comp: pd.DataFrame
    fits: pd.DataFrame
    transforms: pd.Series
    base_id: str

    @classmethod
    def of(cls, tables: dict[str, pd.DataFrame]) -> _Run:
        steps = tables["steps"]
        transforms = steps.drop_duplicates("config_id").set_index("config_id")["structure_transforms"]
        comp = tables["comparisons"]
        comp = comp[comp.baseline == SPEC.floor].assign(transforms=lambda d: d.config_id.map(transforms))
        return cls(steps, comp, scaling(steps).set_index(["mode", "variant"]), transforms,
                   base_config_id(tables["checks"]))

    def ratios(self, mode: str) -> pd.DataFrame:
        """unbatched / batched in `mode`, by transforms."""
        return self.comp[self.comp["mode"] == mode].sort_values("transforms")

    def median(self, config_id: str, variant: str, mode: str) -> float:
        return float(row(self.steps, config_id=config_id, variant=variant, mode=mode).median_ms)

    def per_call(self, key: str, variant: str, mode: str,
                 per_transform: bool = False) -> tuple[float, float, float] | None:
        """A median (and its 95% interval) at the write-up's structure for `key`, per transform or per call."""
        config_id = at_write_up_structure(self.comp, SPEC.claims[key].numbers[0])
        if config_id is None:
            return None
        n = self.transforms[config_id] if per_transform else 1
        return tuple(ms / n for ms in median_of(self.steps, config_id, variant, mode))


def _faster(run: _Run) -> Judged:
    head_id, where, at_structure = judged_at(run.comp, SPEC.claims["faster"].numbers[0], run.base_id)
    head = row(run.ratios("direct"), config_id=head_id)
    faster = decide(head.ratio_ci_low, head.ratio_ci_high, 1, log=True)
    return Judged(
        claim="faster",
        measured=(f"{ratio_interval(head)} {where} ({run.median(head_id, 'unbatched', 'direct'):.1f} "
                  f"ms -> {run.median(head_id, SPEC.floor, 'direct'):.1f} ms; {int(head.transforms)} "
                  "transforms)"),
        reason=faster.reason,
        verdict=faster.verdict(),
        judged_ratio=ratio_of(head),
        ours=(ratio_of(head) if at_structure else None,),
    )


def _per_transform(run: _Run) -> Judged:
    direct = run.ratios("direct")
    n_base = int(row(direct, config_id=run.base_id).transforms)
    per_transform = (f"{run.median(run.base_id, 'unbatched', 'direct') / n_base:.2f} ms unbatched vs "
                     f"{run.median(run.base_id, SPEC.floor, 'direct') / n_base:.2f} ms batched per transform at "
                     f"{n_base}")
    judged = {"measured": f"{per_transform}; not measured: fewer than 2 depths", "verdict": verdict(None)}
    if len(direct) > 1:
        gain = power_law_exponent(direct.transforms, direct.ratio, direct.ratio_ci_low, direct.ratio_ci_high)
        u, b = run.fits.loc[("direct", "unbatched")], run.fits.loc[("direct", SPEC.floor)]
        grows = decide(gain["exponent_ci_low"], gain["exponent_ci_high"], GROWS, of="the gain's exponent",
                       scatter=gain["scatter"])
        judged = {
            "measured": (
                f"{per_transform}; the gain's exponent in the transforms {_exponent(pd.Series(gain))} ("
                + ", ".join(f"{r.ratio:.1f}x at {int(r.transforms)}" for r in direct.itertuples())
                + f"; time's exponent unbatched {_exponent(u)}, batched {_exponent(b)})"),
            "reason": grows.reason,
            "verdict": grows.verdict(),
        }
    return Judged(claim="per_transform", **judged,
            ours=tuple(run.per_call("per_transform", variant, "direct", per_transform=True)
                          for variant in ("unbatched", SPEC.floor)))


def _same_with_depth(run: _Run) -> Judged:
    direct = run.ratios("direct")
    base, largest = row(direct, config_id=run.base_id), direct.iloc[-1]
    return Judged(
        claim="same_with_depth",
        measured=", ".join(f"{ratio_interval(r)} at {int(r.transforms)}" for r in direct.itertuples()),
        verdict=verdict(None if len(direct) < 2 else bool(
            largest.ratio_ci_low <= base.ratio_ci_high and largest.ratio_ci_high >= base.ratio_ci_low)),
    )


def _first_run_linear(run: _Run) -> Judged:
    judged = {"measured": "not measured: fewer than 2 depths", "verdict": verdict(None)}
    if ("first_run", SPEC.floor) in run.fits.index:
        f = run.fits.loc[("first_run", SPEC.floor)]
        linear = decide(f.exponent_ci_low, f.exponent_ci_high, 0.75, 1.25, holds="inside", of="the exponent",
                        scatter=f.scatter)
        judged = {
            "measured": (f"exponent {_exponent(f)}; {f.ms_per_transform_first:.1f} ms per transform "
                         f"at {f.transforms.split('-')[0]}, {f.ms_per_transform_last:.1f} ms at "
                         f"{f.transforms.split('-')[1]}"),
            "reason": linear.reason,
            "verdict": linear.verdict(),
        }
    largest = run.ratios("direct").iloc[-1]
    return Judged(claim="first_run_linear", **judged,
            ours=(tuple(ms / largest.transforms for ms in median_of(
                run.steps, largest.config_id, SPEC.floor, "first_run")),))


def _jit_negligible(run: _Run) -> Judged:
    steady = run.ratios("steady")
    overall = geometric_mean_ratio(steady.ratio, steady.ratio_ci_low, steady.ratio_ci_high)
    negligible = decide(overall[1], overall[2], 0.9, 1.1, holds="inside", log=True, of="the ratio over all depths")
    return Judged(
        claim="jit_negligible",
        measured=(f"{interval(*overall, 'x')} over all depths (" + ", ".join(
            f"{ratio_interval(r)} at {int(r.transforms)}" for r in steady.itertuples()) + ")"),
        reason=negligible.reason,
        verdict=negligible.verdict(),
        ours=(run.per_call("jit_negligible", SPEC.floor, "steady"),),
    )


def _less_compilation(run: _Run) -> Judged:
    first = run.ratios("first_run")
    top = first.iloc[-1]
    compile_ratio = geometric_mean_ratio(first.compile_ratio, first.compile_ratio_ci_low,
                                         first.compile_ratio_ci_high)
    less = decide(compile_ratio[1], compile_ratio[2], 1.1, log=True, of="the compile-time ratio over all depths")
    return Judged(
        claim="less_compilation",
        measured=(
            f"first run {ratio_interval(top)} at {int(top.transforms)} transforms; XLA compile time unbatched / "
            f"batched {interval(*compile_ratio, 'x')} over all depths ("
            + ", ".join(f"{r.compile_ratio:.2f}x at {int(r.transforms)}" for r in first.itertuples())
            + "): the first run's saving is in tracing, which applies the plan"),
        reason=less.reason,
        verdict=less.verdict(),
    )


def _init_faster(run: _Run) -> Judged:
    init_at = at_write_up_structure(run.comp, SPEC.claims["init_faster"].numbers[0])
    init = row(run.ratios("first_run"), config_id=init_at or run.base_id)
    faster = decide(init.ratio_ci_low, init.ratio_ci_high, 1.5, log=True)
    return Judged(
        claim="init_faster",
        measured=(f"whole first run unbatched / batched {ratio_interval(init)} at {init.config_id} "
                  f"({int(init.transforms)} transforms)"),
        reason=faster.reason,
        verdict=faster.verdict(),
        ours=(None if init_at is None else ratio_of(init),),
        judged_ratio=ratio_of(init),
    )


def _variance(run: _Run) -> Judged:
    direct = run.steps[run.steps["mode"] == "direct"]
    columns = ["relative_iqr", "relative_iqr_ci_low", "relative_iqr_ci_high"]
    spread = {config_id: [tuple(row(direct, config_id=config_id, variant=v)[columns])
                          for v in ("unbatched", SPEC.floor)] for config_id in run.ratios("direct").config_id}
    measured = ", ".join(f"{u[0]:.1%} vs {b[0]:.1%} at {int(run.transforms[c])}" for c, (u, b) in spread.items())
    if any(b[1] <= 0 for _, b in spread.values()):
        return Judged(claim="variance", measured=f"relative IQR unbatched vs batched in the direct mode: {measured}; "
                "a batched interval reaches 0: no ratio", verdict=verdict(None))
    each = [ratio_of_estimates(u[0], u[1:], b[0], b[1:]) for u, b in spread.values()]
    overall = geometric_mean_ratio(*zip(*each, strict=True))
    far_less = decide(overall[1], overall[2], FAR_LESS, log=True, of="unbatched / batched")
    return Judged(
        claim="variance",
        measured=(f"relative IQR unbatched vs batched in the direct mode: {measured}; unbatched / "
                  f"batched {interval(*overall, 'x')} over all depths"),
        reason=far_less.reason,
        verdict=far_less.verdict(),
    )


def _stepped(run: _Run, key: str) -> tuple[pd.Series | None, str, bool]:
    """The batched variant's step-by-step row where `key` is judged (the write-up's structure, else the base:
    supporting only; None where the run timed no step-by-step mode there), the words that say where, and
    whether it is the write-up's structure."""
    config_id, where, at_structure = judged_at(run.comp, SPEC.claims[key].numbers[0], run.base_id)
    stepped = run.steps[(run.steps["mode"] == "step_by_step") & (run.steps.variant == SPEC.floor)]
    found = row(stepped, config_id=config_id) if config_id in set(stepped.config_id) else None
    return found, where, at_structure


NOT_STEPPED = "not measured: the run timed no step-by-step start-up there (measure.step_by_step)"


def _setup_split(run: _Run) -> Judged:
    stepped, where, at_structure = _stepped(run, "setup_split")
    if stepped is None:
        return Judged(claim="setup_split", measured=NOT_STEPPED, verdict=verdict(None), ours=(None,))
    shares = {step: tuple(stepped[f"step_{step}_{k}"] for k in ("share", "share_ci_low", "share_ci_high"))
              for step in START_UP_STEPS}
    minor = decide(*shares["apply"][1:], DOMINATES, holds="below", of="apply's share")
    return Judged(
        claim="setup_split",
        measured=(f"batched, un-jitted, {where} ({stepped.config_id}): " + ", ".join(
            f"{step} {stepped[f'step_{step}_ms']:.1f} ms ({s[0]:.1%} [{s[1]:.1%}, {s[2]:.1%}])"
            for step, s in shares.items()) + f" of {stepped.median_ms:.0f} ms"),
        reason=minor.reason,
        verdict=minor.verdict(),
        ours=(tuple(100 * x for x in shares["apply"]) if at_structure else None,),
    )


def _jit_vs_eager_setup(run: _Run) -> Judged:
    stepped, where, at_structure = _stepped(run, "jit_vs_eager_setup")
    if stepped is None:
        return Judged(claim="jit_vs_eager_setup", measured=NOT_STEPPED, verdict=verdict(None), ours=(None,))
    compiled, first = (median_of(run.steps, stepped.config_id, SPEC.floor, m) for m in ("steady", "first_run"))
    un_jitted = (stepped.median_ms, (stepped.median_ci_low_ms, stepped.median_ci_high_ms))
    gain = ratio_of_estimates(*un_jitted, compiled[0], compiled[1:])
    once = ratio_of_estimates(*un_jitted, first[0], first[1:])
    massive = decide(gain[1], gain[2], JIT_GAIN, log=True, of="un-jitted / compiled call")
    return Judged(
        claim="jit_vs_eager_setup",
        measured=(
            f"batched, {where} ({stepped.config_id}): un-jitted {stepped.median_ms:.1f} ms / compiled call "
            f"{compiled[0]:.1f} ms = {interval(*gain, 'x')}; run once, the first run (trace + compile) "
            f"{first[0]:.0f} ms: un-jitted / first run {interval(*once, 'x')}"),
        reason=massive.reason,
        verdict=massive.verdict(),
        ours=(gain if at_structure else None,),
        judged_ratio=gain,
    )


JUDGED = (_faster, _per_transform, _same_with_depth, _first_run_linear, _jit_negligible, _less_compilation,
          _init_faster, _variance, _setup_split, _jit_vs_eager_setup)


def claims(tables: dict[str, pd.DataFrame]) -> list[Judged]:
    """The write-ups' claims that this study measures, each judged by its own function."""
    run = _Run.of(tables)
    return [judge(run) for judge in JUDGED]
