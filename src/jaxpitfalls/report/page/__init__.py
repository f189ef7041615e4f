"""reports/report_page.html: the report as one page the Snakemake HTML report shows inline."""
