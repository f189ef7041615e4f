"""The dispatch study's variants: the same training trajectory, four different dispatch paths."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
from conftest import build_tiny_runners

from jaxpitfalls import results
from jaxpitfalls.harness import protocol
from jaxpitfalls.harness.sampling import Sampling
from jaxpitfalls.harness.stats import difference_side, side_parts, twin_side
from jaxpitfalls.harness.variants import VariantsIndistinguishable, require_agree, require_distinct
from jaxpitfalls.studies.dispatch import measure as dispatch
from jaxpitfalls.studies.dispatch.spec import ANCHOR, ANCHOR_PAIR, BESIDE, SPEC, Timing, beside_name


@pytest.fixture(scope="module")
def tiny_runners(tiny_bert_dir):
    """This module's own: the session's may have been called (and compiled) by another module's tests first."""
    return build_tiny_runners(tiny_bert_dir)


@pytest.fixture(scope="module")
def warmed(tiny_runners):
    compiles, losses = protocol.warm_up(tiny_runners, steps=3, steps_per_sample=2)
    return compiles, losses


@pytest.mark.slow
def test_all_variants_follow_the_same_loss_trajectory_bitwise(warmed):
    _, losses = warmed
    assert set(losses) == set(SPEC.variants)
    require_agree(losses, SPEC.floor, exact=True)
    assert np.all(np.isfinite(losses[SPEC.floor])) and len(set(losses[SPEC.floor])) == 3  # it trains


@pytest.mark.slow
def test_each_variant_compiled_once_and_records_a_distinct_signature(tiny_runners, warmed):
    compiles, _ = warmed
    assert all(n >= 1 for n in compiles.values())
    signatures = {name: r.signature() for name, r in tiny_runners.items()}
    require_distinct(signatures)
    assert signatures["filter_jit"]["callable"].startswith("equinox.")
    assert signatures["jit_static_arg"]["static_argnums"] == [4]
    # the floor passes one flat list: as many leaves as the others, but no module nodes to flatten
    assert signatures["jit_flat"]["leaves_in"] == signatures["jit_partition"]["leaves_in"]
    assert signatures["jit_flat"]["argument_tree"] != signatures["jit_partition"]["argument_tree"]
    # a static argument changes how Python reaches the program, not the program itself
    assert signatures["jit_static_arg"]["program"] == signatures["jit_partition"]["program"]
    assert signatures["filter_jit"]["program"] != signatures["jit_partition"]["program"]


@pytest.mark.slow
def test_a_comparison_whose_variants_ran_the_same_code_fails_loudly(tiny_runners, warmed):
    """The negative control of seeds/003: 'jit_partition' silently running the floor's code path."""
    impostor = dataclasses.replace(tiny_runners[SPEC.floor], name="jit_partition")
    runners = dict(tiny_runners) | {"jit_partition": impostor}
    signatures = {name: r.signature() for name, r in runners.items()}
    with pytest.raises(VariantsIndistinguishable, match="jit_flat"):
        require_distinct(signatures)


@pytest.mark.slow
def test_measure_gives_samples_and_paired_ratios_without_compiling(tiny_runners, warmed):
    modes = protocol.measure(tiny_runners, SPEC.floor, Sampling(rounds=3, on_contention="warn"),
                             steps_per_sample=2, label="t", extra_pairs=SPEC.extra_pairs)
    assert list(modes) == list(protocol.MODES)
    for timed in modes.values():
        assert set(timed.entries) == set(tiny_runners) | {twin_side(SPEC.floor)}  # the floor timed twice
        assert all(len(e["samples_s"]) == 3 and e["compiles_in_timed_region"] == 0 for e in timed.entries.values())
    comparisons = [c for timed in modes.values() for c in timed.comparisons]
    pairs = {(c["variant"], c["baseline"], c["mode"]) for c in comparisons}
    assert ("filter_jit", "jit_partition", "blocked") in pairs
    assert (twin_side(SPEC.floor), SPEC.floor, "blocked") in pairs
    assert ("jit_static_arg", SPEC.floor, "pipelined") in pairs
    assert all(c["ratio_ci_low"] <= c["ratio"] <= c["ratio_ci_high"] for c in comparisons)


def test_batches_are_deterministic_and_always_have_a_target():
    a = dispatch.make_batch(50, 3, 8, seed=0)
    b = dispatch.make_batch(50, 3, 8, seed=0)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert ((a["labels"] >= 0).sum(axis=1) >= 1).all()
    assert jax.numpy.asarray(a["input_ids"]).dtype == np.int32


@pytest.mark.slow
def test_a_run_times_forwards_and_no_ops_at_the_base_as_modes_of_their_own(tiny_bert_dir):
    """run() refuses forwards whose logits differ (bitwise on CPU) or whose signatures match; the `infer`
    mode (at the base configuration) is filter_jit's and jit_partition's alone, compared with jit_partition; the
    `flatten` mode's no-ops take jit_partition's and jit_flat's arguments to one program; the result stays
    valid."""
    conf = {"id": "t", "layers": 1, "hidden": 16, "batch": 2, "seq": 16, "dropout": 0.1, "attention": "explicit"}
    conf["axes"] = [key for key in conf if key != "id"]  # the base: the infer mode runs there only
    settings = Timing.of({"rounds": 2, "on_contention": "warn", "warmup_steps": 2, "steps_per_sample": 1})
    doc = dispatch.run(conf, {"model": str(tiny_bert_dir)}, settings)
    results.validate(doc | {"study": "dispatch", "config_id": "t", "config": conf | {"model": "m"}, "settings": {},
                            "environment": {"python": "3", "packages": {}, "backend": "cpu", "device_kind": "cpu",
                                            "device_count": 1, "cpu_model": "x", "xla_flags": "", "config_hash": "h",
                                            "git": {"commit": None, "dirty": None}, "timestamp": "t"}})
    timed = {name for name, v in doc["variants"].items() if "infer" in v["modes"] and "twin_of" not in v}
    assert timed == {"filter_jit", "jit_partition"}
    assert doc["variants"][twin_side("jit_partition")]["twin_of"] == "jit_partition"  # the calls' floor, twice
    assert all(doc["variants"][name]["modes"]["infer"]["compiles_in_timed_region"] == 0 for name in timed)
    assert [(c["variant"], c["baseline"]) for c in doc["comparisons"] if c["mode"] == "infer"] == [
        ("filter_jit", "jit_partition"), (twin_side("jit_partition"), "jit_partition")]
    assert set(doc["memory"]) == set(doc["machine"]) == set(SPEC.modes)
    agree, distinct = doc["checks"]["inference_outputs_agree"], doc["checks"]["inference_signatures_distinct"]
    assert agree["compared"] == "bitwise" and set(agree["bitwise_equal"]) == timed
    assert agree["values"] == 2 * 16 * 64  # batch x seq x vocabulary: the logits
    assert distinct["distinct_signatures"] == 2
    forward = {name: doc["variants"][name]["signature"]["infer"] for name in timed}
    assert forward["filter_jit"]["callable"].startswith("equinox.") and forward["jit_partition"]["leaves_out"] == 1
    # the forward's arguments are the model (or its arrays) and the batch: no optimizer state, no key
    assert forward["filter_jit"]["leaves_in"] < doc["variants"]["filter_jit"]["signature"]["leaves_in"]
    # the flatten mode: the same no-op on jit_partition's arguments and on jit_flat's flat list, one scalar out
    noops = {name for name, v in doc["variants"].items() if "flatten" in v["modes"]}
    assert noops == {"jit_partition", "jit_flat", twin_side("jit_flat")}
    assert [(c["variant"], c["baseline"]) for c in doc["comparisons"] if c["mode"] == "flatten"] == [
        ("jit_partition", "jit_flat"), (twin_side("jit_flat"), "jit_flat")]
    agree, distinct = doc["checks"]["flatten_outputs_agree"], doc["checks"]["flatten_signatures_distinct"]
    assert agree["compared"] == "bitwise" and agree["values"] == 1 and distinct["distinct_signatures"] == 2
    noop = {name: doc["variants"][name]["signature"]["flatten"] for name in noops}
    train = {name: doc["variants"][name]["signature"] for name in noops}
    assert {name: s["leaves_in"] for name, s in noop.items()} == {  # the step's arguments less the batch and key
        name: train[name]["leaves_in"] - 3 - 1 for name in noops}
    assert noop["jit_partition"]["program"] == noop["jit_flat"]["program"]  # one program: only the arguments differ


@pytest.mark.slow
def test_pairs_timed_beside_the_variants_in_the_blocked_rounds(tiny_bert_dir):
    """dropout off, anchored to a base with dropout on (the same checkpoint here), and a compute setting (fused
    attention) timed beside it: each pair is timed in the blocked mode only, compared with itself and, round by
    round, its overhead with the configuration's own (the differing one's minus the base's), its losses checked."""
    base = {"id": "b", "model": "m", "layers": 1, "hidden": 16, "batch": 2, "seq": 16, "dropout": 0.1,
            "attention": "explicit"}
    fused = {"attention": "fused"}
    conf = base | {"id": "t", "dropout": 0.0, "axes": ["dropout"], "anchor": base, "beside": [fused]}
    settings = Timing.of({"rounds": 2, "on_contention": "warn", "warmup_steps": 2, "steps_per_sample": 1})
    doc = dispatch.run(conf, {"model": str(tiny_bert_dir), "anchor_model": str(tiny_bert_dir)}, settings)
    results.validate(doc | {"study": "dispatch", "config_id": "t", "config": conf, "settings": {},
                            "environment": {"python": "3", "packages": {}, "backend": "cpu", "device_kind": "cpu",
                                            "device_count": 1, "cpu_model": "x", "xla_flags": "", "config_hash": "h",
                                            "git": {"commit": None, "dirty": None}, "timestamp": "t"}})
    setting = tuple(beside_name(v, fused) for v in BESIDE)
    beside = {name for name, v in doc["variants"].items() if name not in SPEC.variants and "twin_of" not in v}
    assert beside == {*ANCHOR, *setting}
    assert all(set(doc["variants"][name]["modes"]) == {"blocked"} for name in beside)
    compared = [(c["variant"], c["baseline"], c["mode"]) for c in doc["comparisons"]
                if {part for side in (c["variant"], c["baseline"]) for part in side_parts(side)} & beside]
    own = difference_side(*BESIDE)
    assert compared == [(*ANCHOR_PAIR, "blocked"), (own, difference_side(*ANCHOR_PAIR), "blocked"),
                        (*setting, "blocked"), (difference_side(*setting), own, "blocked")]
    contrast = next(c for c in doc["comparisons"] if c["variant"] == difference_side(*setting))
    samples = {name: np.asarray(doc["variants"][name]["modes"]["blocked"]["samples_s"]) for name in (*setting, *BESIDE)}
    per_round = samples[setting[0]] - samples[setting[1]] - (samples["filter_jit"] - samples["jit_partition"])
    assert contrast["diff"] == pytest.approx(np.median(per_round))  # paired round by round, not two intervals
    for key, names, reference in (("anchor", set(ANCHOR), "base_jit_partition"),
                                  ("beside_attentionfused", set(setting), setting[1])):
        agree = doc["checks"][f"{key}_outputs_agree"]
        assert agree["reference"] == reference and set(agree["bitwise_equal"]) == names
        assert doc["checks"][f"{key}_signatures_distinct"]["distinct_signatures"] == 2
    # the base's losses (dropout on) are not the configuration's (dropout off): the anchor is another model
    assert doc["trajectory"].keys() == set(SPEC.variants)
