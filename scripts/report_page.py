"""Rule report_page: reports/report.md as one HTML page with its figures (report/page/html.py)."""

from jaxpitfalls import results, runtime
from jaxpitfalls.report.page.html import page

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
results.write_text(sm.output[0], page(sm.input.report))
