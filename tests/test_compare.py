"""Comparing runs: a slowdown is called a regression with its statistics, noise and offsets between worker
processes are not, environments' differences are named, configurations on one side only are listed, and the
gate names the worst rows."""

from __future__ import annotations

import copy
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.across_runs.comparison import compare, compare_report, gate, machine_speed
from jaxpitfalls.harness import stats
from jaxpitfalls.harness.yardstick import VERSION as YARDSTICK_VERSION


def _doc(config_id: str, seconds: np.ndarray, equinox: str = "0.13.8", ratio: float = 1.3,
         pair_noise: float = 0.005, seed: int = 0, processes: int = 3) -> dict:
    """A result with `filter_jit` timed at `seconds` and the floor `jit_flat` paired with it at 1 / `ratio` (each
    pair's ratio off by `pair_noise`), its comparison computed from those samples like a study's; the samples
    split in turn among `processes` fresh processes (a comparison of runs rests on their processes)."""
    variant = np.asarray(seconds)
    floor = variant / ratio / (1 + pair_noise * np.random.default_rng(seed + 100).standard_normal(variant.size))
    comparison = {"variant": "filter_jit", "baseline": "jit_flat", "mode": "blocked"}

    def entry(samples: np.ndarray) -> dict:
        return {"samples_s": samples.tolist(),
                "processes": [{"samples_s": g.tolist()} for g in np.array_split(samples, processes)]}

    return {"study": "dispatch", "config_id": config_id, "settings": {"rounds": floor.size},
            "variants": {"filter_jit": {"modes": {"blocked": entry(variant)}},
                         "jit_flat": {"modes": {"blocked": entry(floor)}}},
            "comparisons": [comparison | stats.paired_comparison(variant, floor)],
            "environment": {"python": "3.11", "packages": {"jax": "0.10.2", "equinox": equinox}, "backend": "cpu",
                            "device_kind": "cpu", "device_count": 1, "cpu_model": "x", "xla_flags": ""}}


def _samples(center: float, seed: int, n: int = 20, noise: float = 0.02) -> np.ndarray:
    return center * (1 + noise * np.random.default_rng(seed).standard_normal(n))


def _medians_of(table, variant="filter_jit"):
    return table[table.variant == variant].set_index("config_id")


def test_medians_are_regressed_improved_unchanged_or_inconclusive_by_their_evidence():
    """Tight samples 20% slower / 20% faster / the same, and wide samples (30% noise) at the same center:
    only the tight same ones are unchanged; the wide ones cannot tell, and say by how much they could."""
    baseline = {("dispatch", c): _doc(c, _samples(0.010, i)) for i, c in enumerate(("slower", "faster", "same"))}
    baseline[("dispatch", "wide")] = _doc("wide", _samples(0.010, 3, n=8, noise=0.3))
    current = {("dispatch", "slower"): _doc("slower", _samples(0.012, 4)),
               ("dispatch", "faster"): _doc("faster", _samples(0.008, 5)),
               ("dispatch", "same"): _doc("same", _samples(0.010, 6)),
               ("dispatch", "wide"): _doc("wide", _samples(0.010, 7, n=8, noise=0.3))}
    rows = _medians_of(compare.compare(baseline, current)[0])
    assert rows.verdict.to_dict() == {"faster": "improved", "same": "unchanged", "slower": "regressed",
                                      "wide": "inconclusive"}
    same, wide = rows.loc["same"], rows.loc["wide"]
    assert 0.95 <= same.ratio_ci_low and same.ratio_ci_high <= 1.05  # equivalence: the interval, not the p-value
    assert wide.ratio_ci_low < 0.95 or wide.ratio_ci_high > 1.05
    assert wide.detectable_change > 0.05 and wide.processes_needed > 3 and wide.samples_factor > 1
    assert same.detectable_change < 0.05 and same.processes_needed <= 3  # enough already


def _in_processes(config_id: str, center: float, offsets: tuple[float, ...], seed: int) -> dict:
    """A result timed in one fresh process per offset: each process's samples (1% noise) at `center` x its
    offset, as a process landing on another core or memory layout shifts all of its samples."""
    groups = [_samples(center * offset, seed + i, noise=0.01) for i, offset in enumerate(offsets)]
    doc = _doc(config_id, np.concatenate(groups))
    for variant in doc["variants"].values():
        pooled = np.asarray(variant["modes"]["blocked"]["samples_s"])
        variant["modes"]["blocked"]["processes"] = [{"samples_s": g.tolist()} for g in np.split(pooled, len(groups))]
    return doc


def test_offsets_between_processes_are_no_change_and_a_real_one_is_found():
    """Significance comes from the interval over processes, never from a test on pooled samples: three fresh
    processes per run whose offsets alone move the pooled median 6% read inconclusive (a Mann-Whitney test on
    the pooled samples calls it significant), while a 10% change beyond offsets of +-0.5% is found."""
    from scipy.stats import mannwhitneyu

    baseline = {("dispatch", "offsets"): _in_processes("offsets", 0.010, (0.95, 1.00, 1.05), 0),
                ("dispatch", "slower"): _in_processes("slower", 0.010, (0.995, 1.0, 1.005), 10)}
    current = {("dispatch", "offsets"): _in_processes("offsets", 0.010, (1.00, 1.06, 1.11), 20),
               ("dispatch", "slower"): _in_processes("slower", 0.011, (1.0, 1.005, 0.995), 30)}
    rows = _medians_of(compare.compare(baseline, current)[0])
    offsets = rows.loc["offsets"]
    assert offsets.ratio > 1.05 and offsets.ratio_ci_low < 1 < offsets.ratio_ci_high
    assert offsets.verdict == "inconclusive" and offsets.processes == "3 / 3"
    pooled = [np.concatenate([g["samples_s"] for g in side[("dispatch", "offsets")]["variants"]["filter_jit"]["modes"]
                              ["blocked"]["processes"]]) for side in (baseline, current)]
    assert mannwhitneyu(*pooled).pvalue < 0.01  # what the pooled test would have called a regression
    assert rows.loc["slower", "verdict"] == "regressed" and rows.loc["slower", "ratio_ci_low"] > 1.05


def test_paired_ratios_are_regressed_improved_unchanged_or_inconclusive_by_their_evidence():
    samples = _samples(0.010, 0)
    baseline = {("dispatch", c): _doc(c, samples, ratio=1.30) for c in ("same", "close", "apart", "better")}
    baseline[("dispatch", "wide")] = _doc("wide", samples[:8], ratio=1.30, pair_noise=0.2)
    current = {("dispatch", "same"): _doc("same", samples, ratio=1.30, seed=1),
               ("dispatch", "close"): _doc("close", samples, ratio=1.30 * 1.03, seed=2),
               ("dispatch", "apart"): _doc("apart", samples, ratio=1.30 * 1.10, seed=3),
               ("dispatch", "better"): _doc("better", samples, ratio=1.30 * 0.85, seed=4),
               ("dispatch", "wide"): _doc("wide", samples[:8], ratio=1.30, pair_noise=0.2, seed=5)}
    ratios = compare.paired_ratios(baseline, current, threshold=0.05).set_index("config_id")
    assert ratios.loc["close", "change"] == pytest.approx(1.03, abs=0.005)
    assert ratios.agree.to_dict() == {"apart": False, "better": False, "close": True, "same": True,
                                      "wide": bool(abs(ratios.loc["wide", "change"] - 1) <= 0.05)}
    assert ratios.verdict.to_dict() == {"apart": "regressed", "better": "improved", "close": "unchanged",
                                        "same": "unchanged", "wide": "inconclusive"}
    assert ratios.loc["close", "change_ci_low"] < 1.03 < ratios.loc["close", "change_ci_high"] <= 1.05
    assert ratios.loc["wide", "detectable_change"] > 0.05 and set(ratios.against) == {"jit_flat"}


def test_a_slowdown_names_its_environment_change_and_one_sided_configurations_are_listed():
    baseline = {("dispatch", "a"): _doc("a", _samples(0.010, 0)), ("dispatch", "gone"): _doc("gone", _samples(0.01, 2))}
    current = {("dispatch", "a"): _doc("a", _samples(0.012, 3), equinox="0.11.7"),
               ("dispatch", "new"): _doc("new", _samples(0.01, 5))}
    table, one_sided = compare.compare(baseline, current)
    rows = _medians_of(table)
    assert rows.loc["a", "verdict"] == "regressed" and rows.loc["a", "ratio_ci_low"] > 1
    assert rows.loc["a", "environment_changes"] == "equinox 0.13.8 -> 0.11.7"
    env = _doc("c", _samples(0.01, 6))["environment"]
    edited = env | {"git": {"commit": "c711829024b2", "dirty": True}}
    committed = env | {"git": {"commit": "f09a14f321ec", "dirty": False}}
    assert compare.environment_changes(edited, committed) == "code c711829+dirty -> f09a14f"
    assert compare.environment_changes(env, committed) == "code unknown -> f09a14f"
    mine = {"sha256": "ee19248aa", "git": {"commit": "5396dd1bb", "dirty": False}}
    revised = {"sha256": "28e3283cc", "git": {"commit": "8e8288edd", "dirty": True}}
    assert compare.environment_changes(committed | {"study_code": mine}, committed | {"study_code": revised}) == (
        "your study's file (digest) ee19248@5396dd1 -> 28e3283+dirty")  # the workflow's, the same, not said
    assert sorted(map(tuple, one_sided[["config_id", "only_in"]].values)) == [("gone", "baseline"), ("new", "current")]
    with pytest.raises(gate.Regressions,
                       match=r"(?s)2 regression.*\(medians\).*dispatch a (filter_jit|jit_flat) \(blocked\): 1\.(19|2)"):
        gate.require_no_regressions(table)
    text = compare_report.markdown(table, one_sided, compare.paired_ratios(baseline, current), "baseline-dir", 0.05)
    assert "Verdicts: regressed 2" in text and "| gone" in text and "agree on 1 of 1 within ±0.05" in text
    brief = text[text.index("## In brief"):text.index("##", text.index("## In brief") + 2)]  # the number first
    assert re.search(r"- \*\*regressed\*\* `dispatch` a `filter_jit` \(blocked\): 1\.\d{3}x \[1\.\d{3}, "
                     r"1\.\d{3}\]", brief)
    assert "- one job each run: a shift of a whole job is not in these intervals" in brief  # before acting on one
    medians = text[text.index("## Medians"):].split("\n| study")[1].split("|")
    assert [c.strip() for c in medians[1:8]] == ["config_id", "variant", "mode", "verdict", "ratio", "ratio_ci_low",
                                                  "ratio_ci_high"]  # the number after the row's names
    assert "`judged_on` raw samples" in text[text.index("## Medians"):].split("\n| study")[0]  # once, above
    calm = table.assign(verdict="unchanged")  # no row moved: the estimates and their intervals still said
    assert re.search(r"- no row moved beyond ±0.05: ratios \d\.\d{3}x to \d\.\d{3}x, their intervals ±[\d.]+% to "
                     r"±[\d.]+%", "\n".join(compare_report.in_brief(calm, 0.05)))
    undecided = "\n".join(compare_report.in_brief(table.assign(verdict="inconclusive"), 0.05))
    assert "- no row was shown to move beyond ±0.05" in undecided  # not "moved": none was decided
    slower = pd.DataFrame({"ratio": [1.031, 1.055, 1.027], "ratio_ci_low": [0.989, 1.023, 1.008],
                           "ratio_ci_high": [1.075, 1.087, 1.046], "verdict": "inconclusive"})  # a walk's release
    assert compare_report.moved_lines(slower, 0.05, "Medians")[0][0].endswith(
        "; every row reads slower, 2 of 3 with intervals that leave 1 out")
    assert "every row" not in compare_report.moved_lines(slower.assign(ratio=[0.99, 1.05, 1.02]), 0.05, "M")[0][0]


def test_the_gate_judges_the_table_it_is_told_to_and_inconclusive_rows_on_request():
    """Same samples on both sides (medians unchanged), but one run measured filter_jit 10% dearer against the
    floor: the medians gate passes, the ratios gate names that row. Wide samples are inconclusive: the gate
    passes them unless asked for a definite answer."""
    samples = _samples(0.010, 0)
    baseline = {("dispatch", c): _doc(c, samples, ratio=1.30) for c in ("steady", "dearer")}
    current = {("dispatch", "steady"): _doc("steady", samples, ratio=1.30),
               ("dispatch", "dearer"): _doc("dearer", samples, ratio=1.30 * 1.10)}
    table, one_sided = compare.compare(baseline, current)
    gate.require_no_regressions(table, "medians", fail_on_inconclusive=True)
    ratios = compare.paired_ratios(baseline, current)
    with pytest.raises(gate.Regressions, match=r"(?s)1 regression.*\(ratios\).*dispatch dearer filter_jit / "
                       r"jit_flat \(blocked\): 1\.30\dx -> 1\.4[23]\dx"):
        gate.require_no_regressions(ratios, "ratios")
    assert "regressed 1, unchanged 1" in compare_report.markdown(table, one_sided, ratios, "b", 0.05)
    wide = {("dispatch", "w"): _doc("w", _samples(0.010, 1, n=6, noise=0.3))}
    wider = {("dispatch", "w"): _doc("w", _samples(0.010, 2, n=6, noise=0.3))}
    undecided, _ = compare.compare(wide, wider)
    assert set(undecided.verdict) == {"inconclusive"}
    gate.require_no_regressions(undecided, "medians")
    with pytest.raises(gate.Regressions, match=r"(?s)2 row\(s\) inconclusive.*detectable change \d+%"):
        gate.require_no_regressions(undecided, "medians", fail_on_inconclusive=True)
    text = compare_report.markdown(undecided, one_sided, ratios, "b", 0.05)
    assert "Verdicts: inconclusive 2" in text and "2 inconclusive rows (0 reading slower, 2 faster) could detect a " \
        "change of" in text and "2 need more: about" in text  # which way they lean: both read 0.866x


def test_an_inconclusive_row_that_had_the_power_is_not_told_more_samples_would_tell():
    """A row whose interval was narrow enough for the threshold but lies across its edge: more samples are not
    told (its samples_factor is 1): the estimate lies near the edge, and more processes pooled resolve it."""
    rows = pd.DataFrame({"verdict": ["inconclusive", "inconclusive", "unchanged"], "ratio": [1.024, 0.97, 1.0],
                         "detectable_change": [0.04, 0.09, 0.02], "samples_factor": [1.0, 3.2, 1.0]})
    one = compare_report.could_tell(rows.iloc[:1], 0.05)[0]
    assert one.startswith("The 1 inconclusive row (1 reading slower, 0 faster) could detect a change of 4% at 80% "
                          "power, against ±5%: 1 had that power already") and "more processes pooled" in one
    both = compare_report.could_tell(rows, 0.05)[0]
    assert "changes of 4%-9% (median 6%)" in both and "1 needs more: about 3.2x the samples would tell" in both
    told = rows.assign(processes_needed=[3, 16, 2])  # the gate's message on a failing inconclusive row alike
    assert gate._would_tell(next(told.itertuples())).startswith("the power to tell was there")
    assert gate._would_tell(list(told.itertuples())[1]) == "about 16 processes a side would tell"


def test_a_floor_that_slowed_fails_the_ratios_gate_though_its_ratios_read_as_gains():
    """A user's floor made 2x slower: every ratio against it 'improved' 0.47-0.50x and the ratios gate passed. Its
    own median regressed too: both together are the floor's slowdown. Either alone is not (a machine that drifted
    moves every median; a shared fix moves every ratio)."""
    def ratio(variant, change, verdict):
        return {"study": "relu", "config_id": "n1", "variant": variant, "against": "where", "mode": "blocked",
                "baseline_ratio": 1.0, "current_ratio": change, "change": change, "change_ci_low": change * 0.9,
                "change_ci_high": change * 1.1, "df": 11.0, "verdict": verdict, "detectable_change": 0.2,
                "processes_needed": 4}

    def median(variant, value, verdict):
        return {"study": "relu", "config_id": "n1", "variant": variant, "mode": "blocked", "ratio": value,
                "ratio_ci_low": value * 0.8, "ratio_ci_high": value * 1.2, "df": 4.0, "verdict": verdict,
                "detectable_change": 0.2, "processes_needed": 4}

    gains = pd.DataFrame([ratio("mask", 0.474, "improved"), ratio("maximum", 0.494, "improved")])
    slowed = pd.DataFrame([median("where", 2.059, "regressed"), median("mask", 0.96, "inconclusive")])
    with pytest.raises(gate.Regressions, match=r"1 floor\(s\) slowed beyond 0.05.*\n  relu n1 where \(blocked\): "
                                               r"2\.059x .*every variant against it improved 0\.474x-0\.494x"):
        gate.require_no_regressions(gains, "ratios", medians=slowed)
    gate.require_no_regressions(gains, "ratios", medians=slowed.assign(verdict="inconclusive"))  # a shared gain
    steady = gains.assign(verdict="inconclusive", change=1.0)
    gate.require_no_regressions(steady, "ratios", medians=slowed)  # a slower machine moves every median
    assert gate.require_no_regressions(gains, "ratios", medians=slowed, primary=["relu/n1/mask/*"]).startswith(
        "no regressions")  # the floor's row is not declared
    brief = compare_report._ratios_in_brief(slowed, gains)  # the report says it first, before the gate runs
    assert brief[0].startswith("Paired ratios against each floor, current / baseline (the default gate's table): ")
    assert "- **improved** `relu` n1 `mask` / `where` (blocked): 0.474x [0.427, 0.521]" in brief
    assert any(line.startswith("- **a floor slowed**: relu n1 where (blocked): 2.059x") for line in brief)


def _timed_on(doc: dict, speed: float, seed: int, noise: float = 0.03) -> dict:
    """`doc` as if timed on a machine `speed` times slower: every sample and its round's yardstick (8 ms on the
    quiet machine, each off by `noise`) stretched alike, round by round."""
    slowed = copy.deepcopy(doc)
    n = len(doc["variants"]["filter_jit"]["modes"]["blocked"]["samples_s"])
    moment = speed * (1 + noise * np.random.default_rng(seed).standard_normal(n))  # the machine, round by round
    for variant in slowed["variants"].values():
        entry = variant["modes"]["blocked"]
        entry["samples_s"] = (np.asarray(entry["samples_s"]) * moment).tolist()
        bounds = np.cumsum([len(p["samples_s"]) for p in entry["processes"]])[:-1]
        entry["processes"] = [{"samples_s": g.tolist()} for g in np.split(np.asarray(entry["samples_s"]), bounds)]
    stick = 8e-3 * moment * (1 + noise * np.random.default_rng(seed + 1).standard_normal(n))
    slowed["machine"] = {"blocked": {"yardstick_s": stick.tolist(), "yardstick_version": YARDSTICK_VERSION}}
    return slowed


def test_only_yardsticks_of_the_current_workload_are_read():
    """Version 1's yardstick woke numpy's BLAS threads (harness/yardstick.py): its seconds measure another
    workload, and a result that records no version timed that one."""
    record = {"yardstick_s": [0.002, 0.002]}
    assert machine_speed.yardsticks({"machine": {"m": record}}, "m", [[1.0, 1.0]]) is None
    current = {"machine": {"m": record | {"yardstick_version": YARDSTICK_VERSION}}}
    assert [s.tolist() for s in machine_speed.yardsticks(current, "m", [[1.0], [1.0]])] == [[0.002], [0.002]]


def test_the_machines_drift_between_runs_is_divided_out_where_asked_and_a_real_change_is_still_found():
    """Identical code, the second run's job on a machine 1.5x slower: raw medians (the default, since the VM's
    A/A pair showed the division widening intervals) call it regressed with the machine's 1.5x beside; asked
    for (compare.machine_units), the yardstick units call it unchanged; a 10% slowdown of the code on that
    slower machine is still regressed;
    on another kind of machine the samples are judged raw, since the machine is what is compared."""
    baseline = {("dispatch", c): _timed_on(_doc(c, _samples(0.010, i, n=40)), 1.0, 10 + i)
                for i, c in enumerate(("same", "slower"))}
    current = {("dispatch", "same"): _timed_on(_doc("same", _samples(0.010, 2, n=40)), 1.5, 20),
               ("dispatch", "slower"): _timed_on(_doc("slower", _samples(0.011, 3, n=40)), 1.5, 21)}
    raw = _medians_of(compare.compare(baseline, current)[0])  # by default: raw samples, the machine beside
    assert raw.verdict.to_dict() == {"same": "regressed", "slower": "regressed"}
    assert raw.machine_ratio.to_dict() == pytest.approx({"same": 1.5, "slower": 1.5}, rel=0.04)
    assert all(j.startswith("raw samples (the machine's speed reported beside") for j in raw.judged_on)
    table, one_sided = compare.compare(baseline, current, machine_units=True)  # asked for
    rows = _medians_of(table)
    assert rows.raw_ratio.to_dict() == pytest.approx({"same": 1.5, "slower": 1.65}, rel=0.04)
    assert rows.machine_ratio.to_dict() == pytest.approx({"same": 1.5, "slower": 1.5}, rel=0.04)
    assert set(rows.judged_on) == {"yardstick units"}
    assert rows.verdict.to_dict() == {"same": "unchanged", "slower": "regressed"}
    assert rows.loc["slower", "ratio"] == pytest.approx(1.10, abs=0.03)
    text = compare_report.markdown(table, one_sided, compare.paired_ratios(baseline, current), "b", 0.05)
    assert re.search(r"took 1\.[45]\d-1\.5\dx as long in this run as in the baseline's across 2 timed modes", text)
    for other in ({"cpu_model": "another CPU"}, {"cpu_count": 16}, {"backend": "gpu"}):  # each another machine
        for doc in current.values():
            doc["environment"] = baseline[("dispatch", "same")]["environment"] | other
        rows = _medians_of(compare.compare(baseline, current, machine_units=True)[0])
        assert rows.verdict.to_dict() == {"same": "regressed", "slower": "regressed"}, other
        assert all(j.startswith("raw samples (another machine") for j in rows.judged_on)


def test_a_missing_mode_is_listed():
    base = _doc("a", _samples(0.010, 0))
    faster = _doc("a", _samples(0.008, 1))
    modes = faster["variants"]["filter_jit"]["modes"]
    modes["pipelined"] = copy.deepcopy(modes["blocked"])
    table, _ = compare.compare({("dispatch", "a"): base}, {("dispatch", "a"): faster})
    verdicts = dict(zip(table["mode"], table.verdict, strict=True))
    assert verdicts == {"blocked": "improved", "pipelined": "only in current"}
    gate.require_no_regressions(table)


def test_a_bundle_is_a_baseline_and_a_tampered_one_is_refused(tmp_path, monkeypatch):
    import tarfile

    from jaxpitfalls.report.tables import bundle

    monkeypatch.chdir(tmp_path)
    for name, text in (("results/runs/s/a.json", "{}"), ("reports/report.md", "# r")):
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text)
    files = ["results/runs/s/a.json", "reports/report.md"]
    manifest = bundle.make(files, "b.tar.gz", {"k": 1}, {"git": {"commit": "c"}})
    assert set(manifest["files"]) == set(files) and manifest["git"] == {"commit": "c"}
    bundle.extract("b.tar.gz", tmp_path / "out")
    assert (tmp_path / "out" / "reports" / "report.md").read_text() == "# r"
    with tarfile.open("b.tar.gz") as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    for tampered, change in (("edited", lambda n, d: d + b" " if n.endswith(".md") else d),
                             ("incomplete", lambda n, d: None if n.endswith(".md") else d)):
        with tarfile.open(f"{tampered}.tar.gz", "w:gz") as tar:
            for member, data in members:
                new = change(member.name, data)
                if new is not None:
                    member.size = len(new)
                    tar.addfile(member, io.BytesIO(new))
        with pytest.raises(bundle.InvalidBundle, match="reports/report.md"):
            compare.load_runs(f"{tampered}.tar.gz")
    Path("junk.tar.gz").write_bytes(b"not an archive")
    with pytest.raises(bundle.InvalidBundle, match="not a readable bundle"):
        compare.load_runs("junk.tar.gz")


def test_the_gate_names_only_rows_beyond_the_threshold_that_survive_the_correction():
    """100 rows of unchanged code, each row's 95% interval honest: about five exclude 1 one by one, none lies
    beyond the threshold, so the gate passes; a real 15% regression among them still fails it (a 10% one, 2.3
    standard errors beyond the threshold, is regressed alone but not named among 100: p 0.01). The report states
    the control and what it kept."""
    from jaxpitfalls.across_runs.comparison import familywise

    rng = np.random.default_rng(7)
    se = 0.02  # each row's log-ratio standard error
    estimates = np.exp(rng.normal(0, se, 100))
    rows = pd.DataFrame({"study": "dispatch", "config_id": [f"c{i}" for i in range(100)], "variant": "filter_jit",
                         "mode": "blocked", "ratio": estimates, "ratio_ci_low": estimates * np.exp(-1.96 * se),
                         "ratio_ci_high": estimates * np.exp(1.96 * se), "detectable_change": 0.06})
    rows["verdict"] = [compare.verdict(low, high, 0.05) for low, high in zip(rows.ratio_ci_low, rows.ratio_ci_high,
                                                                              strict=True)]
    assert 1 <= ((rows.ratio_ci_low > 1) | (rows.ratio_ci_high < 1)).sum() <= 10  # excluding 1 one by one: ~5%
    assert not rows.verdict.eq("regressed").any()
    gate.require_no_regressions(rows)
    assert "survives Benjamini-Hochberg over all 100 measured rows" in "".join(familywise.line(rows, "ratio", 0.05))
    real = rows.copy()
    real.loc[0, ["ratio", "ratio_ci_low", "ratio_ci_high", "verdict"]] = (1.15, 1.15 * np.exp(-1.96 * se),
                                                                          1.15 * np.exp(1.96 * se), "regressed")
    with pytest.raises(gate.Regressions, match=r"1 regression\(s\) beyond 0.05 against the baseline \(medians\)"):
        gate.require_no_regressions(real)
    assert familywise.benjamini_hochberg([0.001, 0.04, 0.03]) == [True, True, True]  # 0.04 <= 3/3 x 0.05
    assert familywise.benjamini_hochberg([0.001, 0.04, 0.06]) == [True, False, False]  # 0.04 > 2/3 x 0.05
    assert familywise.p_beyond(1.0, 0.9, 1.1, 0.05) > 0.5 and familywise.p_beyond(1, 0, 0, 0.05) == 1.0
    # a row whose whole interval lies above the threshold: p below 2.5% (the verdict's own test), read on the
    # side facing the threshold (a lopsided bootstrap interval)
    assert familywise.p_beyond(1.20, 1.06, 1.60, 0.05) < 0.025 < familywise.p_beyond(1.20, 1.04, 1.30, 0.05)
    sided = pd.concat([rows.head(3), pd.DataFrame([{"config_id": "new", "verdict": "only in current"}])],
                      ignore_index=True)
    assert not familywise.surviving(sided, "ratio", 0.05).iloc[-1]  # a row on one side only has nothing to test
    assert "over all 3 measured rows" in familywise.line(sided, "ratio", 0.05)[0]
    assert not familywise.surviving(pd.DataFrame({"verdict": ["only in current"]}), "ratio", 0.05).any()



def test_runs_of_one_process_get_no_interval_and_the_report_says_why():
    """A run timed in one process cannot say how far a fresh process moves it: its rows read inconclusive with
    no interval, whatever their samples, and the report opens by saying so."""
    baseline = {("dispatch", "one"): _doc("one", _samples(0.010, 0), processes=1)}
    current = {("dispatch", "one"): _doc("one", _samples(0.013, 1), processes=1)}
    table, one_sided = compare.compare(baseline, current)
    assert set(table.verdict) == {"inconclusive"} and (table.ratio_ci_high == np.inf).all()
    assert table.processes_needed.isna().all()
    text = compare_report.markdown(table, one_sided, compare.paired_ratios(baseline, current), "b", 0.05)
    assert "**1 configuration(s) timed in one process on one side** (one)" in text
    assert "timed in one process" not in compare_report.markdown(
        *compare.compare({("dispatch", "one"): _doc("one", _samples(0.010, 0))},
                         {("dispatch", "one"): _doc("one", _samples(0.013, 1))}), pd.DataFrame(), "b", 0.05)


@pytest.mark.parametrize(("rows", "primary"), [(16, ()), (104, ()), (104, ("dispatch/c0/*",))])
def test_the_one_regression_the_gate_states_it_finds_is_the_share_it_finds(rows, primary):
    """One row slowed among unchanged rows, drawn 400 times at a 2% standard error: the share the gate names
    agrees with what familywise.one_row_reach states for a 10% slowdown and for its 90% slowdown, within 5
    points (the correction asks p <= 0.05 / m of the one row; where only that row is declared primary, its own
    verdict's 2.5% binds)."""
    from jaxpitfalls.across_runs.comparison import familywise

    rng, se = np.random.default_rng(11), 0.02

    def table(slowed: float) -> pd.DataFrame:
        y = rng.normal(0, se, rows) + np.r_[np.log(slowed), np.zeros(rows - 1)]
        return pd.DataFrame({"study": "dispatch", "config_id": [f"c{i}" for i in range(rows)], "variant": "jit",
                             "mode": "blocked", "ratio": np.exp(y), "ratio_ci_low": np.exp(y - 1.96 * se),
                             "ratio_ci_high": np.exp(y + 1.96 * se)})

    stated = familywise.one_row_reach(table(1.0), "ratio", 0.05, primary=primary)
    assert len(stated) == (1 if primary else rows)
    for slowed, want in ((1.10, stated.power_at_spike.median()), (1 + stated.named_at.median(), 0.90)):
        named = [(t.ratio_ci_low.iat[0] > 1.05) & familywise.surviving(t, "ratio", 0.05, primary).iat[0]
                 for t in (table(slowed) for _ in range(400))]  # as the gate names: regressed, and surviving
        found = np.mean(named)
        assert found == pytest.approx(want, abs=0.05), (slowed, found, want)
    among = "among the 1 declared" if primary else "among these"
    assert f"One row slowed alone {among}" in familywise.reach_line(table(1.0), "ratio", 0.05, primary)


def test_declared_primary_rows_are_judged_alone_and_a_pattern_matching_none_is_refused():
    """A 10% regression among 100 rows of a 2% standard error is regressed alone but not named over all 100 (p about
    0.005 against 0.05 / 100); declared primary (compare.primary), it is judged over itself alone and named, the
    other rows reported but not gated; a pattern that matches no row fails naming it, not gating on nothing."""
    from jaxpitfalls.across_runs.comparison import familywise

    rng, se = np.random.default_rng(7), 0.02
    y = np.r_[np.log(1.05) + 2.6 * se, rng.normal(0, se, 99)]  # row 0: p about 0.005 of "at most 5%"
    rows = pd.DataFrame({"study": "dispatch", "config_id": [f"c{i}" for i in range(100)], "variant": "filter_jit",
                         "mode": "blocked", "ratio": np.exp(y), "ratio_ci_low": np.exp(y - 1.96 * se),
                         "ratio_ci_high": np.exp(y + 1.96 * se), "detectable_change": 0.06})
    rows["verdict"] = [compare.verdict(low, high, 0.05) for low, high in zip(rows.ratio_ci_low, rows.ratio_ci_high,
                                                                              strict=True)]
    assert rows.verdict[0] == "regressed" and not familywise.surviving(rows, "ratio", 0.05).iat[0]
    gate.require_no_regressions(rows)
    with pytest.raises(gate.Regressions, match="over 1 rows compare.primary declares"):
        gate.require_no_regressions(rows, primary=["dispatch/c0/*"])
    assert gate.require_no_regressions(rows, primary=["dispatch/c1/*", "dispatch/c2/filter_jit/blocked"]) == (
        "no regressions over 2 rows compare.primary declares against the baseline (medians) (98 other rows not "
        f"judged, {(rows.verdict.drop([1, 2]) == 'regressed').sum()} of them regressed)")  # row 0 among them
    said = "".join(familywise.line(rows, "ratio", 0.05, ["dispatch/c0/*"]))
    assert "the 1 measured rows compare.primary declares (dispatch/c0/*; the other 99 are reported, not gated)" in said
    assert "1 of the 1 regressed do. " in said
    assert "0 of the 1 regressed do (1 passed the threshold alone, not the correction: time them again" \
        in "".join(familywise.line(rows, "ratio", 0.05))  # over all 100 rows, row 0 does not survive
    assert "expected false): no row is regressed. " in "".join(familywise.line(rows.drop(0), "ratio", 0.05))
    with pytest.raises(ValueError, match=r"compare.primary: dispatch/c0/jit match\(es\) no row .* dispatch/c0/"):
        gate.require_no_regressions(rows, primary=["dispatch/c0/jit", "dispatch/*"])
    new = pd.concat([rows, pd.DataFrame([{"study": "dispatch", "config_id": "new", "variant": "filter_jit",
                                          "mode": "blocked", "verdict": "only in current"}])], ignore_index=True)
    with pytest.raises(ValueError, match="dispatch/new/.* match.es. no row .* with a change measured on both sides"):
        gate.require_no_regressions(new, primary=["dispatch/new/*"])  # declared, but nothing to judge


def test_the_machine_speed_line_says_one_ratio_once():
    """One timed mode (or every mode alike): "0.73x", not "0.73-0.73x"."""
    table = pd.DataFrame({"study": "s", "config_id": "c", "mode": ["blocked", "pipelined"],
                          "machine_ratio": [0.731, 0.734], "machine_ratio_ci_low": 0.7, "machine_ratio_ci_high": 0.76})
    (line, _) = machine_speed.section(table)
    assert "took 0.73x as long in this run as in the baseline's across 2 timed modes" in line
    (line, _) = machine_speed.section(table.assign(machine_ratio=[0.73, 0.81]))
    assert "took 0.73-0.81x as long" in line


def test_a_memory_plan_that_moved_between_runs_is_listed_and_one_that_stayed_counted():
    from jaxpitfalls.across_runs.comparison import memory_plans

    def planned(peak: int, programs: int = 1) -> dict:
        return {"total_bytes": peak, "argument_bytes": 8, "output_bytes": 8, "donated_bytes": 0, "temporary_bytes": 0,
                "programs": programs}

    baseline, current = _doc("a", _samples(0.01, 0)), _doc("a", _samples(0.01, 1))
    for doc, peak in ((baseline, 2048), (current, 1024)):
        doc["variants"]["filter_jit"]["program_memory"] = planned(peak)
        doc["variants"]["jit_flat"]["program_memory"] = planned(512, programs=2)
    table = memory_plans.plans({("dispatch", "a"): baseline}, {("dispatch", "a"): current})
    assert table[["variant", "change"]].values.tolist() == [["filter_jit", 0.5], ["jit_flat", 1.0]]
    text = compare_report.markdown(*compare.compare({("dispatch", "a"): baseline}, {("dispatch", "a"): current}),
                                   pd.DataFrame(), "b", 0.05, plans=table)
    section = text[text.index("## Memory plans"):text.index("## Configurations on one side")]
    assert "1 of 2 moved" in section and "| filter_jit |" in section and "| jit_flat |" not in section
    assert "baseline_total_kib" in section  # 2048 bytes read in KiB; the CSV keeps bytes
    for doc in (baseline,):  # a baseline timed before plans were kept: said, not silent
        for variant in doc["variants"].values():
            variant.pop("program_memory")
    older = memory_plans.plans({("dispatch", "a"): baseline}, {("dispatch", "a"): current})
    assert "hold no memory plans" in "\n".join(memory_plans.section(older))
    assert "## Memory plans" not in compare_report.markdown(  # no benchmark file on either side: no section
        *compare.compare({("dispatch", "a"): baseline}, {("dispatch", "a"): current}), pd.DataFrame(), "b", 0.05)


def test_each_lockstep_sides_memory_plans_are_set_against_the_first_sides():
    from jaxpitfalls.across_runs.comparison import memory_plans

    def described(peak: int) -> list[dict]:  # one worker process's description a side
        plan = {"total_bytes": peak, "argument_bytes": 8, "output_bytes": 8, "donated_bytes": 0,
                "temporary_bytes": 0, "programs": 1}
        return [{"program_memory": {"jitted": plan, "host": None}}]

    doc = {"study": "mine", "config_id": "n8",
           "timed": {"descriptions": {"base": described(64), "same": described(64), "donated": described(32)}}}
    table = memory_plans.sides([doc])
    assert table[["side", "variant", "change"]].values.tolist() == [["same", "jitted", 1.0], ["donated", "jitted", 0.5]]
    assert "1 of 2 moved" in "\n".join(memory_plans.section(table))  # NumPy's variant planned nothing: no row
    assert memory_plans.sides([doc | {"lockstep": {"variants": ["host"]}}]).empty  # compare.variants: jitted untimed


def test_a_column_blank_in_every_row_is_dropped_not_said():
    """Identical environments: `environment_changes` blank everywhere, nothing to say of it above the table."""
    table = pd.DataFrame({"study": ["s", "s"], "variant": ["a", "b"], "environment_changes": ["", ""],
                          "judged_on": ["raw samples", "raw samples"], "ratio": [1.0, 1.1]})
    shown, said = compare_report.hoisted_columns(table)
    assert said == ["In every row: `judged_on` raw samples.", ""] and list(shown.columns) == ["study", "variant",
                                                                                              "ratio"]


def _with_first_run(doc: dict, spread: float, seed: int) -> dict:
    """`doc` with a first-run variant `first` beside its warm ones: compiling in each sample, its processes 30x the
    floor and `spread` apart (a first call moves with each process's compile)."""
    doc = copy.deepcopy(doc)
    floor = doc["variants"]["jit_flat"]["modes"]["blocked"]
    rng = np.random.default_rng(seed)
    groups = [np.asarray(p["samples_s"]) * 30 * np.exp(rng.normal(0, spread)) for p in floor["processes"]]
    doc["variants"]["first"] = {"modes": {"blocked": {
        "samples_s": np.concatenate(groups).tolist(), "processes": [{"samples_s": g.tolist()} for g in groups],
        "measures_compilation": True}}}
    return doc


def test_two_runs_first_calls_pool_their_spread_apart_from_the_warm_rows():
    """A first run's processes spread as compiles do: its row and the warm rows are estimated each with their own
    kind (pooled.pool_group), as if compared apart; pooled together, the warm rows' intervals would move."""
    baseline = {("dispatch", "c"): _with_first_run(_doc("c", _samples(0.010, 0)), 0.3, 1)}
    current = {("dispatch", "c"): _with_first_run(_doc("c", _samples(0.010, 2)), 0.3, 3)}
    both = compare.compare(baseline, current)[0].set_index("variant")

    def alone(keep: set[str], sides: dict) -> dict:
        return {k: d | {"variants": {v: e for v, e in d["variants"].items() if v in keep}} for k, d in sides.items()}

    warm = compare.compare(alone({"filter_jit", "jit_flat"}, baseline), alone({"filter_jit", "jit_flat"}, current))
    first = compare.compare(alone({"first"}, baseline), alone({"first"}, current))[0].set_index("variant")
    columns = ["ratio", "ratio_ci_low", "ratio_ci_high", "df", "verdict"]
    pd.testing.assert_frame_equal(both.loc[["filter_jit", "jit_flat"], columns], warm[0].set_index("variant")[columns])
    pd.testing.assert_frame_equal(both.loc[["first"], columns], first[columns])
    for side in (baseline, current):  # marked steady, the first run borrows the warm rows' spread: too short
        del side[("dispatch", "c")]["variants"]["first"]["modes"]["blocked"]["measures_compilation"]
    together = compare.compare(baseline, current)[0].set_index("variant")
    assert together.loc["first", "ratio_ci_high"] < both.loc["first", "ratio_ci_high"] * 0.99


def test_the_medians_are_what_the_ratio_compares():
    """Each side's median is its processes' medians' geometric mean (as each run's report gives it), so the
    columns divide to the row's ratio; pooling the samples would weigh a process by its sample count."""
    baseline = {("dispatch", "c"): _in_processes("c", 0.010, (0.8, 1.0, 1.3), 0)}
    current = {("dispatch", "c"): _in_processes("c", 0.010, (1.0, 1.0, 1.6), 1)}
    row = _medians_of(compare.compare(baseline, current)[0]).loc["c"]
    assert row.current_median_ms / row.baseline_median_ms == pytest.approx(row.ratio, rel=1e-9)
    groups = [g["samples_s"] for g in baseline[("dispatch", "c")]["variants"]["filter_jit"]["modes"]["blocked"][
        "processes"]]
    assert row.baseline_median_ms == pytest.approx(np.exp(np.mean(np.log(np.median(groups, axis=1)))) * 1e3)


def test_a_row_that_moved_with_its_code_unchanged_says_so_and_what_changed_between_the_runs():
    """A variant whose signature fingerprints (its programs, its call) are the same in both runs moved by something
    else: in brief says so beside the row, and what changed between the runs (here the workflow's commit); a
    signature of counts alone says nothing either way."""
    baseline = {("dispatch", "c"): _doc("c", _samples(0.010, 0))}
    current = {("dispatch", "c"): _doc("c", _samples(0.013, 1))}
    for side, commit in ((baseline, "aaaaaaa"), (current, "bbbbbbb")):
        doc = side[("dispatch", "c")]
        doc["environment"]["git"] = {"commit": commit}
        for name, variant in doc["variants"].items():
            variant["signature"] = {"program": name, "call": "x"}
    current[("dispatch", "c")]["variants"]["jit_flat"]["signature"]["program"] = "changed"
    table, one_sided = compare.compare(baseline, current)
    ratios = compare.paired_ratios(baseline, current)
    assert table.set_index("variant").same_code.to_dict() == {"filter_jit": True, "jit_flat": False}
    assert not ratios.same_code.any()  # the floor's program changed
    for side in (baseline, current):  # a rewrite lowered otherwise that XLA built as the program it replaced
        side[("dispatch", "c")]["variants"]["jit_flat"]["executable"] = "0123456789abcdef"
    assert compare.compare(baseline, current)[0].set_index("variant").same_code.jit_flat
    assert compare.paired_ratios(baseline, current).same_code.all()  # beside a floor alike without one
    del baseline[("dispatch", "c")]["variants"]["jit_flat"]["executable"]  # a run that kept none: not the same
    assert not compare.compare(baseline, current)[0].set_index("variant").same_code.jit_flat
    text = compare_report.markdown(table, one_sided, ratios, "b", 0.05)
    assert "`filter_jit` (blocked): 1.3" in text and compare_report.SAME_CODE in text
    assert "- 1 of the 2 rows that moved compiled the same programs and made the same call in both runs" in text
    assert "Between the runs: code aaaaaaa -> bbbbbbb (`environment_changes` per row)." in text
    assert "the same for `filter_jit`; changed for `jit_flat` (programs)." in text  # moved or not
    for side in (baseline, current):  # a packaged study's signature: counts of calls, no fingerprint of what ran
        for variant in side[("dispatch", "c")]["variants"].values():
            variant["signature"] = {"compiles_first_pass": 1}
    assert compare.compare(baseline, current)[0].same_code.isna().all()  # unknown, not "the same"
    assert compare_report.SAME_CODE not in compare_report.markdown(*compare.compare(baseline, current), ratios, "b",
                                                                   0.05)


def test_in_brief_says_changes_not_alike_for_every_row_and_one_process_has_no_interval():
    """A change between the runs that holds for some rows is counted, not said of all; one process: no ±inf%."""
    table = pd.DataFrame({"study": "s", "config_id": ["a", "b", "c"], "variant": "v", "mode": "m", "ratio": 1.0,
                          "ratio_ci_low": 0.0, "ratio_ci_high": np.inf, "verdict": "inconclusive",
                          "environment_changes": ["your study's file (digest) a -> b", "", ""]})
    said = "\n".join(compare_report.in_brief(table, 0.05))
    assert "no interval (one process)" in said and "inf%" not in said
    assert ("Between the runs, not alike for every row: nothing in 2 of 3 rows; your study's file (digest) a -> b "
            "in 1 of 3 rows") in said
    assert compare_report.between(table.assign(environment_changes=""), "runs") == []


def test_which_variants_ran_the_same_code_is_said_per_study_and_per_side():
    """Two files' `loop` variants read as one, one study's change marking both; three sides did not say which."""
    runs = pd.DataFrame({"study": ["a", "b"], "variant": "loop", "same_code": [True, False]})
    assert compare_report.code_alike(runs, "runs")[0].endswith("the same for `a loop`; changed for `b loop`.")
    sides = pd.DataFrame({"study": "a", "variant": "loop", "side": ["b", "c"], "same_code": [True, False]})
    assert compare_report.code_alike(sides, "sides")[0].endswith("the same for `loop b`; changed for `loop c`.")


def test_a_rewrite_xla_built_alike_is_the_same_code_for_warm_calls_not_for_first_runs():
    """A first run traces, lowers and compiles the rewrite's own code: its time can move with the rewrite."""
    def doc(program):
        return {"variants": {"v": {"signature": {"program": program, "call": "c"}, "executable": "0123456789abcdef"}}}

    assert compare.code_changes(doc("einsum"), doc("matmul"), "v") == ""
    assert compare.code_changes(doc("einsum"), doc("matmul"), "v", warm=False) == "programs"
    assert compare.code_changes(doc("einsum"), doc("einsum"), "v", warm=False) == ""


def test_what_changed_of_a_variants_code_is_named_and_another_jaxlib_said():
    """A walk timing one file on two JAX releases in lockstep read "changed for `eager_update`" where only JAX's
    own Python on the call's path differed, and "the same" beside a jaxlib whose XLA may compile otherwise."""
    def doc(python, executable=None):
        return {"variants": {"v": {"signature": {"program": "p", "call": "c", "python": python, "python_calls": 9},
                                   "executable": executable}}}

    assert compare.code_columns(doc("jax 0.9"), doc("jax 0.10"), "v") == {"same_code": False,
                                                                         "code_changed": "python"}
    assert compare.code_columns(doc("a"), doc("a"), "v") == {"same_code": True, "code_changed": ""}
    retraced = [doc(python) for python in ("one trace", "another")]
    for d in retraced:  # RECOMPILES: tracing's Python varies from process to process, so from run to run too
        d["variants"]["v"]["signature"]["retraces"] = True
    assert compare.code_columns(*retraced, "v") == {"same_code": True, "code_changed": ""}
    retraced[0]["variants"]["v"]["signature"]["retraces"] = False  # one run's warm call compiled, the other's not
    assert compare.code_changes(*retraced, "v") == "programs"
    assert compare.code_columns({"variants": {"v": {"signature": {}}}}, doc("a"), "v") == {
        "same_code": None, "code_changed": ""}
    sides = pd.DataFrame({"study": "mine", "variant": ["fused", "eager_update"], "side": "new",
                          "same_code": [True, False], "code_changed": ["", "python"],
                          "environment_changes": "jax 0.9.2 -> 0.10.2; jaxlib 0.9.2 -> 0.10.2"})
    (said, _) = compare_report.code_alike(sides, "sides")
    assert said.endswith("the same for `fused`; changed for `eager_update` (python). jaxlib differs between them: "
                         "XLA may compile the same lowered programs otherwise.")
    assert compare.environment_changes({"packages": {"optax": None, "jax": "1"}},
                                       {"packages": {"optax": "0.2.8", "jax": "1", "ml_dtypes": "0.5.3"}}) == (
        "ml_dtypes not recorded -> 0.5.3; optax not installed -> 0.2.8")  # an older run's record had no ml_dtypes
