"""Aggregation re-checks results before they reach a table: the negative control and mixed environments."""

from __future__ import annotations

import copy
import json

import pytest

from jaxpitfalls import results
from jaxpitfalls.harness.variants import VariantsIndistinguishable
from jaxpitfalls.report.aggregate import IncomparableResults, aggregate


def _doc(config_id: str) -> dict:
    summary = {"n": 2, "median": 0.01, "mean": 0.01, "std": 0.0, "iqr": 0.0, "min": 0.01, "max": 0.01}
    mode = {"samples_s": [0.01, 0.01], "summary": summary, "compiles_in_timed_region": 0}
    variant = {"modes": {"blocked": mode}, "calls": 5, "compiles_in_warmup": 1}
    return {
        "study": "dispatch", "config_id": config_id,
        "config": {"id": config_id, "model": "bert-L1-H8", "axes": ["layers"], "layers": 1},
        "settings": {}, "floor": "b", "memory": {"blocked": {"host_peak_bytes": 1, "device_peak_bytes": None}},
        "variants": {"a": variant | {"signature": {"callable": "x"}}, "b": variant | {"signature": {"callable": "y"}}},
        "comparisons": [{"variant": "a", "baseline": "b", "mode": "blocked", "ratio": 1.0, "ratio_ci_low": 1.0,
                         "ratio_ci_high": 1.0, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0}],
        "checks": {"outputs_agree": True, "signatures_distinct": True, "compiles_in_timed_region": 0},
        "environment": {"python": "3.11", "packages": {"jax": "0.10.2"}, "backend": "cpu", "device_kind": "cpu",
                        "device_count": 1, "cpu_model": "x", "xla_flags": "", "git": {"commit": None, "dirty": None},
                        "config_hash": "h", "timestamp": "t"},
    }


def _write(tmp_path, docs):
    paths = []
    for doc in docs:
        path = tmp_path / f"{doc['config_id']}.json"
        path.write_text(json.dumps(doc))
        results.read_result(path)  # the fixtures are valid results
        paths.append(str(path))
    return paths


def test_a_result_whose_variants_share_a_signature_is_refused(tmp_path):
    same = _doc("c1")
    same["variants"]["b"]["signature"] = dict(same["variants"]["a"]["signature"])
    with pytest.raises(VariantsIndistinguishable, match="c1.json"):
        aggregate(_write(tmp_path, [_doc("c0"), same]), [])


def test_results_from_different_environments_are_not_mixed(tmp_path):
    other = copy.deepcopy(_doc("c1"))
    other["environment"]["packages"] = {"jax": "0.9.0"}
    with pytest.raises(IncomparableResults, match="packages"):
        aggregate(_write(tmp_path, [_doc("c0"), other]), [])


def test_run_span_counts_the_latest_invocation_only():
    import pandas as pd

    from jaxpitfalls.report.aggregate import span_seconds

    jobs = pd.DataFrame({"seconds": [10.0, 20.0, 30.0, 5.0], "end": [100.0, 1000.0, 1025.0, 1030.0]})
    assert span_seconds(jobs) == (50.0, 1)  # the job that ended at 100 s is from an earlier run
    assert span_seconds(jobs.iloc[1:]) == (50.0, 0)
