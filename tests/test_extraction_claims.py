"""The extraction claims bounded instead of timed, on known numbers: vectorizing's gain can be no larger than
removing every copy of jit_padded's pass, and the copies' share at a small batch is not testable where a copy
is a host memcpy (a CPU backend)."""

from __future__ import annotations

import pandas as pd
import pytest

from jaxpitfalls.report.claims import NOT_MEASURED, NOT_TESTABLE
from jaxpitfalls.studies.extraction.report import _batched_copy, _copies_small_batches

BASE = "layers24-hidden896"  # the write-up's structure (QWEN2_05B)


def _speeds(transfer_ms: float, pass_ms: float = 800.0) -> pd.DataFrame:
    return pd.DataFrame([{"config_id": BASE, "variant": "jit_padded", "batch": 2, "pass_ms": pass_ms,
                          "transfer_ms": transfer_ms}])


COMP = pd.DataFrame([{"config_id": BASE, "layers": 24, "hidden": 896, "axes": "layers,hidden"}])


@pytest.mark.parametrize(("transfer_ms", "expected", "says"), [
    (17.5, NOT_TESTABLE, "at most 1.022x, below the write-up's ~1.5x"),  # this CPU: 2% of a pass
    (400.0, NOT_MEASURED, "at most 2.000x, room for ~1.5x"),  # an accelerator's copies: a variant would tell
])
def test_vectorizing_is_bounded_by_all_the_copies_it_could_remove(transfer_ms, expected, says):
    judged = _batched_copy(_speeds(transfer_ms), COMP, BASE)
    assert judged.verdict == expected and says in judged.measured, judged.measured


@pytest.mark.parametrize(("backend", "expected"), [("cpu", NOT_TESTABLE), ("gpu", NOT_MEASURED)])
def test_copies_share_at_a_small_batch_is_not_testable_where_a_copy_is_a_memcpy(backend, expected):
    judged = _copies_small_batches(_speeds(17.5), backend, BASE)
    assert judged.verdict == expected and "2.2% of its pass at batch 2" in judged.measured, judged.measured
