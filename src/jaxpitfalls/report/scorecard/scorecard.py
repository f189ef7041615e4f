"""The report's claims sections, which a reader acts on; the markdown report and the HTML landing page read them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from ...contract.decisions import interval
from ...contract.verdicts import (
    ANOTHER_DEVICE,
    CHECKED,
    INCONCLUSIVE,
    NOT_MEASURED,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    REPRODUCED,
    UNSTABLE,
    Estimate,
)
from ...formatting import short
from .magnitude import RULE as SIZE_RULE
from .magnitude import size, size_cell, sized, theirs_text, unit_word
from .markdown import table
from .tally import tally

VERDICT_MARK = {REPRODUCED: "yes", NOT_REPRODUCED: "**no**", INCONCLUSIVE: INCONCLUSIVE,
                NOT_TESTABLE: NOT_TESTABLE, UNSTABLE: UNSTABLE, NOT_MEASURED: NOT_MEASURED, CHECKED: CHECKED}



def _advice(claim: dict[str, Any]) -> str:
    """The claim's advice for how it came out here ('' where none)."""
    advice = claim["advice"]
    if advice is None or claim["verdict"] in (NOT_MEASURED, CHECKED):
        return ""
    return {REPRODUCED: advice.reproduced, NOT_REPRODUCED: advice.not_reproduced}.get(
        claim["verdict"], advice.inconclusive)


FINDINGS_PER_STUDY = 4  # sentences; every claim's advice is in the judging table


def _picture(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A study's claims that make its picture (its spec's FINDINGS), in their order."""
    return sorted((c for c in rows if c.get("picture") is not None), key=lambda c: c["picture"])


def _expectations_to_act_on(rows: list[dict[str, Any]]) -> str:
    """A file's expectations: those held counted (the scorecard has each), the rest each named."""
    held = sum(c["verdict"] == REPRODUCED for c in rows)
    rest = [text for c in rows if c["verdict"] != REPRODUCED and (text := _advice(c))]
    said = " ".join([f"{held} of {len(rows)} held{'; the rest:' if rest else '.'}" if held else "", *rest]).strip()
    return said or "nothing decided on this run."


def findings(claims: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """What to do, per study: a packaged one's advice (at most FINDINGS_PER_STUDY, `picture` claims first)."""
    out = {}
    for study, rows in ((s, rows) for s, rows in claims.items() if rows):  # a file without EXPECT has none
        if only_expectations({study: rows}):
            out[study] = _expectations_to_act_on(rows)
            continue
        ordered = _picture(rows) or sorted(rows, key=lambda c: c["verdict"] not in (REPRODUCED, NOT_REPRODUCED))
        said = [text for text in map(_advice, ordered) if text][:FINDINGS_PER_STUDY]
        decided = any(c["verdict"] in (REPRODUCED, NOT_REPRODUCED) for c in rows)
        out[study] = " ".join(said) if said else "no advice given." if decided else "nothing decided on this run."
    return out


FINDINGS_INTRO = ("Per study, the advice of the claims that make its picture (its main effect, where the effect "
                  "stops, what it costs) for how they came out on this run (at most "
                  f"{FINDINGS_PER_STUDY}; every claim's advice is in \"How each claim was judged\"). A claim this run "
                  "could not decide advises only what holds either way.")


EXPECTATIONS_INTRO = ("Per file, how many of its expectations held on this run (each one's number is in the scorecard, "
                      "its measurement in \"How each expectation was judged\"), and each that did not or was not "
                      "decided.")


def findings_intro(claims: dict[str, list[dict[str, Any]]]) -> str:
    return EXPECTATIONS_INTRO if only_expectations(claims) else FINDINGS_INTRO


BRIEF_PER_STUDY = 3  # numbers: a study's picture, its main effect first


def brief_section(claims: dict[str, list[dict[str, Any]]]) -> str:
    """The numbers first: per study, its picture's claims with a number, each with its interval and verdict (the
    advice follows; a benchmark file's expectations are said whole under "What to do")."""
    if judged_nothing(claims) or only_expectations(claims):
        return ""
    lines = ["## In brief", "", "Each study's main effects here, the number its verdict rests on with its 95% "
             "interval, then the verdict; the write-up's number beside ours in the scorecard below.", ""]
    for study, rows in claims.items():
        shown = [c for c in _picture(rows) if c.get("headline") is not None][:BRIEF_PER_STUDY]
        if shown:
            lines.append(f"- **{study}**: " + "; ".join(f"`{c['key']}` {ours_cell(c)}: {VERDICT_MARK[c['verdict']]}"
                                                         for c in shown))
    return "\n".join([*lines, ""])


def findings_section(claims: dict[str, list[dict[str, Any]]]) -> str:
    if judged_nothing(claims):
        return ""
    lines = ["## What to do", "", findings_intro(claims), ""]
    lines += [f"- **{study}**: {text}" for study, text in findings(claims).items()]
    return "\n".join([*lines, ""])


def estimate_text(estimate: Estimate) -> str:
    """A headline as the `ours` cell shows it: `filter_jit / jit_partition 1.026x [0.828, 1.261]`."""
    decimals = 1 if estimate.unit.startswith("%") else 3  # a share's tenth of a point is its noise already
    unit = estimate.unit.removesuffix("s") if estimate.value == 1 and not estimate.has_interval else estimate.unit
    number = (interval(estimate.value, estimate.low, estimate.high, unit, decimals=decimals)
              if estimate.has_interval else f"{short(estimate.value)}{unit}")
    return f"{estimate.what} {number}" if estimate.what else number


SUPPORTING_MARK = " (smaller than the write-up's)"  # after `ours`: judged below its structure, supporting only
DEVICE_MARK = " (another device than the write-up's)"  # after `ours`: judged on another device, supporting only


def ours_cell(claim: dict[str, Any]) -> str:
    """The number the verdict rests on with its 95% interval; a dash where none."""
    headline = claim.get("headline")
    if headline is None:
        return "—"
    if not claim.get("supporting"):
        return estimate_text(headline)
    return estimate_text(headline) + (DEVICE_MARK if ANOTHER_DEVICE in claim["measured"] else SUPPORTING_MARK)


HOW_TO_READ = (
    "`ours`: the number the verdict rests on, with its 95% interval; `{mark}` marks one judged below the write-up's "
    "structure (a smaller model, batch or sequence: \"How each claim was judged\" names which; supporting only, "
    "counted apart), `{device}` one judged on another device than the write-up's effect needs (an accelerator's on a "
    "CPU, sharding on one device; supporting only, counted apart). `size`: the write-up's first number against ours "
    "({rule}); `(not sizable here)`: one no run here can size (why: under \"How each claim was judged\"). `verdict`: "
    "the direction, by the claim's rule (under \"The rules\"): `yes` holds here, `**no**` does not, `inconclusive` the "
    "interval straddles the rule's edge, `not testable` the largest effect this hardware can show lies below the "
    "write-up's claimed size, `unstable` worker processes disagreed, `checked` every job checks it, `not measured` no "
    "run here judges it; `(= key)`: the same effect as claim `key`'s (the same measurement read again, or its effect "
    "with others added), counted once; `(was ...)`: the run's own verdict, where the snapshot was judged again since "
    "(why: under \"How each claim was judged\").")


EXPECTATIONS_HOW_TO_READ = (
    "`ours`: the number the verdict rests on, with its 95% interval, as the sentence speaks (a speed-up where it says "
    "faster; a memory sentence's ratio of totals is XLA's plan, exact, without one). `verdict`: `yes` the interval "
    "lies wholly on the sentence's side of its edge, `**no**` wholly on the other, `inconclusive` it crosses the "
    "edge (under \"How each expectation was judged\": what would decide it).")


def only_expectations(claims: dict[str, list[dict[str, Any]]]) -> bool:
    """Whether every claim is a benchmark file's expectation (none at all too: a packaged study has claims)."""
    return bool(claims) and all(c.get("expected") for cs in claims.values() for c in cs)


def judged_nothing(claims: dict[str, list[dict[str, Any]]]) -> bool:
    """Benchmark files without an `EXPECT`: no verdict to give, advise or explain."""
    return not any(claims.values())


def scorecard_section(claims: dict[str, list[dict[str, Any]]], figure: str | None = None) -> str:
    """A row per claim under the tally, and the figure; expectations alone drop the write-up columns."""
    rows = [{"study": s, "claim": c["claim"], "write-up": c["write_up"], "ours": ours_cell(c),
             "size": size_cell(c), "verdict": _mark(c)} for s, cs in claims.items() for c in cs]
    if judged_nothing(claims):
        return "\n".join(["## Your expectations", "", f"{tally(claims)}.", ""])
    if only_expectations(claims):
        shown = pd.DataFrame(rows).drop(columns=["write-up", "size"]).rename(columns={"claim": "expectation"})
        return "\n".join(["## Your expectations", "", f"{tally(claims)}.", "", EXPECTATIONS_HOW_TO_READ, "",
                          table(shown), ""])
    shown = [f"![Each claim's number here (95% interval) beside the write-up's]({figure})", ""] if figure else []
    return "\n".join(["## Reproduction scorecard", "", f"{tally(claims)}.", "",
                      HOW_TO_READ.format(mark=SUPPORTING_MARK.strip(), device=DEVICE_MARK.strip(), rule=SIZE_RULE), "",
                      table(pd.DataFrame(rows)), "", *shown])


RESTATED = " (= "  # after a verdict: the claim whose measurement this one restates, `yes (= slowed_cached)`
MOVED = " (was "  # after a verdict: the run's own, where the snapshot was judged again since, `inconclusive (was yes)`


def _mark(claim: dict[str, Any]) -> str:
    """The verdict, naming a restated claim and, if moved since the run, the run's verdict."""
    mark = VERDICT_MARK[claim["verdict"]]
    mark = f"{mark}{RESTATED}{claim['restates']})" if claim.get("restates") else mark
    return f"{mark}{MOVED}{VERDICT_MARK[claim['moved']['was']]})" if claim.get("moved") else mark


def _moved_text(claim: dict[str, Any]) -> str:
    """Where the verdict moved since the run: what it was, and why it was judged again."""
    if not claim.get("moved"):
        return ""
    was = VERDICT_MARK[claim["moved"]["was"]].strip("*")
    return f" The run itself judged it `{was}`; why it moved: {claim['moved']['why']}."


def judging_section(claims: dict[str, list[dict[str, Any]]], here: dict[str, str]) -> str:
    """A paragraph per claim: its measurement and each write-up number beside ours."""
    if judged_nothing(claims):
        return ""
    lines = (["## How each expectation was judged", "", "Per expectation, what this run measured and how the verdict "
              "follows from it.", ""] if only_expectations(claims) else
             ["## How each claim was judged", "", "Per claim, what this run measured and how the verdict follows from "
              "it, then each write-up number beside ours with what differs between the two measurements.", ""])
    for s, cs in claims.items():
        for c in cs:
            beside = _side_by_side(c, here[s])
            said = f" Write-up vs ours: {beside}." if beside and c["verdict"] not in (NOT_MEASURED, CHECKED) else ""
            unsized = c["numbers"][0].unsized if c["numbers"] else ""
            said += f" Not sizable here: {unsized}." if unsized and unsized not in said else ""
            measured = c["measured"].removeprefix(f"{NOT_TESTABLE} ")  # the verdict leads the paragraph already
            lines += [f"- **{s} `{c['key']}`** ({VERDICT_MARK[c['verdict']].strip('*')}): {measured}.{said}"
                      f"{_moved_text(c)}", ""]
    return "\n".join(lines)


def _side_by_side(claim: dict[str, Any], here: str) -> str:
    """Each write-up number beside ours but the row's, and what differs, once."""
    headline = claim.get("headline")
    shown = None if headline is None else (headline.value, headline.low, headline.high)
    told = list(zip(claim["numbers"], claim["ours"], strict=True))
    if told and not told[0][1] and sized(claim).held is not None:  # the row's size cell sized it on the headline
        told = told[1:]
    pairs = [size(n, o, "").side_by_side for n, o in told if o and tuple(o) != shown]
    missing: dict[str, list[str]] = {}  # their numbers by unit (the write-up column says what each is)
    for n, o in told:
        if not o:
            missing.setdefault(unit_word(n.unit), []).append(theirs_text(replace(n, unit="")))
    if missing:
        pairs.append("; ".join(f"{', '.join(said)}{' ' * (unit[0] != 'x')}{unit}" for unit, said in missing.items())
                     + ": not measured here")
    said = dict.fromkeys(n.differs.format(here=here) for n, _ in told if not n.structural)
    differs = [d for d in said if not any(d != other and d in other for other in said)]  # each said once
    return "; ".join(pairs) + (f" ({'; '.join(differs)})" if differs and pairs else "")


def rules_section(claims: dict[str, list[dict[str, Any]]]) -> str:
    """The rule each verdict follows and the claim's advice for how it came out here."""
    rows = [{"study": s, "claim": c["key"], "rule": c["rule"], "advice": _advice(c)} for s, cs in claims.items()
            for c in cs if c["rule"]]
    if judged_nothing(claims):
        return ""
    if only_expectations(claims):
        return "\n".join(["## The rules", "", "The rule each expectation's verdict follows, and what it says for the "
                          "verdict it reached here.", "",
                          table(pd.DataFrame(rows).rename(columns={"claim": "expectation"})), ""])
    return "\n".join(["## The rules", "", "The rule each judged claim's verdict follows (docs/results/claims.md "
                      "gives the same per write-up), and its advice for the verdict it reached here.", "",
                      table(pd.DataFrame(rows)), ""])
