"""The sandbox: everything ``benchmark.secure_runner`` (its front door, kept at the top level
for the spec) needs to start a child and confine it: the zygote's client (``spawner``),
kernel-layer detection and policy (``isolation``, ``pids_cgroup``), limits, reaping and
clean-up (``limits``, ``process_tools``, ``staging``, ``cleanup``), the child's result record
(``result_record``), the measured layer report and the ``--self-check`` canaries
(``sandbox_report``, ``self_check``), and the bandit process (``bandit_process``). It may
import ``benchmark.harness`` (the code that runs inside the child, loaded there by file
path), ``benchmark.secure_runner``, ``benchmark.types``, ``benchmark.bigint`` and the
standard library; never the engine, reporting, packs, analyzers or prompts that call it
(``tests/test_layers.py`` checks this). Importing this package loads nothing.
"""
