"""The generation study: every decoding variant gives PyTorch's greedy tokens, a proper run measures with
no compilation in the timed region, and a variant that silently runs another's code is refused. (The
warmup demonstration runs in the workflow smoke test: presets/smoke.yaml has one.)"""

from __future__ import annotations

import numpy as np
import pytest

from jaxpitfalls import results
from jaxpitfalls.harness.variants import VariantsIndistinguishable
from jaxpitfalls.studies.generation import decoding
from jaxpitfalls.studies.generation import measure as generation
from jaxpitfalls.studies.generation.spec import Timing

# Each test builds a tiny Hugging Face model and compiles it; torch is imported inside them, so that `make
# test-fast` collects this module without paying for it.
pytestmark = pytest.mark.slow

SETTINGS = {"rounds": 2, "budget_s": 0.1, "on_contention": "warn"}  # timed, never judged
CONF = {"id": "g", "layers": 2, "hidden": 32, "prompt": 6, "new_tokens": 4, "warmup_fraction": 1.0,
        "axes": ["layers", "hidden", "prompt", "new_tokens", "warmup_fraction"]}  # the base: every variant timed


@pytest.fixture(scope="module")
def inputs(tiny_gpt2_dir, tiny_corpus_dir):
    return {"model": str(tiny_gpt2_dir), "data": str(tiny_corpus_dir)}


def _pytorch_greedy(inputs: dict, prompt: np.ndarray, new: int) -> list[int]:
    import torch
    import transformers

    torch_model = transformers.GPT2LMHeadModel.from_pretrained(inputs["model"], attn_implementation="eager").eval()
    with torch.no_grad():
        out = torch_model.generate(torch.tensor(prompt[None].astype(np.int64)), max_new_tokens=new, do_sample=False,
                                   pad_token_id=0, eos_token_id=None)
    return out[0, prompt.size:].tolist()


def _valid(doc: dict) -> dict:
    doc = doc | {"study": "generation", "config_id": doc.get("config_id", "g"), "config": CONF | {"model": "m"},
                 "settings": SETTINGS, "environment": {
                 "python": "3", "packages": {}, "backend": "cpu", "device_kind": "cpu", "device_count": 1,
                 "cpu_model": "x", "xla_flags": "", "git": {"commit": None, "dirty": None}, "config_hash": "h",
                 "timestamp": "t"}}
    results.validate(doc)
    return doc


def test_a_proper_run_gives_pytorchs_greedy_tokens_and_compiles_only_in_its_first_generation(inputs):
    """run() refuses variants whose tokens differ bitwise, so its tokens equal to PyTorch's are every variant's
    (each variant generating once more here cost ~20 s of compiles)."""
    doc = _valid(generation.run(CONF, inputs, Timing.of(SETTINGS)))
    prompt = generation.prompt_tokens(inputs["data"], CONF["prompt"])
    assert doc["tokens"] == _pytorch_greedy(inputs, prompt, CONF["new_tokens"])
    signatures = {name: v["signature"] for name, v in doc["variants"].items()}
    assert signatures["uncached"]["compiles_first_generation"] == 4  # one program per length
    assert signatures["uncached_padded"]["compiles_first_generation"] == 1
    assert signatures["kv_cache_scan"]["calls_per_generation"] == 1
    # the write-up's 'Non-Cached': no jitted function, one un-jitted forward per token (its operations' programs
    # are cached process-wide: an earlier test in this process may have compiled them)
    assert {k: signatures["uncached_eager"][k] for k in ("jitted_functions", "calls_per_generation")} == {
        "jitted_functions": 0, "calls_per_generation": 4}
    assert {(c["variant"], c["baseline"]) for c in doc["comparisons"]} >= {("uncached_eager", "kv_cache"),
                                                                          ("uncached_eager", "uncached")}
    for name, variant in doc["variants"].items():
        assert variant["modes"]["generate"]["compiles_in_timed_region"] == 0
        assert variant["first_run"]["compile_seconds"] > 0 or name == "uncached_eager"
    assert "demonstration" not in doc
    # after the timed rounds: kv_cache warmed up by another variant compiles inside its timed generation
    probe = doc["checks"]["findings"]["mismatched_warmup"]
    assert probe["mismatched_compiles"] > 0 and probe["matched_compiles"] == 0, probe


def test_a_variant_that_silently_runs_another_variants_code_is_refused(inputs, monkeypatch):
    monkeypatch.setitem(generation.DECODERS, "uncached_padded", decoding.Uncached)
    with pytest.raises(VariantsIndistinguishable, match="'uncached' and 'uncached_padded'"):
        generation.run(CONF, inputs, Timing.of(SETTINGS))


def test_eager_base_leaves_the_un_jitted_loop_out_of_other_configurations_and_says_so(inputs):
    """config.yaml's `measure.eager: base` at a sweep point: uncached_eager is not timed, nothing is compared
    with it, and the result says why (its extra pair named it: a KeyError that failed `make all`)."""
    conf = CONF | {"id": "g-new6", "new_tokens": 6, "axes": ["new_tokens"]}
    doc = _valid(generation.run(conf, inputs, Timing.of(SETTINGS | {"eager": "base"})) | {"config_id": conf["id"]})
    assert set(doc["variants"]) == set(generation.DECODERS) - {"uncached_eager"} | {"kv_cache~twin"}
    assert not {"uncached_eager"} & {v for c in doc["comparisons"] for v in (c["variant"], c["baseline"])}
    assert "measure.eager" in doc["not_timed"]["uncached_eager"]
