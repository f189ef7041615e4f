"""Advice that the tables cannot contradict: a claim's advice uses a word of magnitude (linear, quadratic, most of,
removes) only where the claim's rule decides that magnitude, never where its claim is undecided; words no
interval can support (where the gain is) are not used at all; the advice ("What to do") quotes no number its
rule does not hold. (The README's summary is filled from the published tables: tests/test_readme.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxpitfalls import registry

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"(?<![\w.])([-+]?\d+(?:\.\d+)?)(x|%)?(?![\w.]*\d)")  # 5.9x, 72%, 0.93 (not a version)
# A word of magnitude -> what the claim's rule must decide for its advice to use it.
MAGNITUDE = {
    r"\blinear": ("cost per transform",),  # an affine first run (tree_at's first_run_linear)
    r"\bquadratic": ("square",),
    r"\bmost of\b": ("half", "50%"),  # a share judged against one half
    r"\bremoves\b": ("within",),  # a remainder judged within a band of the floor
}
NEVER = (r"where the gain is", r"removes it\b")


def numbers(text: str) -> list[tuple[str, str]]:
    """Each number with its unit where it is a ratio or a share (`x`, `%`), dates and versions left out."""
    return NUMBER.findall(re.sub(r"\d{4}-\d{2}-\d{2}(-\d+)?|\d+(\.\d+){2,}", "", text))


def unquoted(text: str, source: str) -> list[str]:
    """Numbers of `text` that `source` does not hold at the quoted precision, in the same unit: `5.9x` is held
    by 5.93x or 5.9x, `15x` by 14.8x, never by 5.9 ms."""
    held = numbers(source)
    missing = []
    for n, unit in numbers(text):
        digits = len(n.split(".")[1]) if "." in n else 0
        if not any(u == unit and abs(float(h) - float(n)) <= 0.5 * 10 ** -digits + 1e-9 for h, u in held):
            missing.append(n + unit)
    return missing


def test_a_number_the_report_does_not_hold_is_found():
    assert unquoted("5.9x faster, 72% of it, +10.6 ms", "ratio 5.93x; 71.8%; 10.61 ms") == []
    assert unquoted("7.4x faster, 5.9 ms", "ratio 5.93x; 7.4 ms") == ["7.4x", "5.9"]


ADVICE = [(name, key, slot, text) for name in registry.names() for key, claim in registry.spec(name).claims.items()
          if claim.advice for slot, text in vars(claim.advice).items() if text]


@pytest.mark.parametrize(("study", "key", "slot", "text"), ADVICE, ids=[f"{a[0]}-{a[1]}-{a[2]}" for a in ADVICE])
def test_advice_uses_a_word_of_magnitude_only_where_its_rule_decides_it(study, key, slot, text):
    rule = registry.spec(study).claims[key].rule
    for word, decided_by in MAGNITUDE.items():
        if re.search(word, text, re.IGNORECASE):
            assert slot != "inconclusive", f"{study}/{key}: an undecided claim's advice says {word!r}"
            assert any(p in rule for p in decided_by), (
                f"{study}/{key}: advice says {word!r}, its rule decides none of {decided_by}")
    assert not [w for w in NEVER if re.search(w, text, re.IGNORECASE)], f"{study}/{key}: {text}"
    # "What to do" is made of these texts: a number in one is its rule's (a threshold, a prediction), never a
    # measurement, which only the tables hold
    assert unquoted(text, rule) == [], f"{study}/{key}: advice quotes a number its rule does not: {text}"
