"""The floors' A/A twins (protocol.measure_mode, report/scorecard/audit.py): the study's tables hide them, the
audit counts how often their intervals missed 1, and the check that variants run code paths of their own lets a
twin share its floor's signature."""

from __future__ import annotations

import pandas as pd
import pytest
from results_docs import process_doc

from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.harness import stats
from jaxpitfalls.harness.processes import merge
from jaxpitfalls.harness.variants import VariantsIndistinguishable, require_distinct
from jaxpitfalls.report.scorecard.audit import twin_rows, twin_sections, twin_warning
from jaxpitfalls.report.tables import aggregate

TWIN = stats.twin_side("f")


def _with_twin(doc: dict) -> dict:
    """A process's result with the floor timed twice, as measure_mode and result_document make it."""
    floor = doc["variants"]["f"]
    doc["variants"][TWIN] = floor | {"twin_of": "f"}
    doc["comparisons"].append({"variant": TWIN, "baseline": "f", "mode": "m"}
                              | stats.paired_comparison(floor["modes"]["m"]["samples_s"],
                                                        floor["modes"]["m"]["samples_s"]))
    return doc


def _paths(tmp_path, comparisons: pd.DataFrame) -> dict[str, str]:
    written = {"steps": pd.DataFrame({"process": ["all"] * 2, "variant": ["f", TWIN]}), "comparisons": comparisons,
               "checks": pd.DataFrame({"code": ["c"]}), "overhead": pd.DataFrame({"config_id": ["c"]}),
               "environment": pd.DataFrame({"jax": ["0"]})}
    paths = {name: str(tmp_path / f"{name}.csv") for name in TABLES}
    for name, table in written.items():
        table.to_csv(paths[name], index=False)
    return paths


def test_a_twin_shares_its_floors_signature_and_is_counted_apart_from_the_variants():
    doc = merge([_with_twin(process_doc(1.1, seed)) for seed in range(2)]) | {
        "config_id": "c", "config": {"id": "c", "model": "m", "axes": []}}
    signatures = {name: v["signature"] for name, v in doc["variants"].items()}
    with pytest.raises(VariantsIndistinguishable):  # taken for a variant, the twin would fail the job
        require_distinct(signatures)
    assert set(aggregate._told_apart(doc)) == {"f", "v"}
    twin = next(c for c in doc["comparisons"] if c["variant"] == TWIN)
    assert twin["ratio"] == 1 and twin["process_ratios"] == [1, 1]


def test_the_tables_hide_the_twins_and_the_audit_counts_their_misses(tmp_path):
    rows = [{"config_id": f"c{i}", "variant": TWIN, "baseline": "f", "mode": "m", "process": "all",
             "ratio": 1.0, "ratio_ci_low": 0.98, "ratio_ci_high": 1.02} for i in range(19)]
    rows.append(rows[0] | {"config_id": "c19", "ratio": 1.04, "ratio_ci_low": 1.01, "ratio_ci_high": 1.07})
    rows.append({"config_id": "c0", "variant": "v", "baseline": "f", "mode": "m", "process": "all", "ratio": 1.1,
                 "ratio_ci_low": 1.05, "ratio_ci_high": 1.15})
    paths = _paths(tmp_path, pd.DataFrame(rows))
    tables = aggregate.read_tables(paths)
    assert list(tables["comparisons"].variant) == ["v"] and list(tables["steps"].variant) == ["f"]
    found = twin_rows(aggregate.read_tables(paths, twins=True)["comparisons"])
    assert len(found) == 20
    (text,) = twin_sections({"s": found, "other": found.iloc[:0]})
    assert "**1 of 20** twin rows excluded 1 (5.0%" in text
    assert "| 4.0% " in text and "| 2.0% " in text and "| other" not in text  # largest miss, median half-width
    assert twin_sections({"s": found.iloc[:0]}) == []  # results measured before the twins: no section
    one_df = found.assign(ratio_ci_low=1e-5, ratio_ci_high=3.2e5)  # a walk's 2 processes: t on 1 df, 16032331.7%
    assert "| over 1000% (few processes) " in twin_sections({"s": one_df})[0]
    assert twin_warning({"s": found}) == twin_warning({"s": found.iloc[:0]}) == []  # 1 of 20: as 95% allows
    # a walk's base: both twin rows of a file's two modes excluded 1, said in the audit alone
    (said, _) = twin_warning({"s": found.iloc[-4:].assign(ratio_ci_low=[1.001, 0.98, 1.003, 0.98])})
    assert said.startswith("**The floor timed against itself (its A/A twin) excluded 1 in 2 of 4 rows, more than "
                           "the 5%") and "changes within 4.0% as identical code showed" in said
