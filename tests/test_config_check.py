"""Bad input is refused before anything runs: the check the Snakefile runs while parsing
(`configcheck.require_valid`, on config.yaml, the smoke preset and an overlay, merged as Snakemake merges
them) names the key of every malformed config; `snakemake -n` itself exits non-zero at parse time on a
few of them, and no job starts."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

import configs
import pytest
import yaml

from jaxpitfalls import registry, sources

ROOT = configs.ROOT
ALL_OFF = {name: {"enabled": False} for name in registry.names() if not registry.is_file(name)}  # a fifth too
SMOKE_BASE = Path(configs.smoke_result("dispatch")).stem  # the smoke preset's dispatch base configuration


def _local_model(tmp_path: Path, **config) -> str:
    directory = tmp_path / "local-model"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory)


def _two_bad_files(tmp_path: Path) -> dict:
    """A benchmark file with two sentences it cannot read, and a second file that is not there."""
    (tmp_path / "odd.py").write_text("def setup(n):\n    return n\n\ndef a(x):\n    return lambda: x\n\n"
                                     "def b(x):\n    return lambda: x\n\nVARIANTS = {'a': a, 'b': b}\n"
                                     "EXPECT = ['a lest than b', 'a faster than c']\n")
    return {"studies": {"odd": {"file": str(tmp_path / "odd.py"), "base": {"n": 1}},
                        "gone": {"file": str(tmp_path / "gone.py"), "base": {"n": 1}}}}


def _file_history(tmp_path: Path) -> dict:
    """A benchmark file timed across equinox releases on the default table's JAX, older than its jobs need."""
    (tmp_path / "mine.py").write_text("def setup(n):\n    return n\n\ndef a(x):\n    return lambda: x + 1\n\n"
                                      "def b(x):\n    return lambda: x * 2\n\nVARIANTS = {'a': a, 'b': b}\n")
    return {"studies": {"mine": {"file": str(tmp_path / "mine.py"), "base": {"n": 1}}},
            "history": {"study": "mine", "versions": ["0.13.6", "0.13.7"]}}


def _empty_dir(tmp_path: Path) -> str:
    (tmp_path / "empty").mkdir()
    return str(tmp_path / "empty")


# (what is wrong, overlay on presets/smoke.yaml (a function of tmp_path where it needs a file), what the
# message must say: the key, as the user writes it)
def _file_as_cache(path: Path) -> dict:
    path.write_text("")
    return {"jax_cache_dir": str(path)}


MALFORMED = [
    ("below a schema minimum", {"studies": {"dispatch": {"base": {"layers": 0}}}},
     "config studies.dispatch.base.layers = 0"),
    ("a side's variable JAX reads, misspelt", {"compare": {"sides": {"a": {}, "b": {"env": {"XLA_FLAG": "--x"}}}}},
     "config compare.sides.b.env.XLA_FLAG: nothing reads it; XLA_FLAGS is what JAX or XLA read"),
    ("a side's XLA flags without dashes", {"compare": {"sides": {"a": {}, "b": {"env": {"XLA_FLAGS": "xla_x=1"}}}}},
     "config compare.sides.b.env.XLA_FLAGS = 'xla_x=1': 'xla_x=1' is not a flag"),
    ("a cache directory that is a file", lambda tmp: _file_as_cache(tmp / "cache"),
     "a file, not a directory for the cache"),
    ("a number as text, as a value nested in --config arrives", {"studies": {"dispatch": {"measure": {"rounds": "5"}}}},
     "config studies.dispatch.measure.rounds = '5': '5' is not of type 'integer' (text: a value nested in --config "
     "arrives as text; give it in a --configfile)"),
    ("a misspelt key", {"studies": {"dispatch": {"measure": {"repeat": 5}}}},
     "config studies.dispatch.measure: unknown key 'repeat'"),
    ("a key an earlier version named otherwise", {"studies": {"dispatch": {"measure": {"repeats": 5}}}},
     "config studies.dispatch.measure: renamed since an earlier version: 'repeats' is now 'rounds'"),
    ("a string for a list", {"studies": {"tree_at": {"sweep": {"layers": "12"}}}},
     "config studies.tree_at.sweep.layers = '12'"),
    ("a value outside an enum", {"compare": {"gate_on": "median"}}, "config compare.gate_on = 'median'"),
    ("BERT: a sequence past the position table", {"studies": {"dispatch": {"base": {"seq": 33}}}},
     "config studies.dispatch.base.seq = 33: longer than models.bert.max_positions (32)"),
    ("BERT: a swept sequence past the position table", {"studies": {"dispatch": {"sweep": {"seq": [48]}}}},
     "config studies.dispatch.sweep.seq = 48: longer than models.bert.max_positions (32)"),
    ("hidden not a multiple of head_dim", {"studies": {"dispatch": {"sweep": {"hidden": [24]}}}},
     "config studies.dispatch.sweep.hidden = 24: not a multiple of models.bert.head_dim (16)"),
    ("query heads not a multiple of kv_groups", {"models": {"qwen2": {"kv_groups": 2}}},
     "config studies.extraction.base.hidden = 16: 1 attention heads are not a multiple of models.qwen2.kv_groups"),
    ("min above max", {"studies": {"extraction": {"base": {"min_len": 9}}}},
     "config studies.extraction.base.min_len = 9: above max_len (8)"),
    ("Qwen2: sequences past max_positions", {"studies": {"extraction": {"base": {"max_len": 40}}}},
     "config studies.extraction.base.max_len = 40: longer than models.qwen2.max_positions (32)"),
    ("a dataset that is a multiple of the batch", {"studies": {"extraction": {"base": {"sequences": 4}}}},
     "config studies.extraction.base.sequences = 4: sequences (4) a multiple of batch (2)"),
    ("a batch as large as the dataset", {"studies": {"extraction": {"sweep": {"batch": [3]}}}},
     "config studies.extraction.sweep.batch = 3: sequences (3) not more than batch (3)"),
    ("GPT-2: prompt + new tokens past the position table",
     {"studies": {"generation": {"sweep": {"new_tokens": [30]}}}},
     "config studies.generation.sweep.new_tokens = 30: prompt (8) + new_tokens (30) = 38 positions, more than "
     "models.gpt2.max_positions (32)"),
    ("a warmup pitfall that rounds to no pitfall",
     {"studies": {"generation": {"sweep": {"warmup_fraction": [0.9]}}}},
     "config studies.generation.sweep.warmup_fraction = 0.9: warms up with 4 of 4 new tokens"),
    ("a vocabulary smaller than the corpus'", {"models": {"gpt2": {"vocab_size": 300}}},
     "config models.gpt2.vocab_size = 300: smaller than data.vocab_size (512)"),
    ("an odd rotary head_dim", {"models": {"qwen2": {"head_dim": 1}}}, "config models.qwen2.head_dim = 1: odd"),
    ("hidden not divisible by the CPU devices",
     {"studies": {"tree_at": {"xla_flags": "--xla_force_host_platform_device_count=3"}}},
     "config studies.tree_at.base.hidden = 16: not divisible by the 3 CPU devices"),
    ("a local model directory that is not there",
     {"models": {"bert": {"local_dirs": {"bert-L1-H16": "/no/such/model"}}}},
     "config models.bert.local_dirs.bert-L1-H16 = '/no/such/model': not a readable Hugging Face model directory"),
    ("a local model of another family",
     lambda tmp: {"models": {"bert": {"local_dirs": {"bert-L1-H16": _local_model(tmp, model_type="gpt2")}}}},
     "config models.bert.local_dirs.bert-L1-H16 = "),
    ("a local model of another size",
     lambda tmp: {"models": {"bert": {"local_dirs": {"bert-L1-H16": _local_model(
         tmp, model_type="bert", num_hidden_layers=1, hidden_size=32, num_attention_heads=2,
         max_position_embeddings=32, vocab_size=128)}}}},
     "config studies.dispatch.base.hidden = 16: the model's "),
    ("a local model with an activation the converter lacks",
     lambda tmp: {"models": {"bert": {"local_dirs": {"bert-L1-H16": _local_model(
         tmp, model_type="bert", hidden_act="relu", num_hidden_layers=1, hidden_size=16, num_attention_heads=1,
         max_position_embeddings=32, vocab_size=128)}}}},
     "only hidden_act='gelu' is implemented, the checkpoint uses 'relu'"),
    ("a local directory for a model no study uses",
     {"models": {"bert": {"local_dirs": {"bert-L9-H16": "/anywhere"}}}},
     "config models.bert.local_dirs.bert-L9-H16 = '/anywhere': no enabled study uses a model named bert-L9-H16"),
    ("a baseline that is not there", {"compare": {"baseline": "/no/such/run"}},
     "config compare.baseline = '/no/such/run': no such file or directory"),
    ("a baseline with no results", lambda tmp: {"compare": {"baseline": _empty_dir(tmp)}},
     "holds no result JSONs"),
    ("a baseline run and sides at once", {"compare": {"baseline": "/no/such/run", "sides": {"a": {}, "b": {}}}},
     "config compare.baseline and compare.sides: one comparison at a time"),
    ("one side", {"compare": {"sides": {"a": {}}}}, "config compare.sides: 1 side; a comparison needs two or more"),
    ("sides on a study that cannot be timed in lockstep",
     {"compare": {"sides": {"a": {}, "b": {}}, "study": "tree_at"}},
     "config compare.study = 'tree_at': cannot be timed in lockstep yet"),
    ("pyperf beside no sides", {"compare": {"pyperf": {"callable": "blocked/filter_jit"}}},
     "config compare.pyperf.callable: pyperf is timed beside sides in lockstep"),
    ("a pyperf callable that is not mode/variant", {"compare": {"pyperf": {"callable": "filter_jit"}}},
     "config compare.pyperf.callable = 'filter_jit'"),
    ("a side's python that is not there", {"compare": {"sides": {"a": {}, "b": {"python": "/no/bin/python"}}}},
     "config compare.sides.b.python = '/no/bin/python': not an executable file"),
    ("a corpus package that is not installed", {"data": {"packages": ["jax", "no-such-package"]}},
     "config data.packages[1] = 'no-such-package': not an installed package"),
    ("XLA flags that are not flags", {"xla_flags": "xla_cpu_fast_math"},
     "config xla_flags = 'xla_cpu_fast_math': 'xla_cpu_fast_math' is not a flag"),
    ("no study enabled", {"studies": ALL_OFF}, "config studies: no study is enabled"),
    ("a history of no study", {"history": {"versions": ["0.11.8"], "study": "nope"}},
     "config history.study = 'nope': not a study"),
    ("a size written with a decimal point", {"studies": {"dispatch": {"base": {"layers": 1.0}}}},
     "config studies.dispatch.base.layers = 1.0: 1.0 is not of type 'integer'"),
    ("a threshold written in percent", {"compare": {"threshold": 5}},
     "config compare.threshold = 5: 5 is greater than"),
    ("a gate's row that is not measured", {"compare": {"sides": {"a": {}, "b": {}}, "primary": ["dispach/*"]}},
     "config compare.primary[0] = 'dispach/*': matches nothing this run measures (study/config_id/variant/mode"),
    ("a gate's row against a baseline run that is not measured", {"compare": {"baseline": ".", "primary": [
        "dispatch/*/filter_jitt/*"]}}, "config compare.primary[0] = 'dispatch/*/filter_jitt/*': matches nothing this "
                                       "run measures (study/config_id/variant/mode"),
    ("pyperf's callable that is not measured", {"compare": {"sides": {"a": {}, "b": {}},
                                                            "pyperf": {"callable": "blocked/filter_jitt"}}},
     "config compare.pyperf.callable = 'blocked/filter_jitt': not a mode/variant the sides time of dispatch"),
    ("a lockstep variant the study has not", {"compare": {"sides": {"a": {}, "b": {}}, "variants": ["jit_flatt"]}},
     "config compare.variants[0] = 'jit_flatt': not a variant of dispatch (filter_jit, jit_partition, jit_flat, "),
    ("a gate's row on a variant the sides do not time", {"compare": {
        "sides": {"a": {}, "b": {}}, "variants": ["jit_flat"], "primary": ["dispatch/*/filter_jit/*"]}},
     "config compare.primary[0] = 'dispatch/*/filter_jit/*': matches nothing this run measures"),
    ("pyperf's callable on a variant the sides do not time", {"compare": {
        "sides": {"a": {}, "b": {}}, "variants": ["jit_flat"], "pyperf": {"callable": "blocked/filter_jit"}}},
     "config compare.pyperf.callable = 'blocked/filter_jit': not a mode/variant the sides time of dispatch (modes: "),
    ("every benchmark file's every problem", _two_bad_files,
     "odd.py:11: EXPECT 'a faster than c': 'c' is not one of the variants ['a', 'b']\nconfig studies.gone.file: "),
    ("a gate with nothing to compare", {"compare": {"fail_on_regression": True}},
     "config compare.fail_on_regression: nothing is compared, so no gate runs"),
    ("a history of a study turned off", {"history": {"versions": ["0.11.8"], "study": "tree_at"},
                                          "studies": {"tree_at": {"enabled": False}}},
     "config history.study = 'tree_at': not an enabled study (enabled: dispatch, extraction, generation; set "
     "studies.tree_at.enabled: true)"),
    ("a declared series of a mode the study has not", {"history": {"versions": ["0.11.8"], "primary": [
        "*/jit_flat/jit_partition/blockd"]}}, "config history.primary[0] = '*/jit_flat/jit_partition/blockd': "
                                               "'blockd' matches no mode"),
    ("a declared series of a configuration not timed", {"history": {"versions": ["0.11.8"], "primary": [
        "layers9*/jit_flat/jit_partition/blocked"]}}, "'layers9*' matches no configuration the history times"),
    ("releases not oldest first", {"history": {"versions": ["0.11.8", "0.11.7"]}},
     "config history.versions: oldest first, as steps are read in this order (0.11.7, 0.11.8), not 0.11.8, 0.11.7"),
    ("a benchmark file's history on a JAX its jobs cannot run on", _file_history,
     "config history.versions: equinox 0.13.6 gets jax 0.4.38, and a benchmark file's jobs need jax 0.7.0 or newer"),
    ("a release's pins for a release not swept", {"history": {"versions": ["0.11.8"], "pins": {"0.11.7": {}}}},
     "config history.pins.0.11.7: not one of history.versions ['0.11.8']"),
    ("a release's python that is not there", {"history": {"versions": ["0.11.8"], "pythons": {"0.11.8": "/no/py"}}},
     "config history.pythons.0.11.8 = '/no/py': not a file"),
    ("a release that is not a version", {"history": {"versions": ["latest"]}}, "config history.versions[0] = 'latest'"),
    ("a precision target over one process", {"studies": {"tree_at": {"measure": {"processes": 1}}}},
     "config studies.tree_at.measure.target_precision: 0.05 is reached over fresh processes: set processes to at "
     "least 2 (it is 1)"),
    ("fewer processes at most than at first", {"studies": {"tree_at": {"measure": {"max_processes": 1}}}},
     "config studies.tree_at.measure.max_processes: 1 is below processes (2)"),
    ("a lockstep precision target over one process",
     {"compare": {"sides": {"a": {}, "a2": {}}, "processes": 1, "target_precision": 0.04}},
     "config compare.target_precision: 0.04 is reached over fresh processes: set processes to at least 2 (it is 1)"),
    ("primary rows named by one string, not a list", {"compare": {"primary": "dispatch/*"}},
     "config compare.primary"),
    ("a share of rows without a precision target", {"compare": {"sides": {"a": {}, "a2": {}}, "target_share": 0.8}},
     "config compare.target_share: 0.8 is a share of rows reaching target_precision: set target_precision"),
    ("an allocation of a configuration the study does not run",
     {"compare": {"sides": {"a": {}, "a2": {}}, "allocation": {"layers9": {"processes": 3}}}},
     f"config compare.allocation.layers9: not a configuration of dispatch (its configurations: {SMOKE_BASE}, "),
    ("an allocation without sides", {"compare": {"allocation": {SMOKE_BASE: {"rounds": 4}}}},
     "config compare.allocation: it shapes lockstep jobs, and compare.sides is empty"),
    ("variants without sides", {"compare": {"variants": ["jit_flat"]}},
     "config compare.variants: it shapes lockstep jobs, and compare.sides is empty"),
    ("an allocated precision target over one process",
     {"compare": {"sides": {"a": {}, "a2": {}}, "target_precision": 0.04,
                  "allocation": {SMOKE_BASE: {"processes": 1}}}},
     f"config compare.allocation.{SMOKE_BASE}.target_precision: 0.04 is reached over fresh processes: set processes "
     "to at least 2 (it is 1)"),
    ("an allocation of too few rounds", {"compare": {"allocation": {SMOKE_BASE: {"rounds": 1}}}},
     f"config compare.allocation.{SMOKE_BASE}.rounds = 1"),
]


def checked(tmp_path: Path, monkeypatch, overlay: dict, preset: str = "smoke.yaml") -> str:
    """What the Snakefile's config check says of a preset (the smoke one by default) plus `overlay`, run in this
    process from a directory of its own (as `snakemake --directory` runs it): the problems, or "" when it passes."""
    from snakemake.utils import update_config

    from jaxpitfalls.configcheck import InvalidConfig, require_valid

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    for layer in (yaml.safe_load((ROOT / "presets" / preset).read_text()), overlay):
        update_config(config, copy.deepcopy(layer))
    monkeypatch.chdir(tmp_path)
    for name in (sources.BENCHMARK_FILES, sources.STUDY_FOLDERS):  # the check sets them: restored after the test
        monkeypatch.setenv(name, os.environ.get(name, ""))
    try:
        require_valid(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    except InvalidConfig as e:
        return str(e)
    return ""


def dry_run(tmp_path: Path, overlay: dict) -> subprocess.CompletedProcess:
    """`snakemake -n` on the smoke preset plus `overlay`, in a directory of its own."""
    path = tmp_path / "overlay.yaml"
    path.write_text(json.dumps(overlay))
    return configs.dry_run(tmp_path, ["presets/smoke.yaml", path])


@pytest.mark.parametrize(("what", "overlay", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_config_is_refused_naming_the_key(tmp_path, monkeypatch, what, overlay, message):
    problems = checked(tmp_path, monkeypatch, overlay(tmp_path) if callable(overlay) else overlay)
    assert message in problems, f"{what}: {problems or 'accepted'}"


# One of each kind through Snakemake itself: a schema violation, a size, a path.
END_TO_END = [m for m in MALFORMED if m[0] in ("below a schema minimum", "BERT: a swept sequence past the "
                                              "position table", "a baseline that is not there")]


@pytest.mark.slow
@pytest.mark.parametrize(("what", "overlay", "message"), END_TO_END, ids=[m[0] for m in END_TO_END])
def test_snakemake_refuses_a_malformed_config_before_any_job(tmp_path, what, overlay, message):
    proc = dry_run(tmp_path, overlay)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"{what}: snakemake -n accepted it:\n{output[-2000:]}"
    assert message in output, output[-3000:]
    assert "Job stats" not in output and "rule " not in proc.stdout  # refused while parsing: no job planned
    assert 'File "' not in output  # the problems alone, no traceback lines read as a crash
    assert not (tmp_path / "results" / "runs").exists()


@pytest.mark.slow
def test_every_problem_is_listed_at_once_and_the_schema_detail_is_kept(tmp_path):
    proc = dry_run(tmp_path, {"studies": {"dispatch": {"base": {"layers": 0, "batch": "2"}},
                                          "tree_at": {"measure": {"budget": 1}}}})
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "3 problems in the config" in output
    for key in ("studies.dispatch.base.layers = 0", "studies.dispatch.base.batch = '2'",
                "studies.tree_at.measure: unknown key 'budget'"):
        assert f"config {key}" in output
    assert "Failed validating" in (tmp_path / "results" / "logs" / "config.log").read_text()


@pytest.mark.parametrize("preset", sorted(p.name for p in (ROOT / "presets").glob("*.yaml")))
def test_every_preset_passes_the_config_check_over_config_yaml(tmp_path, monkeypatch, preset):
    """A preset is merged over config.yaml key by key: a sweep value it does not override (presets/paper.yaml
    once inherited extraction's batch 8 against its 1000 sequences) must still make a valid config. A preset whose
    sides run in venvs `make` builds first (compare-equinox) is refused for those alone until they are built."""
    problems = checked(tmp_path, monkeypatch, {}, preset).splitlines()[1:]
    sides = yaml.safe_load((ROOT / "presets" / preset).read_text()).get("compare", {}).get("sides", {})
    venvs = [f"config compare.sides.{name}.python" for name, side in sides.items() if side.get("python")]
    assert all(any(line.startswith(v) for v in venvs) for line in problems), problems


@pytest.mark.slow
def test_a_valid_config_passes_with_its_defaults_filled_in(tmp_path):
    proc = dry_run(tmp_path, {})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Job stats" in proc.stdout


def test_a_study_with_a_model_family_and_no_size_is_refused_naming_what_it_lacks():
    """A new study's block with model_family but no layers in its base stopped the parse with a bare KeyError."""
    from jaxpitfalls.configcheck.sizes import size_problems

    config = configs.config_with("presets/smoke.yaml")
    del config["studies"]["dispatch"]["base"]["layers"]
    assert "config studies.dispatch.base: no layers, which a study with model_family ('bert') needs to size its " \
           "model" in size_problems(config)


def test_a_benchmark_files_history_on_a_new_or_unreadable_jax_pin_passes(tmp_path, monkeypatch):
    """JAX 0.7 or newer, or a pin pip reads and the check cannot ("0.7.*"): no refusal, no traceback."""
    for jax in ("0.10.2", "0.7.*"):
        overlay = _file_history(tmp_path)
        overlay["history"]["with"] = {"jax": jax, "jaxlib": jax}
        assert checked(tmp_path, monkeypatch, overlay) == ""
