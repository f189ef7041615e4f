"""The scorecard's first lines: verdicts counted per effect, so a repeated row never looks like two agreeing
results."""


from __future__ import annotations

from typing import Any

import pandas as pd

from ...contract.verdicts import CHECKED, NOT_MEASURED, NOT_TESTABLE, REPRODUCED
from .magnitude import Size, size, size_cell, sized, tolerance

Row = dict[str, Any]
UNSIZED = (NOT_TESTABLE, NOT_MEASURED, CHECKED)  # verdicts whose numbers say nothing of the write-up's size


def sizes(row: Row) -> list[Size]:
    """Each write-up number of a claim against ours, those this verdict can size."""
    if row["verdict"] in UNSIZED or not row["numbers"]:
        return []
    found = [sized(row)] + [size(n, o, "") for n, o in zip(row["numbers"][1:], row["ours"][1:], strict=True)]
    return [s for s in found if s.held is not None]


def effects(rows: list[Row]) -> list[list[Row]]:
    """A study's claims grouped by the measurement their verdicts rest on."""
    lead: dict[str, str] = {}
    by_number: dict[tuple, str] = {}
    for row in rows:
        headline = row.get("headline")
        number = None if headline is None else (headline.value, headline.low, headline.high, headline.unit,
                                                headline.what)  # the same quantity, not two counts that are both 0
        lead[row["key"]] = row.get("restates") or by_number.get(number) or row["key"]
        if number is not None:
            by_number.setdefault(number, lead[row["key"]])
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(lead[row["key"]], []).append(row)
    return [sorted(g, key=lambda r: r["key"] != key) for key, g in groups.items()]


def _kind(group: list[Row]) -> str:
    """An effect's verdict as the tally counts it: its lead claim's, a yes split by whether its numbers held in size."""
    verdict = group[0]["verdict"]
    if verdict != REPRODUCED:
        return "no" if verdict == "not reproduced" else verdict
    found = sizes(group[0])
    if any(s.held and s.sure for s in found):
        return "yes in size"
    if any(s.held for s in found):
        return "yes in size by its estimate"
    return "yes in direction only" if found else "yes, size not compared"


ORDER = ("yes in size", "yes in size by its estimate", "yes in direction only", "yes, size not compared", "no",
         "inconclusive", "unstable", NOT_TESTABLE, CHECKED, NOT_MEASURED)


def _counted(groups: list[list[Row]]) -> str:
    counts = pd.Series([_kind(g) for g in groups], dtype=object).value_counts()
    return "; ".join(f"{counts[k]} {'**no**' if k == 'no' else k}" for k in ORDER if k in counts)


JUDGED_AT = 'under "How each claim was judged"'  # where each unsizable number's reason is, in the report


def numbers_line(theirs: list[tuple[str, list[Row]]], judged_at: str = JUDGED_AT) -> str:
    """How many write-up numbers held in size, one per effect, naming misses (`judged_at`: where their reasons are
    said, as seen from the page the line is on)."""
    held, missed, apart, alone = 0, [], [], []
    for study, (lead, *_) in theirs:
        if lead["verdict"] == NOT_MEASURED:  # a study this run did not time says nothing of its numbers
            continue
        if lead["numbers"] and lead["numbers"][0].unsized:
            apart.append(f"{study} {lead['key']}")
            continue
        if not lead["numbers"] or lead["verdict"] in UNSIZED:
            continue
        found = sized(lead)
        if found.held:
            held += 1
            alone += [] if found.sure else [f"{study} {lead['key']}, {found.cell}, its interval reaching past "
                                            f"{tolerance(lead['numbers'][0])}"]
        elif found.held is False:
            missed.append(f"{study} {lead['key']} ({size_cell(lead).replace('**', '')})")
    apart_said = f". {len(apart)} not sizable here (why: {judged_at}): {', '.join(apart)}" if apart else ""
    said = (f"; {len(missed)} did not: {', '.join(missed)}" if missed else "") + apart_said
    if not held + len(missed):
        return f"**No write-up number could be sized in this run** (none measured at the write-up's structure){said}"
    if held + len(missed) == 1:
        one = (f"held in size by our estimate alone**: {alone[0]}" if alone
               else "held in size**" if held else f"did not hold in size**: {missed[0]}")
        return f"**The one write-up number this run could size {one}{apart_said}"
    point = f" ({len(alone)} by our estimate alone: {'; '.join(alone)})" if alone else ""
    return f"**{held} of the {held + len(missed)} write-up numbers this run could size held in size**{point}{said}"


EXPECTED = {REPRODUCED: "held", "not reproduced": "**did not hold**"}


def expectations_line(rows: list[Row]) -> str:
    """Your expectations (benchmark files' EXPECT) by verdict: held, did not hold (named), or undecided."""
    if not rows:
        return ("**No expectations**: nothing in this run states one (a benchmark file's `EXPECT`), so it judges "
                "nothing; each study's section gives its numbers")
    counts = pd.Series([EXPECTED.get(r["verdict"], r["verdict"]) for r in rows], dtype=object).value_counts()
    failed = [r["claim"] for r in rows if r["verdict"] == "not reproduced"]
    named = f" ({'; '.join(failed)})" if failed else ""
    counted = "; ".join(f"{n} {kind}" + (named if kind == EXPECTED["not reproduced"] else "")
                        for kind, n in counts.items())
    return f"**Your {len(rows)} expectation{'s' * (len(rows) != 1)}**: {counted}"


def tally(claims: dict[str, list[Row]], judged_at: str = JUDGED_AT) -> str:
    """Numbers held in size, then effects by verdict, ours beyond the write-ups' and supporting-only ones apart."""
    yours = [r for rows in claims.values() for r in rows if r.get("expected")]
    claims = {s: [r for r in rows if not r.get("expected")] for s, rows in claims.items()}
    if not any(claims.values()):
        return expectations_line(yours)
    said = f". {expectations_line(yours)}" if yours else ""
    return f"{_write_ups_tally(claims, judged_at)}{said}"


def _write_ups_tally(claims: dict[str, list[Row]], judged_at: str) -> str:
    by_study = [(s, g) for s, rows in claims.items() for g in effects([r for r in rows if not r["beyond"]])]
    theirs = [g for _, g in by_study]
    ours = [g for rows in claims.values() for g in effects([r for r in rows if r["beyond"]])]
    supporting = [g for g in theirs if g[0].get("supporting")]
    rows = sum(len(g) for g in theirs)
    apart = (f". Of these effects, {len(supporting)} were judged only at a structure smaller than the write-up's "
             f"or on another device (supporting only: {_counted(supporting)})") if supporting else ""
    beyond = f". {len(ours)} beyond them: {_counted(ours)}" if ours else ""
    return (f"{numbers_line(by_study, judged_at)}. {len(theirs)} effects in the write-ups' {rows} claims: "
            f"{_counted(theirs)}{apart}{beyond}")
