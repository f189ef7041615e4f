"""Aggregation re-checks results before they reach a table: the negative control and mixed environments."""

from __future__ import annotations

import copy
import json
import os

import pandas as pd
import pytest

from jaxpitfalls import results
from jaxpitfalls.harness.variants import VariantsIndistinguishable
from jaxpitfalls.report.scorecard import audit
from jaxpitfalls.report.tables.aggregate import aggregate
from jaxpitfalls.report.tables.environments import IncomparableResults


def _doc(config_id: str) -> dict:
    summary = {"n": 2, "median": 0.01, "mean": 0.01, "std": 0.0, "iqr": 0.0, "min": 0.01, "max": 0.01}
    mode = {"samples_s": [0.01, 0.01], "summary": summary, "compiles_in_timed_region": 0,
            "contended": [False, False], "calls_per_sample": 1}
    window = {"wall_s": 0.3, "own_cpu_s": 0.3, "others_share": 0.02, "steal_share": 0.01, "rounds": 2,
              "contended": False, "kept": True}
    machine = {"measurable": True, "rounds_kept": 2, "rounds_retried": 0, "rounds_contended_kept": 0,
               "others_share_median": 0.02, "others_share_max": 0.02, "steal_share_median": 0.01,
               "steal_share_max": 0.01, "waited_s": 0.0, "waits": [], "own_cpu_per_wall": 1.0,
               "load_average": [0.4, 0.5], "cpu_mhz": [], "gc_disabled_in_samples": True,
               "policy": {"on_contention": "retry", "max_busy_share": 0.2, "max_wait_s": 300}, "windows": [window],
               "yardstick_s": [0.0026, 0.0026], "places": {"a": [0, 1], "b": [1, 0]}}
    variant = {"modes": {"blocked": mode}, "calls": 5, "compiles_in_warmup": 1}
    return {
        "study": "dispatch", "config_id": config_id,
        "config": {"id": config_id, "model": "bert-L1-H8", "axes": ["layers"], "layers": 1},
        "settings": {}, "floor": "b", "memory": {"blocked": {"host_peak_bytes": 1, "device_peak_bytes": None}},
        "machine": {"blocked": machine},
        "variants": {"a": variant | {"signature": {"callable": "x"}}, "b": variant | {"signature": {"callable": "y"}}},
        "comparisons": [{"variant": "a", "baseline": "b", "mode": "blocked", "ratio": 1.0, "ratio_ci_low": 1.0,
                         "ratio_ci_high": 1.0, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0}],
        "checks": {"outputs_agree": {"reference": "b", "compared": "bitwise", "values": 1, "outputs": "o",
                                     "max_abs_difference": {"a": 0.0, "b": 0.0},
                                     "bitwise_equal": {"a": True, "b": True}},
                   "signatures_distinct": {"variants": 2, "pairs_compared": 1, "distinct_signatures": 2}},
        "environment": {"python": "3.11", "packages": {"jax": "0.10.2"}, "backend": "cpu", "device_kind": "cpu",
                        "device_count": 1, "cpu_model": "x", "xla_flags": "", "git": {"commit": None, "dirty": None},
                        "config_hash": "h", "timestamp": "t"},
    }


def _write(tmp_path, docs):
    paths = []
    for doc in docs:
        path = tmp_path / f"{doc['config_id']}.json"
        path.write_text(json.dumps(doc))
        results.read_result(path)  # the fixtures are valid results
        paths.append(str(path))
    return paths


def test_a_result_whose_variants_share_a_signature_is_refused(tmp_path):
    same = _doc("c1")
    same["variants"]["b"]["signature"] = dict(same["variants"]["a"]["signature"])
    with pytest.raises(VariantsIndistinguishable, match="c1.json"):
        aggregate(_write(tmp_path, [_doc("c0"), same]), [])


def test_results_from_different_environments_are_not_mixed(tmp_path):
    other = copy.deepcopy(_doc("c1"))
    other["environment"]["packages"] = {"jax": "0.9.0"}
    with pytest.raises(IncomparableResults, match="packages"):
        aggregate(_write(tmp_path, [_doc("c0"), other]), [])


def test_run_span_counts_the_latest_invocation_only():
    import pandas as pd

    from jaxpitfalls.report.tables.run_summary import span_seconds

    jobs = pd.DataFrame({"seconds": [10.0, 20.0, 30.0, 5.0], "end": [100.0, 1000.0, 1025.0, 1030.0]})
    assert span_seconds(jobs) == (50.0, 1)  # the job that ended at 100 s is from an earlier run
    assert span_seconds(jobs.iloc[1:]) == (50.0, 0)
    # a fix-and-rerun within a minute of the last job: the invocation's own jobs, as recorded, not the idle gap
    rerun = jobs.assign(this_invocation=[False, False, False, True])
    assert span_seconds(rerun) == (5.0, 3) and span_seconds(jobs.assign(this_invocation=False)) == (None, 4)


def test_the_jobs_of_this_invocation_are_those_started_after_its_log(tmp_path):
    import os
    import time

    from jaxpitfalls.report.tables.run_summary import invocation_start, run_summary

    assert invocation_start(tmp_path) is None
    (tmp_path / ".snakemake" / "log").mkdir(parents=True)
    for name, text in (("2026-12-05T101500.000000.snakemake.log", "localrule render_report:\n"),
                       ("2026-12-05T152107.694858.snakemake.log", "localrule render_report:\n"),
                       ("2026-12-05T152200.000000.snakemake.log", "Unlocked working directory.\n")):  # --unlock's
        (tmp_path / ".snakemake" / "log" / name).write_text(text)
    since = invocation_start(tmp_path)
    assert time.localtime(since)[:6] == (2026, 12, 5, 15, 21, 7)
    paths = []
    for rule, seconds, end in (("older", 30.0, since - 5), ("now", 10.0, since + 11)):
        path = tmp_path / "benchmarks" / rule / "job.tsv"
        path.parent.mkdir(parents=True)
        path.write_text(f"s\tmax_rss\n{seconds}\t1.0\n")
        os.utime(path, (end, end))
        paths.append(str(path))
    assert list(run_summary(paths, since=since).this_invocation) == [False, True]
    assert "this_invocation" not in run_summary(paths)


def test_claims_are_judged_per_process_on_the_processes_every_job_ran():
    """A job given a third process by measure.target_precision beside jobs of two: judged alone, its third
    process's rows would lack every other configuration (the report failed on the base's missing row)."""
    from jaxpitfalls.report.tables.aggregate import processes_of

    assert processes_of({"checks": pd.DataFrame({"processes": [2, 3, 2]})}) == ["0", "1"]
    assert processes_of({"checks": pd.DataFrame({"processes": [1, 3]})}) == []


def test_several_processes_give_pooled_and_per_process_rows_and_opposite_claims_are_unstable(tmp_path):
    from jaxpitfalls import plan
    from jaxpitfalls.harness.processes import merge
    from jaxpitfalls.report.scorecard.build import judged_per_process
    from jaxpitfalls.report.tables.aggregate import processes_of, read_tables

    docs = [_doc("c0"), _doc("c0")]
    docs[1]["comparisons"][0] |= {"ratio": 1.3, "ratio_ci_low": 1.2, "ratio_ci_high": 1.4}
    merged = merge(docs) | {k: docs[0][k] for k in ("study", "config_id", "config", "settings", "environment")}
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    tables = aggregate(_write(tmp_path, [merged]), [str(overhead)])
    assert len(tables["overhead"]) == 1  # joined with the pooled step only
    assert sorted(set(tables["steps"].process)) == ["0", "1", "all"] and len(tables["steps"]) == 2 * 3
    checks = tables["checks"].iloc[0]
    assert checks.processes == 2 and checks.rounds_kept == 4 and checks.others_share_max == 0.02
    paths = plan.table_paths("dispatch")
    paths = {name: str(tmp_path / f"{name}.csv") for name in paths}
    for name, table in tables.items():
        table.to_csv(paths[name], index=False)
    pooled, second = read_tables(paths), read_tables(paths, "1")
    assert processes_of(pooled) == ["0", "1"]
    assert (pooled["comparisons"].process.astype(str) == "all").all()
    assert pooled["comparisons"].process_ratio_max[0] == 1.3
    assert second["comparisons"].ratio.tolist() == [1.3]

    def claim(verdict):
        return {"claim": "a is slower", "measured": "1.1x", "verdict": verdict}

    assert judged_per_process([claim("reproduced")], [[claim("reproduced")], [claim("reproduced")]])[0]["verdict"] \
        == "reproduced"
    unstable = judged_per_process([claim("reproduced")], [[claim("reproduced")], [claim("not reproduced")]])[0]
    assert unstable["verdict"] == "unstable" and "(judged in each process alone: yes, no)" in unstable["measured"]
    # A process that alone cannot tell contradicts nothing: the pooled verdict stands, the split is shown.
    weaker = judged_per_process([claim("reproduced")], [[claim("reproduced")], [claim("inconclusive")]])[0]
    assert weaker["verdict"] == "reproduced"
    assert "(judged in each process alone: yes, inconclusive)" in weaker["measured"]
    assert judged_per_process([claim("inconclusive")], [])[0]["verdict"] == "inconclusive"


def test_interval_rules_have_a_band_where_the_run_cannot_tell():
    from jaxpitfalls.contract.decisions import decide

    def holds(low, high, *edges, how="above"):
        return decide(low, high, *edges, holds=how).outcome

    assert holds(1.01, 1.2, 1) is True and holds(0.8, 0.99, 1) is False and holds(0.95, 1.05, 1) is None
    assert holds(0.95, 1.05, 0.9, 1.1, how="inside") is True
    assert holds(1.11, 1.3, 0.9, 1.1, how="inside") is False and holds(0.7, 0.89, 0.9, 1.1, how="inside") is False
    assert holds(1.05, 1.15, 0.9, 1.1, how="inside") is None and holds(0.8, 1.2, 0.9, 1.1, how="inside") is None
    assert holds(0.8, 0.99, 1, how="below") is True and holds(0.95, 1.05, 1, how="below") is None  # "below 1"
    assert holds(1.01, 1.2, 1, how="below") is False


def test_a_claim_this_hardware_cannot_show_is_not_testable_whatever_its_interval_says():
    """One rule for every bounded claim (claims.applicable): the largest effect this hardware can show (all of
    what the effect consists of removed) below the size the claim needs (the write-up's, judging.claimed_size)
    makes it "not testable" with the bound, "yes" and "no" alike; above it, the claim is judged as measured,
    whatever the interval's width; the undecided reason says what more samples could find; a bound the run's
    interval lies wholly beyond is refuted and not used."""
    from jaxpitfalls.contract.decisions import applicable
    from jaxpitfalls.contract.verdicts import NOT_TESTABLE, Bound, Judged

    copies = Bound(800.0, 17.5, "removing all copies", needs=2.0)  # 800 / 782.5: at most 1.022x, for 2-3x claimed
    no = Judged(measured="0.99x [0.93, 1.05]", verdict="not reproduced", judged_ratio=(0.99, 0.93, 1.05),
                bound=copies)
    shown = applicable(no)
    assert shown.verdict == NOT_TESTABLE and shown.measured == (
        "not testable on this hardware: removing all copies gives at most 1.022x, below the 2x the claim needs; "
        "0.99x [0.93, 1.05]")
    # batched_copy as once published: a "yes" at 1.013x against a claimed 1.5x on hardware that can show 1.046x
    yes = Judged(measured="1.013x [1.005, 1.029]", verdict="reproduced", judged_ratio=(1.013, 1.005, 1.029),
                 bound=Bound(7433.5, 328.5, "removing all it can", needs=1.5))
    assert applicable(yes).verdict == NOT_TESTABLE  # the same rule as for the "no": the estimate decides nothing
    undecided = Judged(measured="1.01x [0.95, 1.08]", verdict="inconclusive", judged_ratio=(1.01, 0.95, 1.08),
                       reason="undecided: ... about 4x the samples", bound=copies)
    assert "the samples" not in applicable(undecided).measured  # no number of samples would decide it
    assert applicable(Judged(measured="not built", verdict="not measured", bound=copies)).measured.endswith(
        "at most 1.022x, below the 2x the claim needs; not built")
    # above the claimed size, judged as measured: a wide interval is inconclusive or decided by where it lies
    wide = Bound(800.0, 400.0, "removing all copies")  # at most 2x, no size claimed beyond the rule's edge
    for verdict, ratio in (("reproduced", (1.6, 1.5, 1.7)), ("not reproduced", (0.9, 0.85, 0.95)),
                           ("reproduced", (1.038, 1.012, 1.068))):
        judged = Judged(measured="x", verdict=verdict, judged_ratio=ratio, bound=wide)
        assert applicable(judged) == judged
    told = applicable(Judged(measured="1.0x", verdict="inconclusive", reason="undecided: crosses 1"))  # no bound
    assert (told.verdict, told.measured, told.reason) == ("inconclusive", "1.0x; undecided: crosses 1", "")
    # a reference run's pipelining: a bound says how much more samples could find
    capped = applicable(Judged(measured="1.008x [0.987, 1.016]", verdict="inconclusive", reason="undecided: ...",
                               judged_ratio=(1.008, 0.987, 1.016), bound=Bound(5856.0, 178.7, "the storage left")))
    assert capped.verdict == "inconclusive" and capped.measured.endswith(
        "undecided: ... (this hardware can show at most 1.031x)"), capped.measured
    # a gain whose whole interval lies beyond a bound of 1.046x refutes the bound (a reference run's scan, 1.078x
    # [1.010, 1.107], only put its estimate beyond one: consistent with it at 95%)
    host = Bound(433.0, 19.2, "the loop's host side", needs=1.3)
    refuted = applicable(Judged(measured="1.100x [1.060, 1.140]", verdict="reproduced",
                                judged_ratio=(1.10, 1.06, 1.14), bound=host))
    assert refuted.verdict == "reproduced" and refuted.measured == (
        "1.100x [1.060, 1.140] (measured beyond the at most 1.046x of the loop's host side: that bound is refuted, "
        "not used)") and refuted.bound is None
    assert applicable(Judged(measured="1.078x", verdict="reproduced", judged_ratio=(1.078, 1.010, 1.107),
                             bound=host)).verdict == NOT_TESTABLE


def test_the_checks_table_shows_what_the_guards_recorded_and_still_reads_older_results(tmp_path):
    import numpy as np

    from jaxpitfalls.harness.variants import require_agree, require_distinct

    older, recorded = _doc("c0"), _doc("c1")
    older["checks"] = {"outputs_agree": True, "signatures_distinct": True, "compiles_in_timed_region": 0}
    outputs = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 2.0, 3.0 + 1e-7])}
    recorded["checks"] = {"outputs_agree": require_agree(outputs, "b", exact=False) | {"outputs": "losses"},
                          "signatures_distinct": require_distinct({n: v["signature"]
                                                                   for n, v in recorded["variants"].items()})}
    demonstrated = recorded["variants"]["a"]["modes"]["blocked"] | {"demonstration": True,
                                                                    "compiles_in_timed_region": 2}
    recorded["variants"]["a"]["modes"] = {"blocked": demonstrated}  # a's own (the fixture's variants share one)
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [older, recorded]), [str(overhead)])["checks"].set_index("config_id")
    older, new = checks.loc["c0"], checks.loc["c1"]
    assert older.outputs_agree.startswith("yes (recorded as true") and older.signatures_distinct.startswith("yes")
    assert new.outputs_agree == "1 variant vs b: within rtol=0.00001, atol=0.000001 (3 values each)"
    assert new.outputs_compared == "losses" and not new.outputs_exact and 0 < new.max_abs_difference < 1e-6
    assert new.signatures_distinct == "2 of 2 (1 pairs compared)"
    assert (new.compiles_in_timed_region, new.compiles_demonstrated) == (0, 2)  # counted from the modes


def test_each_job_s_code_is_in_the_checks_table(tmp_path):
    older, recorded = _doc("c0"), _doc("c1")
    recorded["environment"]["git"] = {"commit": "d08a3ac0123456789", "dirty": True}
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [older, recorded]), [str(overhead)])["checks"].set_index("config_id")
    assert checks.code.to_dict() == {"c0": "unknown", "c1": "d08a3ac+dirty"}


def test_the_checks_table_names_the_variants_whose_processes_lowered_apart(tmp_path):
    """harness.processes.merge keeps a job whose processes ran one code path lowered to different program texts,
    recording them; the checks table names those variants (blank where every process lowered alike)."""
    apart, alike = _doc("c0"), _doc("c1")
    apart["checks"]["programs_lowered_apart"] = {"a": [{"program": "62ce"}, {"program": "be73"}]}
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [apart, alike]), [str(overhead)])["checks"].set_index("config_id")
    assert checks.programs_lowered_apart.fillna("").to_dict() == {"c0": "a", "c1": ""}


def test_the_checks_table_shows_what_opening_a_round_cost_and_how_evenly_it_went_round(tmp_path):
    from jaxpitfalls.harness import stats

    older, recorded, even = _doc("c0"), _doc("c1"), _doc("c2")
    del older["machine"]["blocked"]["places"]
    slow_first = [0.012, 0.010, 0.0105, 0.010]  # first in rounds 0 and 3: median 11 ms against 10.25 elsewhere
    recorded["variants"]["a"]["modes"] = {"blocked": recorded["variants"]["a"]["modes"]["blocked"] | {
        "samples_s": slow_first, "summary": stats.summarize(slow_first), "contended": [False] * 4}}
    recorded["variants"]["b"]["modes"] = {"blocked": recorded["variants"]["b"]["modes"]["blocked"] | {
        "samples_s": [0.01] * 4, "summary": stats.summarize([0.01] * 4), "contended": [False] * 4}}
    recorded["machine"]["blocked"]["places"] = {"a": [0, 1, 1, 0], "b": [1, 0, 0, 1]}
    for name in ("a", "b"):  # every sample alike: no cost, said as none ("0.0% faster" read as a gain)
        even["variants"][name]["modes"]["blocked"] |= {"samples_s": [0.01] * 4, "contended": [False] * 4}
    even["machine"]["blocked"]["places"] = {"a": [0, 1, 1, 0], "b": [1, 0, 0, 1]}
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [older, recorded, even]), [str(overhead)])["checks"].set_index(
        "config_id")
    assert checks.loc["c2"].first_place.startswith("no slower opening a round (")
    assert checks.loc["c1"].first_place == ("7.3% slower opening a round (a, blocked); rounds opened within 0 of "
                                            "each other")
    assert checks.loc["c0"].first_place == "not recorded (an older result)"


def test_the_checks_table_keeps_the_machines_speed_and_the_run_summary_shows_it(tmp_path):
    """A run slower than the last on a slower yardstick reads as the machine, not the code: each job's yardstick
    median (the current workload only: version 1's woke numpy's BLAS threads) goes into the checks table and the
    run summary's machine line."""
    from jaxpitfalls.harness.yardstick import VERSION

    older, recorded = _doc("c0"), _doc("c1")
    recorded["machine"]["blocked"] |= {"yardstick_s": [0.0010, 0.0030, 0.0016], "yardstick_version": VERSION}
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [older, recorded]), [str(overhead)])["checks"]
    speeds = checks.set_index("config_id").yardstick_ms
    assert pd.isna(speeds["c0"]) and speeds["c1"] == pytest.approx(1.6)
    assert "; the yardstick (a fixed Python and numpy workload timed every round) 1.60 ms, its jobs' medians " \
           "1.60-1.60" in audit.quietness_line(checks)
    assert "yardstick" not in audit.quietness_line(checks.drop(columns="yardstick_ms"))  # an older table


def test_an_undecided_interval_says_how_much_narrower_would_decide_it():
    from jaxpitfalls.contract.decisions import decide, to_decide
    # 1.057x [1.043, 1.075] against "at most 1.05": half-width 0.016, its middle 0.009 above the edge (log scale)
    reason = to_decide(1.043, 1.075, 1.05, log=True)
    assert "the interval crosses 1.05 (centred above it); about 3.2x the samples would decide it" in reason
    assert "crosses 1.05 (centred below it)" in to_decide(0.95, 1.06, 1.05, log=True)  # which way it leans
    assert to_decide(-3.0, 3.0, -2.0, 2.0).startswith("undecided: the interval crosses -2, 2 (centred between them); "
                                                      "about 2.2x the samples")
    assert to_decide(0.0, float("inf"), 1.0, log=True) == ("undecided: the interval is unbounded (one process, or none "
                                                     "over processes)")  # no log(0) to divide by
    assert "centred on the edge 1;" in to_decide(0.9, 1.1, 1.0)  # no number of samples decides it where it sits
    assert "a run's" not in reason  # 3.2x: more rounds could do it
    # a reference run's first_run_linear, 1.394x [0.188, 10.362] against 0.8-1.25: hundreds of times the samples
    far = to_decide(0.188, 10.362, 0.8, 1.25, log=True)
    assert "x the samples" in far and "over 10x a run's: another design, not more rounds" in far
    # a reference run's, 1.009x [0.010, 99.765]: mid-band, not "centred on 1.25" (its middle is 1.0)
    mid_band = to_decide(0.010, 99.765, 0.8, 1.25, log=True)
    assert mid_band.startswith("undecided: the interval crosses 0.8, 1.25 (centred between them); about 430x the "
                               "samples")
    assert "centred on" not in mid_band
    assert "centred on the edge 1.25" in to_decide(1.0, 1.56, 0.8, 1.25, log=True)  # its middle on the upper edge
    assert to_decide(-2.0, 3.0, -1.0, 1.0, of="the shift", unit=" ms").startswith(
        "undecided: the shift crosses -1 ms, 1 ms (centred between them); about 25x the samples")  # the nearer edge
    decided, undecided = decide(1.1, 1.2, 1.0), decide(0.8, 1.3, 1.0)
    assert decided.reason == "" and undecided.reason == to_decide(0.8, 1.3, 1.0)
    assert (decided.verdict(), undecided.verdict()) == ("reproduced", "inconclusive")


def test_an_interval_over_few_processes_says_how_many_processes_would_decide_it():
    """A user's file at 2 processes: 0.212x [0.00365, 12.278] on 1 degree of freedom, its processes 0.15-0.29x.
    Student's t's quantile (12.7 at 1 df), not the samples, makes it wide: "6.8x the samples" sent them to add
    rounds. At 3 processes the quantile is 4.3: its spread as measured decides it there."""
    from jaxpitfalls.contract.decisions import to_decide
    assert to_decide(0.00365, 12.278, 1.0, log=True, df=1.0, processes=2).endswith(
        "crosses 1 (centred below it); it rests on 1 degree(s) of freedom over 2 processes: about 3 processes "
        "(`measure.processes`, and `max_processes` where lower) would decide it if the estimate holds")
    assert "processes" not in to_decide(0.5, 2.0, 1.1, log=True, df=0.0, processes=1)  # no spread: no t to read
    pooled = to_decide(0.00365, 12.278, 1.0, log=True, df=6.0, processes=2)  # 5 df from a prior over other rows
    assert "over 2 processes: about" in pooled
    assert "even 64 processes would not decide it" in to_decide(0.9, 1.2, 1.05, log=True, df=2.0, processes=3)
    assert "x the samples" in to_decide(0.9, 1.3, 1.05, log=True, df=30.0, processes=4)  # t is near the normal


def test_a_fit_whose_points_leave_the_line_does_not_promise_that_more_samples_decide_it():
    from jaxpitfalls.contract.decisions import decide

    scattered = decide(-0.03, 0.84, 0.75, 1.25, holds="inside", of="the exponent", scatter=4.0)
    assert scattered.outcome is None and "4.0x farther from one power law" in scattered.reason
    assert "the samples" not in scattered.reason.split("power law")[1]


def test_the_run_summary_says_which_code_the_timing_jobs_ran_and_loudly_when_several():
    one = {"dispatch": pd.DataFrame({"code": ["c0aca50", "c0aca50"]}), "tree_at": pd.DataFrame({"code": ["c0aca50"]})}
    assert audit.code_line(one) == "Every timing job ran the workflow's code at `c0aca50`."
    edited = {"dispatch": pd.DataFrame({"code": ["c0aca50+dirty"]})}
    assert audit.code_line(edited) == \
        "Every timing job ran the workflow's code at `c0aca50` with uncommitted edits."
    spans = one | {"tree_at": pd.DataFrame({"code": ["c0aca50", "d08a3ac+dirty"]})}
    line = audit.code_line(spans)
    assert line.startswith("**The timing jobs ran 2 versions of the workflow's code**")
    assert "`tree_at`: `c0aca50`, `d08a3ac+dirty`" in line
    # two benchmark files, each one version of itself: one version of the code, whatever their digests
    files = {"mine": pd.DataFrame({"code": ["c0aca50+study:1111111"] * 2}),
             "yours": pd.DataFrame({"code": ["c0aca50+study:2222222"]})}
    assert audit.code_line(files) == "Every timing job ran the workflow's code at `c0aca50`."
    edited = files | {"mine": pd.DataFrame({"code": ["c0aca50+study:1111111", "c0aca50+study:3333333"]})}
    assert audit.code_line(edited).startswith(
        "**The timing jobs ran more than one version of `mine`'s own code")


def test_identifiers_of_digits_alone_come_back_from_the_tables_as_text(tmp_path):
    """A short commit can be all digits (9099972 failed `make all` in the report's code line): the tables
    read its code, the environment's commit and the configurations' ids back as written."""
    from jaxpitfalls.contract.tables import TABLES
    from jaxpitfalls.report.tables.aggregate import read_tables

    written = {"steps": {"process": ["all"], "config_id": ["1024"]}, "comparisons": {"process": ["all"]},
               "checks": {"code": ["9099972"]}, "overhead": {"config_id": ["1024"]},
               "environment": {"git_commit": ["9099972042"], "jax": ["0.4.34"]}}
    paths = {name: str(tmp_path / f"{name}.csv") for name in TABLES}
    for name, columns in written.items():
        pd.DataFrame(columns).to_csv(paths[name], index=False)
    tables = read_tables(paths)
    assert audit.code_line({"dispatch": tables["checks"]}) == \
        "Every timing job ran the workflow's code at `9099972`."
    assert tables["environment"].git_commit[0] == "9099972042" and tables["steps"].config_id[0] == "1024"


def test_the_peak_memory_headline_is_the_highest_of_the_benchmark_polls_and_the_jobs_own_high_water_marks():
    """A reference run's headline said 12.4 GiB (Snakemake's polls) beside a job table's 12.7 (VmHWM) for one job."""
    summary = pd.DataFrame({"rule": ["run_study", "capture_trace"], "job": ["dispatch/big", "dispatch/big"],
                            "max_rss_mb": [12676.0, 11157.0]})
    checks = {"dispatch": pd.DataFrame({"config_id": ["big", "small"], "host_peak_mb": [13005.0, None]})}
    assert audit.largest_peak(summary, checks) == (13005.0, "run_study/dispatch/big",
                                                      "its processes' own high-water mark")
    lower = {"dispatch": checks["dispatch"].assign(host_peak_mb=[12000.0, None])}
    assert audit.largest_peak(summary, lower) == (12676.0, "run_study/dispatch/big", "Snakemake's benchmark record")
    assert audit.largest_peak(summary, {"tree_at": pd.DataFrame({"config_id": ["x"]})})[0] == 12676.0


def test_the_run_summary_splits_a_studys_time_by_what_it_bought(tmp_path):
    """Samples over every process (each sampler's recorded wall; an older result's samples times their calls), the
    twin's and the first runs' apart, waits, the rounds between samples, the workers' starts and their time outside
    rounds, the rest of the timing job; traces and the study's own preparations; an older checks table without the
    samples' seconds keeps the plain line."""
    from jaxpitfalls.report.tables.run_summary import study_split

    doc = _doc("c0")
    doc["variants"]["b~twin"] = doc["variants"]["b"] | {"twin_of": "b"}
    mode = doc["variants"]["a"]["modes"]["blocked"]
    doc["variants"]["a"]["modes"] = {"blocked": mode | {"calls_per_sample": 10, "processes": [
        {"samples_s": [0.01, 0.03], "calls_per_sample": 10, "summary": mode["summary"]},
        {"samples_s": [0.02], "calls_per_sample": 5, "summary": mode["summary"]}]}}  # a's own (the fixture's share one)
    doc["machine"]["blocked"]["waited_s"] = 2.0
    doc["variants"]["b"]["first_run"] = {"seconds": 0.75, "compiles": 2, "compile_seconds": 0.5}
    doc["variants"]["b~twin"]["first_run"] = doc["variants"]["b"]["first_run"]  # the floor's record: not counted again
    doc["processes"] = 2  # merged: the first run is the processes' mean
    overhead = tmp_path / "overhead.csv"
    overhead.write_text("config_id,variant,mode,component,share\nc0,a,blocked,rest,1.0\n")
    checks = aggregate(_write(tmp_path, [doc]), [str(overhead)])["checks"]
    assert checks.samples_s.iloc[0] == pytest.approx(0.4 + 0.1 + 0.02) and checks.twins_s.iloc[0] == pytest.approx(0.02)
    summary = pd.DataFrame({"rule": ["run_study", "capture_trace", "parse_trace", "prepare_model", "prepare_model"],
                            "job": ["dispatch/c0", "dispatch/c0", "dispatch/c0", "bert-L1", "gpt2-L1"],
                            "seconds": [10.0, 3.0, 1.0, 4.0, 5.0], "max_rss_mb": [1.0] * 5, "end": [1.0] * 5})
    split = study_split(summary, "dispatch", ["prepare_model/bert-L1"], checks)
    assert split == pytest.approx({"timed samples": 0.52, "A/A twins": 0.02, "first runs": 1.5,
                                   "waiting for quiet": 2.0, "the rest of its timing jobs": 10 - 4.04, "traces": 4.0,
                                   "preparations": 4.0})
    assert sum(split.values()) == pytest.approx(18.0)  # the study's part of the run, whole
    assert study_split(summary, "dispatch", [], checks.drop(columns=["samples_s", "twins_s"])) is None
    assert "first runs" not in study_split(summary, "dispatch", [], checks.drop(columns=["first_runs_s"]))
    doc["machine"]["blocked"]["sampled_s"] = {"a": 2.0, "b": 0.5, "b~twin": 0.5}  # each sampler's wall, recorded
    doc["worker_starts_s"] = 1.25  # its workers' seconds to their replies less their measuring
    walls = aggregate(_write(tmp_path, [doc]), [str(overhead)])["checks"]
    assert walls.samples_s.iloc[0] == pytest.approx(2.5) and walls.twins_s.iloc[0] == pytest.approx(0.5)
    compiled = copy.deepcopy(doc)  # a mode measuring compilation (a first_run mode): its samples are first runs
    compiled["variants"]["a"]["modes"]["blocked"] |= {"measures_compilation": True, "compiles_in_timed_region": 3,
                                                     "compile_seconds": [0.01, 0.01, 0.01]}
    tables = aggregate(_write(tmp_path, [compiled]), [str(overhead)])
    first = tables["checks"]
    assert first.samples_s.iloc[0] == pytest.approx(0.5) and first.first_runs_s.iloc[0] == pytest.approx(2.0 + 1.5)
    steps = tables["steps"].query("variant == 'a'").set_index("process").compile_median_ms
    assert steps["all"] == pytest.approx(10.0) and steps.drop("all").isna().all()  # a process's: not the job's
    started = study_split(summary, "dispatch", [], walls)
    assert started["worker starts and imports"] == 1.25 and started["the rest of its timing jobs"] == pytest.approx(
        10 - 2.5 - 0.5 - 1.5 - 2.0 - 1.25)
    assert "the rest of its timing jobs 2 s (models loaded, warm-up and compiles, checks)" in audit.\
        run_summary_section(summary, (18.0, 0), {"run_target_s": 0, "memory_target_gib": 0},
                            {"dispatch": (18.0, None, started)}, {"dispatch": walls})
    doc["machine"]["blocked"]["rounds_s"] = 3.5  # the rounds' whole wall: 0.5 s of it between samples
    doc["worker_measure_s"] = 8.0  # its workers' measuring, from the study's start to its result
    measured = study_split(summary, "dispatch", [], aggregate(_write(tmp_path, [doc]), [str(overhead)])["checks"])
    assert measured == pytest.approx({
        "timed samples": 2.5, "A/A twins": 0.5, "first runs": 1.5, "waiting for quiet": 2.0, "between samples": 0.5,
        "worker starts and imports": 1.25, "models, compiles, warm-up and checks": 8.0 - 3.5 - 2.0 - 1.5,
        "the rest of its timing jobs": 10 - 9.25, "traces": 4.0, "preparations": 0.0})
    assert "the rest of its timing jobs 1 s (the job's own process: its imports, its workers' launch" in audit.\
        run_summary_section(summary, (18.0, 0), {"run_target_s": 0, "memory_target_gib": 0},
                            {"dispatch": (18.0, None, measured)}, {"dispatch": walls})
    line = audit.run_summary_section(summary, (18.0, 0), {"run_target_s": 0, "memory_target_gib": 0},
                                           {"dispatch": (18.0, None, split)}, {"dispatch": checks})
    assert "(its measuring jobs and the preparations only it needs): timed samples 1 s, A/A twins 0 s, first runs " \
           "2 s, waiting for quiet 2 s, the rest of its timing jobs 6 s (process starts, imports, models loaded, " \
           "warm-up and compiles, checks), traces 4 s, preparations 4 s" in line
    rendered_only = audit.run_summary_section(summary, (None, len(summary)), {"run_target_s": 0,
                                                    "memory_target_gib": 0}, {"dispatch": (18.0, None, split)},
                                                    {"dispatch": checks})
    assert f"The latest invocation reran none of the {len(summary)} jobs timed here" in rendered_only


def test_rounds_kept_on_a_busy_machine_are_said_before_any_verdict():
    """`on_contention: warn` keeps contended rounds; the report says so above its findings, naming each study's
    share, and says nothing where every round was quiet."""
    from jaxpitfalls.report.scorecard.build import busy_warning

    quiet = pd.DataFrame({"rounds_kept": [10, 10], "rounds_contended_kept": [0, 0]})
    busy = pd.DataFrame({"rounds_kept": [10, 10], "rounds_contended_kept": [3, 0]})
    assert busy_warning({"a": quiet}) == []
    said = busy_warning({"a": quiet, "mine": busy})[0]
    assert said.startswith("**Timed beside a busy machine") and "`mine` 3 of 20." in said and "`a`" not in said


def test_a_study_timed_in_one_process_is_said_before_any_verdict():
    """A study of one's own defaults to one process, whose intervals see its rounds only: the report said nothing."""
    from jaxpitfalls.report.scorecard.build import one_process_warning

    assert one_process_warning({"a": pd.DataFrame({"processes": [2, 3]})}) == []
    said = one_process_warning({"a": pd.DataFrame({"processes": [2, 3]}), "mine": pd.DataFrame({"processes": [1]})})
    assert said[0].startswith("**Timed in one process: `mine`.**") and "`a`" not in said[0]


def test_ratios_wider_than_the_precision_their_job_asked_for_are_said_under_the_table():
    """A job with `target_precision` adds processes until its most and may stop short: the section says which
    configurations, counting their wide ratios; a job within its target, or without one, says nothing."""
    from jaxpitfalls.report.tables.precision import shortfall_lines

    asked = '{"max_processes": 4, "target_precision": 0.05}'
    checks = pd.DataFrame({"config_id": ["tight", "wide", "free"], "settings": [asked, asked, '{"processes": 2}']})
    comp = pd.DataFrame({"config_id": ["tight", "wide", "wide", "free"], "variant": ["a", "a", "b", "a"],
                         "ratio": [1.0, 1.0, 1.0, 1.0], "ratio_ci_low": [0.98, 0.8, 0.99, 0.5],
                         "ratio_ci_high": [1.02, 1.2, 1.01, 1.5]})
    (said, _) = shortfall_lines(comp, checks)
    assert said.startswith("**1 ratios of 1 configuration(s) (wide) are wider than `measure.target_precision` "
                           "(±5%) after their most processes (4)**")
    assert shortfall_lines(comp[comp.config_id != "wide"], checks) == []


def test_a_file_whose_other_variants_all_differ_on_purpose_records_its_floor_alone():
    """float32 against bfloat16 with OUTPUTS_DIFFER: nothing to compare with the floor, which the result records
    (the schema asked for two variants and failed the job after its timing)."""
    import json

    import jsonschema
    import numpy as np

    from jaxpitfalls import results
    from jaxpitfalls.harness.variants import require_agree
    from jaxpitfalls.report.tables.job_checks import agreement

    found = require_agree({"f32": np.ones(3)}, "f32", exact=False) | {
        "outputs": "every array leaf", "differ_on_purpose": {"bf16": "another precision"}}
    defs = json.loads(results.SCHEMA.read_text())["$defs"]
    jsonschema.validate(found, {"$defs": defs, "$ref": "#/$defs/agreement"})
    assert agreement({"outputs_agree": found})["outputs_agree"] == \
        "0 variants vs f32: within rtol=0.00001, atol=0.000001 (3 values each); 1 differs on purpose"


def test_benchmark_files_without_expectations_are_reported_as_judging_nothing():
    """No EXPECT in any file: the report frames no write-up and no verdict ("Your 0 expectations: ." before)."""
    from jaxpitfalls.report.scorecard import scorecard

    claims = {"mine": [], "yours": []}
    assert scorecard.only_expectations(claims) and not scorecard.only_expectations({})
    section = scorecard.scorecard_section(claims, "scorecard.png")
    assert "## Your expectations" in section and "**No expectations**: nothing in this run states one" in section
    assert "Reproduction" not in section and "write-up" not in section
    assert scorecard.findings_section(claims) == scorecard.rules_section(claims) == ""
    assert scorecard.brief_section(claims) == ""
    assert scorecard.judging_section(claims, {}) == "" and scorecard.findings(claims) == {}


def test_what_to_do_counts_a_files_expectations_that_held_and_names_every_other():
    """The scorecard gives each expectation's verdict: What to do counts those held, not restating each, and names
    every one not held or undecided, however many."""
    from jaxpitfalls.contract.interface import Advice
    from jaxpitfalls.report.scorecard import scorecard

    def row(i: int, verdict: str) -> dict:
        return {"expected": True, "verdict": verdict, "claim": f"c{i}",
                "advice": Advice(f"held {i}.", f"not held {i}.", f"undecided {i}.")}

    rows = [row(0, "reproduced"), *(row(i, "inconclusive") for i in range(1, scorecard.FINDINGS_PER_STUDY + 2)),
            row(9, "not reproduced")]
    said = scorecard.findings({"mine": rows})["mine"]
    assert said.startswith("1 of 7 held; the rest: undecided 1.") and said.endswith("not held 9.")
    assert "held 0." not in said and all(f"undecided {i}." in said for i in range(1, 6))
    assert scorecard.findings({"mine": rows[:1]})["mine"] == "1 of 1 held."
    assert scorecard.findings({"mine": [row(0, "not measured")]})["mine"] == "nothing decided on this run."


def test_an_axis_named_as_a_tables_column_is_refused_and_n_is_an_axis_like_any():
    """A benchmark file's axis `n` overwrote the steps table's sample count, and its scaling figure plotted sample
    counts: the count is `n_samples` now, and an axis named as any other column is refused, not overwritten."""
    from jaxpitfalls.report.tables import aggregate

    doc = {"study": "mine", "config_id": "n8", "config": {"id": "n8", "axes": ["n"], "n": 8}}
    assert aggregate._row(doc, {"n_samples": 4})["n"] == 8
    with pytest.raises(ValueError, match="mine n8: axis backend is also a column of the results' tables: rename"):
        aggregate._row(doc | {"config": {"id": "n8", "axes": ["backend"], "backend": 1}}, {"backend": "cpu"})


def test_the_setup_names_the_sweep_values_and_points_a_run_holds():
    """An overlay that leaves out a failed configuration can empty a sweep's axis: `{"n": []}` said nothing."""
    from jaxpitfalls.report.scorecard.markdown import _sweeps
    assert _sweeps({"sweep": {"n": [], "m": [2]}}) == 'sweeps (one axis at a time) `{"m": [2]}`'
    assert _sweeps({"sweep": {"n": []}, "points": [{"n": 3}]}) == 'points `[{"n": 3}]`'
    assert _sweeps({"sweep": {"n": []}}) == _sweeps({}) == "no sweep"


def test_the_setup_of_a_study_without_a_model_says_where_its_inputs_come_from():
    """A study of one's own with no `model_family` ran every job, then the report failed on KeyError."""
    from jaxpitfalls.report.scorecard.markdown import _inputs_from
    assert _inputs_from({"base": {"n": 32}}, {"models": {}}) == "Inputs built by the study's `measure.py` (no model)."


def test_a_trace_breakdown_gives_its_times_in_one_unit():
    """A file's breakdown put `0.794 µs` beside `0.011 ms` in one column, and a walk's `0.684 µs` in one variant's
    column beside `0.000843 ms` in the next."""
    from jaxpitfalls.report.scorecard.markdown import _in_one_unit
    assert _in_one_unit(pd.DataFrame({"a": [0.330, 0.011, 0.000794]})).a.tolist() == [" (330 µs)", " (11 µs)",
                                                                                       " (0.794 µs)"]
    both = _in_one_unit(pd.DataFrame({"a": [0.000684, 0.0092], "b": [5.7, 0.000843]}))
    assert both.a.tolist() == [" (0.000684 ms)", " (0.00920 ms)"] and both.b.tolist() == [" (5.700 ms)",
                                                                                        " (0.000843 ms)"]


def test_the_report_page_renders_its_tables_and_embeds_its_figures(tmp_path):
    """The HTML report offered report.md only as a download: its verdicts and tables could not be read there."""
    from jaxpitfalls.report.page.html import page

    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "report.md").write_text("# A report\n\n| claim | verdict |\n|:--|:--|\n| x | **no** |\n\n"
                                        "![a figure](figures/a.png)\n\n![gone](figures/b.png)\n")
    shown = page(tmp_path / "report.md")
    assert "<title>A report</title>" in shown and 'text-align: left;"><strong>no</strong></td>' in shown
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in shown and 'src="figures/b.png"' in shown


def test_a_slurm_job_on_a_node_shared_with_other_jobs_says_so(tmp_path, monkeypatch):
    """Resources given on the command line replace the profile's, --exclusive with them: two timing jobs shared a
    node and the report said only `slurm job 30 on vm (1 CPUs)`."""
    from jaxpitfalls.harness.environment import placement
    from jaxpitfalls.report.tables.job_checks import ran_on

    scontrol = tmp_path / "scontrol"
    scontrol.write_text("#!/bin/sh\necho JobId=$4 JobName=x OverSubscribe=$OVERSUBSCRIBE NumCPUs=1\n")
    scontrol.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_JOB_ID", "30")
    monkeypatch.setenv("SLURMD_NODENAME", "vm")
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "1")
    for oversubscribe, said in (("OK", True), ("NO", False)):
        monkeypatch.setenv("OVERSUBSCRIBE", oversubscribe)
        where = placement()
        assert where["slurm_shared"] is said
        assert ("a node shared with other jobs" in ran_on({"placement": where})) is said


def test_medians_that_divide_outside_their_paired_interval_are_said_with_the_estimate_the_report_rests_on():
    from jaxpitfalls.report.scorecard.markdown import _medians_apart

    steps = pd.DataFrame({"config_id": "c", "mode": ["blocked", "blocked", "pipelined", "pipelined"],
                          "variant": ["a", "b", "a", "b"], "median_ms": [0.478, 0.478, 0.44, 0.50]})
    comp = pd.DataFrame({"config_id": "c", "mode": ["blocked", "pipelined", "blocked"], "variant": ["a", "a", "a-b"],
                         "baseline": ["b", "b", "b"], "ratio": [0.916, 0.9, 0.5], "ratio_ci_low": [0.849, 0.85, 0.1],
                         "ratio_ci_high": [0.988, 0.95, 0.9]})
    lines = _medians_apart(steps, comp)  # blocked: 1.000 outside; pipelined: 0.880 inside; a difference: no median
    assert lines[0].startswith("Where these medians and the paired ratios below disagree") and "the ratio is the " \
        "measurement" in lines[0]
    assert lines[2:] == ["- `a` / `b` (blocked, c): 1.000 from these medians, 0.916x [0.849, 0.988] paired.", ""]
    assert _medians_apart(steps, comp.iloc[1:]) == []
    assert _medians_apart(steps, comp.assign(ratio_ci_low=float("nan"), ratio_ci_high=float("nan"))) == []


def test_a_breakdown_says_how_many_traced_calls_it_rests_on_and_that_dispatch_and_wait_trade_on_a_cpu():
    from jaxpitfalls.report.scorecard.markdown import _traced_calls

    base = pd.DataFrame({"variant": ["a"] * 4 + ["b"] * 2, "capture": [0, 0, 1, 1, 0, 0], "traced_steps": 3,
                         "component": ["dispatch", "wait"] * 3})
    said = _traced_calls(base)
    assert said.startswith("From 3 traced calls a variant") and "`dispatch` and `wait` trade time" in said
    assert _traced_calls(base[base.component == "wait"].iloc[:1]) == \
        "From 3 traced calls a variant (`measure.trace_steps` x `captures`), no interval."


def test_the_setup_says_where_a_target_precision_timed_more_processes_than_asked():
    """A user's walk read `"processes": 3` in Setup where 4 ran (the machine table showed 4)."""
    import json

    from jaxpitfalls.report.scorecard.markdown import _recorded_settings

    checks = pd.DataFrame({"config_id": ["a", "b"], "settings": [json.dumps({"processes": 3})] * 2,
                           "processes": [4, 3]})
    assert _recorded_settings(checks) == '`{"processes": 3}` (a: 4 processes timed, for `target_precision`)'
    assert _recorded_settings(checks.assign(processes=3)) == '`{"processes": 3}`'
