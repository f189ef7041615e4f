"""The generation write-up's claims, one judge per key; the warmup pitfall's read from the demonstration."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import (
    BELOW_STRUCTURE,
    Decision,
    decide,
    interval,
    ratio_interval,
    ratio_of,
    row,
    verdict,
    within,
)
from ...contract.judging import Judges, Run, not_probed, once_per_run
from ...contract.tables import demonstrated, per_second
from ...contract.verdicts import CHECKED, NOT_MEASURED, Estimate, Judged
from ...harness.stats import ratio_of_estimates
from .report import pitfall
from .spec import SCAN_BEATS, SPEC, UNDISTORTED
from .spread import spread_against_watch

JUDGES = Judges(SPEC)


def _tokens_per_s(run: Run, config_id: str) -> tuple[float, float, float]:
    """The floor's tokens per second (median, 95% interval)."""
    kv = row(run.steps, config_id=config_id, variant=SPEC.floor, mode="generate")
    return per_second(kv.new_tokens, kv)


def _base_rows(run: Run) -> pd.DataFrame:
    """The base configuration's rows by variant."""
    return run.steps[run.steps.config_id == run.base_id].set_index("variant")


@JUDGES("cache_faster")
def _cache_faster(run: Run) -> Judged:
    head_id, where, at_structure = run.headline("cache_faster")
    head = run.pair("uncached", config_id=head_id)
    try:
        beside = f"; against the un-jitted loop {ratio_interval(run.pair('uncached_eager', config_id=head_id))}"
    except LookupError:  # not timed here (`measure.eager: base`)
        beside = ""
    compiling = _compiling_baseline(run) if at_structure else None
    if compiling is not None:  # the write-up's number most likely timed that (its Number says why)
        beside = f", {interval(*compiling, 'x')} against the uncached loop compiling in its timed region{beside}"
    faster = decide(head.ratio_ci_low, head.ratio_ci_high, 1, log=True, of="uncached / kv_cache")
    return faster.judged(
        measured=(
            f"uncached / kv_cache {ratio_interval(head)} both warm {where} ({head_id}; {SPEC.floor}: "
            f"{_tokens_per_s(run, head_id)[0]:.1f} tok/s){beside}"),
        ours=(compiling, _tokens_per_s(run, head_id)) if at_structure else (None, None),
        judged_ratio=ratio_of(head),
        headline=Estimate(*ratio_of(head), "x", "uncached / kv_cache, both warm"),
    )


def _compiling_baseline(run: Run) -> tuple[float, float, float] | None:
    """uncached's demonstration median (compiling while timed) over kv_cache's proper one; None without one."""
    if _pitfall(run).empty:
        return None
    demo, same, _ = _demonstration(run)
    return _slowed(run, "uncached", demo.config_id, same, over=SPEC.floor)


@JUDGES("recompiles")
def _recompiles(run: Run) -> Judged:
    first = _base_rows(run)
    new = int(first.new_tokens.iloc[0])
    compiles = {v: int(first.loc[v, "first_run_compiles"]) for v in SPEC.variants}
    per_program = first.loc["uncached", "first_run_compile_seconds"] / max(compiles["uncached"], 1)
    return Judged(
        measured=f"first run at {run.base_id}: " + ", ".join(f"{v} {c}" for v, c in compiles.items())
                 + f" compilations for {new} tokens; {per_program:.2f} s per uncached program",
        verdict=verdict(compiles["uncached"] >= new and compiles["uncached_padded"] == 1),
        headline=Estimate(*(float(compiles["uncached"]),) * 3, " compilations",
                          f"uncached's first run ({new} tokens; padded {compiles['uncached_padded']})"),
        ours=(None if run.at("recompiles") != run.base_id else (per_program, per_program, per_program),),
    )


@JUDGES("cold_start")
def _cold_start(run: Run) -> Judged:
    return cold_start(_base_rows(run).loc[list(SPEC.variants)], run.base_id)


def cold_start(first: pd.DataFrame, config_id: str) -> Judged:
    """Each variant's first run against its median, with the excess's compile share; `first`: rows by variant."""

    def excess(v: str) -> str:
        over = first.loc[v, "first_run_seconds"] - first.loc[v, "median_ms"] / 1e3
        return (f"{v} {first.loc[v, 'first_run_seconds'] * 1e3 / first.loc[v, 'median_ms']:.1f}x "
                f"(+{over:.2f} s, {first.loc[v, 'first_run_compile_seconds']:.2f} s of it compiling)")

    return Judged(
        measured=f"first run over the median generation at {config_id}: " + ", ".join(map(excess, first.index)),
        verdict=verdict(bool((first.first_run_seconds * 1e3 > first.median_ci_high_ms).all())),
        headline=Estimate(*(float((first.first_run_seconds * 1e3 / first.median_ms).min()),) * 3, "x",
                          "first run / median, the least of the variants"),
    )


@JUDGES("match_warmup_config")
def _match_warmup_config(run: Run) -> Judged:
    checks = run.probed("mismatched_warmup")
    if checks is None:
        return not_probed("mismatched_warmup")
    mismatched, matched = (int(checks[f"mismatched_warmup_{w}_compiles"]) for w in ("mismatched", "matched"))
    return Judged(
        measured=f"at {run.base_id}, {checks.mismatched_warmup_timed} warmed up by "
                 f"{checks.mismatched_warmup_warmed}'s generation: {mismatched} compilations inside one timed "
                 f"generation ({checks.mismatched_warmup_mismatched_ms:.0f} ms); warmed up by itself: {matched} "
                 f"({checks.mismatched_warmup_matched_ms:.0f} ms)",
        verdict=verdict(None if matched else mismatched > 0),
        headline=Estimate(*(float(mismatched),) * 3, " compilations", f"in the timed generation ({matched} when "
                          "warmed up by itself)"),
    )


@JUDGES("disable_jit_baseline")
def _disable_jit_baseline(run: Run) -> Judged:
    eager = run.pair("uncached_eager", "uncached")
    slower = decide(eager.ratio_ci_low, eager.ratio_ci_high, 1, log=True)
    return slower.judged(
        measured=(f"the uncached loop under jax.disable_jit() / jitted: {ratio_interval(eager)} at "
                  f"{run.base_id}"),
        headline=Estimate(*ratio_of(eager), "x", "disable_jit / jitted"),
    )


def scan_beats(low: float, high: float) -> Decision:
    """Scan's time ratio against SCAN_BEATS: wholly below True, wholly above False, across None."""
    return decide(low, high, SCAN_BEATS, holds="below", log=True)


@JUDGES("scan")
def _scan(run: Run) -> Judged:
    scan = run.pair("kv_cache_scan")
    beats = scan_beats(scan.ratio_ci_low, scan.ratio_ci_high)
    return beats.judged(
        measured=f"kv_cache_scan / kv_cache {ratio_interval(scan)} at {run.base_id}",
        headline=Estimate(*ratio_of(scan), "x", "kv_cache_scan / kv_cache"),
    )


def distorted(off: tuple[float, float, float]) -> bool | None:
    """`off` (short-warmup speedup / proper, 95%): excludes 1 True, in 1/UNDISTORTED..UNDISTORTED False, else None."""
    if not off[1] <= 1 <= off[2]:
        return True
    return False if within(off[1], off[2], 1 / UNDISTORTED, UNDISTORTED) else None


NO_DEMONSTRATION = "not measured: no configuration with warmup_fraction below 1"


@once_per_run
def _pitfall(run: Run) -> pd.DataFrame:
    """The demonstrations beside their proper configurations; empty without any."""
    return pitfall(run.tables["steps"])


def _not_demonstrated(key: str) -> Judged:
    return Judged(measured=NO_DEMONSTRATION, verdict=NOT_MEASURED, ours=(None,) * len(SPEC.claims[key].numbers))


@JUDGES("short_warmup")
def _short_warmup(run: Run) -> Judged:
    p = _pitfall(run)
    if p.empty:
        return _not_demonstrated("short_warmup")
    caught = p.groupby("variant").compiles_per_sample.min()
    return Judged(
        measured="compilations the guard counted per timed generation: "
                 + ", ".join(f"{v} {int(n)}" for v, n in caught.items()),
        verdict=verdict(bool((caught > 0).all())),
        headline=Estimate(*(float(caught.min()),) * 3, " compilations", "per timed generation, the fewest"),
    )


def _demonstration(run: Run) -> tuple[pd.Series, dict, bool]:
    """The first demonstration's uncached / kv_cache row, keys shared with its proper run, and if at the write-up's."""
    every = run.tables["comparisons"]  # `run.comp` leaves the demonstrations out
    demos = every[demonstrated(every)]
    demo = row(demos, config_id=demos.config_id.iloc[0], variant="uncached", baseline=SPEC.floor)
    same = {key: demo[key] for key in ("layers", "hidden", "prompt", "new_tokens")}
    at_structure = all(demo[k] == v for k, v in SPEC.claims["distortion"].numbers[0].at.items())
    return demo, same, at_structure


def _below_structure(demo: pd.Series, at_structure: bool) -> str:
    """'' at the write-up's structure; else words marking a demonstration's verdict as supporting."""
    return "" if at_structure else f" (at {demo.config_id}, {BELOW_STRUCTURE})"


@JUDGES("distortion")
def _distortion(run: Run) -> Judged:
    if _pitfall(run).empty:
        return _not_demonstrated("distortion")
    demo, same, at_structure = _demonstration(run)
    slowed = _slowed(run, SPEC.floor, demo.config_id, same)
    off = (1 / slowed[0], 1 / slowed[2], 1 / slowed[1])
    proper = row(run.comp, variant="uncached", baseline=SPEC.floor, **same)
    both = ratio_of_estimates(demo.ratio, (demo.ratio_ci_low, demo.ratio_ci_high),
                              proper.ratio, (proper.ratio_ci_low, proper.ratio_ci_high))
    compiled = _pitfall(run).groupby("variant").compiles_per_sample.min().to_dict()
    uncached = _slowed(run, "uncached", demo.config_id, same)
    direct = f"{_stated(both)}stated {interval(*both, 'x')}"  # both warmed short: the first reading, in either cell
    return Judged(
        measured=f"timed as a user would, both variants warmed short, the cache's speedup (uncached/kv_cache) read "
                 f"{ratio_interval(demo)} against {ratio_interval(proper)} proper: {direct}; the write-up's way, "
                 f"the uncached baseline held at its proper time (the write-up's nearly kept its speed; ours slowed "
                 f"{interval(*uncached, 'x')}), {_stated(off)}stated {interval(*off, 'x')} of "
                 f"the proper one (1 / kv_cache's slow-down, slowed_cached); compiling uncached "
                 f"{compiled['uncached']:g}, kv_cache {compiled[SPEC.floor]:g} times per timed generation"
                 f"{_below_structure(demo, at_structure)}",
        verdict=verdict(distorted(off)),
        headline=Estimate(*off, "x", f"both warmed short, {direct}; the write-up's way, uncached held at its "
                                     "proper time, 1 / kv_cache's slow-down:"),
        ours=(off if at_structure else None,),  # the write-up's number is the same quotient: its direction shows
    )


def _stated(ratio: tuple[float, float, float]) -> str:
    """How a reading states the effect: "under" below 1, else "over"."""
    return "under" if ratio[0] < 1 else "over"


@JUDGES("slowed_cached")
def _slowed_cached(run: Run) -> Judged:
    if _pitfall(run).empty:
        return _not_demonstrated("slowed_cached")
    demo, same, at_structure = _demonstration(run)
    cached, uncached = (_slowed(run, variant, demo.config_id, same) for variant in (SPEC.floor, "uncached"))
    slowed = decide(cached[1], cached[2], 1, log=True, of="kv_cache's slow-down")
    return slowed.judged(
        measured=(f"kv_cache's generation {interval(*cached, 'x')} slower with the short warmup "
                  f"(uncached: {interval(*uncached, 'x')}){_below_structure(demo, at_structure)}"),
        headline=Estimate(*cached, "x", "kv_cache warmed short / properly"),
        ours=(cached if at_structure else None,),
    )


def _slowed(run: Run, variant: str, demo_id: str, same: dict, over: str | None = None) -> tuple[float, float, float]:
    """A variant's demonstration median over its proper one (independent 95% intervals); `over`: another's proper."""
    short = row(run.tables["steps"], config_id=demo_id, variant=variant, mode="generate")
    proper = row(run.steps, variant=over or variant, mode="generate", **same)
    return ratio_of_estimates(short.median_ms, (short.median_ci_low_ms, short.median_ci_high_ms),
                              proper.median_ms, (proper.median_ci_low_ms, proper.median_ci_high_ms))


@JUDGES("trial_variance")
def _trial_variance(run: Run) -> Judged:
    return spread_against_watch(run.tables["steps"], run.tables["checks"], run.backend)


@JUDGES("memory_profiling")
def _memory_profiling(run: Run) -> Judged:
    """Whether every timing job recorded memory_stats() peaks, the write-up's method (a CPU has none: said so)."""
    checks = run.tables["checks"]
    peaks, host = checks.device_peak_mb.dropna(), checks.host_peak_mb.max()
    if peaks.empty:
        return Judged(verdict=NOT_MEASURED, measured=f"not measured: the {run.backend} backend's memory_stats() "
                                                     f"reported no peak in any of {len(checks)} jobs (host resident "
                                                     f"peak up to {host:.0f} MB)")
    return Judged(verdict=CHECKED if len(peaks) == len(checks) else verdict(False),
                  measured=f"device peak_bytes_in_use recorded by {len(peaks)} of {len(checks)} jobs: up to "
                           f"{peaks.max():.0f} MB (host resident peak up to {host:.0f} MB)")
