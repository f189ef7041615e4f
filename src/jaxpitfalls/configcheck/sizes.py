"""Model sizes a job would find wrong only once started, or never (JAX clamps an index past a table's end).
A study's own checks are its spec's `check_sizes`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .. import plan, registry

# A local Hugging Face directory's config.json names for each family's sizes.
HF_KEYS = {
    "bert": {"layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
             "max_positions": "max_position_embeddings", "vocab_size": "vocab_size"},
    "gpt2": {"layers": "n_layer", "hidden": "n_embd", "heads": "n_head", "max_positions": "n_positions",
             "vocab_size": "vocab_size"},
    "qwen2": {"layers": "num_hidden_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
              "kv_heads": "num_key_value_heads", "max_positions": "max_position_embeddings",
              "vocab_size": "vocab_size"},
}


@dataclass(frozen=True)
class Model:
    """A model's sizes, and the config key that sets each, so a problem names the key to change."""

    name: str
    values: dict[str, int]
    keys: dict[str, str]
    missing: tuple[str, ...] = ()  # sizes a local config.json does not give

    def __getitem__(self, size: str) -> int:
        return self.values[size]

    def label(self, size: str) -> str:
        return f"{self.keys[size]} ({self.values[size]})"


def read_local(directory: str) -> dict[str, Any]:
    """A local model directory's config.json (OSError or ValueError where none)."""
    return json.loads((Path(directory) / "config.json").read_text())


def model(config: dict[str, Any], name: str) -> Model:
    """The sizes of model `name` as its job builds it."""

    spec = plan.model_spec(config, name)
    family, block = spec["family"], f"models.{spec['family']}"
    if spec["local_dir"]:
        try:
            local = read_local(spec["local_dir"])
        except (OSError, ValueError):
            local = None
        if local is not None:
            where = f"{spec['local_dir']}/config.json"
            present = {size: key for size, key in HF_KEYS[family].items() if key in local}
            missing = tuple(key for key in HF_KEYS[family].values() if key not in local)
            values = {size: int(local[key]) for size, key in present.items()}
            if "heads" in values:
                values["head_dim"] = values["hidden"] // values["heads"]
            if "kv_heads" in values:
                values["kv_groups"] = values["heads"] // values["kv_heads"]
            return Model(name, values, {size: f"{where} {key}" for size, key in present.items()} | {
                "head_dim": f"{where} hidden / heads", "kv_groups": f"{where} heads / kv heads"}, missing)
    values = {k: v for k, v in spec.items() if isinstance(v, int) and not isinstance(v, bool)}
    return Model(name, values, {k: f"{block}.{k}" for k in values})


def source(study: str, block: dict[str, Any], conf: dict[str, Any], key: str) -> str:
    """The config key that sets a configuration's `key`: the base, the key's sweep, or an extra point."""
    if conf[key] == block["base"][key]:
        return f"studies.{study}.base.{key}"
    return f"studies.{study}.sweep.{key}" if key in conf["axes"] else f"studies.{study}.points"


def _setting(study: str, block: dict[str, Any], conf: dict[str, Any], key: str) -> str:
    """`config studies.dispatch.sweep.seq = 64`: how a problem names the setting to change."""
    return f"config {source(study, block, conf, key)} = {conf[key]}"


def _any_family(at, conf, m, config) -> Iterator[str]:
    if conf["hidden"] != m["hidden"]:
        yield f"{at('hidden')}: the model's {m.label('hidden')} differs; point local_dirs at a model of this size"
    if "layers" in m.values and conf["layers"] != m["layers"]:
        yield f"{at('layers')}: the model's {m.label('layers')} differs; point local_dirs at a model of this size"
    if conf["hidden"] % m["head_dim"]:
        yield (f"{at('hidden')}: not a multiple of {m.label('head_dim')} (attention heads = hidden / head_dim); "
               f"use a multiple of {m['head_dim']} or change head_dim")
    elif "kv_groups" in m.values and (conf["hidden"] // m["head_dim"]) % m["kv_groups"]:
        yield (f"{at('hidden')}: {conf['hidden'] // m['head_dim']} attention heads are not a multiple of "
               f"{m.label('kv_groups')} (query heads per key/value head); change hidden or kv_groups")


def _family_problems(config: dict[str, Any], enabled: list[str]) -> Iterator[str]:
    for study in enabled:
        if not plan.reads_corpus(study):
            continue
        family = config["studies"][study]["model_family"]
        for name in plan.study_models(config, study):
            m = model(config, name)
            if m["vocab_size"] < config["data"]["vocab_size"]:
                yield (f"config {m.keys['vocab_size']} = {m['vocab_size']}: smaller than data.vocab_size "
                       f"({config['data']['vocab_size']}), so the corpus' token ids would index past "
                       f"{name}'s embedding table; raise it to at least {config['data']['vocab_size']}")
        if family == "qwen2" and config["models"]["qwen2"]["head_dim"] % 2:
            yield (f"config models.qwen2.head_dim = {config['models']['qwen2']['head_dim']}: odd, and the rotary "
                   "embedding rotates pairs of dimensions; use an even head_dim")


def size_problems(config: dict[str, Any]) -> list[str]:
    """One line per problem, each naming the key to change and how; a shared base value's problem once."""
    enabled = plan.enabled_studies(config)
    lines: list[str] = list(_family_problems(config, enabled))
    for study in enabled:
        block, check = config["studies"][study], registry.spec(study).check_sizes
        unsized = [k for k in ("layers", "hidden") if "model_family" in block and k not in block.get("base", {})]
        if unsized:  # the model each configuration times is named by its family, layers and hidden
            lines.append(f"config studies.{study}.base: no {' or '.join(unsized)}, which a study with model_family "
                         f"({block['model_family']!r}) needs to size its model")
            continue
        for conf in plan.configurations(block):
            if "model" not in conf:  # a benchmark file builds its own inputs: setup checks them when it runs
                continue
            at = partial(_setting, study, block, conf)
            m = model(config, conf["model"])
            if m.missing:
                lines.append(f"config models.{block['model_family']}.local_dirs.{m.name}: its config.json lacks "
                             f"{', '.join(m.missing)}, which the study's sizes are checked against")
                continue
            lines += [*_any_family(at, conf, m, config), *(check(at, conf, m, config) if check else ())]
    return list(dict.fromkeys(lines))
