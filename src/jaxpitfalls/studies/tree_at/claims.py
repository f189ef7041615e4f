"""The tree_at write-ups' claims, one judge per key; ratios are unbatched / batched (the floor) by transforms."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...contract.decisions import Decision, decide, interval, median_of, ratio_interval, ratio_of, row, verdict
from ...contract.judging import Judges, Run
from ...contract.verdicts import ANOTHER_DEVICE, NOT_MEASURED, NOT_TESTABLE, Estimate, Judged
from ...formatting import short
from ...harness.stats import geometric_mean_ratio, marginal_cost_ratio, power_law_exponent, ratio_of_estimates
from .derived import (
    NO_YARDSTICK,
    NOT_STEPPED,
    absolute_iqr_ms,
    against_one,
    anchored_first_runs,
    cold_call,
    exponents,
    median,
    one_program_in_every_job,
    per_call,
    ratios,
    reference_bound,
    reference_spread,
    run_once,
    stepped_row,
    transforms_of,
    un_jitted_over,
    unsharded_note,
)
from .report import exponent_text
from .spec import DOMINATES, FAR_LESS, JIT_GAIN, LINEAR_BAND, ORDER_BAND, SAME_GAIN, SPEC, START_UP_STEPS

JUDGES = Judges(SPEC)


@JUDGES("faster")
def _faster(run: Run) -> Judged:
    head_id, where, at_structure = run.headline("faster")
    head = row(ratios(run, "direct"), config_id=head_id)
    faster = decide(head.ratio_ci_low, head.ratio_ci_high, 1, log=True)
    return faster.judged(
        measured=(f"{ratio_interval(head)} {where} ({median(run, head_id, 'unbatched', 'direct'):.1f} "
                  f"ms -> {median(run, head_id, SPEC.floor, 'direct'):.1f} ms; {int(head.transforms)} "
                  "transforms)"),
        judged_ratio=ratio_of(head),
        headline=Estimate(*ratio_of(head), "x", "unbatched / batched"),
        ours=(ratio_of(head) if at_structure else None,),
    )


@JUDGES("per_transform")
def _per_transform(run: Run) -> Judged:
    direct = ratios(run, "direct")
    n_base = int(row(direct, config_id=run.base_id).transforms)
    per_transform = (f"{median(run, run.base_id, 'unbatched', 'direct') / n_base:.2f} ms unbatched vs "
                     f"{median(run, run.base_id, SPEC.floor, 'direct') / n_base:.2f} ms batched per transform at "
                     f"{n_base}")
    judged = {"measured": f"not measured: fewer than 2 depths; {per_transform}", "verdict": NOT_MEASURED}
    if len(direct) > 1:
        gain = power_law_exponent(direct.transforms, direct.ratio, direct.ratio_ci_low, direct.ratio_ci_high)
        u, b = exponents(run).loc[("direct", "unbatched")], exponents(run).loc[("direct", SPEC.floor)]
        grows = decide(gain["exponent_ci_low"], gain["exponent_ci_high"], *ORDER_BAND, holds="inside",
                       of="the gain's exponent", scatter=gain["scatter"])
        judged = {
            "measured": (
                f"the gain's exponent in the transforms {exponent_text(pd.Series(gain))}, "
                f"{against_one(gain)} ("
                + ", ".join(f"{r.ratio:.1f}x at {int(r.transforms)}" for r in direct.itertuples())
                + f"; time's exponent unbatched {exponent_text(u)}, batched {exponent_text(b)})"),
            "reason": grows.reason,
            "verdict": grows.verdict(),
        }
        judged["headline"] = Estimate(gain["exponent"], gain["exponent_ci_low"], gain["exponent_ci_high"], "",
                                      "the gain's exponent in the transforms")
    return Judged(**judged, ours=tuple(per_call(run, "per_transform", variant, "direct", per_transform=True)
                                       for variant in ("unbatched", SPEC.floor)))


@JUDGES("same_with_depth")
def _same_with_depth(run: Run) -> Judged:
    every = ratios(run, "direct")
    measured = ", ".join(f"{ratio_interval(r)} at {int(r.transforms)}" for r in every.itertuples())
    direct = every[every.hidden == row(every, config_id=run.base_id).hidden]  # depth alone, at the base's width
    if direct.transforms.nunique() < 2:  # a sweep claim: one depth cannot say whether the gain stays the same
        return Judged(measured=f"not measured: one depth timed at the base's width ({measured})",
                      verdict=NOT_MEASURED)
    base, largest = direct.iloc[0], direct.iloc[-1]
    grown = ratio_of_estimates(largest.ratio, (largest.ratio_ci_low, largest.ratio_ci_high), base.ratio,
                               (base.ratio_ci_low, base.ratio_ci_high))
    same = decide(grown[1], grown[2], 1 / SAME_GAIN, SAME_GAIN, holds="inside", log=True, of="the gain's growth")
    return same.judged(
        measured=measured,
        headline=Estimate(
            *grown, "x", f"the gain at {int(largest.transforms)} / at {int(base.transforms)} transforms"),
    )


@JUDGES("first_run_linear")
def _first_run_linear(run: Run) -> Judged:
    """Affine, not a power law (exponent below 1 even if linear): first runs over each job's one-layer anchor, larger
    depths against smaller."""
    largest = ratios(run, "direct").iloc[-1]
    ours = (tuple(ms / largest.transforms for ms in median_of(run.steps, largest.config_id, SPEC.floor, "first_run")),)
    base = row(run.steps.drop_duplicates("config_id"), config_id=run.base_id)
    at_width = run.steps[run.steps.hidden == base.hidden].config_id.unique()  # depth alone: width changes the cost
    first = anchored_first_runs(run.comp, run.steps, transforms_of(run))
    first = first[first.config_id.isin(at_width)].sort_values("transforms")
    if first.transforms.nunique() < 3:
        return Judged(measured=f"not measured: fewer than 3 depths at the base's width ({int(base.hidden)}), each "
                               "with its first run over its own job's one-layer first run", verdict=NOT_MEASURED,
                      ours=ours)
    growth = marginal_cost_ratio(first.transforms, first.q, first.q_low, first.q_high)
    n = [int(first.transforms.iloc[i]) for i in (0, len(first) // 2, -1)]
    ratio = "no ratio, a first run shorter at more transforms" if np.isnan(growth[0]) else interval(*growth, "x")
    each = ", ".join(f"{r.q:.2f}x at {int(r.transforms)}" for r in first.itertuples())
    shown = (f"each transform's cost from {n[1]} to {n[2]} transforms over that from {n[0]} to {n[1]}: "
             f"{ratio} (1: linear; {(n[2] + n[1]) / (n[1] + n[0]):.1f}: quadratic), each depth's first run over its "
             f"job's one-layer run ({each})")
    if np.isnan(growth[0]):
        return Judged(measured=shown, verdict=verdict(None), ours=ours)
    linear = decide(growth[1], growth[2], 1 / LINEAR_BAND, LINEAR_BAND, holds="inside", log=True,
                    of="the cost-per-transform ratio")
    return linear.judged(measured=shown, ours=ours,
                         headline=Estimate(*growth, "x", f"cost per transform, {n[1]}-{n[2]} over {n[0]}-{n[1]}"))


@JUDGES("jit_negligible")
def _jit_negligible(run: Run) -> Judged:
    steady = ratios(run, "steady")
    overall = geometric_mean_ratio(steady.ratio, steady.ratio_ci_low, steady.ratio_ci_high)
    each = ", ".join(f"{ratio_interval(r)} at {int(r.transforms)}" for r in steady.itertuples())
    timed = f"{each} transforms" if len(steady) == 1 else f"{interval(*overall, 'x')} over all depths ({each})"
    ours = (per_call(run, "jit_negligible", SPEC.floor, "steady"),)
    if one_program := one_program_in_every_job(run):
        return Judged(measured=f"both variants lower to one program in every job ({one_program}): their compiled "
                               f"calls run the same program; timed as a check, {timed}",
                      verdict=verdict(True), ours=ours,
                      headline=Estimate(*overall, "x", "same program in every job; compiled, unbatched / batched"))
    negligible = decide(overall[1], overall[2], 0.9, 1.1, holds="inside", log=True, of="the ratio over all depths")
    return negligible.judged(measured=timed, ours=ours,
                             headline=Estimate(*overall, "x", "compiled, unbatched / batched"))


@JUDGES("less_compilation")
def _less_compilation(run: Run) -> Judged:
    first = ratios(run, "first_run")
    top = first.iloc[-1]
    compile_ratio = geometric_mean_ratio(first.compile_ratio, first.compile_ratio_ci_low, first.compile_ratio_ci_high)
    measured = (f"XLA compile time unbatched / batched {interval(*compile_ratio, 'x')} over all depths ("
                + ", ".join(f"{r.compile_ratio:.2f}x at {int(r.transforms)}" for r in first.itertuples())
                + f"); the whole first run {ratio_interval(top)} at {int(top.transforms)} transforms: its saving "
                  "is in tracing, which applies the plan")
    if one_program := one_program_in_every_job(run):
        return Judged(measured=f"both variants' jitted start-ups lower to one program in every job ({one_program}):"
                               f" XLA compiles the same program for both; {measured}",
                      verdict=verdict(False), headline=Estimate(*compile_ratio, "x", "same program in every job; "
                                                                "XLA compile time unbatched / batched"))
    if "start_up_program_same" not in run.tables["checks"]:
        measured += "; this run did not record whether the two start-ups lower to one program: compile time decides"
    less = decide(compile_ratio[1], compile_ratio[2], 1.1, log=True, of="the compile-time ratio over all depths")
    return less.judged(measured=measured,
                       headline=Estimate(*compile_ratio, "x", "XLA compile time unbatched / batched"))


@JUDGES("init_faster")
def _init_faster(run: Run) -> Judged:
    init = row(ratios(run, "first_run"), config_id=run.at("faster") or run.base_id)
    faster = decide(init.ratio_ci_low, init.ratio_ci_high, 1.5, log=True)
    return faster.judged(
        measured=(f"whole first run unbatched / batched {ratio_interval(init)} at {init.config_id} "
                  f"({int(init.transforms)} transforms)"),
        judged_ratio=ratio_of(init),
        headline=Estimate(*ratio_of(init), "x", "whole first run unbatched / batched"),
    )


@JUDGES("variance")
def _variance(run: Run) -> Judged:
    direct = run.steps[run.steps["mode"] == "direct"]
    columns = ["relative_iqr", "relative_iqr_ci_low", "relative_iqr_ci_high"]
    spread = {config_id: [tuple(row(direct, config_id=config_id, variant=v)[columns])
                          for v in ("unbatched", SPEC.floor)] for config_id in ratios(run, "direct").config_id}
    at = {c: int(transforms_of(run)[c]) for c in spread}
    measured = ", ".join(f"{u[0]:.1%} vs {b[0]:.1%} at {at[c]}" for c, (u, b) in spread.items())
    reference = reference_spread(direct, spread)
    if reference is not None:
        measured += (f"; a fixed pytree rebuild timed in the same rounds: "
                     f"{', '.join(f'{m:.1%} at {at[c]}' for c, m in reference.items())}")
    absolute = ", ".join(f"{absolute_iqr_ms(direct, c, 'unbatched'):.2f} vs "
                         f"{absolute_iqr_ms(direct, c, SPEC.floor):.2f} ms" for c in spread)
    if any(b[1] <= 0 for _, b in spread.values()):  # no ratio, so no bound it could refute either
        return Judged(measured=f"relative IQR unbatched vs batched in the direct mode: {measured}; "
                               "a batched interval reaches 0: no ratio", verdict=verdict(None))
    each = [ratio_of_estimates(u[0], u[1:], b[0], b[1:]) for u, b in spread.values()]
    overall = geometric_mean_ratio(*zip(*each, strict=True))
    far_less = decide(overall[1], overall[2], FAR_LESS, log=True, of="unbatched / batched")
    untested = reference is None and far_less.outcome is False  # no yardstick: a "no" may be this run's conditions
    return Judged(
        measured=(f"relative IQR unbatched / batched {interval(*overall, 'x')} over all depths (direct mode: "
                  f"{measured}); the write-up's quantity, absolute: IQR {absolute} (a spread shrinks with the "
                  f"time it spreads)"),
        reason=NO_YARDSTICK if untested else far_less.reason,
        verdict=NOT_TESTABLE if untested else far_less.verdict(),
        judged_ratio=overall,
        headline=Estimate(*overall, "x", f"absolute IQR {absolute}; relative, unbatched / batched"),
        bound=reference_bound(spread, reference),
    )


@JUDGES("setup_split")
def _setup_split(run: Run) -> Judged:
    stepped, where, at_structure = stepped_row(run, "setup_split")
    if stepped is None:
        return Judged(measured=NOT_STEPPED, verdict=NOT_MEASURED, ours=(None,))
    shares = {step: tuple(stepped[f"step_{step}_{k}"] for k in ("share", "share_ci_low", "share_ci_high"))
              for step in START_UP_STEPS}
    minor = decide(*shares["apply"][1:], DOMINATES, holds="below", of="apply's share")
    unsharded = unsharded_note(run, stepped.config_id)
    return minor.judged(
        measured=(f"batched, un-jitted, {where}{unsharded} ({stepped.config_id}): " + ", ".join(
            f"{step} {stepped[f'step_{step}_ms']:.1f} ms ({s[0]:.1%} [{s[1]:.1%}, {s[2]:.1%}])"
            for step, s in shares.items())
            + f": shares of the four steps' time in each call (the whole start-up: {stepped.median_ms:.0f} ms)"),
        headline=Estimate(*(100 * x for x in shares["apply"]), "%",
                          "apply's share" + (", no leaf sharded" if unsharded else "")),
        ours=(tuple(100 * x for x in shares["apply"]) if at_structure and not unsharded else None,),
    )


@JUDGES("jit_vs_eager_setup")
def _jit_vs_eager_setup(run: Run) -> Judged:
    stepped, where, at_structure = stepped_row(run, "jit_vs_eager_setup")
    if stepped is None:
        return Judged(measured=NOT_STEPPED, verdict=NOT_MEASURED, ours=(None,))
    gain, compiled = un_jitted_over(run, stepped, "steady")
    massive = decide(gain[1], gain[2], JIT_GAIN, log=True, of="un-jitted / compiled call")
    on_cpu = (f"; on a CPU, {ANOTHER_DEVICE}: the write-up's effect is un-jitted operations dispatched one by one "
              "to an accelerator" if run.backend == "cpu" else "")
    cold, cold_said = cold_call(run)
    measured = (f"batched, {where}{unsharded_note(run, stepped.config_id)} ({stepped.config_id}): un-jitted "
                f"{stepped.median_ms:.1f} ms / compiled call {compiled:.1f} ms = {interval(*gain, 'x')}{cold_said}"
                f"{on_cpu}")
    cold_outcome = None if cold is None else decide(cold[1], cold[2], JIT_GAIN, log=True).outcome
    if None not in (cold_outcome, massive.outcome) and cold_outcome != massive.outcome:
        massive = Decision(None, "undecided: the write-up's one step-by-step timing does not say whether its "
                                 "operations were already compiled, and the warm and cold readings disagree")
    return massive.judged(measured=measured, ours=(gain if at_structure else None,), judged_ratio=gain,
                          headline=Estimate(*gain, "x", "un-jitted / compiled call"))


@JUDGES("once_run")
def _once_run(run: Run) -> Judged:
    stepped, where, _ = stepped_row(run, "jit_vs_eager_setup", SPEC.variants[0])
    if stepped is None:
        return Judged(measured=NOT_STEPPED, verdict=NOT_MEASURED)
    once, said, cold = run_once(run, stepped)
    pays = decide(once[1], once[2], 1, log=True, of="un-jitted / first run")
    if not cold and not pays.outcome:
        pays = Decision(None, "undecided: the un-jitted side's compilations are left out (no first call kept)")
    return pays.judged(measured=f"{stepped.variant}, {where} ({stepped.config_id}): {said} = {interval(*once, 'x')}",
                       judged_ratio=once,
                       headline=Estimate(*once, "x", "un-jitted first call (one) / jitted first run" if cold else
                                         "un-jitted warm / jitted first run"))


@JUDGES("same_result")
def _same_result(run: Run) -> Judged:
    checks, recorded = run.tables["checks"], run.tables["checks"].dropna(subset=["outputs_exact"])
    if recorded.empty:
        return Judged(verdict=NOT_MEASURED, measured="not measured: no job recorded its comparison of the variants")
    exact = recorded.outputs_exact.astype(bool)
    values = recorded.outputs_agree.str.extract(r"\((\d+) values", expand=False).fillna("?")  # job_checks.agreement
    return Judged(verdict=verdict(bool(exact.all())),
                  measured=(f"equal in {int(exact.sum())} of {len(checks)} jobs (at {', '.join(recorded.config_id)}; "
                            f"{', '.join(values)} values): the structure, bitwise values and sharding of every leaf "
                            f"of the {recorded.outputs_compared.iloc[0]}; largest difference "
                            f"{short(recorded.max_abs_difference.max())}"))
