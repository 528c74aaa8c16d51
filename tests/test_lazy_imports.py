"""What a run does not use is not imported: a cached re-run pays only for what it does."""

from __future__ import annotations

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
