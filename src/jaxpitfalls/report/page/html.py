"""reports/report.md as one HTML page with its figures: the HTML report shows HTML inline, markdown not at all."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import markdown

STYLE = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:auto;padding:0 1em;line-height:1.45}"
         "table{border-collapse:collapse;display:block;overflow-x:auto;font-size:.85em;margin:1em 0}"
         "th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}th{background:#f3f3f3}"
         "img{max-width:100%}code{background:#f6f6f6;padding:0 2px}")
_IMAGE = re.compile(r'(<img[^>]*?src=")([^"]+\.png)(")')


def _embedded(page: str, folder: Path) -> str:
    """Each PNG the page links (relative to `folder`) as data; one not there keeps its link."""
    def inline(found: re.Match) -> str:
        path = folder / html.unescape(found.group(2))
        if not path.is_file():
            return found.group(0)
        return f"{found.group(1)}data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}{found.group(3)}"
    return _IMAGE.sub(inline, page)


def page(report_md: str | Path) -> str:
    """The report as a self-contained page, titled by its first heading."""
    path = Path(report_md)
    text = path.read_text()
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("# ")), path.stem)
    body = _embedded(markdown.markdown(text, extensions=["tables"]), path.parent)
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")
