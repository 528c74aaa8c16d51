"""The engine: grade each task of each model (``grading``) with its options (``options``),
serve and store results by content (``cache``), record the run (``manifest``), warm up what a
run will need (``warmup``) and run the process pool's forkserver (``pool_server``,
``pool_preload``); ``benchmark.runner`` schedules it and ``benchmark.scoring`` does its
arithmetic. It may import the layers it calls (``benchmark.packs``, ``benchmark.prompts``,
``benchmark.analyzers``, ``benchmark.reporting``, ``benchmark.sandbox`` and
``benchmark.secure_runner``) and the shared modules (``types``, ``untrusted``, ``submission``,
``decoding``, ``threads``, ``rubric``, ``scoring``), never the command line
(``benchmark.cli``, ``benchmark.commands``, ``benchmark.console``) that calls it. It never
prints. Importing this package loads nothing: a run served from the cache never loads
``grading``.
"""
