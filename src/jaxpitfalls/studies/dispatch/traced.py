"""What the dispatch claims read from the trace (filter_jit's steps around the program, per traced configuration):
where it was taken, each component's traced time, and the Python around the program carried to the untraced
medians."""

from __future__ import annotations

import pandas as pd

from ...harness.stats import difference_of_estimates
from ...report.claims import median_of
from ...report.judging import Run
from .report import WHERE
from .spec import SPEC
from .structure import width_note


def traced_inclusive(run: Run, config_id: str, variant: str) -> pd.Series:
    """A variant's traced time per step by component at `config_id`, each with what it calls (ms)."""
    overhead = run.tables["overhead"]
    return overhead[(overhead.variant == variant) & (overhead.config_id == config_id)
                    & (overhead["mode"] == SPEC.traced_mode)].set_index("component").inclusive_ms


def postprocess_share(run: Run, config_id: str) -> tuple[float, float, float]:
    """filter_jit's traced _preprocess and _postprocess (ms per step) and the latter's share of the two."""
    pre, post = traced_inclusive(run, config_id, "filter_jit")[["_preprocess", "_postprocess"]]
    return pre, post, (post / (pre + post) if pre + post > 0 else float("nan"))


def traced_at(run: Run) -> tuple[str, str, bool]:
    """Where the traced claims read the trace: BERT-base's whole shape where a trace was taken there, else its
    12-layer pytree, else the base; with the words that say at which width (`width_note`) and whether it is the
    write-up's whole structure (the base stands for none)."""
    traced = set(run.tables["overhead"].config_id)
    whole = run.at("slower")  # BERT-base's whole shape (`slower`'s number is measured there), where run
    at = whole if whole in traced else run.at("where")
    if at not in traced:
        return run.base_id, "", False
    note = width_note(run, at)
    return at, note, not note


def traced_python(run: Run, config_id: str) -> tuple[float, float, float]:
    """filter_jit's minus jit_partition's Python around the program (ms, with a 95% interval): each variant's
    traced share of it applied to its untraced median, the interval carried from the medians' own. The shares
    come from one trace, so their own noise is not in it."""
    overhead = run.tables["overhead"]
    python = overhead[(overhead.config_id == config_id) & (overhead["mode"] == SPEC.traced_mode)
                      & overhead.component.isin(WHERE["python_around_program_ms"])]
    share = python.groupby("variant").share.sum()
    fj, jp = (median_of(run.steps, config_id, variant, SPEC.traced_mode) for variant in ("filter_jit", "jit_partition"))
    return difference_of_estimates(share["filter_jit"] * fj[0], tuple(share["filter_jit"] * v for v in fj[1:]),
                                   share["jit_partition"] * jp[0], tuple(share["jit_partition"] * v for v in jp[1:]))
