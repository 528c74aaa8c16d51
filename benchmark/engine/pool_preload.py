"""Imported once by the process pool's forkserver, before it forks any worker.

Every worker then starts with the grader already loaded, and with those objects frozen out
of the garbage collector's reach, instead of each worker paying for them again. Bandit is
not among them: it runs in each worker's own bandit process (``benchmark.sandbox.bandit_process``).
"""

from .. import prompts  # noqa: F401  (loaded for the workers)
from . import grading  # noqa: F401
from .warmup import tune_gc

tune_gc()
