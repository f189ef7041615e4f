"""generation's report tables and figures, apart from measuring so edits rerun only report jobs."""

from __future__ import annotations

import pandas as pd

from ...contract.tables import demonstrated, measured, per_second, setting_labels
from .spec import SPEC

FINDINGS = ("cache_faster", "recompiles", "short_warmup", "scan")  # the cache, static shapes, warmup, scan
FIGURES = {
    "tokens_per_s": "Tokens per second per variant vs each swept setting (per variant where nothing is swept; log "
                    "scale, 95% intervals), proper warmup only.",
    "warmup_pitfall": "Median time of one generation with a proper warmup and with the insufficient one "
                      "(a labelled demonstration: compilations inside the timed region).",
}
AXES = ("prompt", "new_tokens", "hidden", "layers")
PAIRED_ON = ["layers", "hidden", "prompt", "new_tokens", "variant"]  # a demonstration and its proper configuration


def speed(steps: pd.DataFrame) -> pd.DataFrame:
    """Per proper configuration and variant: tokens/s (95%), latency per token, first run."""
    s = measured(steps)
    tokens, low, high = per_second(s.new_tokens, s)
    return pd.DataFrame({
        "config_id": s.config_id, "variant": s.variant, "prompt": s.prompt, "new_tokens": s.new_tokens,
        "tokens_per_s": tokens, "tokens_per_s_low": low, "tokens_per_s_high": high,
        "ms_per_token": s.median_ms / s.new_tokens,
        "first_run_s": s.first_run_seconds, "compiles_first_run": s.first_run_compiles,
        "compile_s": s.first_run_compile_seconds,
    })


def pitfall(steps: pd.DataFrame) -> pd.DataFrame:
    """Each demonstration beside the proper configuration it differs from only in warmup."""
    demo = steps[demonstrated(steps)]
    proper = measured(steps)[[*PAIRED_ON, "median_ms"]].rename(columns={"median_ms": "proper_ms"})
    table = demo.assign(compiles_per_sample=demo.compiles_in_timed_region / demo.n_samples)[
        [*PAIRED_ON, "warmup_fraction", "median_ms", "compiles_per_sample"]].merge(proper, on=PAIRED_ON)
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
    from ...contract.figures import bars, facet_lines

    s = speed(tables["steps"]).merge(measured(tables["steps"])[["config_id", "variant", "axes", *AXES]],
                                     on=["config_id", "variant", "prompt", "new_tokens"])
    on_axes = pd.concat([s[s["axes"].str.split(",").apply(lambda a, ax=ax: ax in a)].assign(axis=ax, value=s[ax])
                         for ax in AXES])
    swept = on_axes.groupby("axis").value.transform("nunique") > 1
    interval = {"low": "tokens_per_s_low", "high": "tokens_per_s_high"}  # extraction's throughput's names
    speed_figure = {"tokens_per_s": facet_lines(
        on_axes[swept], x="value", y="tokens_per_s", **interval, hue="variant", col="axis", sharex=False,
        hue_order=SPEC.variants, log="y", ylabel="tokens per second", title="Generation speed")
        if swept.any() else bars(  # nothing swept: a point per variant, not lines over one x value
            s.assign(configuration=s.config_id.map(setting_labels(tables["steps"]))), x="variant",
            y="tokens_per_s", **interval, hue="configuration", order=SPEC.variants, log=True,
            ylabel="tokens per second", title="Generation speed")}
    demo = tables["steps"][demonstrated(tables["steps"])]
    if demo.empty:  # a run without the demonstration (no warmup_fraction below 1): nothing to set side by side
        return speed_figure
    long = pd.concat([measured(tables["steps"]).merge(demo[PAIRED_ON], on=PAIRED_ON).assign(warmup="proper"),
                      demo.assign(warmup="insufficient")])
    return speed_figure | {"warmup_pitfall": bars(
        long, x="variant", y="median_ms", low="median_ci_low_ms", high="median_ci_high_ms", hue="warmup",
        order=SPEC.variants, hue_order=("proper", "insufficient"), log=True, ylabel="median generation (ms)",
        title="Insufficient warmup: compilation inside the timed region")}
