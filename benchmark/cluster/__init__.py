"""Grading across machines on Dask distributed (``pip install rubricbench[dask]``).

Imported only when a cluster flag is given (``--cluster``, ``--scheduler``,
``--scheduler-file``): a run without them never imports Dask. ``spec`` (the flags and the
transport rules) and ``units`` (the unit of work and the grader identity) import nothing of
Dask; ``admission`` (the worker plugin that admits a worker only after its isolation
preflight), ``worker`` (``grade_unit``, run on a worker) and ``session`` (the client side:
connect, admit, submit, collect) do. See ``docs/cluster.md``.
"""
