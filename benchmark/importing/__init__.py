"""``rubricbench import``: raw chat replies -> a submission folder, with provenance.

``tasks`` (what each prompt expects), ``markdown`` (fenced blocks through markdown-it-py),
``choose`` (which block becomes which file, and why), ``sources`` (a folder, a JSONL file or
one Markdown file of replies), ``command`` (the subcommand: plan, table, writes, report).
Nothing here runs or imports a submission: Python is only parsed with ``ast``.
"""
