"""A study's ratios across releases: rows labelled by release and checked against the versions each result
recorded, steps found per series with the false alarms controlled over all of them, a step resting on one
release's job not named, a release timed in several jobs given one level with the spread between its jobs,
and a line a reader can act on for each."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from jaxpitfalls.across_runs.history import changepoints, history
from jaxpitfalls.across_runs.history.changepoints import Parts
from jaxpitfalls.across_runs.history.primary import family_text
from jaxpitfalls.across_runs.history.rejudge import read_table
from jaxpitfalls.across_runs.history.release_levels import between_jobs, df_words, release_levels
from jaxpitfalls.across_runs.history.runs import unmeasured_note

RELEASES = [f"0.11.{i}" for i in range(10)]


def _doc(release: str, filter_jit: float, recorded: str | None = None, jax: str = "0.4.34") -> dict:
    """One release's result: filter_jit / jit_flat as given (+-3%), jax.jit's variants flat at 1.01, the floor's A/A
    twin at 1."""
    def pair(variant: str, ratio: float) -> dict:
        return {"variant": variant, "baseline": "jit_flat", "mode": "pipelined", "ratio": ratio,
                "ratio_ci_low": ratio * 0.97, "ratio_ci_high": ratio * 1.03}
    return {"study": "dispatch", "config_id": "base",
            "environment": {"packages": {"equinox": recorded or release, "jax": jax, "jaxlib": "0.4.34"}},
            "comparisons": [pair("filter_jit", filter_jit), pair("jit_partition", 1.01), pair("jit_flat~twin", 1.0)],
            "variants": {}}  # no benchmark file's memory plans


def _measured(step_at: int = 8) -> dict[str, list[dict]]:
    rng = np.random.default_rng(0)
    return {r: [_doc(r, (1.3 if i >= step_at else 1.0) * float(np.exp(rng.normal(0, 0.01))))]
            for i, r in enumerate(RELEASES)}


def test_the_step_is_found_where_filter_jit_changed_and_none_in_jax_jit_s_variants():
    measured = _measured()
    ratios = history.ratios_table(measured, "equinox")
    assert len(ratios) == 2 * len(RELEASES) and set(ratios.versions) == {"jax 0.4.34, jaxlib 0.4.34, equinox "
                                                                          + r for r in RELEASES}
    steps = history.steps_table(release_levels(ratios), RELEASES, "equinox", history.environments(measured))
    assert (steps.also_changed.fillna("") == "").all()
    found = steps[steps.variant == "filter_jit"]
    assert list(found[["step", "before", "after"]].itertuples(index=False, name=None)) == [(1, "0.11.7", "0.11.8")]
    assert found.ratio_ci_low.iloc[0] < 1.3 < found.ratio_ci_high.iloc[0]
    flat = steps[steps.variant == "jit_partition"]
    assert list(flat.step) == [0] and flat.ruled_out.iloc[0] < 0.1
    lines = history.summary_lines(steps, "equinox")
    assert f"**equinox 0.11.7 -> 0.11.8: {found.ratio.iloc[0]:.3f}x [" in lines[0]
    assert "no step over 10 releases; a change beyond 0.9" in lines[1] and "x is ruled out" in lines[1]


def test_a_result_that_ran_another_release_is_refused_naming_both():
    measured = _measured() | {"0.11.3": [_doc("0.11.3", 1.0, recorded="0.11.2")]}
    with pytest.raises(history.WrongRelease, match="asked for equinox 0.11.3, the job's environment had equinox "
                                                   "0.11.2"):
        history.ratios_table(measured, "equinox")


def test_releases_keep_the_configured_order_not_the_alphabet_and_a_step_names_what_else_changed():
    releases = ["0.9.2", "0.10.0", "0.11.0"]
    measured = {r: [_doc(r, ratio, jax=jax)] for r, ratio, jax in zip(
        releases, (1.0, 1.5, 1.5), ("0.4.34", "0.4.38", "0.4.38"), strict=True)}
    steps = history.steps_table(release_levels(history.ratios_table(measured, "equinox")), releases, "equinox",
                                history.environments(measured))
    step = steps[steps.variant == "filter_jit"].iloc[0]
    assert (step.before, step.after, step.also_changed) == ("0.9.2", "0.10.0", "jax 0.4.34 -> 0.4.38")
    line = history.summary_lines(steps, "equinox")[0]
    assert "(jax 0.4.34 -> 0.4.38 changed too)" in line
    assert "rests on release 0.9.2 alone" in line and "**" not in line  # one release before it: not named


@pytest.mark.parametrize("off", [0, 3])
def test_one_release_s_offset_in_a_null_history_is_not_named_a_step(off):
    """A package the timed code never calls (a null history): six releases, one release's job 5% off in every
    series (the first: the safetensors run's false step; or one in the middle, which a fit keeping it with its
    neighbours must not turn into a step either), eight series; no series names a step."""
    releases = [f"0.4.{i}" for i in range(1, 7)]
    rng = np.random.default_rng(1)

    measured = {r: [_null_doc(r, 1.05 if i == off else 1.0, rng)] for i, r in enumerate(releases)}
    steps = history.steps_table(release_levels(history.ratios_table(measured, "safetensors")), releases,
                                "safetensors", history.environments(measured))
    named = [line for line in history.summary_lines(steps, "safetensors") if "**" in line]
    assert steps.variant.nunique() == 4 and not named, named
    assert set(steps.one_release.dropna()) <= {releases[off], ""}


def _null_doc(release: str, offset: float, rng: np.random.Generator, job: int = 1, step: float = 1.0) -> dict:
    """One job of a null history's release: four variants x two modes at 1.0 (x `step` for filter_jit), each
    +-2% with 0.5% noise, the whole job `offset` off."""
    pairs = [{"variant": v, "baseline": "jit_flat", "mode": m, "ratio": r, "ratio_ci_low": r / 1.02,
              "ratio_ci_high": r * 1.02}
             for v in ("filter_jit", "jit_partition", "jit_static_arg", "jit_flat2")
             for m in ("blocked", "pipelined")
             for r in [offset * (step if v == "filter_jit" else 1.0) * float(np.exp(rng.normal(0, 0.005)))]]
    return {"study": "dispatch", "config_id": "base", "comparisons": pairs, "job": job, "variants": {},
            "environment": {"packages": {"safetensors": release, "jax": "0.4.34"}}}


class _Still:
    """A generator without noise: every ratio as given."""

    def normal(self, *_) -> float:
        return 0.0


def test_a_step_in_a_series_declared_primary_is_corrected_over_the_declared_ones_alone():
    """A 2.5% step from the fourth of six releases in filter_jit's two series, intervals +-2%: over the five places
    in all 8 series it is not told apart (z 2.99 against 3.23), over the declared series it is (2.58 for one, 2.81
    for two); the others keep the correction over every series, the report says which were declared, and a pattern
    naming no series declares nothing, and the report says so."""
    releases = [f"0.4.{i}" for i in range(1, 7)]
    measured = {r: [_null_doc(r, 1.0, _Still(), step=1.025 if i >= 3 else 1.0)] for i, r in enumerate(releases)}
    levels = release_levels(history.ratios_table(measured, "safetensors"))
    envs = history.environments(measured)

    def named(primary: tuple[str, ...]) -> list[tuple[str, str]]:
        steps = history.steps_table(levels, releases, "safetensors", envs, primary)
        return list(steps[steps.step > 0][["variant", "mode"]].itertuples(index=False, name=None))

    assert named(()) == [] and named(("*/jit_partition/*",)) == []
    assert named(("base/filter_jit/jit_flat/blocked",)) == [("filter_jit", "blocked")]
    assert named(("*/filter_jit/*",)) == [("filter_jit", "blocked"), ("filter_jit", "pipelined")]  # over 2: 2.81
    steps = history.steps_table(levels, releases, "safetensors", envs, ("*/filter_jit/*/blocked",))
    lines = history.summary_lines(steps, "safetensors")
    said = family_text(steps, ("*/filter_jit/*/blocked",))
    assert steps[steps.declared][["variant", "mode"]].drop_duplicates().values.tolist() == [["filter_jit", "blocked"]]
    assert "except in the 1 of 8 `history.primary` declares ('*/filter_jit/*/blocked')" in said
    assert "among the rest at most 4.4%, in the whole report at most 9.4%" in said
    assert family_text(steps, ()) == "in every series of this report"
    assert [line for line in lines if "(declared primary)" in line] == [
        line for line in lines if line.startswith("- `filter_jit` / `jit_flat` (blocked, base)")]
    typo = history.steps_table(levels, releases, "safetensors", envs, ("*/filter_jt/*",))
    assert (typo.step == 0).all()  # it declared nothing: every series over every series, as without it
    assert "`history.primary` '*/filter_jt/*' named no series of this history" in family_text(typo, ("*/filter_jt/*",))


def test_a_release_timed_twice_gets_one_level_widened_by_the_spread_between_its_jobs():
    """Two jobs per release, the first job of the first release 5% off (the safetensors run's first job): the
    jobs disagree, the spread between jobs enters every release's interval, and no step is named; a real 8%
    step at the last release, seen by both its jobs, is named though a single release lies beyond it."""
    releases = [f"0.4.{i}" for i in range(1, 7)]
    rng = np.random.default_rng(2)
    measured = {r: [_null_doc(r, 1.05 if (i, job) == (0, 1) else 1.0, rng, job) for job in (1, 2)]
                for i, r in enumerate(releases)}
    ratios = history.ratios_table(measured, "safetensors")
    levels = release_levels(ratios)
    assert len(ratios) == 2 * len(levels) and set(levels.jobs) == {2} and (levels.between_jobs > 0.005).all()
    first = levels[(levels.release == "0.4.1") & (levels.variant == "filter_jit")].iloc[0]
    assert first.ratio_ci_low < 1.0 < first.ratio_ci_high  # 1.025 in mean, the spread between jobs around it
    steps = history.steps_table(levels, releases, "safetensors", history.environments(measured))
    assert not [line for line in history.summary_lines(steps, "safetensors") if "**" in line]
    one_job = history.jobs_line(history.steps_table(release_levels(ratios[ratios.job == 1]), releases,
                                                    "safetensors", history.environments(measured)), 1)
    assert "spread of" in history.jobs_line(steps, 2) and "not estimated" in one_job
    assert one_job.startswith("**") and "a lead, not a finding" in one_job  # warned, above the fold of its line

    stepped = {r: [_null_doc(r, 1.0, rng, job, step=1.08 if i == 5 else 1.0) for job in (1, 2)]
               for i, r in enumerate(releases)}
    steps = history.steps_table(release_levels(history.ratios_table(stepped, "safetensors")), releases,
                                "safetensors", history.environments(stepped))
    found = steps[(steps.variant == "filter_jit") & (steps.step > 0)]
    assert set(found.after) == {"0.4.6"} and (found.one_release == "").all()
    assert all("**safetensors 0.4.5 -> 0.4.6" in line for line in history.summary_lines(steps, "safetensors")
               if "`filter_jit`" in line)


def test_the_spread_between_jobs_is_estimated_beyond_their_own_intervals():
    """30 releases x 3 jobs, each job's own standard error 1% and an offset per job of 3%: the estimate is
    near 3%; with no offset, near 0; with one job per release, not estimated."""
    rng = np.random.default_rng(3)
    release = np.repeat(np.arange(30), 3)
    se = np.full(release.size, 0.01)
    for spread, low, high in ((0.03, 0.022, 0.038), (0.0, 0.0, 0.006)):
        y = rng.normal(0, 0.01, release.size) + rng.normal(0, spread, release.size)
        spread, df = between_jobs(y, se ** 2, [np.flatnonzero(release == r) for r in range(30)])
        assert low <= spread <= high and df == 60  # 30 releases of 3 jobs: 2 degrees of freedom each
    assert between_jobs(np.array([0.0, 0.1]), np.array([1e-4, 1e-4]), [np.array([0]), np.array([1])]) is None


def test_a_spread_between_jobs_counts_on_the_degrees_of_freedom_it_was_estimated_from():
    """Six releases in two jobs each, the jobs scattering beyond their own 1% errors (each release's first job
    above its second in three releases, below it in three: no block's offset, the blocks pooled): every level's
    interval takes Student's t on the six pairs' degrees of freedom, wider than the normal one on the same
    variance; jobs that scatter no more than their intervals leave the levels on the normal quantile."""
    rows = [{"release": f"r{r}", "job": j, "config_id": "base", "variant": "v", "baseline": "floor", "mode": "m",
             "ratio": np.exp(y), "ratio_ci_low": np.exp(y - 0.0196), "ratio_ci_high": np.exp(y + 0.0196),
             "versions": ""}
            for r in range(6) for j, y in ((1, 0.03 * (-1) ** r), (2, -0.03 * (-1) ** r))]
    levels = release_levels(pd.DataFrame(rows))
    assert set(levels.df) == {6.0}
    half = np.log(levels.ratio_ci_high / levels.ratio)
    variance = (0.01 ** 2 + (0.06 ** 2 / 2 - 0.01 ** 2)) / 2  # their own, plus the excess, over two jobs
    assert np.allclose(half, 2.447 * np.sqrt(variance), rtol=1e-3)  # t(0.975, 6), not 1.96
    agreeing = pd.DataFrame(rows).assign(ratio=1.0, ratio_ci_low=np.exp(-0.0196), ratio_ci_high=np.exp(0.0196))
    assert np.isinf(release_levels(agreeing).df).all()


def test_each_job_s_interval_is_read_on_its_own_df_and_a_level_pools_them(tmp_path):
    """Two jobs a release whose intervals were built on t(5) (a job's rows rest on a few processes): read on the
    normal quantile, their errors would be 1.3x too wide and the spread between jobs hidden. Read on their own df,
    a level of two agreeing jobs rests on their 10 df together (Satterthwaite); a table without `ratio_df` is read
    as before (normal, and the levels' df infinite)."""
    t5 = stats.t.ppf(0.975, 5)
    rows = [{"release": f"r{r}", "job": j, "config_id": "base", "variant": "v", "baseline": "floor", "mode": "m",
             "ratio": 1.0, "ratio_ci_low": np.exp(-t5 * 0.01), "ratio_ci_high": np.exp(t5 * 0.01), "ratio_df": 5.0,
             "versions": ""} for r in range(6) for j in (1, 2)]
    levels = release_levels(pd.DataFrame(rows))
    assert np.allclose(levels.df, 10.0) and levels.jobs_df_known.all()
    half = np.log(levels.ratio_ci_high / levels.ratio)
    assert np.allclose(half, stats.t.ppf(0.975, 10) * 0.01 / np.sqrt(2), rtol=1e-6)
    apart = [r | {"ratio": np.exp(y), "ratio_ci_low": np.exp(y - t5 * 0.01), "ratio_ci_high": np.exp(y + t5 * 0.01)}
             for r, y in zip(rows, [0.03 * (-1) ** (r + j) for r in range(6) for j in (1, 2)], strict=True)]
    disagreeing = release_levels(pd.DataFrame(apart))  # six pairs 6% apart: a spread on 6 df beyond their 1%
    own, added = 0.01 ** 2 / 2, (0.06 ** 2 / 2 - 0.01 ** 2) / 2
    assert np.allclose(disagreeing.df, (own + added) ** 2 / (own ** 2 / 10 + added ** 2 / 6))
    assert np.allclose(disagreeing.spread_share, added / (own + added)) and set(disagreeing.spread_df) == {6.0}
    for i in range(6):  # a release's level and its own df, as a step's df counts them
        se = np.log(disagreeing.ratio_ci_high / disagreeing.ratio).to_numpy() / stats.t.ppf(0.975, disagreeing.df)
        parts = Parts(*(disagreeing[c].to_numpy(dtype=float) for c in Parts._fields))
        assert changepoints._pooled_df(se, parts, i, i + 1, i + 1) == pytest.approx(disagreeing.df.iat[i])
    mixed = pd.DataFrame([r | {"ratio_df": np.nan} if i == 0 else r for i, r in enumerate(rows)])
    assert not release_levels(mixed).jobs_df_known.any()  # one job without its df: every job read as before
    path = tmp_path / "history.csv"
    mixed.to_csv(path, index=False)  # a blank cell, as a table joined from an older one holds
    assert not release_levels(read_table(path)).jobs_df_known.any()
    legacy = release_levels(pd.DataFrame(rows).drop(columns="ratio_df"))
    assert np.isinf(legacy.df).all() and not legacy.jobs_df_known.any()
    assert np.allclose(np.log(legacy.ratio_ci_high / legacy.ratio), t5 * 0.01 / np.sqrt(2), rtol=1e-6)


def test_a_lone_release_that_hid_a_step_is_set_apart_and_the_step_named():
    """filter_jit's ratio steps up at 0.11.5, and 0.11.5's one job sits higher still: the fit with the most steps
    splits it off alone; the summary names the step the fit keeping it with its neighbours finds, and says which
    release it set apart."""
    rng = np.random.default_rng(0)
    levels = [1.0] * 5 + [1.3] + [1.2] * 4
    measured = {r: [_doc(r, level * float(np.exp(rng.normal(0, 0.01))))] for r, level in zip(RELEASES, levels,
                                                                                               strict=True)}
    steps = history.steps_table(release_levels(history.ratios_table(measured, "equinox")), RELEASES, "equinox",
                                history.environments(measured))
    line = history.summary_lines(steps, "equinox")[0]
    assert "**equinox 0.11.4 -> 0.11.5: " in line, line
    assert "(equinox 0.11.5, timed in one job, also fits in a segment of its own" in line


def test_the_report_names_the_order_the_jobs_ran_in_and_says_when_it_was_the_releases_own():
    """The results' timestamps record the order; one lined up with the releases is said to confound drift."""
    def stamped(order: list[int]) -> dict[str, list[dict]]:
        measured = _measured()
        for minute, i in enumerate(order):
            measured[RELEASES[i]][0]["environment"]["timestamp"] = f"2026-11-29T01:{minute:02d}:00+00:00"
        return measured

    shuffled = history.ratios_table(stamped([3, 0, 2, 1, *range(4, len(RELEASES))]), "equinox")
    line = history.order_line(shuffled, RELEASES)[0]
    assert line.startswith("Jobs ran shuffled, not in the releases' order") and f"{RELEASES[3]} job 1, " in line
    for lined_up in (list(range(len(RELEASES))), list(range(len(RELEASES)))[::-1]):  # either way: drift is a step
        said = history.order_line(history.ratios_table(stamped(lined_up), "equinox"), RELEASES)[0]
        assert "lined up with the releases: a drift of the machine over the run would read as a step" in said
    assert history.order_line(history.ratios_table(_measured(), "equinox"), RELEASES) == []  # no timestamps
    blocks = stamped([3, 0, 2, 1, *range(4, len(RELEASES))])  # job 1 shuffled, then job 2 in its reverse
    for minute, i in enumerate([*range(4, len(RELEASES))][::-1] + [1, 2, 0, 3]):
        blocks[RELEASES[i]].append(dict(blocks[RELEASES[i]][0], job=2, environment=dict(
            blocks[RELEASES[i]][0]["environment"], timestamp=f"2026-11-29T02:{minute:02d}:00+00:00")))
    said = history.order_line(history.ratios_table(blocks, "equinox"), RELEASES)[0]
    assert said.startswith("Jobs ran every release at the same mean place: a drift over the run adds the same")


def test_a_lost_job_is_named_and_every_other_job_still_reported(tmp_path, monkeypatch):
    """A job whose measurement failed (a worker that died, processes that disagreed) records that it was lost;
    the history reports every other job and names the lost one, where one such job once lost a whole run."""
    import json
    import sys
    from types import SimpleNamespace

    from jaxpitfalls.harness.processes import ProcessesDisagree
    from jaxpitfalls.jobs import history_run

    def disagreeing(*args, **kwargs):
        raise ProcessesDisagree("process 4 ran another code path for 'jit_partition' than process 0")

    monkeypatch.setattr(history_run, "run_configuration", disagreeing)
    (status := tmp_path / "status.json").write_text(json.dumps({"ok": True, "python": sys.executable}))
    lost = tmp_path / "runs" / RELEASES[2] / "job2" / "base.json"
    history_run.measure_release(RELEASES[2], "equinox", str(status), "dispatch", {"id": "base"}, {}, {}, {},
                                str(lost), "", "")
    assert json.loads(lost.read_text())["lost"].startswith("ProcessesDisagree: process 4 ran another code path")

    gone = tmp_path / "runs" / RELEASES[5] / "job1" / "base.json"  # a release that loses both its jobs
    history_run.measure_release(RELEASES[5], "equinox", str(status), "dispatch", {"id": "base"}, {}, {}, {},
                                str(gone), "", "")
    (failed := tmp_path / "failed.json").write_text(json.dumps({"ok": False, "reason": (
        "pip install failed: WARNING: Location 'file:///simple/equinox/' is ignored\nERROR: No matching "
        "distribution found for equinox==0.99")}))
    absent = tmp_path / "runs" / "0.99" / "job1" / "base.json"  # a release pip could not install: its cause said
    history_run.measure_release("0.99", "equinox", str(failed), "dispatch", {"id": "base"}, {}, {}, {}, str(absent),
                                "", "")
    paths = [lost, gone, gone.parents[1] / "job2" / "base.json", absent]
    paths[2].parent.mkdir()
    paths[2].write_text(gone.read_text())
    for release, (doc,) in _measured().items():
        for job in {RELEASES[2]: (1,), RELEASES[5]: ()}.get(release, (1, 2)):
            (path := tmp_path / "runs" / release / f"job{job}" / "base.json").parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc))
            paths.append(path)
    block = {"study": "dispatch", "package": "equinox", "versions": [*RELEASES, "0.99"], "with": {}, "pins": {},
             "pythons": {}, "repeats": 2, "configs": "base"}
    out = SimpleNamespace(**{name: str(tmp_path / f"{name}.out") for name in ("ratios", "steps", "figure", "report",
                                                                                  "memory_plans")})
    history.write_history([str(p) for p in paths], [], SimpleNamespace(history=block, run_target_s=600), out)
    report = (tmp_path / "report.out").read_text()
    assert "## Jobs lost" in report and f"- `equinox {RELEASES[2]} job 2 (base)`: ProcessesDisagree" in report
    assert f"- `equinox {RELEASES[5]}`: every job lost (ProcessesDisagree: " in report  # without a result
    assert "- `equinox 0.99`: pip install failed: ERROR: No matching distribution found for equinox==0.99" in report
    assert "## Audit" in report and "**0 of 17** twin rows excluded 1" in report  # every job's twin, none in a step
    ratios = pd.read_csv(out.ratios, dtype={"release": str})
    assert set(ratios.release) == set(RELEASES) - {RELEASES[5]} and len(ratios) == 2 * (2 * len(RELEASES) - 3)


def test_the_run_summary_judges_the_target_only_where_the_history_is_the_run(tmp_path):
    """A history run alone judges its jobs against run_target_s; one part of a calibration (target 0 here: the
    calibration's page judges the whole run) says its time and judges nothing."""
    paths = []
    for rule, seconds in (("release_env", 100.0), ("history_run", 500.0)):
        (path := tmp_path / "benchmarks" / rule / "x.tsv").parent.mkdir(parents=True)
        path.write_text(f"s\th:m:s\n{seconds}\t0:00:00\n")
        paths.append(str(path))
    alone, part = history.run_summary(paths, 550), history.run_summary(paths, 0)
    assert alone == ["2 jobs, 600 s (10.0 min) against the target's 550 s: **missed**; building the environments "
                     "100 s of it (one job after another: no timing job ran beside an install)."]
    assert part[0].startswith("2 jobs, 600 s (10.0 min); building the environments 100 s") and "target" not in part[0]


def test_a_release_result_of_a_later_format_is_refused_naming_both_versions(tmp_path):
    """The history reads its jobs' results as every result is read: a format this checkout does not know stops it."""
    import json
    from types import SimpleNamespace

    from jaxpitfalls import results

    (path := tmp_path / "runs" / RELEASES[0] / "job1" / "base.json").parent.mkdir(parents=True)
    doc = _measured()[RELEASES[0]][0] | {"format": {"result": results.FORMAT + 1, "jaxpitfalls": "9.0"}}
    path.write_text(json.dumps(doc))
    block = {"study": "dispatch", "package": "equinox", "versions": RELEASES, "with": {}, "pins": {}, "pythons": {},
             "repeats": 1, "configs": "base"}
    out = SimpleNamespace(**{name: str(tmp_path / f"{name}.out") for name in ("ratios", "steps", "figure", "report",
                                                                                  "memory_plans")})
    with pytest.raises(results.InvalidResult, match=rf"base.json: result format {results.FORMAT + 1} \(written by "
                                                   r"jaxpitfalls 9\.0\)"):
        history.write_history([str(path)], [], SimpleNamespace(history=block, run_target_s=600), out)
    assert not (tmp_path / "report.out").exists()


def test_a_history_where_no_release_measured_anything_says_why_for_each(tmp_path):
    """Every release unavailable (pip could not install it, or its jobs all lost): the report gives each reason,
    not a crash in the fit that hid them."""
    import json
    from types import SimpleNamespace

    from jaxpitfalls.jobs import history_run

    paths = []
    for release in ("0.98", "0.99"):
        (failed := tmp_path / f"{release}.json").write_text(json.dumps({"ok": False, "reason": (
            f"pip install failed: ERROR: No matching distribution found for equinx=={release}")}))
        paths.append(tmp_path / "runs" / release / "job1" / "base.json")
        history_run.measure_release(release, "equinx", str(failed), "dispatch", {"id": "base"}, {}, {}, {},
                                    str(paths[-1]), "", "")
    block = {"study": "dispatch", "package": "equinx", "versions": ["0.98", "0.99"], "with": {}, "pins": {},
             "pythons": {}, "repeats": 1, "configs": "base"}
    out = SimpleNamespace(**{name: str(tmp_path / f"{name}.out") for name in ("ratios", "steps", "figure", "report",
                                                                                  "memory_plans")})
    history.write_history([str(p) for p in paths], [], SimpleNamespace(history=block, run_target_s=600), out)
    report = (tmp_path / "report.out").read_text()
    assert "No equinx release was measured: each one's reason is below." in report
    assert "- `equinx 0.99`: pip install failed: ERROR: No matching distribution found for equinx==0.99" in report


def test_a_series_measured_in_one_release_compares_nothing_and_says_so():
    one = pd.DataFrame([{"config_id": "base", "variant": "filter_jit", "baseline": "jit_flat", "mode": "blocked",
                         "declared": False, "releases": 1, "step": 0, "ruled_out": 0.0}])
    assert history.summary_lines(one, "equinox") == [
        "- `filter_jit` / `jit_flat` (blocked, base): measured in 1 release: nothing to compare"]


def test_the_run_ends_naming_each_release_without_a_result(tmp_path, monkeypatch):
    """A history run whose release did not install still succeeds; its end says so, not only its report."""
    import json

    from configs import config_with

    from jaxpitfalls.across_runs import releases
    from jaxpitfalls.jobs import history_run

    monkeypatch.chdir(tmp_path)
    config = config_with("presets/smoke.yaml", {"history": {"versions": ["0.11.7", "0.99"], "repeats": 1}})
    assert unmeasured_note(config) == ""  # nothing ran yet
    (failed := tmp_path / "failed.json").write_text(json.dumps({"ok": False, "reason": (
        "pip install failed: WARNING: ignored\nERROR: No matching distribution found for equinox==0.99")}))
    run = next(p for p in releases.runs(config) if "/0.99/" in p)
    history_run.measure_release("0.99", "equinox", str(failed), "dispatch", {"id": "x"}, {}, {}, {}, run, "", "")
    assert unmeasured_note(config).splitlines() == [
        "The release history has releases without a result or jobs lost (reports/history.md):",
        "  equinox 0.99: pip install failed: ERROR: No matching distribution found for equinox==0.99"]


def test_a_benchmark_files_memory_plans_are_set_release_by_release_and_a_move_named():
    from jaxpitfalls.across_runs.history import release_plans

    def job(config_id: str, total: int) -> dict:
        plan = {"total_bytes": total, "temporary_bytes": 0, "argument_bytes": total, "output_bytes": 0,
                "donated_bytes": 0, "programs": 1}
        return {"config_id": config_id, "variants": {"jit": {"program_memory": plan}, "jit~twin": {
            "program_memory": plan}, "host": {}}}

    measured = {"0.9.2": [job("n8", 2**20), job("n8", 2**20)], "0.10.0": [job("n8", 2**20)],
                "0.10.1": [job("n8", 3 * 2**19), job("n8", 2**20)]}  # the largest of a release's jobs
    table = release_plans.plans_table(measured)
    assert table[["release", "variant", "total_bytes"]].values.tolist() == [
        ["0.9.2", "jit", 2**20], ["0.10.0", "jit", 2**20], ["0.10.1", "jit", 3 * 2**19]]  # no twin, no NumPy
    text = "\n".join(release_plans.section(table, "jax"))
    assert "1 of 1 moved" in text and "- `n8` `jit`: jax 0.10.0 -> 0.10.1: 1 -> 1.5 MiB" in text
    assert release_plans.section(release_plans.plans_table({"0.9.2": [job("n8", 8) | {"variants": {}}]}), "jax") == []


def test_the_report_says_on_which_degrees_of_freedom_it_read_the_jobs():
    rows = pd.DataFrame([{"release": f"r{r}", "job": 1, "config_id": "base", "variant": "v", "baseline": "floor",
                          "mode": "m", "ratio": 1.0, "ratio_ci_low": 0.97, "ratio_ci_high": 1.03, "ratio_df": 5.0,
                          "versions": ""} for r in range(4)])
    assert "own degrees of freedom (`ratio_df`)" in df_words(release_levels(rows))
    assert "A job lacks `ratio_df`" in df_words(release_levels(rows.drop(columns="ratio_df")))
