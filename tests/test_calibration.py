"""The calibration of the lockstep statistics, on a fake machine: a side slowed by a known fraction (the
calibration knob) adds that fraction of busy work to every sample; over many A/A and A/B rows the report counts
false alarms, coverage of the true factor and how often a known change is found, each with a Wilson interval
and against its target."""

from __future__ import annotations

import functools
import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from test_lockstep import BASE_S, Machine

from jaxpitfalls.across_runs.calibration import calibration, timed
from jaxpitfalls.across_runs.comparison import lockstep
from jaxpitfalls.across_runs.settings import History
from jaxpitfalls.harness import stats
from jaxpitfalls.harness.injected import SLOWDOWN_ENV, inject, injected_fraction, slowed
from jaxpitfalls.harness.lockstep import Side, in_lockstep

SIDES = {"a": 0.0, "a2": 0.0, "b5": 0.05, "b10": 0.10}


class Clock:
    """A clock that advances 0.4 ms each time it is read."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 4e-4
        return self.t


def test_the_knob_adds_its_fraction_of_a_sample_as_work_and_refuses_a_nonsense_one():
    sample = slowed(lambda: 0.010, 0.10, clock=Clock())
    assert 0.011 <= sample() <= 0.0115  # 10 ms + at least 1 ms of busy work (read on the clock in 0.4 ms steps)
    assert injected_fraction({SLOWDOWN_ENV: "0.05"}) == 0.05 and injected_fraction({}) == 0.0
    with pytest.raises(ValueError, match="0 <= f < 1"):
        injected_fraction({SLOWDOWN_ENV: "1.5"})
    untouched = {"blocked": {"v": lambda: 0.01}}
    assert inject(untouched, 0.0) is untouched


class SlowedWorker:
    """One side's worker on the shared fake machine, its samples `1 + fraction` times the other's."""

    def __init__(self, machine: Machine, fraction: float) -> None:
        self.machine, self.fraction, self.cpu_s = machine, fraction, 0.0
        self.description = {"modes": {"blocked": list(BASE_S)}, "environment": {"packages": {}},
                            "injected_slowdown": fraction}

    def calls_per_sample(self) -> dict[str, dict[str, int]]:
        return {"blocked": dict.fromkeys(BASE_S, 1)}

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        return [self.machine.sample(BASE_S[variant] * (1 + self.fraction)) for _ in range(samples)]

    def close(self) -> None:
        pass


def _calibration_table(configs: int) -> pd.DataFrame:
    """Every side in lockstep on `configs` fake configurations (a machine each): A/A and 5% and 10% rows."""
    sides = [Side(name) for name in SIDES]
    docs = []
    for i in range(configs):
        machine = Machine(seed=i)
        timed = in_lockstep(sides, lambda side, process, m=machine: SlowedWorker(m, SIDES[side.name]),
                            processes=3, rounds=20, samples_per_block=1, seed=i)
        docs.append(lockstep.side_by_side({"study": "dispatch", "config_id": f"c{i}", "timed": timed}))
    return pd.concat(docs, ignore_index=True)


def test_false_alarms_coverage_and_power_are_counted_against_their_targets(monkeypatch):
    # the edge runs' and the thirds' own rates are tested in test_gate_power and test_between_processes: here the
    # page's lines, from fewer draws
    monkeypatch.setattr(calibration, "edge_runs", functools.partial(calibration.edge_runs, runs=50))
    monkeypatch.setattr(calibration, "row_thirds", functools.partial(calibration.row_thirds, draws=100))
    table = _calibration_table(configs=25)
    assert sorted(table.injected.round(4).unique()) == [1.0, 1.05, 1.1]
    found = calibration.summary(table).set_index(["injected", "quantity"])
    aa, ten = found.loc[1.0], found.loc[1.1]
    assert aa.loc["flagged", "rows"] == 50 and aa.loc["flagged", "share"] <= 0.10
    assert aa.loc["covers", "share"] >= 0.85 and aa.loc["covers", "target"] == "92%-98%"
    assert ten.loc["regressed", "share"] >= 0.9 and ten.loc["regressed", "met"] == "by its point"
    assert found.loc[(1.05, "excludes_1"), "target"] == "80%-100%" and found.loc[(1.05, "excludes_1"), "met"] == "yes"
    assert found.loc[(1.05, "regressed"), "met"] == "by its point"  # 0 of 50 rows: 0% [0%, 7.9%] against 0-2.5%
    assert found.loc[(1.05, "regressed"), "target"] == "0%-2.5%"
    low, high = found.loc[(1.0, "flagged"), ["share_low", "share_high"]]
    assert low <= found.loc[(1.0, "flagged"), "share"] <= high
    compare = {"study": "dispatch", "sides": {name: {"env": {SLOWDOWN_ENV: str(f)}} if f else {}
                                              for name, f in SIDES.items()},
               "processes": 3, "rounds": 20, "threshold": 0.05, "pyperf": {"callable": "", "options": []}}
    text = calibration.markdown(table, calibration.summary(table), 1234.0, compare)
    assert "over 50 rows" in text and "1234 s (20.6 min)" in text and "pyperf" not in text
    assert re.search(r"## In brief\n\n- \*\*Lockstep rows\*\* \(A/A\): \d+ of 50 \(.*\) flagged", text)
    thirds = re.search(r"by third of each job's rows ranked by own spread .* the noisiest (\d+\.\d)%", text)
    assert thirds and 85 <= float(thirds[1]) <= 99 and "**Rows by their own spread.** The A/A rows, by third" in text
    assert re.search(r"- \*\*The gate\*\*: a 10% slowdown in every row named in \d+ of 50 rows", text)
    gate = re.search(r"- injected 1\.1: (\d+) of 50 rows named .*target at least 90%: met by its point, its "
                     r"interval reaching beyond\)", text)  # 25 configurations cannot confirm 90%
    assert "## The gate, after its correction" in text and gate and int(gate[1]) >= 45
    assert re.search(r"- A/A \(a2\): the gate passed on this one run's 50 rows, and failed on \d+\.\d% of its 200 "
                     r"subsets of 16 \(the target, at most 5% of A/A runs, is a rate over runs", text)
    assert "## What this page calibrates, and what it does not" in text and "Benjamini-Hochberg" in text
    assert "a 5% and 10% slowdown is found" in text and "null history below" not in text  # none ran here
    median = re.search(r"- injected 1\.1: its 50 rows' ratios median (\d\.\d+)", text)
    assert median and abs(float(median[1]) - 1.1) < 0.01 and "on the mark" in text  # the knob adds its factor
    missed = calibration.knob_lines(table.assign(ratio=np.where(table.injected > 1.07, table.ratio * 1.03,
                                                                table.ratio)))
    off = re.search(r"\*\*off the mark\*\* by \+(\d\.\d)%", missed[3])  # the 10% knob 3% past its factor
    assert "on the mark" in missed[2] and off and abs(float(off[1]) - 3) < 0.5
    assert "only the A/A rows test the intervals here" in calibration.knob_lines(table, proportional=False)[2]
    assert "the same factor in every row, as far as this tells" in calibration.knob_lines(table)[3]
    rng = np.random.default_rng(0)  # the 10% knob adding 6-14% by row: its truths are not all 1.1
    bumps = np.exp(rng.normal(0, 0.03, len(table)))
    scattered = table.assign(ratio=np.where(table.injected > 1.07, table.ratio * bumps, table.ratio))
    assert "**scatter beyond the A/A rows'**" in calibration.knob_lines(scattered)[3]
    assert "sides a, a2, b5 (0.05 slower), b10 (0.1 slower), 3 processes x 20 rounds a side" in text


@pytest.mark.parametrize(("k", "n", "expected"), [(0, 100, (0.0, 0.037)), (95, 100, (0.888, 0.978)),
                                                  (50, 100, (0.404, 0.596))])
def test_wilson_intervals(k, n, expected):
    assert np.allclose(stats.wilson(k, n), expected, atol=1e-3)


def _pyperf_doc(offset: float, spread: float, seed: int = 0) -> dict:
    """A pyperf A/A pair of 20 processes x 3 values around 50 ms, each process off by its own `spread` (a fresh
    process's layout), the second run `offset` times the first."""
    rng = np.random.default_rng(seed)

    def run(scale: float) -> dict:
        levels = 0.05 * scale * (1 + rng.normal(0, spread, 20))
        return {"values_s": [list(level * (1 + rng.normal(0, 0.01, 3))) for level in levels], "wall_s": 150.0,
                "timed_s": 40.0, "prepare_s": 50.0}

    return {"config_id": "base", "mode": "blocked", "variant": "filter_jit", "runs": {"a": run(1.0), "a2": run(offset)}}


def test_pyperf_beside_the_lockstep_is_costed_at_the_same_detectable_change():
    """pyperf's own t-test pools its processes' values; the interval over processes does not, so with a 3%
    offset per fresh process the pooled test claims a precision the processes do not have."""
    from jaxpitfalls.across_runs.calibration.pyperf_beside import OVER_PROCESSES, beside, time_to_target

    table = pd.DataFrame([{"config_id": "base", "mode": m, "variant": v, "side": side, "against": "a",
                           "injected": injected, "ratio": 1.01,
                           "ratio_ci_low": 0.985, "ratio_ci_high": 1.035, "processes": 5, "rounds": 30,
                           "verdict": "unchanged"} for m in ("blocked", "pipelined") for v in ("filter_jit", "jit")
                          for side, injected in (("a2", 1.0), ("b5", 1.05))])
    job = {"config_id": "base", "sides": {"a": {}, "a2": {}, "b5": {}, "b10": {}}, "job_seconds": 320.0}
    rows = beside(table, [job], [_pyperf_doc(1.0, spread=0.03)]).set_index("harness")
    lockstep = rows.loc["lockstep (this calibration's a2 vs a)"]
    assert lockstep.machine_s == 320.0 * 2 / 4 / 4  # one pair of sides of four, one row of four
    assert lockstep.half_width == pytest.approx(0.025 / 1.01) and not lockstep.change_found
    assert time_to_target(0.10, 100.0) == pytest.approx(400.0)  # twice the width: four times the samples
    own = rows.loc["pyperf, its own t-test (compare_to)"]
    ours = rows.loc[OVER_PROCESSES]
    assert own.machine_s == ours.machine_s == 300.0 and own.samples == "20 processes x 3 values, a side"
    assert own.timing_s == 80.0 and pd.isna(lockstep.timing_s)
    assert own.unprepared_s_to_5pct == pytest.approx(own.machine_s_to_5pct * 200 / 300)  # without 100 s of it
    assert ours.half_width > 1.2 * own.half_width  # resampling processes: as wide as their offsets make it
    slowed = beside(table, [job], [_pyperf_doc(1.10, spread=0.03)]).set_index("harness")
    assert slowed.loc[OVER_PROCESSES].change_found  # a 10% change is found
    text = calibration.markdown(table, calibration.summary(table),
                                320.0, {"study": "dispatch", "sides": {"a": {}, "a2": {}}, "processes": 5,
                                        "rounds": 30, "threshold": 0.05,
                                        "pyperf": {"callable": "blocked/filter_jit",
                                                                 "options": []}}, rows.reset_index())
    assert "## Beside pyperf, on the same callable" in text and "(blocked/filter_jit at the base)" in text


def test_each_harness_is_judged_over_its_replicate_pairs():
    """Five pyperf A/A pairs and a lockstep pair in each of six configurations: each harness's false alarms
    counted over its pairs, and pyperf's cost to +-5% over the lockstep's with an interval that covers the
    ratio the pairs were built with."""
    from jaxpitfalls.across_runs.calibration.pyperf_beside import (
        beside,
        cost_summary,
        pyperf_section,
        same_configuration,
    )

    configs = [f"layers{n}" for n in range(1, 7)]
    table = pd.DataFrame([{"config_id": c, "mode": "blocked", "variant": "filter_jit", "side": "a2", "against": "a",
                           "injected": 1.0, "ratio": 1.0 + 0.004 * i, "ratio_ci_low": 0.98 + 0.004 * i,
                           "ratio_ci_high": 1.02 + 0.004 * i, "processes": 5, "rounds": 30,
                           "verdict": "unchanged"} for i, c in enumerate(configs)])
    jobs = [{"config_id": c, "sides": {"a": {}, "a2": {}}, "job_seconds": 60.0 * (1 + i % 2)}
            for i, c in enumerate(configs)]
    docs = [_pyperf_doc(1.0, spread=0.03, seed=seed) | {"config_id": "layers1"} for seed in range(5)]
    pairs = beside(table, jobs, docs)
    assert list(pairs.pair[:6]) == configs and list(pairs.pair[6:]) == [str(n) for n in range(1, 6) for _ in "ab"]
    summary = cost_summary(pairs).set_index("harness")
    lockstep = summary.loc["lockstep (this calibration's a2 vs a)"]
    assert lockstep.pairs == 6 and lockstep.false_alarms == "0 of 6 (0% [0%, 39%])"
    assert lockstep.against_lockstep == pytest.approx(1.0) and lockstep.against_low < 1 < lockstep.against_high
    own = summary.loc["pyperf, its own t-test (compare_to)"]
    assert own.pairs == 5 and own.low < own.machine_s_to_5pct < own.high
    costs = pairs.set_index("harness").machine_s_to_5pct
    truth = np.exp(np.log(costs.loc["pyperf, its own t-test (compare_to)"]).mean()
                   - np.log(costs.loc["lockstep (this calibration's a2 vs a)"]).mean())
    assert own.against_lockstep == pytest.approx(truth) and own.against_low < truth < own.against_high
    text = "\n".join(pyperf_section(pairs, {"callable": "blocked/filter_jit", "options": []}, cost_summary(pairs),
                                     same_configuration(pairs)))
    assert "5 such pair(s)" in text and "| layers6 " in text
    config, lockstep_cost, pyperf_cost, _ = same_configuration(pairs)  # like for like: pyperf's configuration
    assert config == "layers1" and lockstep_cost == costs.loc["lockstep (this calibration's a2 vs a)"].iloc[0]
    assert f"pyperf timed (layers1), the lockstep's one A/A pair cost {lockstep_cost:.1f} s" in text
    assert "timed apart" not in text
    apart = "\n".join(pyperf_section(pairs, {"callable": "blocked/filter_jit", "options": [], "apart_s": 1020.0},
                                      cost_summary(pairs), same_configuration(pairs)))
    assert "These pairs were timed apart from this run's lockstep jobs (`make calibrate-pyperf`" in apart
    assert "in 1020 s (17.0 min) of machine time that this run's summary does not count." in apart


def test_pyperfs_callable_and_options_are_read_off_its_pairs_and_pairs_timed_apart_are_not_the_runs_time():
    """The page says what pyperf ran as its pairs recorded it, whatever the config says now; pairs the published
    calibration kept (compare.pyperf.published) are costed apart, not in the run's machine time."""
    from jaxpitfalls.across_runs.settings import PYPERF_OPTIONS, Compare
    from jaxpitfalls.configcheck.schema import fill_defaults

    def compare(published: bool) -> Compare:
        block = {"pyperf": {"callable": "blocked/jit_flat", "options": ["-p", "3"], "published": published}}
        fill_defaults(block, yaml.safe_load(timed.CONFIG_SCHEMA.read_text())["properties"]["compare"])
        return Compare.of(block)

    pairs = [{"mode": "blocked", "variant": "filter_jit", "options": [*PYPERF_OPTIONS, "-l", "1"],
              "runs": {"a": {"wall_s": 100.0}, "a2": {"wall_s": 110.0}}}] * 2
    here, apart = calibration._pyperf_ran(pairs, compare(False)), calibration._pyperf_ran(pairs, compare(True))
    assert here == {"callable": "blocked/filter_jit", "options": ["-l", "1"], "apart_s": None}
    assert apart == {"callable": "blocked/filter_jit", "options": ["-l", "1"], "apart_s": 420.0}
    assert calibration._pyperf_ran([], compare(False)) == {"callable": "blocked/jit_flat", "options": ["-p", "3"],
                                                           "apart_s": None}


def test_a_runs_pyperf_pairs_are_gathered_in_order_into_one_file(tmp_path):
    from jaxpitfalls.jobs.pyperf_pair import gather

    paths = []
    for n in (1, 2, 3):
        paths.append(tmp_path / f"pair{n}.json")
        paths[-1].write_text(json.dumps({"pair": n}))
    gather([str(p) for p in paths], str(tmp_path / "pairs.json"))
    assert json.loads((tmp_path / "pairs.json").read_text()) == [{"pair": 1}, {"pair": 2}, {"pair": 3}]


def test_a_null_history_counts_the_series_it_names_a_step_in():
    """Four series of a package the timed code never calls: one with a step named (a false alarm), one with a
    step resting on one release's job (listed, not named), two with none: 1 of 4 series, with its interval."""
    steps = pd.DataFrame([
        {"config_id": "base", "variant": "filter_jit", "baseline": "jit_flat", "mode": "blocked", "step": 1,
         "one_release": ""},
        {"config_id": "base", "variant": "jit_partition", "baseline": "jit_flat", "mode": "blocked", "step": 1,
         "one_release": "0.4.1"},
        {"config_id": "base", "variant": "filter_jit", "baseline": "jit_flat", "mode": "pipelined", "step": 0,
         "one_release": None},
        {"config_id": "base", "variant": "jit_partition", "baseline": "jit_flat", "mode": "pipelined", "step": 0,
         "one_release": None}]).assign(between_jobs=None)
    block = {"study": "dispatch", "package": "safetensors", "versions": ["0.4.1", "0.4.2"],
             "with": {"equinox": "0.11.8"}, "repeats": 1, "pins": {}, "pythons": {}, "configs": "base"}
    text = "\n".join(calibration.null_history(steps, 600.0, History.of(block)))
    assert "1 of 4 series with a step named (25.0% [4.6%, 69.9%]" in text
    assert "1 step(s) resting on one release's job listed, not named" in text and "600 s (10.0 min)" in text
    assert "release of safetensors (0.4.1, 0.4.2), with equinox 0.11.8 fixed: the config's history" in text
    assert "The spread between jobs of one release is not estimated" in text

    twice = steps.assign(one_release="", between_jobs=[0.01, 0.01, 0.02, 0.03])  # every release in two jobs
    text = "\n".join(calibration.null_history(twice, 600.0, History.of(block | {"repeats": 2})))
    assert "2 of 4 series with a step named" in text
    assert "Each release timed in 2 jobs: between jobs of one release, beyond their own intervals, a spread of " \
           "1.5% in median over the series (largest 3.0%)" in text
    ran = pd.Series(["2026-12-07T19:56:40+00:00", "2026-12-07T19:50:02+00:00", ""])  # timed apart from the lockstep
    text = "\n".join(calibration.null_history(twice, 600.0, History.of(block | {"repeats": 2}), ran))
    assert "600 s (10.0 min); its jobs ran 2026-12-07 19:50 to 2026-12-07 19:56 UTC." in text


def test_a_kept_null_history_is_judged_by_this_checkout_s_fit_from_its_job_table():
    """A published calibration whose steps table named a step (by the fit of its day) is rejudged from its job
    table: four flat releases name none today, and the page says so."""
    from jaxpitfalls.across_runs.calibration.timed import Timed

    versions = ["0.4.1", "0.4.2", "0.4.3", "0.4.4"]
    ratios = pd.DataFrame([{"release": v, "job": 1, "config_id": "base", "variant": "filter_jit",
                            "baseline": "jit_flat", "mode": "blocked", "ratio": r, "ratio_ci_low": r / 1.02,
                            "ratio_ci_high": r * 1.02, "versions": "jax 0.4.34"}
                           for v, r in zip(versions, [1.0, 1.004, 0.998, 1.001], strict=True)])
    published = pd.DataFrame([{"config_id": "base", "variant": "filter_jit", "baseline": "jit_flat",
                               "mode": "blocked", "step": 1, "one_release": "", "between_jobs": None}])
    block = {"study": "dispatch", "package": "safetensors", "versions": versions, "with": {}, "repeats": 1,
             "pins": {}, "pythons": {}, "configs": "base"}
    timed = Timed(pd.DataFrame(), [], [], {}, block, published, ratios, 60.0, "")
    nulls, lines = calibration._null_history(timed, History.of(block))
    assert nulls == {"null_series": (0, 1)}  # one job a release: nothing simulated, no power
    assert "0 of 1 series with a step named" in "\n".join(lines)


def test_the_run_summary_judges_the_machine_time_against_the_target_the_run_kept(tmp_path):
    """The calibration's own run summary sums what it timed, part by part, against the target it kept (120
    minutes for make calibrate); a kept calibration without one is summed and not judged."""
    from jaxpitfalls.across_runs.calibration import timed
    from jaxpitfalls.report.tables.run_summary import machine_time_lines

    parts = {"lockstep jobs": 6000.0, "pyperf's pairs": 0.0, "the null history": 1500.0}
    missed, met, none = (" ".join(machine_time_lines(parts, target)) for target in (7200, 7500, 0))
    assert "7500 s (125.0 min) against the run's target of 7200 s (120 min): **missed**; lockstep jobs 6000 s, the " \
           "null history 1500 s." in missed and "pyperf" not in missed
    assert "against the run's target of 7500 s (125 min): met" in met and "target" not in none
    table = tmp_path / "lockstep.csv"
    pd.DataFrame({"study": ["dispatch"]}).to_csv(table, index=False)
    for target in (7200.0, 0.0):
        timed.keep(tmp_path / "kept", str(table), [], [], {}, {}, run_target_s=target)
        assert timed.read(tmp_path / "kept").run_target_s == target


def test_the_page_says_what_it_does_not_calibrate():
    """The page names what it calibrates and what it does not (separate runs, real changes that differ by
    process), from the run's own counts; without a published reference, it says so."""
    from workflow_copy import ROOT

    from jaxpitfalls.across_runs.calibration.brief import reach_lines

    page = (ROOT / "docs" / "results" / "calibration.md").read_text()
    processes, _ = calibration.timed_as(timed.read(ROOT / "docs" / "results" / "calibration").table, {})
    # the committed page: 3 sides of 52 rows against the first, 13 configurations, a null history of 2 jobs
    assert "\n".join(reach_lines(156, 52, processes, 13, [1.05, 1.1], 2, studies=True)) in page
    assert "no published reference was read" in "\n".join(reach_lines(312, 104, "5", 13, [1.1], None))
    assert "Benjamini-Hochberg" in page and "Holm" not in page


def test_the_brief_gives_each_decision_its_number_and_interval():
    """Every part a calibration measured gets its line, numbers first; a part it did not run gets none."""
    from jaxpitfalls.across_runs.calibration.brief import Measured, brief

    found = calibration.summary(_calibration_table(configs=3))
    twins = pd.DataFrame([{"processes": 2, "rows": 62, "covered": 62, "share": 1.0, "share_low": 0.94,
                           "share_high": 1.0}])
    simulated = pd.DataFrame([{"processes": p, "rows": 100, "covered": 95, "share": 0.95, "share_low": 0.89,
                               "share_high": 0.98} for p in (2, 3, 5)])
    costs = pd.DataFrame([{"harness": "lockstep (a2 vs a)", "pairs": 13, "found": 0,
                           "false_alarms": "0 of 13 (0% [0%, 23%])",
                           "against_lockstep": 1.0, "against_low": 0.8, "against_high": 1.2},
                          {"harness": "pyperf, its own t-test (compare_to)", "pairs": 5, "found": 2,
                           "false_alarms": "2 of 5 (40% [12%, 77%])",
                           "against_lockstep": 9.4, "against_low": 4.1, "against_high": 21.5}])
    rates = pd.DataFrame([{"repeats": 2, "between_releases": between, "offsets": offsets, "histories": 500,
                           "share": share, "share_low": 0.004, "share_high": 0.023}
                          for between, offsets, share in (("as measured", 1.0, 0.01), ("95% upper bound", 1.95, 0.02),
                                                          ("none", 0.0, 0.002))])
    medians = simulated.assign(share=0.96)
    like = ("layers1", 2.0, 42.0, 17.0)  # the lockstep's pair there, pyperf's with and without its preparation
    text = "\n".join(brief(Measured(found, None, costs, twins, simulated, (0, 10), rates, medians=medians,
                                    like=like)))
    assert "- **The studies' intervals** (published reference; target 93%-97% covered, the quietest and noisiest " \
           "third 92%-98%): A/A twins covered 1 in 62 of 62, 100.0% [94.0%, 100.0%] at 2 processes: cannot tell; " \
           "rows simulated from each job's spreads covered in 95.0% [89.0%, 98.0%] at 2 processes: by its point; " \
           in text
    assert "medians, 96.0% [89.0%, 98.0%] at 2 processes: by its point; " in text
    assert re.search(r"- \*\*Lockstep rows\*\* \(A/A\): \d+ of \d+ \([\d.]+% \[[\d.]+%, [\d.]+%\]; target 0%-5%: "
                     r"(yes|by its point|cannot tell|no)\) flagged", text)  # each rate with the table's word
    assert "pyperf's own test called 2 of 5 (40% [12%, 77%]) changed, the lockstep 0 of 13" in text
    assert "the lockstep 0 of 13 (0% [0%, 23%]): not told apart (Fisher's exact p = 0.07); to +-5% at the " \
           "configuration pyperf timed, pyperf as run here cost 21.0x the lockstep's one pair there (no interval), " \
           "8.5x at the least (pyperf's workers' preparation taken out)." in text
    assert "the null history named a step in 0 of 10 series; of 500 simulated null histories, 1.0% [0.4%, 2.3%] " \
           "named one at 2 job(s) a release (target at most 5%); at the offsets between releases' 95% upper bound " \
           "(x1.95 their variance), 2.0% [0.4%, 2.3%] at 2; without an offset between releases, 0.2% at 2." in text
    assert "**The gate**" not in text  # not measured here
    assert brief(Measured(found.iloc[0:0])) == []
    bounded = rates.assign(offsets=rates.offsets.clip(upper=1.0))  # the measured offsets already bound them
    text = "\n".join(brief(Measured(found, None, null_series=(0, 10), null_rates=bounded)))
    assert "95% upper bound (the offsets as measured: histories drawn with them estimate them as small in at most " \
           "5%, so the estimate already bounds them and these rows repeat the measured ones), 2.0%" in text


def test_the_brief_judges_the_share_of_rows_at_the_gates_precision():
    """The rows within the half-width where one slowed 10% is named in 90% of runs, against the 80% target."""
    from jaxpitfalls.across_runs.calibration.brief import Measured, brief

    found = calibration.summary(_calibration_table(configs=3))
    gates = pd.DataFrame([{"injected": 1.1, "named": 92, "rows": 104, "named_share": 0.885, "named_low": 0.64,
                           "named_high": 0.97, "gate_fails": True, "gate_fails_16": 1.0}])
    for at_gate, verdict in (
            ((249, 312, 0.0285, 0.70, 0.87), "249 of 312 (79.8% [70.0%, 87.0%] over the configurations; target at "
                                            "least 80%: cannot tell)"),
            ((249, 312, 0.0285, 0.70, 0.79), "249 of 312 (79.8% [70.0%, 79.0%] over the configurations; target at "
                                            "least 80%: **missed**)"),
            ((268, 312, 0.0285, 0.75, 0.93), "268 of 312 (85.9% [75.0%, 93.0%] over the configurations; target at "
                                            "least 80%: met by its point, its interval reaching beyond)"),
            ((9, 10, 0.0285, 0.85, 0.95), "9 of 10 (90.0% [85.0%, 95.0%] over the configurations; target at least "
                                          "80%: met)")):
        text = "\n".join(brief(Measured(found, gates, at_gate=at_gate)))
        assert f"rows within ±2.9% (where one slowed 10% clears the threshold in 90% of runs before the " \
               f"correction): {verdict}" in text


def test_a_missed_power_target_says_whether_its_interval_still_reaches_it():
    """80.8% named misses 90% by its point; where the interval over the effective rows reaches 90% the page cannot
    tell, and where it stops short the target is missed."""
    from jaxpitfalls.across_runs.calibration.gate_power import COLUMNS, gate_lines

    def line(high: float) -> str:
        gate = pd.DataFrame([dict.fromkeys(COLUMNS, np.nan) | {
            "side": "b10", "injected": 1.1, "rows": 104, "named": 84, "named_share": 84 / 104, "named_low": 0.53,
            "named_high": high, "gate_fails": True}])
        return next(x for x in gate_lines(gate, 0.05) if x.startswith("- injected 1.1"))

    assert "target at least 90%: cannot tell: below 90% by its point, its interval reaching it)" in line(0.94)
    assert "**missed**)" in line(0.87)


@pytest.mark.parametrize(("share", "low", "high", "expected"), [
    (0.95, 0.93, 0.97, "yes"), (0.95, 0.92, 0.98, "yes"), (0.92, 0.90, 0.95, "by its point"),  # edges inclusive
    (0.95, 0.90, 0.99, "by its point"), (0.99, 0.90, 0.999, "cannot tell"), (0.99, 0.98, 0.999, "cannot tell"),
    (0.70, 0.60, 0.80, "no"), (0.99, 0.985, 0.995, "no")])
def test_a_target_is_met_only_where_the_whole_interval_meets_it_and_missed_where_it_misses(share, low, high,
                                                                                           expected):
    from jaxpitfalls.harness import clustered

    assert clustered.against(share, low, high, (0.92, 0.98)) == expected


def test_a_side_is_said_timed_as_its_jobs_ran_each_configuration_allocated_its_own_or_not():
    ran = {"processes": 5, "rounds": 30}
    same = pd.DataFrame({"processes": [5, 5], "rounds": [30, 30]})
    allocated = pd.DataFrame({"processes": [3, 8, 5], "rounds": [55, 6, 30]})
    assert calibration.timed_as(same, ran) == ("5", "30")
    assert calibration.timed_as(allocated, ran) == ("3-8", "6-55")
    assert calibration.timed_as(same.iloc[:0], ran) == ("5", "30")  # no row kept: the config's
