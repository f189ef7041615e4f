"""The markdown report's sections beside the claims'."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from ...contract.decisions import interval
from ...contract.interface import Report, StudySpec
from ...contract.tables import base_config_id, measured
from ...formatting import duration_interval, fixed, fixed_at_most_four, plain_numbers, readable_times, short
from ...harness.stats import DIFFERENCE, relative_half_width
from ..tables.precision import shortfall_lines

COMPARISONS_READ = (  # how the study section's table of ratios and differences was estimated
    "Where a configuration ran in several fresh processes (`measure.processes`), each ratio is the mean of the "
    "processes' own (on the log scale) and its interval Student's t on their spread, pooled across the job's "
    "rows (harness/moderated.py); `between_processes` gives the lowest and highest ratio a single process "
    "measured. In one process: the median of paired samples, a bootstrap interval over its rounds (Student's t "
    "under 5, where a bootstrap gives their range), blind to how fresh processes differ. `difference`: the ratio's "
    "estimate read in milliseconds at the two sides' medians (so the two agree on an effect, and a pair read "
    "the other way round is the same estimate mirrored). `precision`: half the "
    "interval relative to the ratio (`measure.target_precision`, where set, adds fresh processes until every "
    "ratio, or `measure.target_share` of them, reaches it or `max_processes` have timed it).")


def table(df: pd.DataFrame, number: Callable[[float], str] = fixed) -> str:
    """A markdown table whose floats never read in e-notation and whose absent values are blank."""
    if not len(df):
        return "_(no rows)_"
    return df.map(lambda v: _cell(v, number)).to_markdown(index=False, disable_numparse=True)


def _cell(value: Any, number: Callable[[float], str]) -> Any:
    if isinstance(value, float):
        return "" if math.isnan(value) else number(value)
    return "" if value is None or value is pd.NA else value


def _with_interval(df: pd.DataFrame, value: str, low: str, high: str, unit: str = "") -> pd.Series:
    """Each row's value with its interval."""
    return df.apply(lambda r: "" if pd.isna(r[value]) else interval(r[value], r[low], r[high], unit), axis=1)


def _sweeps(study_cfg: dict[str, Any]) -> str:
    """The sweep's axes that hold a value (an overlay leaving out a failed configuration can empty one), and the
    points."""
    sweep = {axis: values for axis, values in study_cfg.get("sweep", {}).items() if values}
    points = study_cfg.get("points") or []
    said = [f"sweeps (one axis at a time) `{json.dumps(sweep)}`" if sweep else "",
            f"points `{json.dumps(points)}`" if points else ""]
    return "; ".join(filter(None, said)) or "no sweep"


def _recorded_settings(checks: pd.DataFrame) -> str:
    """The settings the jobs recorded (not the config's now), and where more processes ran for a target."""
    jobs = checks.drop_duplicates("config_id").set_index("config_id")
    said = f"`{jobs.settings.iloc[0]}`" if jobs.settings.nunique() == 1 else "; ".join(
        f"{config_id}: `{text}`" for config_id, text in jobs.settings.items())
    asked = pd.to_numeric(jobs.settings.map(lambda t: json.loads(t).get("processes") if str(t).startswith("{")
                                            else None), errors="coerce").fillna(math.inf)  # unrecorded: none more
    more = jobs.processes[jobs.processes > asked] if "processes" in jobs else []
    return said + (f" ({', '.join(f'{c}: {n:.0f}' for c, n in more.items())} processes timed, for "
                   "`target_precision`)" if len(more) else "")


def _inputs_from(study: dict[str, Any], config: dict[str, Any]) -> str:
    """Where a study's inputs come from: its model family's block, the benchmark file that builds them, or the
    study's own code (a study need not load a model)."""
    if "file" in study:
        return f"Inputs built by `setup` in `{study['file']}`."
    if "model_family" not in study:
        return "Inputs built by the study's `measure.py` (no model)."
    return f"Model family `{study['model_family']}`: `{json.dumps(config['models'][study['model_family']])}`."


def _medians_apart(steps: pd.DataFrame, comp: pd.DataFrame) -> list[str]:
    """Pairs whose medians divide to a ratio outside its paired interval: two estimates that disagree."""
    at = steps.set_index(["config_id", "mode", "variant"]).median_ms
    apart = []
    for r in comp.itertuples():
        sides = [(r.config_id, r.mode, v) for v in (r.variant, r.baseline)]
        if not all(side in at.index for side in sides):
            continue  # a difference or a share: no median of its own
        of_medians = at[sides[0]] / at[sides[1]]
        if of_medians < r.ratio_ci_low or of_medians > r.ratio_ci_high:  # an interval of NaN: never
            apart.append(f"- `{r.variant}` / `{r.baseline}` ({r.mode}, {r.config_id}): {of_medians:.3f} from these "
                         f"medians, {interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, 'x')} paired.")
    if not apart:
        return []
    return ["Where these medians and the paired ratios below disagree: pairing each round's samples cancels what "
            "moved the machine between rounds, which each variant's own median keeps (a drifting or two-speed "
            "series); the ratio is the measurement, these times say where each variant's calls lie.", "",
            *apart, ""]


def _medians_with_intervals(steps: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Each configuration's median per variant and mode, with its interval."""
    columns = ["median_ms", "median_ci_low_ms", "median_ci_high_ms"]
    wide = steps.pivot_table(index="config_id", columns=["mode", "variant"], values=columns, sort=False)
    if "median_ms" not in wide:  # every configuration a demonstration
        return pd.DataFrame(index=wide.index), "ms"
    unit = readable_times(wide["median_ms"])[1]
    at = (1e3 if unit == "µs" else 1.0) * pd.concat({c: wide.get(c, pd.DataFrame(index=wide.index)).reindex(
        columns=wide["median_ms"].columns) for c in columns}, axis=1)  # a column of no interval: blank
    return pd.DataFrame({f"{v} ({m})": [
        "" if pd.isna(x) else interval(x, lo, hi) if pd.notna(lo) else fixed_at_most_four(x)
        for x, lo, hi in zip(*(at[c][(m, v)] for c in columns), strict=True)]
        for m, v in wide["median_ms"].columns}, index=wide.index), unit


def study_section(name: str, description: str, spec: StudySpec, report: Report, tables: dict[str, pd.DataFrame],
                  config: dict[str, Any], figures: list[tuple[str, str]]) -> str:
    """A study's section; `config` needs its block and its family's."""
    steps, comp, checks = (measured(tables[k]) for k in ("steps", "comparisons", "checks"))
    medians, unit = _medians_with_intervals(steps)
    shares = comp.variant.str.contains(DIFFERENCE, regex=False)  # a share of one difference in another
    comparisons = comp.assign(
        ratio=_with_interval(comp, "ratio", "ratio_ci_low", "ratio_ci_high", "x"),
        # a share's difference of differences is the row above's (variant - baseline), estimated apart: shown there
        difference=comp.apply(lambda r: "" if pd.isna(r.diff_ms) or shares[r.name] else duration_interval(
            r.diff_ms, r.diff_ci_low_ms, r.diff_ci_high_ms), axis=1),
        between_processes=_process_spread(comp),
        precision=relative_half_width(comp).where(~shares).map(
            lambda p: "" if pd.isna(p) else f"±{p:.1%}"),  # a share near 0 has no relative precision
    )[["config_id", "mode", "variant", "baseline", "ratio", "precision", "between_processes", "difference"]]
    study_cfg = config["studies"][name]
    modes = "; ".join(f"`{mode}`: {text}" for mode, text in spec.modes.items())
    beside = f"; in the base's job beside its variants `{json.dumps(study_cfg['beside'])}`" \
        if study_cfg.get("beside") else ""
    lines = [
        f"## Study `{name}`", "", description, "",
        "### Setup", "",
        f"Base configuration `{json.dumps(study_cfg['base'])}`; {_sweeps(study_cfg)}{beside}; measured with "
        f"{_recorded_settings(tables['checks'])}. "
        f"{_inputs_from(study_cfg, config)} "
        f"Variants run interleaved in one job per configuration, after a warmup. Modes: {modes}.", "",
        *[f"- Left out: {gone['config']}: {gone['reason']}" for gone in study_cfg.get("left_out", [])],
        *(untimed := [f"- Not timed at `{config_id}`: {why}" for config_id, why in zip(
            tables["checks"].config_id, tables["checks"].get("not_timed", [""] * len(tables["checks"])), strict=True)
            if isinstance(why, str) and why]),
        *([""] if study_cfg.get("left_out") or untimed else []),
    ]
    for title, intro, df in report.tables(tables):
        lines += [f"### {title}", "", intro, "", table(df), ""]
    demos = sorted(set(tables["checks"].config_id) - set(checks.config_id))
    lines += [
        f"### Time per timed call ({unit})", "",
        "One call of each mode as the setup describes it (a sample averages several calls where they are "
        "short): each process's median, and over a configuration's processes their geometric mean (a median of "
        "two or three would be one of them) with its 95% interval (one process: a bootstrap over its rounds); each "
        "process's own are in "
        "`results/tables/<study>/steps.csv`.", "",
        *([f"Configurations that demonstrate a pitfall on purpose ({', '.join(demos)}) are left out of this "
           "table and the next; the study's own tables show them beside the proper ones.", ""] if demos else []),
        table(medians.reset_index()), "", *_medians_apart(steps, comp),
        "### Ratios and differences (paired samples, 95% interval)", "",
        COMPARISONS_READ, "",
        table(comparisons), "", *shortfall_lines(comp, tables["checks"]),
        *_breakdown_lines(name, spec, tables["overhead"], base_config_id(checks)),
        "### Figures", "",
    ]
    for fig, path in figures:
        caption = report.FIGURES.get(fig, fig)
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    return "\n".join(lines)


def audit_section(name: str, checks: pd.DataFrame) -> str:
    """What a study's guards checked, its jobs' time and memory, and the machine while timed."""
    lines = [
        f"### Study `{name}`: checks", "",
        "What the guards compared and found before any timing counted (a failed check fails the job): the "
        "variants' outputs against the floor's, their recorded code-path signatures, and compilations in the "
        "timed regions (forbidden; counted where a mode measures compilation or demonstrates a pitfall); "
        "`compiles_in_warmup` counts every variant's warm-up compilations in every worker process (each fresh "
        "process compiles its own, less what the persistent compilation cache served).", "",
        table(checks.assign(outputs_agree=checks.outputs_agree.astype(str).map(plain_numbers))[[
                      "config_id", "outputs_compared", "outputs_agree", "max_abs_difference",
                       "signatures_distinct", *[apart for apart in ("programs_lowered_apart", "program_plans_apart")
                                                if checks.get(apart, pd.Series()).any()],
                       "compiles_in_warmup", "compiles_in_timed_region",
                       "compiles_measured_on_purpose", "compiles_demonstrated"]], short), "",
        "Each measuring job's seconds and peak memory in GiB (the host's: the measuring processes' resident "
        "high-water mark; the device's where the backend reports one).", "",
        table(checks.assign(host_peak_gib=checks.host_peak_mb / 1024, device_peak_gib=checks.device_peak_mb / 1024)[
            ["config_id", "ran_on", "job_seconds", "host_peak_gib", "device_peak_gib"]], short), "",
        "Machine while timing (per configuration, all modes and processes): rounds kept, rounds re-timed "
        "because other processes or steal used more than `measure.max_busy_share` of the cores, seconds spent "
        "waiting for a quiet machine before re-timing, rounds kept although contended (`on_contention: warn`: "
        "their samples are marked in the JSON), and the largest shares seen: other processes' (a neighbour "
        "you can see with `top`) and steal (the hypervisor's, given to other guests of a VM). `first_place`: "
        "what opening a round cost, the largest over variants of its median when first over its median elsewhere "
        "(a variant opening a round can run slower, or faster, after the round's untimed call, so each opens as "
        "many rounds as the others, to the number after `within`). `yardstick_ms`: the median of a fixed "
        "Python and numpy workload timed once a round, the machine's speed while the job timed.", "",
        table(checks[[c for c in ("config_id", "processes", "on_contention", "rounds_kept", "rounds_retried",
                                  "waited_s", "rounds_contended_kept", "others_share_max", "steal_share_max",
                                  "load_average_max", "first_place", "yardstick_ms")
                      if c in checks]], short), "",  # a run older than a column shows what it recorded
    ]
    return "\n".join(lines)


def _process_spread(comp: pd.DataFrame) -> pd.Series:
    return comp.apply(lambda r: "" if pd.isna(r.get("process_ratio_min")) else
                      f"{r['process_ratio_min']:.3f}-{r['process_ratio_max']:.3f}x", axis=1)


def _in_one_unit(ms: pd.DataFrame) -> pd.DataFrame:
    """The table's times in brackets, all in µs where the largest is under a millisecond, else all in ms."""
    if ms.abs().max().max() < 1:
        return ms.map(lambda v: f" ({short(v * 1e3)} µs)")
    return ms.map(lambda v: f" ({fixed(v)} ms)")  # three decimals, a smaller one written out


REST_LIMIT = 0.2  # above this share of a traced step, unattributed time is called out


def _breakdown_lines(name: str, spec: StudySpec, overhead: pd.DataFrame, base_id: str) -> list[str]:
    """The base configuration's traced breakdown."""
    base = overhead[overhead.config_id == base_id]
    breakdown = base.pivot_table(index="component", columns="variant", values="share", sort=False)
    estimate = base.pivot_table(index="component", columns="variant", values="untraced_estimate_ms", sort=False)
    text = breakdown.map(lambda v: f"{v:.1%}") + _in_one_unit(estimate)
    described = {c.name: c.description for c in spec.trace_components} | {"rest": "everything else"}
    text.insert(0, "what", [described.get(c, "") for c in text.index])
    unnamed = breakdown.loc["rest"] if "rest" in breakdown.index else pd.Series(dtype=float)
    unnamed = unnamed[unnamed > REST_LIMIT]
    warning = ([f"**Time no component names (`rest`) is above {REST_LIMIT:.0%} of the step for "
                f"{', '.join(f'{v} ({share:.0%})' for v, share in unnamed.items())}**: the study's trace "
                "components do not say where it goes.", ""] if len(unnamed) else [])
    return [
        f"### Trace breakdown (configuration `{base_id}`, mode `{spec.traced_mode}`)", "", *warning,
        "Share of the traced sample per component (innermost match wins, so the shares add up to the sample); "
        f"in brackets the share applied to the untraced `{spec.traced_mode}` median: its total is untraced, but the "
        "Python tracer inflates Python's share within it, so Python's parts are upper bounds and the compiled "
        f"program's (`executable` or `dispatch`, `wait`) lower. {_traced_calls(base)} Per-configuration tables: "
        f"`results/tables/{name}/overhead.csv`.", "",
        text.reset_index().to_markdown(index=False), "",
    ]


def _traced_calls(base: pd.DataFrame) -> str:
    """How many calls a breakdown rests on, and what it cannot say."""
    counted = base.dropna(subset=["traced_steps"]).groupby(["variant", "capture"]).traced_steps.first()
    if counted.empty:  # a snapshot's table from before steps were counted
        return "No interval."
    calls = int(counted.groupby("variant").sum().min())
    traded = (": where a CPU runs a short program inside its dispatch, `dispatch` and `wait` trade time between "
              "runs, so read them together there") if {"dispatch", "wait"} <= set(base.component) else ""
    return f"From {calls} traced call{'s' * (calls != 1)} a variant (`measure.trace_steps` x `captures`), " \
           f"no interval{traded}."


def environment_section(environments: dict[str, pd.DataFrame]) -> str:
    """Each study's environment side by side (studies may differ, e.g. in XLA flags)."""
    columns = {study: env.iloc[0].astype(str) for study, env in environments.items()}
    rows = pd.DataFrame(columns).rename_axis("key").reset_index()
    return "\n".join(["## Environment", "", table(rows), ""])


TITLE = "JAX performance pitfalls: reproduction report"


def render(sections: list[str], title: str = TITLE) -> str:
    return "\n".join([f"# {title}", "", *sections])
