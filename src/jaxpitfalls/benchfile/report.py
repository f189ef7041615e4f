"""What the report shows of a benchmark file: per variant its Python and programs, times and ratios over each axis,
and the trace breakdown. JAX-free."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from ..contract.figures import bars, facet_lines
from ..contract.interface import StudySpec
from ..contract.stacked_bars import PANELS, stacked_bars
from ..contract.tables import base_config_id, measured, variants_only
from ..formatting import bytes_unit
from .compiling_tables import first_runs, recompiling
from .expectations import FIRST_RUN_MODE

FIGURES = {
    "medians": "Median time per call at the base configuration, per variant and warm mode, with 95% intervals.",
    "medians_first_run": "A first call's median at the base configuration, per variant (first_run mode: tracing, "
                         "compiling, running), with 95% intervals; on its own axis, beside which warm calls vanish.",
    "scaling": "Median time per call (blocked mode) against each swept axis, the others at the base; one panel per "
               "axis, with 95% intervals.",
    "ratios": "Each variant's time over the floor's (blocked mode) against each swept axis, with 95% intervals: "
              "above 1, slower than the floor.",
    "pair_ratios": "The pairs an expectation or SAME_OUTPUTS_AS compares without the floor, one's time over the "
                   "other's (blocked mode) against each swept axis, with 95% intervals.",
    "pair_ratios_first_run": "The same pairs' first calls (first_run mode) against each swept axis, with 95% "
                             "intervals.",
    "scaling_first_run": "A first call's time (first_run mode: tracing, compiling, running) against each swept axis, "
                         "the others at the base; one panel per axis, with 95% intervals.",
    "ratios_first_run": "Each variant's first call over the floor's (first_run mode) against each swept axis, with 95% "
                        "intervals: above 1, slower than the floor.",
    "compile_ratios": "Each variant's XLA compile time over the floor's in the same first runs (first_run mode, "
                      "paired round by round) against each swept axis, with 95% intervals over processes: what "
                      "`a compiles ... than b` judges against the floor.",
    "memory": "What XLA plans each variant's largest program's buffers to take on a device (their total) against "
              "each swept axis, the others at the base: the compiler's figure, exact, so no interval; a call of "
              "several programs also holds arrays between them (its `programs_planned` in the table).",
    "memory_temporaries": "The temporaries alone of the same plans (activations and scratch: what `jax.checkpoint` "
                          "and scans trade) against each swept axis (a linear axis where a variant plans none); "
                          "exact, no interval.",
    "memory_parts": "What XLA plans each variant's largest program to hold on a device at the base configuration: "
                    "its arguments, its outputs (less what donated arguments hand them) and its temporaries "
                    "(activations: what `jax.checkpoint` trades); exact, so no interval. " + PANELS,
    "time_split": "Where a call's time goes at the base configuration, per variant: its untraced blocked median "
                  "split by the shares of its traced calls (the profiler's Python tracer inflates Python time: "
                  "Python's parts are upper bounds, dispatch and wait lower; on a CPU, dispatch and wait trade a short "
                  "program's run between them: read them together). From a few traced calls, no interval. "
                  + PANELS,
}


def swept(table: pd.DataFrame) -> pd.DataFrame:
    """The rows on each swept axis, one copy per axis (`axis`, `value`), the base on every one."""
    base = base_config_id(table)
    axes = table.loc[table.config_id == base, "axes"].iloc[0].split(",")
    on = {a: table["axes"].str.split(",").apply(lambda names, a=a: a in names) for a in axes}
    parts = [table[on[a]].assign(axis=a, value=table[a]) for a in axes if table.loc[on[a], "config_id"].nunique() > 1]
    return pd.concat(parts, ignore_index=True) if parts else table.iloc[:0].assign(axis=[], value=[])


def _per_process(steps: pd.DataFrame, checks: pd.DataFrame | None) -> pd.DataFrame:
    """`compiles_in_warmup` is a job's sum over its worker processes: each process's share, where they are known."""
    processes = (steps.config_id.map(checks.set_index("config_id").processes) if checks is not None
                 and "processes" in checks else 1)
    return steps.assign(warmup_compiles_per_process=steps.compiles_in_warmup / processes)


def _whole(table: pd.DataFrame) -> pd.DataFrame:
    """Counts that came out whole shown as whole numbers (a mean over processes or steps is a float)."""
    named = ("jit_calls_traced", "warmup_compiles_per_process", "programs_planned", "devices")
    counts = [c for c in table if (c in named or c.endswith("_bytes"))
              and (pd.to_numeric(table[c]).dropna() % 1 == 0).all()]
    return table.astype({c: "Int64" for c in counts})


def _dispatched(steps: pd.DataFrame, overhead: pd.DataFrame | None) -> pd.DataFrame:
    """A traced step's calls into jitted functions and its devices' time in collectives (the first capture's, where
    one was traced: `jit_calls_traced`, `collectives_ms_traced`; blank where a trace kept no count)."""
    kept = [c for c in ("jit_calls", "collectives_ms") if overhead is not None and not overhead.empty and c in overhead]
    first = overhead[overhead.capture == 0].drop_duplicates(["config_id", "variant"]) if kept else None
    shown = steps.merge(first[["config_id", "variant", *kept]], on=["config_id", "variant"], how="left") if kept \
        else steps
    return shown.rename(columns={c: f"{c}_traced" for c in kept}).reindex(
        columns=[*steps.columns, "jit_calls_traced", "collectives_ms_traced"])


def _same_executable(blocked: pd.DataFrame) -> pd.Series:
    """The other variants of a row's configuration whose first call compiled the same optimized programs."""
    def alike(row: pd.Series) -> str:
        if pd.isna(row.executable):  # none read (another jaxlib), or nothing compiled
            return ""
        same = (blocked.config_id == row.config_id) & (blocked.executable == row.executable)
        return ", ".join(blocked.variant[same & (blocked.variant != row.variant)])

    return blocked.apply(alike, axis=1) if "executable" in blocked else pd.Series("", index=blocked.index)


def _said(table: pd.DataFrame, flag: str) -> pd.Series:
    """A flag a result keeps only where true, as "yes" or blank."""
    return table[flag].map({True: "yes"}).fillna("") if flag in table else pd.Series("", index=table.index)


def _planned(blocked: pd.DataFrame, floor: str) -> list[tuple[str, str, pd.DataFrame]]:
    """What XLA plans each variant's largest program's buffers to take, against the floor's, in the unit its
    largest total reads in."""
    if "program_total_bytes" not in blocked or blocked.program_total_bytes.isna().all():
        return []
    unit, size = bytes_unit(blocked.program_total_bytes.max())
    parts = {f"{part}_{unit.lower()}": blocked[f"program_{part}_bytes"] / size
             for part in ("total", "argument", "output", "donated", "temporary")}
    one = blocked.program_programs == 1
    floors = blocked[(blocked.variant == floor) & one].set_index("config_id").program_total_bytes
    shown = blocked.assign(**parts, programs_planned=blocked.program_programs, devices=blocked.program_devices,
                           **{f"all_devices_{unit.lower()}": parts[f"total_{unit.lower()}"] * blocked.program_devices},
                           total_vs_floor=(blocked.program_total_bytes / blocked.config_id.map(floors)).where(one))
    return [("What each variant's largest program holds",
             "Of the programs its first call compiled (`programs_planned`), the one whose buffers take the most, as "
             f"XLA plans them on each of the `devices` it spans, in {unit}: arguments, outputs (a donated argument's "
             "buffer is its output's, counted once), temporaries, and their total counted at once (an upper bound "
             "on the program's peak on a device; `all_devices`: times its devices, what a sharded program holds in "
             "all), the total over the floor's where each call runs one program: a call of several also holds "
             "the arrays passed between them, which no plan counts. The compiler's figure, alike on every run of "
             "one program, backend and XLA version (a GPU's autotuning aside; processes that planned apart are in "
             "the checks): no interval. Not what the process holds (setup's inputs, the allocator's caches); blank "
             "where the first call compiled nothing (NumPy, a program compiled ahead of time) or this JAX keeps no "
             "plan.",
             _whole(shown[["config_id", "variant", "programs_planned", "devices", *parts, f"all_devices_{unit.lower()}",
                           "total_vs_floor"]]
                    .reset_index(drop=True)))]


def _log(table: pd.DataFrame) -> str:
    """Log axes where every swept value is a positive number (sizes), time on a log scale always."""
    numeric = pd.to_numeric(table["value"], errors="coerce")
    return "xy" if numeric.notna().all() and (numeric > 0).all() else "y"


@dataclass(frozen=True)
class Report:
    """A benchmark file's figures and tables, for the spec the registry built from the file."""

    spec: StudySpec
    outputs_differ: Mapping[str, str] = field(default_factory=dict)  # the file's OUTPUTS_DIFFER: variant -> why
    recompiles: Mapping[str, str] = field(default_factory=dict)  # its RECOMPILES: variant -> why
    same_outputs_as: Mapping[str, str] = field(default_factory=dict)  # its SAME_OUTPUTS_AS: variant -> another
    FIGURES = FIGURES

    @property
    def FINDINGS(self) -> tuple[str, ...]:  # noqa: N802 (the Report protocol's name)
        """Every expectation, in the file's order: the findings say which held."""
        return tuple(self.spec.claims)

    def tables(self, tables: dict[str, pd.DataFrame]) -> list[tuple[str, str, pd.DataFrame]]:
        steps = variants_only(measured(tables["steps"]), self.spec.variants)
        blocked = steps[steps["mode"] == "blocked"]
        columns = ["config_id", "variant", "signature_python_calls", "jit_calls_traced", "collectives_ms_traced",
                   "signature_programs_compiled", "same_executable_as", "returns_host", "warmup_compiles_per_process"]
        runs = ("What each variant runs per call",
                "Python function calls in one warm call (the Python a jitted call's C++ dispatch skips; a RECOMPILES "
                "variant's holds its tracing), its calls into jitted functions where the configuration was traced "
                "(counted in its trace: a Python loop of jitted steps shows each, eager operations count too; blank "
                "where untraced), its devices' time in collectives in a traced call (all-reduce, all-gather and the "
                "like on each device's threads or streams, their waits for each other included, summed over the "
                "devices; 0 on one device, blank where the trace shows no thread but the traced one), programs its "
                "first call compiled from cold, the variants whose first call compiled the same optimized programs "
                "(XLA built two spellings alike: between them only the Python and the dispatch around the call may "
                "differ, and how often a call runs them: "
                "`jit_calls_traced`), whether it returned NumPy arrays or numbers alone (computed by its programs, "
                "they were waited for inside the call: its pipelined calls cannot overlap), and the compilations in "
                "a worker process's warm-up (the job's count over its processes: each fresh process compiles its "
                "own, less what the persistent compilation cache served).",
                _whole(_dispatched(_per_process(blocked.assign(same_executable_as=_same_executable(blocked),
                                                               returns_host=_said(blocked, "returns_host")),
                                                tables.get("checks")), tables.get("overhead"))[columns])
                .reset_index(drop=True))
        found = [runs, *_planned(blocked, self.spec.floor), *first_runs(steps, tables.get("comparisons"),
                                                                         self.spec.floor),
                 *recompiling(steps, self.recompiles)]
        if not (self.outputs_differ or self.same_outputs_as):
            return found
        differ = pd.DataFrame([{"variant": v, "why": why} for v, why in self.outputs_differ.items()]
                              + [{"variant": v, "why": f"held to `{other}`'s outputs instead (SAME_OUTPUTS_AS)"}
                                 for v, other in self.same_outputs_as.items()])
        return [*found, ("Outputs not compared", f"The file says these variants compute something other than the "
                                                 f"floor (`{self.spec.floor}`), so their outputs are not held to its.",
                         differ)]

    def _swept(self, steps: pd.DataFrame, comp: pd.DataFrame, mode: str) -> dict[str, object]:
        """`scaling` and `ratios` of one mode over each swept axis (`_first_run` after their names but blocked's)."""
        found, suffix = {}, "" if mode == "blocked" else f"_{mode}"
        on_axes = swept(steps[steps["mode"] == mode])
        if on_axes.empty:
            return found
        found[f"scaling{suffix}"] = facet_lines(
            on_axes, x="value", y="median_ms", hue="variant", col="axis", low="median_ci_low_ms",
            high="median_ci_high_ms", ylabel="median (ms)", sharex=False, hue_order=self.spec.variants,
            log=_log(on_axes), title=f"{self.spec.name}: time per call over each swept axis ({mode})")
        in_mode = comp[(comp["mode"] == mode) & comp.variant.isin(self.spec.variants)]
        floor = swept(in_mode[in_mode.baseline == self.spec.floor])
        if not floor.empty:
            found[f"ratios{suffix}"] = facet_lines(
                floor, x="value", y="ratio", hue="variant", col="axis", low="ratio_ci_low", high="ratio_ci_high",
                sharex=False, ylabel=f"time / {self.spec.floor}'s", hue_order=self.spec.variants, log=_log(floor),
                reference=1.0, title=f"{self.spec.name}: each variant's time over {self.spec.floor}'s ({mode})")
        compiled = floor[floor.compile_ratio > 0] if mode == FIRST_RUN_MODE and "compile_ratio" in floor else []
        if len(compiled):
            found["compile_ratios"] = facet_lines(
                compiled, x="value", y="compile_ratio", hue="variant", col="axis", low="compile_ratio_ci_low",
                high="compile_ratio_ci_high", sharex=False, ylabel=f"compiling / {self.spec.floor}'s",
                hue_order=self.spec.variants, log=_log(compiled), reference=1.0,
                title=f"{self.spec.name}: each variant's XLA compile time over {self.spec.floor}'s (first runs)")
        named = [f"{a} / {b}" for a, b in self.spec.extra_pairs]  # EXPECT's and SAME_OUTPUTS_AS' other pairs
        labelled = in_mode.assign(pair=in_mode.variant + " / " + in_mode.baseline)
        pairs = labelled[labelled.pair.isin(named)]
        pairs = swept(pairs) if len(pairs) else pairs  # most files compare every pair with the floor
        if not pairs.empty:
            found[f"pair_ratios{suffix}"] = facet_lines(
                pairs, x="value", y="ratio", hue="pair", col="axis", low="ratio_ci_low", high="ratio_ci_high",
                sharex=False, ylabel="time ratio", hue_order=tuple(named), log=_log(pairs), reference=1.0,
                title=f"{self.spec.name}: the pairs compared apart from {self.spec.floor} ({mode})")
        return found

    def _memory_parts(self, blocked: pd.DataFrame) -> dict[str, object]:
        """The base's plans as stacked parts: a total hides what remat or donation moves inside it."""
        if blocked.get("program_total_bytes", pd.Series(dtype=float)).notna().sum() == 0:
            return {}
        plans = blocked.set_index("variant").reindex([v for v in self.spec.variants if v in set(blocked.variant)])
        unit, size = bytes_unit(plans.program_total_bytes.max())
        parts = pd.DataFrame({"arguments": plans.program_argument_bytes,
                              "outputs (not donated)": plans.program_output_bytes - plans.program_donated_bytes,
                              "temporaries": plans.program_temporary_bytes}) / size
        return {"memory_parts": stacked_bars(parts.dropna(), ylabel=f"planned per device ({unit})",
                                             title=f"{self.spec.name}: what the largest program holds, at the base")}

    def figures(self, tables: dict[str, pd.DataFrame]) -> dict[str, object]:
        steps = variants_only(measured(tables["steps"]), self.spec.variants)
        base = steps[steps.config_id == base_config_id(steps)]
        first = base["mode"] == FIRST_RUN_MODE
        found = {name: bars(part, x="variant", y="median_ms", hue="mode", order=self.spec.variants,
                            low="median_ci_low_ms", high="median_ci_high_ms", log=True,
                            ylabel="median per call (ms)", title=f"{self.spec.name}: {title}")
                 for name, part, title in (("medians", base[~first], "time per call"),
                                           ("medians_first_run", base[first], "a first call's time"))
                 if not part.empty}
        comp = measured(tables["comparisons"])
        for mode in [m for m in ("blocked", FIRST_RUN_MODE) if m in self.spec.modes]:
            found |= self._swept(steps, comp, mode)
        planned = swept(steps[steps["mode"] == "blocked"])
        for name, part, said in (("memory", "total", "memory"), ("memory_temporaries", "temporary", "temporaries")):
            column = f"program_{part}_bytes"
            if planned.empty or not (planned.get(column, pd.Series(dtype=float)) > 0).any():
                continue
            unit, size = bytes_unit(planned[column].max())
            log = _log(planned) if (planned[column].dropna() > 0).all() else _log(planned).replace("y", "")
            found[name] = facet_lines(
                planned.assign(planned=planned[column] / size), x="value", y="planned", hue="variant", col="axis",
                ylabel=f"planned {said} per device ({unit})", sharex=False, hue_order=self.spec.variants,
                log=log, title=f"{self.spec.name}: planned {said} of the largest program, per device")
        found |= self._memory_parts(base[base["mode"] == "blocked"])
        overhead = tables["overhead"]
        at_base = overhead[overhead.config_id == base_config_id(steps)] if not overhead.empty else overhead
        split = pd.DataFrame() if at_base.empty else at_base.pivot_table(
            index="variant", columns="component", values="untraced_estimate_ms", sort=False)
        if not split.empty:  # none where no traced variant has an untraced median
            named = [c.name for c in self.spec.trace_components if c.name in split]
            order = [v for v in self.spec.variants if v in split.index]
            medians = base[base["mode"] == "blocked"].set_index("variant").reindex(order)
            found["time_split"] = stacked_bars(
                split[named + [c for c in split if c not in named]].reindex(order),
                ylabel="ms per call (median, split)", title=f"{self.spec.name}: a call's median time, part by part",
                total=medians[["median_ms", "median_ci_low_ms", "median_ci_high_ms"]])
        return found
