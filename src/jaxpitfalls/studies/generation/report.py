"""What the report shows of the generation study: how to read its trace, speed and pitfall tables, its
figures, and the write-up's claims against the measurements.

Kept apart from the measurement (the package's __init__) so that editing a figure or a claim reruns the
report's jobs, not the timed ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ...harness.stats import ratio_of_estimates
from ...report.aggregate import base_config_id, measured
from ...report.claims import (
    Decision,
    Judged,
    at_write_up_structure,
    decide,
    interval,
    judged_at,
    ratio_interval,
    ratio_of,
    row,
    verdict,
    within,
)
from .spec import SCAN_BEATS, SPEC, UNDISTORTED

FIGURES = {
    "tokens_per_s": "Tokens per second per variant vs each swept setting (log scale), proper warmup only.",
    "warmup_pitfall": "Median time of one generation with a proper warmup and with the insufficient one "
                      "(a labelled demonstration: compilations inside the timed region).",
}
AXES = ("prompt", "new_tokens", "hidden", "layers")


def speed(steps: pd.DataFrame) -> pd.DataFrame:
    """Per proper configuration and variant: tokens per second, latency per token, the first run."""
    s = measured(steps)
    return pd.DataFrame({
        "config_id": s.config_id, "variant": s.variant, "prompt": s.prompt, "new_tokens": s.new_tokens,
        "tokens_per_s": s.new_tokens / (s.median_ms / 1e3), "ms_per_token": s.median_ms / s.new_tokens,
        "first_run_s": s.first_run_seconds, "compiles_first_run": s.first_run_compiles,
        "compile_s": s.first_run_compile_seconds,
    })


def pitfall(steps: pd.DataFrame) -> pd.DataFrame:
    """Each demonstration beside the proper configuration it differs from only in warmup."""
    keys = ["layers", "hidden", "prompt", "new_tokens", "variant"]
    demo = steps[steps.demonstration.fillna("") != ""]
    proper = measured(steps)[[*keys, "median_ms"]].rename(columns={"median_ms": "proper_ms"})
    table = demo.assign(compiles_per_sample=demo.compiles_in_timed_region / demo.n)[
        [*keys, "warmup_fraction", "median_ms", "compiles_per_sample"]].merge(proper, on=keys)
    return table.rename(columns={"median_ms": "short_warmup_ms"}).assign(
        inflation=lambda d: d.short_warmup_ms / d.proper_ms)


def tables(tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
    return [
        ("Speed (proper warmup)",
         "Tokens per second and latency per token from the median generation; the first run (the warmup: "
         "trace + compile + run) with its compilations and the XLA compile time within it.",
         speed(tables["steps"])),
        ("The warmup pitfall (demonstration)",
         "Each variant warmed up with fewer tokens than it is timed with, on fresh programs, beside the same "
         "configuration warmed up properly: the compilations the guard counted inside the timed region, "
         "and how much they inflate the time.", pitfall(tables["steps"])),
    ]


def figures(tables: dict[str, pd.DataFrame]) -> dict[str, object]:
    from ...report.plots import bars, facet_lines

    s = speed(tables["steps"]).merge(measured(tables["steps"])[["config_id", "variant", "axes", *AXES]],
                                     on=["config_id", "variant", "prompt", "new_tokens"])
    on_axes = pd.concat([s[s["axes"].str.split(",").apply(lambda a, ax=ax: ax in a)].assign(axis=ax, value=s[ax])
                         for ax in AXES])
    swept = on_axes.groupby("axis").value.transform("nunique") > 1
    on_axes = on_axes[swept] if swept.any() else on_axes[on_axes.axis == "new_tokens"]  # nothing swept: one point
    p = pitfall(tables["steps"])
    long = pd.concat([p.assign(warmup="proper", ms=p.proper_ms),
                      p.assign(warmup="insufficient", ms=p.short_warmup_ms)])
    return {
        "tokens_per_s": facet_lines(on_axes, x="value", y="tokens_per_s", hue="variant", col="axis",
                                    sharex=False, hue_order=SPEC.variants, log="y", ylabel="tokens per second",
                                    title="Generation speed"),
        "warmup_pitfall": bars(long, x="variant", y="ms", hue="warmup", order=SPEC.variants,
                               hue_order=("proper", "insufficient"),
                               log=True, ylabel="median generation (ms)",
                               title="Insufficient warmup: compilation inside the timed region"),
    }


@dataclass(frozen=True)
class _Run:
    """What the proper run's claims read: the steps and comparisons without the demonstrations, and the base
    configuration."""

    steps: pd.DataFrame
    comp: pd.DataFrame
    base_id: str

    @classmethod
    def of(cls, tables: dict[str, pd.DataFrame]) -> _Run:
        return cls(measured(tables["steps"]), measured(tables["comparisons"]),
                   base_config_id(measured(tables["checks"])))

    def pair(self, variant: str, config_id: str | None = None) -> pd.Series:
        return row(self.comp, variant=variant, baseline=SPEC.floor, config_id=config_id or self.base_id)

    def tokens_per_s(self, config_id: str) -> tuple[float, float, float]:
        """The floor's tokens per second from its median generation, with the median's 95% interval."""
        kv = row(self.steps, config_id=config_id, variant=SPEC.floor, mode="generate")
        return tuple(kv.new_tokens / (ms / 1e3) for ms in (kv.median_ms, kv.median_ci_high_ms, kv.median_ci_low_ms))

    def first(self) -> pd.DataFrame:
        """The base configuration's rows by variant (first runs, medians)."""
        return self.steps[self.steps.config_id == self.base_id].set_index("variant")


def _cache_faster(run: _Run) -> Judged:
    head_id, where, at_structure = judged_at(run.comp, SPEC.claims["cache_faster"].numbers[0], run.base_id)
    head, jitted = run.pair("uncached_eager", head_id), run.pair("uncached", head_id)
    per_config = run.comp[(run.comp.variant == "uncached_eager") & (run.comp.baseline == SPEC.floor)]
    faster = decide(head.ratio_ci_low, head.ratio_ci_high, 1, log=True, of="uncached_eager / kv_cache")
    return Judged(
        claim="cache_faster",
        measured=(
            f"uncached_eager / kv_cache {ratio_interval(head)} {where} ({head_id}; {SPEC.floor}: "
            f"{run.tokens_per_s(head_id)[0]:.1f} tok/s); against a jitted uncached loop {ratio_interval(jitted)}; "
            f"faster than the un-jitted loop in {int((per_config.ratio_ci_low > 1).sum())}/{len(per_config)} "
            "configurations"),
        reason=faster.reason,
        verdict=faster.verdict(),
        ours=(ratio_of(head), run.tokens_per_s(head_id)) if at_structure else (None, None),
        judged_ratio=ratio_of(head),
    )


def _recompiles(run: _Run) -> Judged:
    first = run.first()
    new = int(first.new_tokens.iloc[0])
    compiles = {v: int(first.loc[v, "first_run_compiles"]) for v in SPEC.variants}
    per_program = first.loc["uncached", "first_run_compile_seconds"] / max(compiles["uncached"], 1)
    at_gpt2 = at_write_up_structure(run.comp, SPEC.claims["recompiles"].numbers[0])
    return Judged(
        claim="recompiles",
        measured=f"first run at {run.base_id}: " + ", ".join(f"{v} {c}" for v, c in compiles.items())
                    + f" compilations for {new} tokens; {per_program:.2f} s per uncached program",
        verdict=verdict(compiles["uncached"] >= new and compiles["uncached_padded"] == 1),
        ours=(None if at_gpt2 != run.base_id else (per_program, per_program, per_program),),
    )


def _disable_jit_baseline(run: _Run) -> Judged:
    eager = row(run.comp, variant="uncached_eager", baseline="uncached", config_id=run.base_id)
    slower = decide(eager.ratio_ci_low, eager.ratio_ci_high, 1, log=True)
    return Judged(
        claim="disable_jit_baseline",
        measured=(f"the uncached loop under jax.disable_jit() / jitted: {ratio_interval(eager)} at "
                  f"{run.base_id}"),
        reason=slower.reason,
        verdict=slower.verdict(),
    )


def scan_beats(low: float, high: float) -> Decision:
    """Whether the scanned loop beats the Python loop by a gain worth acting on: its time ratio's interval
    wholly below SCAN_BEATS (True), wholly above it (False: as fast, or slower), or across it (None)."""
    return decide(low, high, SCAN_BEATS, holds="below", log=True)


def _scan(run: _Run) -> Judged:
    scan = run.pair("kv_cache_scan")
    beats = scan_beats(scan.ratio_ci_low, scan.ratio_ci_high)
    return Judged(
        claim="scan",
        measured=f"kv_cache_scan / kv_cache {ratio_interval(scan)} at {run.base_id}",
        reason=beats.reason,
        verdict=beats.verdict(),
    )


def claims(tables: dict[str, pd.DataFrame]) -> list[Judged]:
    """The write-up's claims that this study measures, each judged by its own function (the warmup pitfall's
    from the demonstration)."""
    run = _Run.of(tables)
    return [_cache_faster(run), _recompiles(run), cold_start(run.first().loc[list(SPEC.variants)], run.base_id),
            *_pitfall_claims(tables, run.comp), _disable_jit_baseline(run), _scan(run)]


def cold_start(first: pd.DataFrame, config_id: str) -> Judged:
    """Every variant's first run (one per process: trace, compile, run) against its median generation, with
    how much of the excess was compilation. `first`: the configuration's rows indexed by variant."""

    def excess(v: str) -> str:
        over = first.loc[v, "first_run_seconds"] - first.loc[v, "median_ms"] / 1e3
        return (f"{v} {first.loc[v, 'first_run_seconds'] * 1e3 / first.loc[v, 'median_ms']:.1f}x "
                f"(+{over:.2f} s, {first.loc[v, 'first_run_compile_seconds']:.2f} s of it compiling)")

    return Judged(
        claim="cold_start",
        measured=f"first run over the median generation at {config_id}: " + ", ".join(map(excess, first.index)),
        verdict=verdict(bool((first.first_run_seconds * 1e3 > first.median_ci_high_ms).all())),
    )


def distorted(off: tuple[float, float, float]) -> bool | None:
    """Whether a short warmup changed a measured speedup: `off`, the speedup with it over the proper one's
    (95% interval), excludes 1 (True); lies within 1/UNDISTORTED-UNDISTORTED (False); else cannot tell."""
    if not off[1] <= 1 <= off[2]:
        return True
    return False if within(off[1], off[2], 1 / UNDISTORTED, UNDISTORTED) else None


def _pitfall_claims(tables: dict[str, pd.DataFrame], comp: pd.DataFrame) -> list[Judged]:
    """The warmup pitfall's two claims, from the demonstration (not measured where the config has none)."""
    p = pitfall(tables["steps"])
    if p.empty:
        return [Judged(claim=claim, measured="not measured: no configuration with warmup_fraction below 1",
                        verdict=verdict(None), ours=(None,) * len(SPEC.claims[claim].numbers))
                for claim in ("short_warmup", "distortion", "slowed_cached")]
    caught = p.groupby("variant").compiles_per_sample.min()
    rows = [Judged(
        claim="short_warmup",
        measured="compilations the guard counted per timed generation: "
                    + ", ".join(f"{v} {int(n)}" for v, n in caught.items()),
        verdict=verdict(bool((caught > 0).all())),
    )]
    every = tables["comparisons"]  # `comp` leaves the demonstrations out
    demos = every[every.demonstration.fillna("") != ""]
    demo = row(demos, config_id=demos.config_id.iloc[0], variant="uncached", baseline=SPEC.floor)  # the first
    same = {key: demo[key] for key in ("layers", "hidden", "prompt", "new_tokens")}
    proper = row(comp, variant="uncached", baseline=SPEC.floor, **same)
    off = ratio_of_estimates(demo.ratio, (demo.ratio_ci_low, demo.ratio_ci_high),
                             proper.ratio, (proper.ratio_ci_low, proper.ratio_ci_high))
    # how far off, whichever way: the write-up's short warmup understated the cache's speedup (16.32x -> 2.44x)
    understated = off[0] < 1
    far = (1 / off[0], 1 / off[2], 1 / off[1]) if understated else off
    compiled = caught.to_dict()
    at_structure = at_write_up_structure(every[every.config_id == demo.config_id],
                                         SPEC.claims["distortion"].numbers[0])
    rows.append(Judged(
        claim="distortion",
        measured=f"the short warmup {'understated' if understated else 'overstated'} the cache's speedup: "
                    f"uncached/kv_cache {ratio_interval(demo)} with it vs {ratio_interval(proper)} proper, "
                    f"{interval(*far, 'x')} off; the timed region compiled uncached {compiled['uncached']:g} and "
                    f"kv_cache {compiled[SPEC.floor]:g} times per generation"
                    + ("" if understated else " (the write-up's went the other way: there the cached variant "
                                              "compiled more inside its timed region)"),
        verdict=verdict(distorted(off)),
        ours=(far if at_structure else None,),
    ))
    cached, uncached = (_slowed(tables["steps"], variant, demo.config_id, same) for variant in (SPEC.floor, "uncached"))
    slowed = decide(cached[1], cached[2], 1, log=True, of="kv_cache's slow-down")
    rows.append(Judged(
        claim="slowed_cached",
        measured=(f"kv_cache's generation {interval(*cached, 'x')} slower with the short warmup "
                  f"(uncached: {interval(*uncached, 'x')})"),
        reason=slowed.reason,
        verdict=slowed.verdict(),
        ours=(cached if at_structure else None,),
    ))
    return rows


def _slowed(steps: pd.DataFrame, variant: str, demo_id: str, same: dict) -> tuple[float, float, float]:
    """How much the short warmup slowed one variant's generation: its median in the demonstration over the
    proper configuration's (two jobs: independent medians, each with its bootstrap interval)."""
    short = row(steps, config_id=demo_id, variant=variant, mode="generate")
    proper = row(measured(steps), variant=variant, mode="generate", **same)
    return ratio_of_estimates(short.median_ms, (short.median_ci_low_ms, short.median_ci_high_ms),
                               proper.median_ms, (proper.median_ci_low_ms, proper.median_ci_high_ms))
