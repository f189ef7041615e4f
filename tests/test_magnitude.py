"""The scorecard's magnitude verdicts: the write-up's number beside ours, judged only where the structure
sets it and only at the write-up's structure."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from jaxpitfalls import studies
from jaxpitfalls.report.build import declared
from jaxpitfalls.report.magnitude import at_write_up_structure, magnitude
from jaxpitfalls.studies.interface import Number

OVERHEAD = Number(46.8, 47.2, " ms", structural=True, at={"layers": 12})
SPEEDUP = Number(1.23, 1.27, "x", structural=False, at={"layers": 12, "hidden": 768})


@pytest.mark.parametrize("ours, verdict", [
    ((47.0, 45.0, 49.0), "same size"),
    ((30.0, 25.0, 35.0), "same size"),          # within the factor 2 of the hosts
    ((13.0, 11.0, 15.0), "**3.6x smaller**"),   # the interval stays below 47 / 2
    ((120.0, 100.0, 140.0), "**2.5x larger**"),
    ((-2.0, -4.0, 0.5), "opposite sign"),
])
def test_structural_numbers_are_judged_within_a_factor(ours, verdict):
    side_by_side, size = magnitude(OVERHEAD, ours)
    assert size == verdict
    assert side_by_side.startswith("46.8-47.2 ms vs ")


def test_a_single_number_is_shown_without_an_interval():
    assert magnitude(OVERHEAD, (47.0, 47.0, 47.0))[0] == "46.8-47.2 ms vs 47 ms"


def test_hardware_bound_numbers_show_the_factor_without_a_verdict():
    assert magnitude(SPEEDUP, (1.02, 0.9, 1.2))[1] == "hardware-bound (1.2x smaller)"
    assert magnitude(SPEEDUP, (1.25, 1.2, 1.3))[1] == "hardware-bound (same size)"


def test_not_measured_names_the_write_ups_structure():
    assert magnitude(SPEEDUP, None) == ("1.23-1.27x vs not measured",
                                        "not measured at the write-up's structure (layers 12, hidden 768)")


def test_the_write_ups_structure_prefers_the_base_configuration():
    table = pd.DataFrame([
        {"config_id": "l12-h768", "axes": "hidden", "layers": 12, "hidden": 768},
        {"config_id": "l12-h64", "axes": "base,layers,hidden,dropout", "layers": 12, "hidden": 64},
        {"config_id": "l24-h64", "axes": "layers", "layers": 24, "hidden": 64},
    ])
    assert at_write_up_structure(table, OVERHEAD) == "l12-h64"
    assert at_write_up_structure(table, SPEEDUP) == "l12-h768"
    assert at_write_up_structure(table, Number(1, 1, "x", True, at={"layers": 4})) is None


def test_write_up_numbers_need_a_positive_range():
    with pytest.raises(ValueError, match="0 < low <= high"):
        Number(2, 1, "x", structural=True)


@pytest.mark.parametrize("name", studies.names())
def test_every_numbered_claim_names_keys_its_configurations_have(name):
    spec = studies.spec(name)
    base_keys = set(yaml.safe_load(spec.schema.read_text())["properties"]["base"]["required"])
    for claim in spec.claims.values():
        for number in claim.numbers:
            assert set(number.at) <= base_keys, (name, claim.text)


def test_a_report_must_measure_each_of_the_write_ups_numbers():
    spec = studies.spec("dispatch")
    rows = [{"claim": key, "measured": "", "verdict": "inconclusive", "rule": "",
             "ours": (None,) * len(claim.numbers)} for key, claim in spec.claims.items()]
    assert [row["numbers"] for row in declared(spec, rows)] == [c.numbers for c in spec.claims.values()]
    rows[0] = rows[0] | {"ours": ()}
    with pytest.raises(ValueError, match="claim 'slower': report.claims\\(\\) measured 0 numbers, the spec's write-up "
                                         "gives 3"):
        declared(spec, rows)
