"""What a run does not use is not imported: a cached re-run pays only for what it does."""

from __future__ import annotations

import json
import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_loading_the_command_line_and_its_commands_leaves_the_pool_and_markdown_out():
    loaded = _modules_after("import benchmark.cli, benchmark.commands, benchmark.runner")
    assert "benchmark.runner" in loaded and "benchmark.commands" in loaded
    assert not {"multiprocessing", "concurrent.futures.process", "benchmark.engine.pool_server",
                "markdown_it"} & loaded


def test_a_cached_run_of_one_sample_per_model_never_imports_numpy(tmp_path):
    """Its statistics are exact on the four core prompts (plain Python): numpy's import, about a
    third of a cached run's time, is paid only where draws are needed."""
    code = ("from benchmark.cli import main\n"
            f"for _ in range(2): assert main(['-q', '--model', 'example_model', '--results-dir', {str(tmp_path)!r}]) == 0")
    loaded = _modules_after(code)
    assert "benchmark.reporting.run_stats" in loaded and "numpy" not in loaded
    several = _modules_after("from benchmark import stats\n"
                             "stats.ranks([[[25, 25, 25, 25]] * 3, [[0, 0, 0, 0]] * 3], [25] * 4, seed=1)")
    assert "numpy" in several  # three samples each: the test has deals to count


def test_a_run_served_wholly_from_the_cache_loads_no_code_that_starts_or_confines_a_child(tmp_path):
    """The sandbox (the zygote's client, kernel detection, the harness's ctypes bindings, the
    bandit process, ``secure_runner``) is loaded once a run grades or measures something; a run
    whose every model comes from the cache reads only the kernel profile's fields and the guard
    switch's name (``kernel_support``, ``limits``)."""
    run = f"from benchmark.cli import main\nassert main(['-q', '--model', 'example_model', '--results-dir', {str(tmp_path)!r}]) == 0"
    graded = _modules_after(run)
    served = _modules_after(run)
    assert {"benchmark.secure_runner", "benchmark.sandbox.spawner", "benchmark.sandbox.isolation"} <= graded
    sandbox = {name for name in served if name.startswith(("benchmark.sandbox.", "benchmark.harness.", "benchmark.secure_runner"))}
    assert sandbox == {"benchmark.sandbox.kernel_support", "benchmark.sandbox.limits"}
    cached = json.loads((tmp_path / "latest_results.json").read_text(encoding="utf-8"))
    assert cached["models"]["example_model"]["cached"] is True
