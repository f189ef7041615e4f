"""The extraction write-up's claims, one judge per key; a fix's key is `before/after`."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from itertools import pairwise

import pandas as pd

from ...contract.decisions import (
    applicable,
    decide,
    interval,
    ratio_interval,
    ratio_of,
    row,
    to_decide,
    verdict,
)
from ...contract.judging import Judges, Run, claimed_size, not_probed
from ...contract.tables import measured
from ...contract.verdicts import (
    ANOTHER_DEVICE,
    NOT_MEASURED,
    NOT_TESTABLE,
    Bound,
    Estimate,
    Judged,
    speedup_removing,
)
from .derived import bound, eager_row, host_ms, speeds, warmup_passes
from .fixes import FIRST_PASS_VARIANTS
from .report import in_mode
from .spec import SCAN, SPEC, SPLIT_SHARE, STACKED

IMMEDIATE, WAITS = 0.1, 0.5  # device_get's share of the run left: at most returns at once, at least waits for it

JUDGES = Judges(SPEC)


def _first_pass_fix(run: Run, config_id: str, where: str, fix: tuple[str, str], at_structure: bool) -> Judged:
    """Padding judged on what it removes: the ragged batch's recompilation, over whole first passes."""
    slow, fast = fix
    fresh = run.pair(slow, fast, config_id, mode="first_pass")
    steady = run.pair(slow, fast, config_id, mode="extract")
    faster = decide(fresh.ratio_ci_low, fresh.ratio_ci_high, 1, log=True, of="the first-pass ratio")
    return faster.judged(
        measured=(f"first pass (compilation included) {ratio_interval(fresh)} {where} ({config_id}), "
                  f"over fresh first passes, warm passes {ratio_interval(steady)} (padding's compute)"),
        ours=(ratio_of(fresh) if at_structure else None,),
        judged_ratio=ratio_of(fresh),
        headline=Estimate(*ratio_of(fresh), "x", f"first pass {slow} / {fast}"),
    )


def _fix(run: Run, key: str, fix: tuple[str, str] | None = None) -> Judged:
    """A fix's gain, before / after (padding: first passes), bounded by what it can remove; `fix`: (before, after)."""
    slow, fast = fix = fix or tuple(key.split("/"))
    config_id, where, at_structure = run.headline(key)
    if fix == FIRST_PASS_VARIANTS:
        return _first_pass_fix(run, config_id, where, fix, at_structure)
    r = run.pair(slow, fast, config_id, mode="extract")
    first = warmup_passes(run)
    first_gain = first[(config_id, slow)] / first[(config_id, fast)]
    faster = decide(r.ratio_ci_low, r.ratio_ci_high, 1, log=True)
    passes = int(row(run.steps, config_id=config_id, variant=fast, mode="extract").n_samples)
    return faster.judged(
        ours=(ratio_of(r) if at_structure else None,) * len(SPEC.claims[key].numbers), judged_ratio=ratio_of(r),
        headline=Estimate(*ratio_of(r), "x", f"{slow} / {fast}"),
        measured=(f"{ratio_interval(r)} {where} ({config_id}), over {passes} timed passes per variant; first pass "
                  f"{first_gain:.2f}x (one pass each){SEVERAL_HOSTS.get(key, '')}"),
        bound=bound(*(row(speeds(run), config_id=config_id, variant=v) for v in fix), fix),
    )


# A fix whose write-up effect needs several hosts (a dispatch per batch weighs more there): one host here.
SEVERAL_HOSTS = {"scan_batches": f"; on one host, {ANOTHER_DEVICE}: the write-up expects its gain from dispatching "
                                 "once per chunk across several hosts"}


# Every fix judged alike (`_fix`), each under its own key.
for _key in ("eager/jit", "jit/jit_padded", "jit_padded/jit_padded_async", "jit_padded_async/pipelined",
             "eager/jit_padded_async", "eager/pipelined"):
    JUDGES(_key)(partial(_fix, key=_key))
del _key
# Fixes whose key is not `slow/fast`, by the variants they compare.
NAMED_FIXES = {"scan_batches": SCAN, "batched_copy": STACKED}
for _key, _fixed in NAMED_FIXES.items():
    JUDGES(_key)(partial(_fix, key=_key, fix=_fixed))
del _key, _fixed


@JUDGES("apply_auto_jit")
def _apply_auto_jit(run: Run) -> Judged:
    """The Flax probe: programs model.apply's first call compiled, against jax.jit(model.apply)'s."""
    checks = run.probed("flax_apply")
    if checks is None:
        return not_probed("flax_apply")
    if pd.isna(checks.get("flax_apply_apply_compiles")):
        return Judged(measured=f"not measured: Flax {checks.flax_apply_release}", verdict=NOT_MEASURED)
    ratio = (checks.flax_apply_ratio, checks.flax_apply_ratio_ci_low, checks.flax_apply_ratio_ci_high)
    return Judged(
        measured=(f"a Flax {checks.flax_apply_release} linen model of depth {int(checks.flax_apply_layers)}, hidden "
                  f"{int(checks.flax_apply_hidden)} at {run.base_id}: model.apply's first call on a new "
                  f"shape compiled {int(checks.flax_apply_apply_compiles)} programs (one per operation), "
                  f"jax.jit(model.apply) {int(checks.flax_apply_jit_compiles)}; un-jitted / jitted "
                  f"{interval(*ratio, 'x')} (medians of {int(checks.flax_apply_probes)} calls: "
                  f"{checks.flax_apply_apply_ms:.1f} ms, {checks.flax_apply_jit_ms:.1f} ms)"),
        verdict=verdict(bool(checks.flax_apply_apply_compiles <= checks.flax_apply_jit_compiles)),
        headline=Estimate(*(float(checks.flax_apply_apply_compiles),) * 3, " programs",
                          f"first call, jax.jit(model.apply) {int(checks.flax_apply_jit_compiles)}, model.apply"),
    )


@JUDGES("time_split")
def _time_split(run: Run) -> Judged:
    """Eager's pass split into copies and Python, and the most removing them could gain (CPU: "no" untestable)."""
    config_id, where, at_structure = run.headline("time_split")
    eager = row(speeds(run), config_id=config_id, variant="eager")
    host = host_ms(eager)
    median = row(run.steps, config_id=config_id, variant="eager", mode="extract")
    share = tuple(100 * host / ms for ms in (median.median_ms, median.median_ci_high_ms, median.median_ci_low_ms))
    third = decide(share[1], share[2], SPLIT_SHARE, of="the share", unit="%")
    most = speedup_removing(eager.pass_ms, host)
    return third.judged(
        measured=f"eager's pass {where} ({config_id}): forward "
                 f"{eager.forward_ms:.1f} ms, copies {eager.transfer_ms:.1f} ms, Python storage "
                 f"{eager.storage_ms:.1f} ms: copies and Python {share[0]:.1f}% [{share[1]:.1f}, {share[2]:.1f}] "
                 f"of its {eager.pass_ms:.1f} ms (removing them: at most {most:.3f}x)",
        ours=(share if at_structure else None,),
        headline=Estimate(*share, "%", "copies and Python"))


@JUDGES("device_get_async")
def _device_get_async(run: Run) -> Judged:
    """The device_get probe: its share of the run left after dispatch, per probe."""
    checks = run.probed("device_get")
    if checks is None:
        return not_probed("device_get")
    share = (checks.device_get_share_of_run, checks.device_get_share_of_run_ci_low,
             checks.device_get_share_of_run_ci_high)
    shown = (f"jax.device_get right after a dispatch took {interval(*share)} of the run left once the dispatch "
             f"returned, returning {checks.device_get_returned} (at {run.base_id}, medians of "
             f"{int(checks.device_get_probes)} probes: dispatch {checks.device_get_dispatch_ms:.2f} ms of a "
             f"{checks.device_get_blocked_ms:.2f} ms forward, device_get {checks.device_get_device_get_ms:.2f} ms, "
             f"copy_to_host_async {checks.device_get_copy_to_host_async_ms:.3f} ms)")
    if checks.device_get_dispatch_ms > checks.device_get_blocked_ms / 2:
        return Judged(measured=f"{shown}: the dispatch itself waited for most of the run, no probe can tell",
                      verdict=verdict(None))
    outcome = True if share[2] < IMMEDIATE else (False if share[1] > WAITS else None)
    reason = "" if outcome is not None else (
        to_decide(share[1], share[2], IMMEDIATE, WAITS, of="the share")
        or f"it waited for part of the run, between returning at once ({IMMEDIATE:g}) and waiting ({WAITS:g}): "
           "more probes would not decide it")
    return Judged(measured=shown, reason=reason, verdict=verdict(outcome),
                  headline=Estimate(*(100 * x for x in share), "%", "device_get, of the run left"))


@JUDGES("decode_activations")
def _decode_activations(run: Run) -> Judged:
    """The decode-step probe: un-jitted against jitted."""
    checks = run.probed("decode_step")
    if checks is None:
        return not_probed("decode_step")
    ratio = (checks.decode_step_ratio, checks.decode_step_ratio_ci_low, checks.decode_step_ratio_ci_high)
    slower = decide(ratio[1], ratio[2], 1, log=True, of="eager / jit")
    return slower.judged(
        measured=f"the decode step with every layer's activations on one token, un-jitted / jitted "
                 f"{interval(*ratio, 'x')} at {run.base_id} (medians of {int(checks.decode_step_probes)} calls: "
                 f"{checks.decode_step_eager_ms:.1f} ms un-jitted, {checks.decode_step_jit_ms:.2f} ms jitted)",
        headline=Estimate(*ratio, "x", "un-jitted / jitted"),
    )


@JUDGES("donate_params")
def _donate_params(run: Run) -> Judged:
    """The donation probe: what the first call freed, what the second did."""
    checks = run.probed("donation")
    if checks is None:
        return not_probed("donation")
    warned = "JAX warned the donated buffers were not usable" if checks.donation_warned_not_usable else \
        "no warning"
    return Judged(
        measured=f"the jitted forward with the parameters donated freed {int(checks.donation_freed)} of "
                 f"{int(checks.donation_parameters)} parameter buffers ({checks.donation_freed_mb:.1f} of "
                 f"{checks.donation_parameter_mb:.1f} MB) at {run.base_id} ({warned}); the next batch with the "
                 f"same parameters {checks.donation_second_batch}",
        verdict=verdict(bool(checks.donation_freed_mb >= checks.donation_parameter_mb / 2)),
        headline=Estimate(*(100 * float(checks.donation_freed_mb / checks.donation_parameter_mb),) * 3, "%",
                          f"freed of the {checks.donation_parameter_mb:.0f} MB of parameters donated"),
    )


@JUDGES("eager_recompiles")
def _eager_recompiles(run: Run) -> Judged:
    compiled = eager_row(run)
    return Judged(
        measured=f"eager's timed passes compiled {int(compiled.compiles_in_timed_region)} times at {run.base_id} "
                 f"(its first pass: {int(compiled.first_run_compiles)})",
        verdict=verdict(bool(compiled.compiles_in_timed_region > 0)),
        headline=Estimate(*(float(compiled.compiles_in_timed_region),) * 3, " compilations", "eager's timed passes"),
    )


@JUDGES("copies_small_batches")
def _copies_small_batches(run: Run) -> Judged:
    """Blocking copies' share of a pass at the base's small batch (not testable on CPU: a copy is a host memcpy)."""
    before = row(speeds(run), config_id=run.base_id, variant="jit_padded")
    return Judged(verdict=NOT_MEASURED,
                  measured=f"not measured: needs a batch sweep judged on the share's interval; jit_padded's copies "
                           f"take {before.transfer_ms / before.pass_ms:.1%} of its pass at batch {int(before.batch)} "
                           f"({before.transfer_ms:.1f} of {before.pass_ms:.1f} ms)")


@JUDGES("ragged_recompiles")
def _ragged_recompiles(run: Run) -> Judged:
    fresh = in_mode(run.steps, "first_pass")
    fresh = fresh[fresh.config_id == run.base_id].set_index("variant")
    jit, padded = (fresh.loc[v, "compiles_in_timed_region"] / fresh.loc[v, "n_samples"] for v in FIRST_PASS_VARIANTS)
    batches, last = int(fresh.loc["jit", "structure_batches"]), int(fresh.loc["jit", "structure_last_batch"])
    return Judged(
        measured=f"programs compiled per fresh first pass at {run.base_id}: jit {jit:g} for {batches} batches "
                 f"(the last of {last} rows), jit_padded {padded:g}",
        verdict=verdict(bool(padded < jit)),
        headline=Estimate(jit, jit, jit, " programs", f"per first pass, jit_padded {padded:g}, jit"),
    )


@JUDGES("return_activations")
def _return_activations(run: Run) -> Judged:
    jit = row(in_mode(run.steps, "extract"), config_id=run.base_id, variant="jit")
    agree = row(measured(run.tables["checks"]), config_id=run.base_id).outputs_agree
    calls, batches = int(jit.signature_forward_calls_per_pass), int(jit.structure_batches)
    held = bool(jit.compiles_in_timed_region == 0 and calls == batches)  # agreement: the job fails without it
    return Judged(
        measured=f"jit returned {int(jit.structure_layers_extracted)} layers' hidden states per batch from "
                 f"{calls} jitted calls per pass of {batches} batches at {run.base_id}: "
                 f"{int(jit.first_run_compiles)} compilations in its first pass, {int(jit.compiles_in_timed_region)} "
                 f"in its timed passes; every variant's outputs alike ({agree})",
        verdict=verdict(None if not held else False),
        headline=Estimate(*(float(jit.compiles_in_timed_region),) * 3, " compilations", "jit's timed passes"),
    )


# The write-up's ranking of its fixes, biggest first, each by the key of the row that judges it here.
RANKED = (("jit", "eager/jit"), ("async copies", "jit_padded/jit_padded_async"), ("padding", "jit/jit_padded"),
          ("pipelining", "jit_padded_async/pipelined"), ("vectorizing", "batched_copy"), ("scan", "scan_batches"))


def ranked(gains: dict[str, tuple[float, float, float]], bounds: dict[str, Bound] | None = None) -> Judged:
    """The write-up's ranking on the fixes' gains (estimate, low, high): each wholly above the next reproduces, the
    reverse refutes; `bounds`: untestable fixes' most possible gain (docs/decisions.md#ranking-bounds)."""
    names, bounds = [name for name, _ in RANKED], bounds or {}
    short = [(a, b, bounds[a]) for a, b in pairwise(names) if a in bounds and bounds[a].ratio < gains[b][1]]
    reversed_pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if gains[b][1] > gains[a][2]]
    ordered = all(gains[a][1] > gains[b][2] for a, b in pairwise(names))
    by_estimate = " > ".join(f"{name} {interval(*gains[name], 'x')}" for name in
                             sorted(names, key=lambda name: -gains[name][0]))
    against = "; ".join(f"{b} above {a}" for a, b in reversed_pairs)
    bound = None
    if short:
        a, b, own = short[0]
        bound = replace(own, needs=round(gains[b][1], 3),
                        what=f"{a} ({own.what}), to rank above {b} (its interval's low end)")
    return Judged(measured=f"the fixes rank {by_estimate}" + (f" (against the write-up's order: {against})"
                                                              if against else ""),
                  verdict=verdict(False if reversed_pairs else (True if ordered else None)), bound=bound)


@JUDGES("ranking")
def _ranking(run: Run) -> Judged:
    fixes = {name: _fix(run, key, fix=NAMED_FIXES.get(key)) for name, key in RANKED}
    fixes = {name: judged if judged.bound is None else replace(judged, bound=claimed_size(judged.bound,
                                                                                        SPEC.claims[key]))
             for (name, key), judged in zip(RANKED, fixes.values(), strict=True)}  # as their own rows are judged
    bounds = {name: judged.bound for name, judged in fixes.items()
              if judged.bound is not None and applicable(judged).verdict == NOT_TESTABLE}
    return ranked({name: judged.judged_ratio for name, judged in fixes.items()}, bounds)
