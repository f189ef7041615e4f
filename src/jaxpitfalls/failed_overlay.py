"""The config overlay after failed jobs that reports every finished configuration, the failed ones said apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from . import plan
from .results import write_text

OVERLAY = "results/without-failed.yaml"
Conf = tuple[str, dict[str, Any]]  # (study, configuration)


def without(config: dict[str, Any], dropped: list[Conf], reasons: dict[tuple[str, str], str],
            disabled: list[str]) -> dict[str, Any]:
    """Each configuration's sweep value or point dropped, added to `left_out` with its reason (the config's list
    kept: an overlay's replaces it); a study whose base failed disabled."""
    overlay: dict[str, Any] = {"studies": {study: {"enabled": False} for study in disabled}} if disabled else {}
    for study, conf in dropped:
        block = config["studies"][study]
        base, sweep, points = block["base"], block.get("sweep", {}), block.get("points", [])
        kept = overlay.setdefault("studies", {}).setdefault(study, (
            {"sweep": {axis: list(values) for axis, values in sweep.items()}} if sweep else {}) | (
            {"points": list(points)} if points else {}) | {"left_out": list(block.get("left_out", []))})
        for axis in conf["axes"]:
            if axis in kept.get("sweep", {}):
                kept["sweep"][axis] = [v for v in kept["sweep"][axis] if v != conf[axis]]
        if points:
            kept["points"] = [p for p in kept["points"] if base | p != {k: conf[k] for k in base}]
        kept["left_out"].append({"config": conf["id"], "reason": reasons[study, conf["id"]]})
    return overlay


def overlay_lines(config: dict[str, Any], dropped: list[Conf], reasons: dict[tuple[str, str], str],
                  disabled: list[str]) -> list[str]:
    """Write the overlay; what it does, and the keys an overlay cannot delete that the config must lose too."""
    write_text(OVERLAY, yaml.safe_dump(without(config, dropped, reasons, disabled), sort_keys=False))
    names = "; ".join(sorted(f"{s} {c['id']}" for s, c in dropped))
    does = " and ".join(filter(None, [f"disables {', '.join(disabled)}" if disabled else "",
                                      f"leaves out: {names}" if dropped else ""]))
    gone = dropped + [(s, c) for s in disabled for c in plan.configurations(config["studies"][s])]
    return [f"To report every finished configuration without the failed ones, add {Path(OVERLAY).resolve()} last "
            f"to the command's --configfile files (it {does}).",
            *[f"Remove models.{key} from your config too: no configuration left uses it."
              for key in _unused_local_dirs(config, gone)],
            *[f"Remove compare.allocation.{c['id']} from your config too: it allocates a configuration left out."
              for _, c in dropped if c["id"] in config.get("compare", {}).get("allocation", {})]]


def _unused_local_dirs(config: dict[str, Any], gone: list[Conf]) -> list[str]:
    """`family.local_dirs.model` of each model only dropped configurations used (the config check refuses it)."""
    ids = {(s, c["id"]) for s, c in gone}
    kept = {c.get("model") for s in plan.enabled_studies(config) for c in plan.configurations(config["studies"][s])
            if (s, c["id"]) not in ids}
    return sorted(f"{family}.local_dirs.{model}" for family, block in config["models"].items()
                  for model in block.get("local_dirs", {}) if model in {c.get("model") for _, c in gone} - kept)
