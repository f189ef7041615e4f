"""A study's ratios across releases: rows labelled by release and checked against the versions each result
recorded, steps found per series with the false alarms controlled over all of them, a step resting on one
release's job not named, and a line a reader can act on for each."""

from __future__ import annotations

import numpy as np
import pytest

from jaxpitfalls.report import history

RELEASES = [f"0.11.{i}" for i in range(10)]


def _doc(release: str, filter_jit: float, recorded: str | None = None, jax: str = "0.4.34") -> dict:
    """One release's result: filter_jit / jit_flat as given (+-3%), jax.jit's variants flat at 1.01."""
    def pair(variant: str, ratio: float) -> dict:
        return {"variant": variant, "baseline": "jit_flat", "mode": "pipelined", "ratio": ratio,
                "ratio_ci_low": ratio * 0.97, "ratio_ci_high": ratio * 1.03}
    return {"study": "dispatch", "config_id": "base",
            "environment": {"packages": {"equinox": recorded or release, "jax": jax, "jaxlib": "0.4.34"}},
            "comparisons": [pair("filter_jit", filter_jit), pair("jit_partition", 1.01)]}


def _measured(step_at: int = 8) -> dict[str, list[dict]]:
    rng = np.random.default_rng(0)
    return {r: [_doc(r, (1.3 if i >= step_at else 1.0) * float(np.exp(rng.normal(0, 0.01))))]
            for i, r in enumerate(RELEASES)}


def test_the_step_is_found_where_filter_jit_changed_and_none_in_jax_jit_s_variants():
    measured = _measured()
    ratios = history.ratios_table(measured, "equinox")
    assert len(ratios) == 2 * len(RELEASES) and set(ratios.versions) == {"jax 0.4.34, jaxlib 0.4.34, equinox "
                                                                          + r for r in RELEASES}
    steps = history.steps_table(ratios, RELEASES, "equinox", history.environments(measured))
    assert (steps.also_changed.fillna("") == "").all()
    found = steps[steps.variant == "filter_jit"]
    assert list(found[["step", "before", "after"]].itertuples(index=False, name=None)) == [(1, "0.11.7", "0.11.8")]
    assert found.ratio_ci_low.iloc[0] < 1.3 < found.ratio_ci_high.iloc[0]
    flat = steps[steps.variant == "jit_partition"]
    assert list(flat.step) == [0] and flat.ruled_out.iloc[0] < 0.1
    lines = history.summary_lines(steps, "equinox")
    assert f"**equinox 0.11.7 -> 0.11.8: {found.ratio.iloc[0]:.3f}x [" in lines[0]
    assert "no step over 10 releases; a change larger than" in lines[1]


def test_a_result_that_ran_another_release_is_refused_naming_both():
    measured = _measured() | {"0.11.3": [_doc("0.11.3", 1.0, recorded="0.11.2")]}
    with pytest.raises(history.WrongRelease, match="asked for equinox 0.11.3, the job's environment had equinox "
                                                   "0.11.2"):
        history.ratios_table(measured, "equinox")


def test_releases_keep_the_configured_order_not_the_alphabet_and_a_step_names_what_else_changed():
    releases = ["0.9.2", "0.10.0", "0.11.0"]
    measured = {r: [_doc(r, ratio, jax=jax)] for r, ratio, jax in zip(
        releases, (1.0, 1.5, 1.5), ("0.4.34", "0.4.38", "0.4.38"), strict=True)}
    steps = history.steps_table(history.ratios_table(measured, "equinox"), releases, "equinox",
                                history.environments(measured))
    step = steps[steps.variant == "filter_jit"].iloc[0]
    assert (step.before, step.after, step.also_changed) == ("0.9.2", "0.10.0", "jax 0.4.34 -> 0.4.38")
    line = history.summary_lines(steps, "equinox")[0]
    assert "(jax 0.4.34 -> 0.4.38 changed too)" in line
    assert "rests on release 0.9.2 alone" in line and "**" not in line  # one release before it: not named


def test_one_release_s_offset_at_the_edge_of_a_null_history_is_not_named_a_step():
    """A package the timed code never calls (a null history): six releases, the first release's job 5% off in
    every series (the safetensors run's false step), eight series; no series names a step."""
    releases = [f"0.4.{i}" for i in range(1, 7)]
    rng = np.random.default_rng(1)

    def doc(release: str, i: int) -> dict:
        pairs = [{"variant": v, "baseline": "jit_flat", "mode": m, "ratio": r, "ratio_ci_low": r / 1.02,
                  "ratio_ci_high": r * 1.02}
                 for v in ("filter_jit", "jit_partition", "jit_static_arg", "jit_flat2")
                 for m in ("blocked", "pipelined")
                 for r in [(1.05 if i == 0 else 1.0) * float(np.exp(rng.normal(0, 0.005)))]]
        return {"study": "dispatch", "config_id": "base", "comparisons": pairs,
                "environment": {"packages": {"safetensors": release, "jax": "0.4.34"}}}

    measured = {r: [doc(r, i)] for i, r in enumerate(releases)}
    steps = history.steps_table(history.ratios_table(measured, "safetensors"), releases, "safetensors",
                                history.environments(measured))
    named = [line for line in history.summary_lines(steps, "safetensors") if "**" in line]
    assert steps.variant.nunique() == 4 and not named, named
    assert set(steps.one_release.dropna()) <= {"0.4.1", ""}
