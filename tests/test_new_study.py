"""A study of one's own is one folder and one config block: a fifth study (tests/new_study/toy) in a temporary
folder outside the repository, named by `study_folders`, runs through every rule of a copy of the workflow,
from its measuring job to the report's scorecard (refusals at parse: tests/test_study_folders.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
import yaml
from workflow_copy import ROOT, copy_workflow, snakemake

pytestmark = pytest.mark.workflow

TOY = Path(__file__).parent / "new_study" / "toy"
BLOCK = {"toy": {"base": {"layers": 1, "hidden": 16}, "measure": {"rounds": 3, "trace_steps": 1,
                                                                 "on_contention": "warn"}}}
# Only to keep the test short: the four real studies are off.
OTHERS_OFF = {name: {"enabled": False} for name in ("dispatch", "tree_at", "extraction", "generation")}


def test_a_fifth_study_from_a_folder_of_ones_own(tmp_path):
    (tmp_path / "workflow").mkdir()
    work = copy_workflow(tmp_path / "workflow")
    mine = tmp_path / "my-studies"
    shutil.copytree(TOY, mine / "toy", ignore=shutil.ignore_patterns("__pycache__"))
    assert not mine.resolve().is_relative_to(ROOT) and not mine.resolve().is_relative_to(work.resolve())
    folders = {"study_folders": [str(mine)]}
    overlay = work / "toy.yaml"
    overlay.write_text(yaml.safe_dump(folders | {"studies": OTHERS_OFF | BLOCK}))

    bad = work / "bad.yaml"  # the study's own fragment validates its block, like any other study's
    bad.write_text(yaml.safe_dump(folders | {"studies": OTHERS_OFF | {
        "toy": {"base": {"layers": 1, "hidden": 16, "seq": 4}}}}))
    refused = snakemake(work, "-n", overlay=bad, check=False)
    assert refused.returncode != 0 and "config studies.toy.base: unknown key 'seq'" in refused.stdout + refused.stderr

    snakemake(work, "--cores", "all", overlay=overlay)
    (result,) = (work / "results/runs/toy").glob("*.json")
    doc = json.loads(result.read_text())
    jsonschema.validate(doc, json.loads((ROOT / "workflow/schemas/result.schema.json").read_text()))
    assert doc["checks"]["outputs_agree"]["reference"] == "jit" and doc["checks"]["signatures_distinct"][
        "distinct_signatures"] == 2
    assert doc["settings"]["budget_s"] == 1  # its fragment's default
    assert doc["environment"]["study_code"]["folder"] == str(mine.resolve() / "toy")  # outside the checkout's git
    overhead = pd.read_csv(work / "results/tables/toy/overhead.csv")
    assert set(overhead.component) >= {"executable", "rest"} and set(overhead.variant) == {"eager", "jit"}
    assert (work / "reports/figures/toy/median.png").stat().st_size > 10_000
    report = (work / "reports/report.md").read_text()
    assert "| toy     | jax.jit makes a small function faster than eager dispatch | none (a toy)" in report
    assert "## Study `toy`" in report and "Gram matrix of tanh(x)" in report
    assert "## Study `dispatch`" not in report and (work / "reports/bundle.tar.gz").is_file()
