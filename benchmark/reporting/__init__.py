"""Reporters: one module per output format. Each reads the results document (a dict that
``results_json.validate_results`` accepts), so reports can be rebuilt from a saved file.

- ``results_dicts``: dataclasses -> results document (re-exported by ``results_json``)
- ``results_json``: schema validation, loading a saved results file
- ``terminal``: per-prompt, per-category lines the CLI prints
- ``text_summary``: the human summary report
- ``chart``: the text comparison chart
- ``writer``: atomic file writes and ``write_run`` (validate, then write every file)
- ``banner``: the security banner the CLI prints at start
- ``html_report`` (+ ``svg``, ``templating``, ``templates/``): the self-contained report.html
- ``junit``: junit.xml for CI; ``markdown_summary``: summary.md for a CI job summary
- ``excerpts``: source lines around evidence, added to the results when a run is written
- ``diff_text`` / ``diff_html``: the comparison of two runs (``benchmark.reporting.run_diff`` computes it)
- ``saved_runs``: ``--report-only`` and ``--compare`` over saved results files
"""
