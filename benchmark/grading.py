"""The grading engine's public names, where library users have always found them.

The engine itself lives in :mod:`benchmark.engine.grading`; this module only re-exports its
public names (``GradeOptions``, ``grade_model``, ``grade_prompt``, ``grade_task`` ...).
"""

from __future__ import annotations

from .engine.grading import (DEFAULT_SEED, INTERNAL_ERROR, NOT_ATTEMPTED, GradeOptions, blocking_problem,
                             default_test_data, grade_model, grade_prompt, grade_task,
                             has_internal_error, load_files, not_attempted, refused_prompt)

__all__ = ["DEFAULT_SEED", "INTERNAL_ERROR", "NOT_ATTEMPTED", "GradeOptions", "blocking_problem",
           "default_test_data", "grade_model", "grade_prompt", "grade_task", "has_internal_error",
           "load_files", "not_attempted", "refused_prompt"]
