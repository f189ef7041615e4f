"""A test that needs a system tool skips where it is missing, saying what and how to get it, and fails instead
where `make test` could have installed it."""

from __future__ import annotations

import pytest
from system_tiers import REQUIRED, need


def test_a_missing_tool_skips_naming_it_and_how_to_get_it(monkeypatch):
    monkeypatch.delenv(REQUIRED, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"the browser tests need no-such-tool-here: make it so"):
        need("browser", ("no-such-tool-here", "sh"), "make it so")
    need("shell", ("sh",), "never said")  # present: nothing happens


def test_a_missing_tool_fails_where_every_tier_is_required(monkeypatch):
    monkeypatch.setenv(REQUIRED, "1")
    with pytest.raises(pytest.fail.Exception, match=rf"no-such-tool-here: make it so \({REQUIRED} is set"):
        need("browser", ("no-such-tool-here",), "make it so")
