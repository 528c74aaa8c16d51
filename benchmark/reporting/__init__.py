"""Reporters: one module per output format. Each reads the results document (a dict that
``results_json.validate_results`` accepts), so reports can be rebuilt from a saved file.

- ``results_json``: dataclasses -> results document, schema validation, loading
- ``terminal``: per-prompt, per-category lines the CLI prints
- ``text_summary``: the human summary report
- ``chart``: the text comparison chart
- ``writer``: atomic file writes and ``write_run`` (validate, then write every file)
- ``banner``: the security banner the CLI prints at start
"""
