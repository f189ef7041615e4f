"""The dispatch write-up's claims, one judge per key; headlines at BERT-base's structure where run, else the base."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import (
    decide,
    difference_between,
    difference_of,
    interval,
    median_of,
    ratio_interval,
    ratio_of,
    share_of,
    verdict,
)
from ...contract.judging import Judges, Run
from ...contract.naming import value_label
from ...contract.verdicts import NOT_MEASURED, Bound, Estimate, Judged
from ...harness.stats import difference_of_estimates, ratio_of_estimates
from .anchored import ACROSS_JOBS, leaves_growth, widest_shift
from .flattening import at_least, before_program, before_program_text, flattening, share_left, share_text
from .report import attribution, compute_shifts, ms, on_axis
from .spec import ALL_OF_GAP, COMPUTE_BAND, INFERENCE_SHARE, LEFT_OF_OVERHEAD, SPEC
from .structure import at_pytree, no_dropout, width_note
from .traced import postprocess_share, traced_at, traced_python, traced_steps

JUDGES = Judges(SPEC)
# what a configuration may change at the base's structure
COMPUTE_KEYS = ("hidden", "batch", "seq", "dropout", "attention")


def _pair(run: Run, variant: str, baseline: str, mode: str = "blocked", config_id: str | None = None) -> pd.Series:
    return run.pair(variant, baseline, config_id, mode=mode)


def _filter_jit_rows(run: Run, baseline: str) -> pd.DataFrame:
    comp = run.comp
    return comp[(comp.variant == "filter_jit") & (comp.baseline == baseline) & (comp["mode"] == "blocked")]


def _overhead_on(run: Run, axis: str, baseline: str) -> pd.DataFrame:
    """filter_jit's blocked difference to `baseline` along `axis`, by its value."""
    on = on_axis(_filter_jit_rows(run, baseline), axis)
    leaves = run.steps.drop_duplicates("config_id").set_index("config_id")["structure_model_leaves"]
    return on.assign(leaves=on.config_id.map(leaves)).sort_values("value")


def _slower_bound(run: Run, fj: pd.Series, config_id: str) -> Bound | None:
    """The largest ratio visible at `config_id` on the base's pytree: the base's overhead (95% high) on its step."""
    base = _pair(run, "filter_jit", "jit_partition")
    if config_id == run.base_id or fj.layers != base.layers:  # `fj` is that pair at `config_id`
        return None
    step = median_of(run.steps, config_id, "jit_partition", "blocked")[0]
    overhead = max(base.diff_ci_high_ms, 0.0)
    return Bound(step + overhead, overhead, f"the base's overhead (at most {base.diff_ci_high_ms:.2f} ms) on a "
                                            f"{step:.0f} ms step")


@JUDGES("slower")
def _slower(run: Run) -> Judged:
    config_id, where, at_structure = run.headline("slower")
    fj = _pair(run, "filter_jit", "jit_partition", config_id=config_id)
    slower = decide(fj.ratio_ci_low, fj.ratio_ci_high, 1, log=True, of=f"the ratio {where}")
    at_base = "" if config_id == run.base_id else ratio_interval(_pair(run, "filter_jit", "jit_partition"))
    base = f"; the base, a shorter step: {at_base} at {run.base_id}" if at_base else ""
    return slower.judged(
        measured=f"{ratio_interval(fj)} {where} ({config_id}){base}",
        judged_ratio=ratio_of(fj),
        headline=Estimate(*ratio_of(fj), "x", "filter_jit / jit_partition" + (
            f" at the base (a shorter step) {at_base}; nearest the write-up's structure:" if at_base else "")),
        bound=_slower_bound(run, fj, config_id),
        ours=((None, None, None) if not at_structure else (
            ratio_of(fj), *(median_of(run.steps, config_id, v, "blocked") for v in ("filter_jit", "jit_partition"))))
        + no_dropout(run),
    )


@JUDGES("every_call")
def _every_call(run: Run) -> Judged:
    gap = _pair(run, "filter_jit", "jit_partition")
    paid = decide(gap.diff_ci_low_ms, gap.diff_ci_high_ms, 0, of="the per-step difference", unit=" ms")
    return paid.judged(  # ms per step x 1000 steps: the same number in seconds
        measured=f"filter_jit - jit_partition per warm step {ms(gap)} at {run.base_id}"
                 f"{width_note(run, run.base_id)}: over 1000 steps {interval(*difference_of(gap), ' s')}",
        headline=Estimate(*difference_of(gap), " ms", "per warm step"),
    )


@JUDGES("where")
def _where(run: Run) -> Judged:
    config_id, tree_only, at_structure = traced_at(run)
    pre, post, share = postprocess_share(run, config_id)
    return Judged(
        measured=f"_preprocess {1 - share:.0%}, _postprocess {share:.0%} (traced: {pre:.3f} ms + {post:.3f} ms "
                 f"per step at {config_id}{tree_only})",
        verdict=verdict(bool(share > 0.5)),
        ours=((share * 100,) * 3 if at_structure else None, *traced_steps(run, config_id, at_structure)),
        headline=Estimate(*(share * 100,) * 3, "%", "_postprocess, one trace:"),
    )


@JUDGES("structure")
def _structure(run: Run) -> Judged:
    at = run.at("structure")
    tree_only = width_note(run, at)
    ours = (None if at is None or tree_only else difference_of(_pair(run, "filter_jit", "jit_partition",
                                                                     config_id=at)),)
    found = leaves_growth(run, _overhead_on(run, "layers", "jit_partition"))
    if not found:
        return Judged(measured="not measured: no configuration of the layers axis was timed beside the base in its "
                               "own job", verdict=NOT_MEASURED, ours=ours)
    fewer, more, growth, shown = found[0]
    grows = decide(growth[1], growth[2], 0)
    others = "".join(f"; {f[3]}: {interval(*f[2], ' ms', signed=True)}" for f in found[1:])
    return grows.judged(
        measured=(f"filter_jit - jit_partition {shown}: {interval(*growth, ' ms', signed=True)} "
                  f"(the base timed in the same job, paired in time; {more - fewer} leaves more: no rate per leaf "
                  f"from one pair){others}{tree_only}"),
        ours=ours,
        headline=Estimate(*growth, " ms", f"{fewer} -> {more} leaves:"),
    )


def _apart(run: Run, base: pd.Series) -> dict[str, tuple[float, float, float]]:
    """Other configurations at the base's layers, minus the base's overhead: separate jobs, so shown, not judged."""
    pairs = _filter_jit_rows(run, "jit_partition")
    pairs = pairs[(pairs.layers == base.layers) & (pairs.config_id != run.base_id)]
    return {" + ".join(f"{key} {value_label(r[key])}" for key in COMPUTE_KEYS if r[key] != base[key]):
            difference_between(r, base) for _, r in pairs.iterrows()}


@JUDGES("not_compute")
def _not_compute(run: Run) -> Judged:
    base = _pair(run, "filter_jit", "jit_partition")
    judged, apart = compute_shifts(run), _apart(run, base)
    shown_apart = ", ".join(f"{setting}: {interval(*shift, ' ms')}" for setting, shift in apart.items())
    apart_text = f"; not judged ({ACROSS_JOBS}): {shown_apart}" if apart else ""
    if not judged:
        return Judged(verdict=NOT_MEASURED, measured=f"not measured: the config times no dropout or attention "
                                                      f"setting beside the base (`beside`){apart_text}")
    band = COMPUTE_BAND * abs(base.diff_ms)
    decisions = {setting: decide(shift[1], shift[2], -band, band, holds="inside", of=f"the {setting} shift",
                                 unit=" ms") for setting, shift in judged.items()}
    outcomes = [d.outcome for d in decisions.values()]
    outcome = False if False in outcomes else (True if all(outcomes) else None)
    shown = ", ".join(f"{setting}: {interval(*shift, ' ms')}" for setting, shift in judged.items())
    widest, headline = widest_shift(judged, band)  # the row's shift: its reason is the one said
    return Judged(
        measured=(f"overhead shift per dropout and attention setting over the base's {ms(base)}"
                  f"{width_note(run, run.base_id)}, paired round by round in the base's job: {shown} "
                  f"(band +-{band:.3f} ms){apart_text}"),
        reason="" if outcome is not None else _across(decisions, widest),
        verdict=verdict(outcome),
        headline=headline,
    )


def _across(decisions: dict, widest: str) -> str:
    """Why undecided: the widest shift's reason (the row's), naming the others that cross the band too."""
    named = widest if decisions[widest].reason else next(s for s, d in decisions.items() if d.reason)
    others = [setting for setting, d in decisions.items() if d.outcome is None and setting != named]
    return decisions[named].reason + (f" (across the band too: {', '.join(others)})" if others else "")


@JUDGES("partition_free")
def _partition_free(run: Run) -> Judged:
    config_id, tree_only, part, whole = flattening(run)
    if not whole.diff_ci_low_ms > 0:
        return Judged(verdict=NOT_MEASURED, measured=f"not measured: filter_jit's overhead over {SPEC.floor} "
                                                     f"{ms(whole)} may be 0 at {config_id}: no share of it")
    left, how = share_left(run, config_id, part, whole)
    small = decide(left[1], left[2], LEFT_OF_OVERHEAD, holds="below", of="the share left")
    return small.judged(
        measured=(f"jit_partition over {SPEC.floor} {ms(part)}: {share_text(left, how, whole)} at "
                  f"{config_id}{tree_only}: jax.jit's own flattening"),
        headline=Estimate(*(100 * x for x in left), "%", "left of filter_jit's overhead"),
    )


@JUDGES("flattening_left")
def _flattening_left(run: Run) -> Judged:
    config_id, tree_only, part, whole = flattening(run)
    costs = decide(part.diff_ci_low_ms, part.diff_ci_high_ms, 0, of=f"jit_partition - {SPEC.floor}", unit=" ms")
    share, shown = "", ""
    if whole.diff_ci_low_ms > 0:
        share = f": {share_text(*share_left(run, config_id, part, whole), whole)}"
    noop = before_program(run, config_id)
    if noop is not None:
        costs = at_least(costs, noop.diff_ci_low_ms, noop.diff_ci_high_ms, 0, holds="above",
                         of=f"jit_partition - {SPEC.floor}")
        shown = before_program_text(noop)
    decided = noop is not None and noop.diff_ci_low_ms > 0  # the no-op decides where it is wholly above 0
    headline = (Estimate(*difference_of(noop), " ms", "jitted no-op, partitioned - flat") if decided else
                Estimate(*difference_of(part), " ms", f"jit_partition - {SPEC.floor}"))
    return costs.judged(measured=f"jit_partition over {SPEC.floor} {ms(part)} ({ratio_interval(part)}){share} at "
                                 f"{config_id}{tree_only}{shown}",
                        headline=headline)


@JUDGES("pipelining")
def _pipelining(run: Run) -> Judged:
    blocked, pipelined = _pair(run, "filter_jit", SPEC.floor), _pair(run, "filter_jit", SPEC.floor, "pipelined")
    # filter_jit gains less from pipelining than the floor <=> its ratio to the floor rises when pipelined.
    rise = ratio_of_estimates(pipelined.ratio, (pipelined.ratio_ci_low, pipelined.ratio_ci_high),
                              blocked.ratio, (blocked.ratio_ci_low, blocked.ratio_ci_high))
    rises = decide(rise[1], rise[2], 1, log=True, of="pipelined / blocked")
    # at most, filter_jit gains nothing from dispatching back to back: the quotient is then the floor's own gain,
    # two medians of this run (another run's may show a gain where this one shows none: "in this run")
    floor = {mode: median_of(run.steps, run.base_id, SPEC.floor, mode)[0] for mode in ("blocked", "pipelined")}
    bound = Bound(floor["blocked"], floor["blocked"] - floor["pipelined"], f"{SPEC.floor}'s own gain from "
                  f"dispatching back to back ({floor['blocked']:.2f} -> {floor['pipelined']:.2f} ms per step"
                  + (": none, it ran slower: no gain for filter_jit to miss)" if floor["pipelined"] > floor["blocked"]
                     else ")"),
                  scope="in this run")
    return rises.judged(
        measured=(f"filter_jit / {SPEC.floor}: pipelined / blocked {interval(*rise, 'x')} (blocked "
                  f"{ratio_interval(blocked)}, pipelined {ratio_interval(pipelined)}) at {run.base_id}"
                  f"{width_note(run, run.base_id)}"),
        bound=bound,
        judged_ratio=rise,
        headline=Estimate(*rise, "x", "filter_jit's ratio pipelined / blocked"),
    )


@JUDGES("attribution_complete")
def _attribution_complete(run: Run) -> Judged:
    traced = attribution(run.comp, run.tables["overhead"], run.steps)
    if traced.empty:
        return Judged(measured="not measured: no traced configuration", verdict=NOT_MEASURED)
    # the 12-layer pytree, not the whole shape `where` prefers: a millisecond gap shows on a short step only
    config_id, where = at_pytree(run, set(traced.config_id))
    (python, captures), gap = traced_python(run, config_id), _pair(run, "filter_jit", "jit_partition",
                                                                   config_id=config_id)
    if captures < 2:
        return Judged(measured=f"Python around the program {python[0]:.3f} ms of a {ms(gap)} gap at {config_id}, "
                               f"from one profiler capture{where}", verdict=verdict(None),
                      reason="undecided: one capture says nothing of how much the next would differ (at the base "
                             "they spread by several ms); 2 or more (the `captures` setting) give it an interval",
                      headline=Estimate(*(python[0] / gap.diff_ms,) * 3, "x", "traced Python / the gap, one capture:"))
    measured = (f"Python around the program {interval(*python, ' ms')} (mean of {captures} profiler captures, the "
                f"interval with their spread) of a {ms(gap)} gap at {config_id}")
    if gap.diff_ci_low_ms <= 0:
        return Judged(measured=measured + where, reason="undecided: the gap's interval reaches 0, no gap to "
                      "explain", verdict=verdict(None))
    share = share_of(python, difference_of(gap))
    all_of = decide(share[1], share[2], ALL_OF_GAP, of="Python's share of the gap")
    over = (" (wholly above 1: the traced Python exceeds the gap, so part of it overlaps the program's run or the "
            "tracer inflated it; the gap is Python, its size is not this share)") if share[1] > 1 else ""
    return all_of.judged(measured=f"{measured}: {interval(*share)} of it{over}{where}",
                         headline=Estimate(*share, "x", "traced Python / the gap"))


@JUDGES("inference_ok")
def _inference_ok(run: Run) -> Judged:
    forward, step = _pair(run, "filter_jit", "jit_partition", "infer"), _pair(run, "filter_jit", "jit_partition")
    room = difference_of_estimates(INFERENCE_SHARE * step.diff_ms, (INFERENCE_SHARE * step.diff_ci_low_ms,
                                                                   INFERENCE_SHARE * step.diff_ci_high_ms),
                                   forward.diff_ms, (forward.diff_ci_low_ms, forward.diff_ci_high_ms))
    small = decide(room[1], room[2], 0, of=f"{INFERENCE_SHARE:g} of the step's overhead minus the forward's",
                   unit=" ms")
    under = room[0] > 0
    half, theirs = f"{INFERENCE_SHARE:g} of the step's overhead", "the forward's overhead"
    margin, defined = ((room, f"{half} minus {theirs}") if under else
                       ((-room[0], -room[2], -room[1]), f"{theirs} minus {half}"))
    return small.judged(
        measured=f"forward call {ms(forward)} per call ({ratio_interval(forward)}) vs training step (blocked) "
                 f"{ms(step)} per step ({ratio_interval(step)}) at {run.base_id}{width_note(run, run.base_id)}: "
                 f"the forward's overhead {'under' if under else 'over'} {INFERENCE_SHARE:g} x the step's by "
                 f"{interval(*margin, ' ms')} ({defined}; the forward returns logits, no model or optimizer state)",
        headline=Estimate(*room, " ms", f"forward +{forward.diff_ms:.3f} ms vs step +{step.diff_ms:.3f} ms: "
                                        f"margin under {INFERENCE_SHARE:g} x the step's"),
    )
