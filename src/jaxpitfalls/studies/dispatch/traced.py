"""What dispatch claims read from traces."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import median_of
from ...contract.judging import Run
from ...harness.stats import difference_of_estimates, widened_by_repeats
from .report import WHERE
from .spec import SPEC
from .structure import width_note


def traced_inclusive(run: Run, config_id: str, variant: str) -> pd.Series:
    """A variant's traced ms per step by component at `config_id`, callees included."""
    overhead = run.tables["overhead"]
    return overhead[(overhead.variant == variant) & (overhead.config_id == config_id)
                    & (overhead["mode"] == SPEC.traced_mode)].groupby("component", sort=False).inclusive_ms.mean()


def postprocess_share(run: Run, config_id: str) -> tuple[float, float, float]:
    """filter_jit's traced _preprocess and _postprocess (ms per step) and the latter's share of both."""
    pre, post = traced_inclusive(run, config_id, "filter_jit")[["_preprocess", "_postprocess"]]
    return pre, post, (post / (pre + post) if pre + post > 0 else float("nan"))


def traced_at(run: Run) -> tuple[str, str, bool]:
    """Where to read the trace (BERT-base's shape, else its 12-layer pytree, else the base), `width_note`, if whole."""
    traced = set(run.tables["overhead"].config_id)
    whole = run.at("slower")  # BERT-base's whole shape (`slower`'s number is measured there), where run
    at = whole if whole in traced else run.at("where")
    at = at if at in traced else run.base_id
    note = width_note(run, at)
    return at, note, not note


def traced_steps(run: Run, config_id: str, at_structure: bool) -> tuple:
    """Each variant's traced step (ms, mean and range over captures) at the write-up's structure, else Nones."""
    overhead = run.tables["overhead"]
    if not at_structure or "traced_step_ms" not in overhead:  # tables from before traces kept their steps
        return (None, None)
    steps = overhead[(overhead.config_id == config_id) & (overhead["mode"] == SPEC.traced_mode)]
    per_capture = steps.drop_duplicates(["variant", "capture"]).groupby("variant").traced_step_ms
    return tuple((float(c.mean()), float(c.min()), float(c.max())) for _, c in
                 ((v, per_capture.get_group(v)) for v in ("filter_jit", "jit_partition")))


def traced_python(run: Run, config_id: str) -> tuple[tuple[float, float, float], int]:
    """filter_jit's minus jit_partition's Python around the program (ms, 95% widened by captures' spread), captures."""
    overhead = run.tables["overhead"]
    python = overhead[(overhead.config_id == config_id) & (overhead["mode"] == SPEC.traced_mode)
                      & overhead.component.isin(WHERE["python_around_program_ms"])]
    shares = python.pivot_table(index="capture", columns="variant", values="share", aggfunc="sum")
    fj, jp = (median_of(run.steps, config_id, variant, SPEC.traced_mode) for variant in ("filter_jit", "jit_partition"))
    share = shares.mean()
    medians = difference_of_estimates(share["filter_jit"] * fj[0], tuple(share["filter_jit"] * v for v in fj[1:]),
                                      share["jit_partition"] * jp[0], tuple(share["jit_partition"] * v for v in jp[1:]))
    per_capture = shares["filter_jit"] * fj[0] - shares["jit_partition"] * jp[0]
    return widened_by_repeats(medians, per_capture.to_numpy()), len(shares)
