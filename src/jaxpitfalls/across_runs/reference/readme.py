"""The README's numbers filled from the published snapshot's tables, so its prose cannot drift from the report it
links. Each number sits between markers naming it:

    <!-- tree_at.faster -->5.881x [5.864, 5.897]<!-- / -->: the headline the claim's verdict rests on
    <!-- tree_at.faster.size -->1.35x smaller<!-- / -->: its size against the write-up's number
    <!-- tree_at.faster.verdict -->yes<!-- / -->: its verdict, as the scorecard marks it
    <!-- tally -->...<!-- / -->: the scorecard's first line
    <!-- snapshot -->YYYY-MM-DD-N<!-- / -->: the published snapshot's name
    <!-- snapshot.link -->[YYYY-MM-DD-N](...)<!-- / -->: a link to its report
    <!-- published:tree_at.faster -->...<!-- / -->: on another snapshot's page, the published one's

`jaxpitfalls readme README.md [--check] [--snapshot DIR]` fills them (or fails naming each that differs).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...report.scorecard.magnitude import size_cell
from ...report.scorecard.scorecard import VERDICT_MARK, estimate_text
from ...report.scorecard.tally import tally
from .published import published
from .rendered import snapshot_claims

MARKED = re.compile(r"<!-- (?P<key>\w[\w.:/-]*) -->(?P<value>.*?)<!-- / -->", re.S)
REFERENCE = Path("docs/results/reference")


def _headline(claim: dict[str, Any]) -> str:
    """The number a claim's verdict rests on, without its words (the README's prose says what it is)."""
    return "no number" if claim["headline"] is None else estimate_text(replace(claim["headline"], what=""))


def values(snapshot: Path, page: Path = Path("README.md")) -> dict[str, str]:
    """Every value a marker can name, judged by this checkout's rules; links are relative to `page`."""
    claims, _ = snapshot_claims(snapshot)
    link = os.path.relpath(snapshot / "report.md", page.parent)
    at = f'in [the report]({link})\'s "How each claim was judged"'
    found = {"snapshot": snapshot.name, "tally": tally(claims, at).replace("**", ""),
             "snapshot.link": f"[{snapshot.name}]({link})"}
    wall = json.loads((snapshot / "manifest.json").read_text()).get("wall_seconds") \
        if (snapshot / "manifest.json").exists() else None  # a reference's (across_runs/reference/reference.py)
    if wall:
        found["wall"] = f"{wall / 60:.0f} min"
    for study, rows in claims.items():
        for claim in rows:
            key = f"{study}.{claim['key']}"
            size = size_cell(claim).replace("**", "")
            found |= {key: _headline(claim), f"{key}.size": size[3:-1] if size.startswith("— (") else size,
                      f"{key}.verdict": VERDICT_MARK[claim["verdict"]].replace("**", "")}
    return found


def fill(text: str, found: dict[str, str]) -> str:
    """`text` with every marker's value replaced by its value in `found`; a marker naming nothing is refused."""
    unknown = sorted({m["key"] for m in MARKED.finditer(text)} - set(found))
    if unknown:
        raise KeyError(f"markers naming no value of the snapshot: {unknown}")
    return MARKED.sub(lambda m: f"<!-- {m['key']} -->{found[m['key']]}<!-- / -->", text)


def drifted(text: str, found: dict[str, str]) -> list[str]:
    """Each marker whose value is not the snapshot's: `key: said -> now`."""
    return [f"{m['key']}: {m['value']!r} -> {found.get(m['key'])!r}" for m in MARKED.finditer(text)
            if found.get(m["key"]) != m["value"]]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jaxpitfalls readme", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", type=Path, help="the file whose markers to fill (README.md)")
    parser.add_argument("--snapshot", type=Path, help="the snapshot it summarises (default: the published one)")
    parser.add_argument("--check", action="store_true", help="fail, naming each marker that differs")
    args = parser.parse_args(argv)
    readme = args.page
    found = published_values = values(published(REFERENCE), readme)
    if args.snapshot:  # another snapshot's page: its own values, the published reference's under `published:`
        found = values(args.snapshot, readme) | {f"published:{k}": v for k, v in published_values.items()}
    text = readme.read_text()
    if args.check:
        changed = drifted(text, found)
        print("\n".join(changed) or "every number is the published snapshot's")
        return 1 if changed else 0
    readme.write_text(fill(text, found))
    return 0
