"""Comparing runs: a slowdown is called a regression with its statistics, noise is not, environments'
differences are named, configurations on one side only are listed, and the gate names the worst rows."""

from __future__ import annotations

import copy
import io
from pathlib import Path

import numpy as np
import pytest

from jaxpitfalls.report import compare


def _doc(config_id: str, seconds: np.ndarray, equinox: str = "0.13.8", ratio: float = 1.3) -> dict:
    mode = {"samples_s": seconds.tolist()}
    return {"study": "dispatch", "config_id": config_id,
            "variants": {"filter_jit": {"modes": {"blocked": mode}}},
            "comparisons": [{"variant": "filter_jit", "baseline": "jit_flat", "mode": "blocked", "ratio": ratio,
                             "ratio_ci_low": ratio * 0.97, "ratio_ci_high": ratio * 1.03}],
            "environment": {"python": "3.11", "packages": {"jax": "0.10.2", "equinox": equinox}, "backend": "cpu",
                            "device_kind": "cpu", "device_count": 1, "cpu_model": "x", "xla_flags": ""}}


def _samples(center: float, seed: int, n: int = 20) -> np.ndarray:
    return center * (1 + 0.02 * np.random.default_rng(seed).standard_normal(n))


def test_a_slowdown_is_a_regression_and_noise_is_not():
    baseline = {("dispatch", "a"): _doc("a", _samples(0.010, 0)), ("dispatch", "b"): _doc("b", _samples(0.010, 1)),
                ("dispatch", "gone"): _doc("gone", _samples(0.010, 2))}
    current = {("dispatch", "a"): _doc("a", _samples(0.012, 3), equinox="0.11.7"),
               ("dispatch", "b"): _doc("b", _samples(0.010, 4)), ("dispatch", "new"): _doc("new", _samples(0.01, 5))}
    table, one_sided = compare.compare(baseline, current)
    rows = table.set_index("config_id")
    assert rows.loc["a", "verdict"] == "regressed" and rows.loc["b", "verdict"] == "unchanged"
    assert rows.loc["a", "ratio_ci_low"] > 1.1 and rows.loc["a", "p_value"] < 0.01
    assert rows.loc["a", "environment_changes"] == "equinox 0.13.8 -> 0.11.7"
    assert rows.loc["b", "environment_changes"] == ""
    env = _doc("c", _samples(0.01, 6))["environment"]
    edited = env | {"git": {"commit": "c711829024b2", "dirty": True}}
    committed = env | {"git": {"commit": "f09a14f321ec", "dirty": False}}
    assert compare.environment_changes(edited, committed) == "code c711829+dirty -> f09a14f"
    assert compare.environment_changes(env, committed) == "code unknown -> f09a14f"
    assert sorted(map(tuple, one_sided[["config_id", "only_in"]].values)) == [("gone", "baseline"), ("new", "current")]
    with pytest.raises(compare.Regressions,
                       match=r"(?s)1 regression.*\(medians\).*dispatch a filter_jit \(blocked\): 1\.(19|2)"):
        compare.require_no_regressions(table)
    text = compare.markdown(table, one_sided, compare.paired_ratios(baseline, current), "baseline-dir", 0.05, 0.01)
    assert "regressed 1" in text and "| gone" in text and "agree on 2 of 2 within ±0.05" in text


def test_runs_agree_on_a_paired_ratio_within_the_threshold_or_say_they_do_not():
    samples = _samples(0.010, 0)
    baseline = {("dispatch", c): _doc(c, samples, ratio=1.30) for c in ("same", "close", "apart")}
    current = {("dispatch", "same"): _doc("same", samples, ratio=1.30),
               ("dispatch", "close"): _doc("close", samples, ratio=1.30 * 1.04),
               ("dispatch", "apart"): _doc("apart", samples, ratio=1.30 * 1.10)}
    ratios = compare.paired_ratios(baseline, current, threshold=0.05).set_index("config_id")
    assert ratios.loc["close", "change"] == pytest.approx(1.04)
    assert ratios.agree.to_dict() == {"apart": False, "close": True, "same": True}
    assert ratios.intervals_overlap.to_dict() == {"apart": False, "close": True, "same": True}
    assert ratios.verdict.to_dict() == {"apart": "regressed", "close": "unchanged", "same": "unchanged"}
    assert set(ratios.against) == {"jit_flat"}


def test_the_gate_judges_the_table_it_is_told_to():
    """Same samples on both sides (medians unchanged), but one run measured filter_jit 10% dearer against the
    floor: the medians gate passes, the ratios gate names that row."""
    samples = _samples(0.010, 0)
    baseline = {("dispatch", c): _doc(c, samples, ratio=1.30) for c in ("steady", "dearer")}
    current = {("dispatch", "steady"): _doc("steady", samples, ratio=1.30),
               ("dispatch", "dearer"): _doc("dearer", samples, ratio=1.30 * 1.10)}
    table, one_sided = compare.compare(baseline, current)
    compare.require_no_regressions(table, "medians")
    ratios = compare.paired_ratios(baseline, current)
    with pytest.raises(compare.Regressions, match=r"(?s)1 regression.*\(ratios\).*dispatch dearer filter_jit / "
                       r"jit_flat \(blocked\): 1\.300x -> 1\.430x"):
        compare.require_no_regressions(ratios, "ratios")
    assert "Verdicts: regressed 1, unchanged 1" in compare.markdown(table, one_sided, ratios, "b", 0.05, 0.01)


def test_a_speedup_is_an_improvement_and_a_missing_mode_is_listed():
    base = _doc("a", _samples(0.010, 0))
    faster = _doc("a", _samples(0.008, 1))
    modes = faster["variants"]["filter_jit"]["modes"]
    modes["pipelined"] = copy.deepcopy(modes["blocked"])
    table, _ = compare.compare({("dispatch", "a"): base}, {("dispatch", "a"): faster})
    verdicts = dict(zip(table["mode"], table.verdict, strict=True))
    assert verdicts == {"blocked": "improved", "pipelined": "only in current"}
    compare.require_no_regressions(table)


def test_a_bundle_is_a_baseline_and_a_tampered_one_is_refused(tmp_path, monkeypatch):
    import tarfile

    from jaxpitfalls.report import bundle

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
