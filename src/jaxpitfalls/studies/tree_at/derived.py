"""What tree_at claims read from a run's tables, derived once per run or per claim."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...contract.decisions import interval, median_of, row
from ...contract.judging import Run, once_per_run
from ...contract.tables import variants_only
from ...contract.verdicts import ANOTHER_DEVICE, Bound
from ...harness.stats import ratio_of_estimates
from .report import scaling
from .spec import ANCHOR, FAR_LESS, REFERENCE, SPEC


@once_per_run
def transforms_of(run: Run) -> pd.Series:
    return run.steps.drop_duplicates("config_id").set_index("config_id")["structure_transforms"]


@once_per_run
def floor_ratios(run: Run) -> pd.DataFrame:
    """The variants' paired ratios to the floor (not first_run's anchor), with transforms."""
    table = variants_only(run.comp[run.comp.baseline == SPEC.floor], SPEC.variants)
    return table.assign(transforms=table.config_id.map(transforms_of(run)))


@once_per_run
def exponents(run: Run) -> pd.DataFrame:
    """The fitted exponents of time vs transforms, by (mode, variant)."""
    return scaling(run.steps).set_index(["mode", "variant"])


def ratios(run: Run, mode: str) -> pd.DataFrame:
    """unbatched / batched in `mode`, by transforms."""
    table = floor_ratios(run)
    return table[table["mode"] == mode].sort_values("transforms")


def median(run: Run, config_id: str, variant: str, mode: str) -> float:
    """A variant's median ms in `mode` at `config_id`."""
    return median_of(run.steps, config_id, variant, mode)[0]


def per_call(run: Run, key: str, variant: str, mode: str,
             per_transform: bool = False) -> tuple[float, float, float] | None:
    """A median and 95% interval at `key`'s write-up structure, per transform or per call."""
    config_id = run.at(key)
    if config_id is None:
        return None
    n = transforms_of(run)[config_id] if per_transform else 1
    return tuple(ms / n for ms in median_of(run.steps, config_id, variant, mode))


def anchored_first_runs(comp: pd.DataFrame, steps: pd.DataFrame, transforms: pd.Series) -> pd.DataFrame:
    """Per configuration, batched first run over its job's one-layer anchor (`q`, paired 95%): drift cancels."""
    anchors = comp[(comp.variant == ANCHOR) & (comp.baseline == SPEC.floor) & (comp["mode"] == "first_run")]
    rows = [{"config_id": r.config_id, "q": 1 / r.ratio, "q_low": 1 / r.ratio_ci_high, "q_high": 1 / r.ratio_ci_low}
            for r in anchors.itertuples()]
    one_layer = steps[(steps.layers == 1) & ~steps.config_id.isin(anchors.config_id)].config_id.unique()
    rows += [{"config_id": c, "q": 1.0, "q_low": 1.0, "q_high": 1.0} for c in one_layer]
    table = pd.DataFrame(rows, columns=["config_id", "q", "q_low", "q_high"])
    return table.assign(transforms=table.config_id.map(transforms))


def stepped_row(run: Run, key: str, variant: str = SPEC.floor) -> tuple[pd.Series | None, str, bool]:
    """A variant's step-by-step row where `key` is judged (else the base), words saying where, and if the write-up's."""
    config_id, where, at_structure = run.headline(key)
    timed = run.steps[(run.steps["mode"] == "step_by_step") & (run.steps.variant == variant)]
    found = row(timed, config_id=config_id) if config_id in set(timed.config_id) else None
    return found, where, at_structure


def unsharded_note(run: Run, config_id: str) -> str:
    """Words for a job that sharded no leaf (one device, unlike the write-up's); '' where it sharded."""
    checks = row(run.tables["checks"], config_id=config_id)
    if checks.get("structure_sharded_leaves", 1) != 0:
        return ""
    return (f" on {int(checks.structure_devices)} device, no leaf sharded (the write-up shards onto several: its "
            f"shard step moves data between devices, this one does not; {ANOTHER_DEVICE})")


NOT_STEPPED = "not measured: the run timed no step-by-step start-up there (measure.step_by_step)"


def one_program_in_every_job(run: Run) -> str:
    """The depths, as text, where every job found its variants' start-ups one program; '' otherwise."""
    checks = run.tables["checks"]
    if "start_up_program_same" not in checks:
        return ""
    if not (checks.start_up_program_same.astype(str) == "True").all():
        return ""
    transforms = transforms_of(run)
    return ", ".join(f"{int(transforms[c])} transforms" for c in sorted(checks.config_id, key=transforms.get))


def reference_spread(direct: pd.DataFrame, spread: dict[str, list]) -> dict[str, float] | None:
    """The reference workload's relative IQR per configuration; None if untimed."""
    if (direct.variant != REFERENCE).all():
        return None
    return {c: float(row(direct, config_id=c, variant=REFERENCE).relative_iqr) for c in spread}


def absolute_iqr_ms(direct: pd.DataFrame, config_id: str, variant: str) -> float:
    """A variant's direct-mode IQR in ms: the write-up's absolute spread, beside the relative one judged."""
    found = row(direct, config_id=config_id, variant=variant)
    return found.relative_iqr * found.median_ms


NO_YARDSTICK = ("not testable in this run: no fixed workload was timed beside it, so what spread this run's "
                "conditions put on any workload is unknown (a job since times one)")


def reference_bound(spread: dict[str, list], reference: dict[str, float] | None) -> Bound | None:
    """The most a spread ratio can show: unbatched's over the reference's spread, geometric mean over depths."""
    unbatched = [u[0] for u, _ in spread.values()]
    if reference is None or min(*unbatched, *reference.values()) <= 0:
        return None

    def geometric(values) -> float:
        return float(np.exp(np.mean(np.log(list(values)))))

    total = geometric(unbatched)
    return Bound(total, total - geometric(reference.values()), "unbatched's relative spread over a fixed "
                 "workload's in the same rounds (the depths as one)", needs=FAR_LESS, scope="in this run")


def un_jitted_over(run: Run, stepped: pd.Series, mode: str) -> tuple[tuple[float, float, float], float]:
    """The un-jitted start-up's median over batched's in `mode` at the step-by-step configuration, and that median."""
    jitted = median_of(run.steps, stepped.config_id, stepped.variant, mode)
    return ratio_of_estimates(stepped.median_ms, (stepped.median_ci_low_ms, stepped.median_ci_high_ms), jitted[0],
                              jitted[1:]), jitted[0]


def _first_call_over(run: Run, stepped: pd.Series, mode: str) -> tuple[tuple[float, float, float], float, float]:
    """The variant's first step-by-step call in its process over its `mode` median (one call per process: the
    interval is the median's alone), the call (ms) and the median (ms)."""
    median = median_of(run.steps, stepped.config_id, stepped.variant, mode)
    ms = 1e3 * stepped.first_run_seconds
    return (ms / median[0], ms / median[2], ms / median[1]), ms, median[0]


def run_once(run: Run, stepped: pd.Series) -> tuple[tuple[float, float, float], str, bool]:
    """The un-jitted start-up's first call over the jitted first run, its words, and whether a first call was kept."""
    cold = stepped.get("first_run_seconds")
    if cold is None or pd.isna(cold):
        once, jitted = un_jitted_over(run, stepped, "first_run")
        return once, (f"un-jitted warm median {stepped.median_ms:.1f} ms (no first call kept) / jitted first run "
                      f"(trace + compile + run) {jitted:.1f} ms"), False
    once, ms, jitted = _first_call_over(run, stepped, "first_run")
    said = (f"un-jitted first call {ms:.1f} ms ({int(stepped.first_run_compiles)} compilations; warm "
            f"{stepped.median_ms:.1f} ms; one call per process: the ratio's interval carries the jitted side's "
            f"spread only) / jitted first run (trace + compile + run) {jitted:.1f} ms")
    return once, said, True


def cold_call(run: Run) -> tuple[tuple[float, float, float] | None, str]:
    """The first step-by-step call in a process over the compiled call, with words; None without one."""
    stepped, _, _ = stepped_row(run, "jit_vs_eager_setup", SPEC.variants[0])
    if stepped is None or pd.isna(stepped.get("first_run_seconds")) or not stepped.get("first_run_compiles"):
        return None, ""
    gain, cold, compiled = _first_call_over(run, stepped, "steady")
    return gain, (f"; cold, as the write-up's one timing may have been: {stepped.variant}'s first call "
                  f"{cold:.1f} ms ({int(stepped.first_run_compiles)} compilations) / its compiled call "
                  f"{compiled:.1f} ms = {interval(*gain, 'x')} (one call per process: the compiled side's "
                  f"spread only)")


def against_one(fit: dict) -> str:
    """Where the write-up's O(N*L) -> O(L) analysis (an exponent of 1) lies against the fitted exponent."""
    low, high = fit["exponent_ci_low"], fit["exponent_ci_high"]
    if low <= 1 <= high:
        return "the write-up's O(N*L) -> O(L) predicts 1: inside its interval"
    way = "slower" if high < 1 else "faster"
    return f"the write-up's O(N*L) -> O(L) predicts 1: the gain grows in that order, {way} than linearly"
