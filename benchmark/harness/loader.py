"""How the harness loads its own modules (runs INSIDE the child and the zygote; standard
library only): by path, once per process, under a private name (``_rubricbench_<name>``),
never through ``sys.path``, so a submission's own ``guard.py`` or ``modes.py`` cannot stand
in for one of ours and nothing of the grader is imported.

``child.py`` loads this module first, by path as here, and the rest through it; a harness
module that needs another takes this function with ``from _rubricbench_loader import
load_by_path``. The zygote loads ``child.py``, and so every module it needs, once, before any
run forks (``child._load_by_path`` is this function).
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_by_path(name):
    """A harness module by path, once per process, under a private name (a submission's own
    ``guard.py`` must not resolve to it); the zygote preloads them with this too."""
    loaded = sys.modules.get(f"_rubricbench_{name}")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(f"_rubricbench_{name}", os.path.join(HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
