"""A benchmark file's expectations, judged like claims. The sentences (`Nx` or `N%`, optionally ending `at AXIS=VALUE`
(a configuration other than the base), then `when pipelined`, or `when first run` in a file that times first runs):
    A faster than B | A slower than B
    A at least N faster than B | A at least N slower than B
    A no more than N faster than B | A no more than N slower than B   (or: at most)
    A within N% of B
(`A compiles ...` judges XLA's compile time in first runs, FIRST_RUN's), and on XLA's plans (exact, no `when`):
    A uses [at least N | no more than N] less|more [temporary] memory than B [at AXIS=VALUE]"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..contract.interface import Advice, Claim

FIRST_RUN_MODE = "first_run"  # a FIRST_RUN file's third mode: a call from cleared caches

_AT = r"(?:\s+at\s+(?P<axis>\w+)\s*=\s*(?P<value>[\w.+-]+))?"  # a configuration other than the base
_SENTENCE = re.compile(
    r"^(?P<a>\w+)\s+(?:is\s+|(?P<compiles>compiles?)\s+)?(?:(?P<bound>at least|no more than|at most|within)\s+"
    r"(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>x|%)\s*)?(?:(?P<direction>faster|slower)\s+than|of)\s+"
    r"(?P<b>\w+)" + _AT + r"(?:\s+when\s+(?P<when>pipelined|first[\s_-]+run))?\s*\.?$", re.IGNORECASE)
_MEMORY = re.compile(
    r"^(?P<a>\w+)\s+uses\s+(?:(?P<bound>at least|no more than|at most)\s+(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>x|%)\s+)?"
    r"(?P<direction>less|more)\s+(?P<part>temporary\s+)?memory\s+than\s+(?P<b>\w+)" + _AT + r"\s*\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class Expectation:
    """The paired ratio t(a) / t(b) must lie above `low` and/or below `high`; `faster`: shown as t(b) / t(a);
    `mode`: the dispatch mode it is judged in; `memory`: on the planned totals instead, `faster` meaning less;
    `compiling`: on XLA's compile times in first runs."""

    text: str
    a: str
    b: str
    low: float | None
    high: float | None
    faster: bool
    mode: str = "blocked"
    memory: bool = False
    at: tuple[str, str] | None = None  # the configuration judged, by one of setup's values: else the base
    part: str = "total"  # a memory sentence's part of the plan: `total`, or `temporary` (what remat trades)
    compiling: bool = False

    def at_value(self, found: object) -> bool:
        """Whether a configuration's value is the one `at` names (8 as 8.0 too; text case-blind, as the sentence)."""
        try:
            return float(found) == float(self.at[1])
        except (TypeError, ValueError):
            return str(found).casefold() == self.at[1].casefold()

    @property
    def where(self) -> str:
        return f"at {self.at[0]}={self.at[1]}" if self.at else "at the base configuration"

    def judged_at(self, config_id: str) -> str:
        return f"{self.where} ({config_id})" if self.at else f"at the base configuration {config_id}"

    @property
    def key(self) -> str:
        """The sentence in lower case, words joined by `_`."""

        return re.sub(r"\W+", "_", self.text.lower().replace("=-", "=minus_")).strip("_")  # x=-1 is not x=1

    @property
    def pair(self) -> tuple[str, str]:
        return self.a, self.b

    def claim(self, where: str) -> Claim:
        """The expectation as a claim; its factor is the rule's edge, not a size to match."""
        advice = Advice(f"Held: {self.text}.", f"Did not hold: {self.text}.",
                        f"Undecided: {self.text} (\"How each expectation was judged\" says what would decide it).")
        return Claim(self.text, f"your expectation ({where})", rule=self.rule, advice=advice, expected=True)

    @property
    def spoken(self) -> tuple[str, float | None, float | None]:
        """The ratio as the sentence speaks (a speed-up where it says faster), with its edges."""
        if self.memory:
            of = "memory" if self.part == "total" else "temporaries"
            return f"{of}({self.a}) / {of}({self.b})", self.low, self.high
        t = "compiling" if self.compiling else "t"
        if not self.faster:
            return f"{t}({self.a}) / {t}({self.b})", self.low, self.high
        return f"{t}({self.b}) / {t}({self.a})", self.high and 1 / self.high, self.low and 1 / self.low

    @property
    def rule(self) -> str:
        what, low, high = self.spoken
        edges = " and ".join(filter(None, [f"above {low:.4g}" if low else "", f"below {high:.4g}" if high else ""]))
        if self.memory:
            edge = "" if low == 1 or high == 1 else " or at the edge"
            return (f"{what} {self.where}, the {'total' if self.part == 'total' else 'temporaries'} "
                    f"XLA plans for each variant's largest program's buffers on a device: exact (no interval), "
                    f"{edges}{edge}")
        how = "XLA's compile time in first runs" if self.compiling else f"{self.mode} mode"
        return f"{what} {self.where}, {how}: the 95% interval wholly {edges}"


def parse_expectation(text: str, variants: tuple[str, ...]) -> Expectation:
    """One sentence as an Expectation, or ValueError."""
    m = _SENTENCE.match(text.strip()) or _MEMORY.match(text.strip())
    if m is None and re.search(r"\buses\b.*\bmemory\s+than\b.*\bwhen\b", text, re.IGNORECASE):
        raise ValueError("memory is judged on XLA's plan of the programs, which no mode changes: leave 'when ...' out")
    if m is None and re.search(r"\buses\s+\d", text, re.IGNORECASE):
        raise ValueError("say 'at least' or 'no more than' before a size: 'a uses at least 40% less memory than b'")
    if m is None:
        raise ValueError("not an expectation this reads: write e.g. 'vmap at least 2x faster than loop', "
                         "'filter_jit no more than 5% slower than jit', 'a within 3% of b' (optionally ending "
                         "'at n=1024', then 'when pipelined' or 'when first run'), 'scan compiles at least 2x "
                         "faster than unrolled', 'donated uses at least 40% less [temporary] memory than copied "
                         "[at n=1024]'")
    a, b, bound = m["a"], m["b"], (m["bound"] or "").lower()
    for name in (a, b):
        if name not in variants:
            close = "".join(f": did you mean {c!r}?" for c in difflib.get_close_matches(name, variants, n=1))
            raise ValueError(f"{name!r} is not one of the variants {list(variants)}{close}")
    if a == b:
        raise ValueError("compares a variant with itself")
    if (bound == "within") != (m["direction"] is None):
        raise ValueError("say 'faster than' or 'slower than', or 'within N% of' for a band")
    memory = m.re is _MEMORY
    size = _size(m["size"], m["unit"], less=memory and m["direction"].lower() == "less")
    faster = (m["direction"] or "").lower() in ("faster", "less")
    low, high = _edges(bound, faster, size)
    at = (m["axis"], m["value"]) if m["axis"] else None
    if memory:
        return Expectation(text.strip(), a, b, low, high, faster, memory=True, at=at,
                           part="temporary" if m["part"] else "total")
    when, compiling = (m["when"] or "").lower(), bool(m["compiles"])
    if compiling and when:
        raise ValueError("compiling is timed in first runs (FIRST_RUN): leave 'when ...' out")
    mode = "blocked" if not (when or compiling) else "pipelined" if when == "pipelined" else FIRST_RUN_MODE
    return Expectation(text.strip(), a, b, low, high, faster, mode, at=at, compiling=compiling)


def _size(number: str | None, unit: str | None, less: bool) -> float | None:
    """The factor a sentence names, above 1: `40% less` memory is 1 / 0.6 (a total 0.6 times), `40% faster` 1.4."""
    if not number:
        return None
    n, times = float(number), unit.lower() == "x"
    if n <= (1 if times else 0):
        raise ValueError(f"{number}{unit} is no change: a factor above 1x, or a percentage above 0"
                         + (" (half is 2x less)" if times and less else ""))
    if times:
        return n
    if less and n >= 100:
        raise ValueError(f"{number}{unit} less is nothing left: a percentage below 100")
    return 1 / (1 - n / 100) if less else 1 + n / 100


def _edges(bound: str, faster: bool, size: float | None) -> tuple[float | None, float | None]:
    """The edges of t(a) / t(b) the sentence asks for (None: unbounded on that side)."""
    if bound == "within":
        return 1 / size, size
    edge = 1.0 if size is None else (1 / size if faster else size)
    at_least = bound in ("", "at least")
    # faster: t(a)/t(b) below the edge (at least) or above it (no more than); slower: the other way round
    return (None, edge) if at_least == faster else (edge, None)
