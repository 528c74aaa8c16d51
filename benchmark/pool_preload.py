"""Imported once by the process pool's forkserver, before it forks any worker.

Every worker then starts with the grader and bandit already loaded (bandit's import, with its
plugin discovery, is the largest), and with those objects frozen out of the garbage
collector's reach, instead of each worker paying for them again.
"""

from . import grading, prompts  # noqa: F401  (loaded for the workers)
from .analyzers.security import bandit_modules
from .warmup import tune_gc

bandit_modules()
tune_gc()
