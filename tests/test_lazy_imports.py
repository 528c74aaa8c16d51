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
