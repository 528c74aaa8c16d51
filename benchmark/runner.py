"""BenchmarkRunner: model discovery and scheduling (sequential or a process pool)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .grading import GradeOptions, default_test_data, grade_model, grade_prompt
from .types import ModelResult

TIERS = ("reference_implementations", "user_submissions")
TEMPLATE_TIER = "templates"


class DiscoveryError(Exception):
    """The submissions tree is unusable (e.g. one model name in two tiers)."""


@dataclass(frozen=True)
class ModelEntry:
    name: str
    tier: str
    path: Path


def discover_models(submissions_dir: Path) -> dict[str, ModelEntry]:
    """Every model folder under the graded tiers; templates are never graded."""
    found: dict[str, ModelEntry] = {}
    for tier in TIERS:
        tier_dir = Path(submissions_dir) / tier
        if not tier_dir.is_dir():
            continue
        for path in sorted(tier_dir.iterdir()):
            if not path.is_dir() or path.name.startswith((".", "_")) or path.is_symlink():
                continue
            if path.name in found:
                raise DiscoveryError(
                    f"model name '{path.name}' appears twice: {found[path.name].path} and {path}")
            found[path.name] = ModelEntry(path.name, tier, path)
    return found


def _grade_entry(entry: ModelEntry, test_data: Path, options: GradeOptions) -> ModelResult:
    return grade_model(entry.path, entry.tier, test_data=test_data, options=options)


class BenchmarkRunner:
    """Grades models. ``BenchmarkRunner(model_name=..., results_dir=..., timeout=...)`` as in the spec."""

    def __init__(self, model_name: str | None = None, results_dir: str | Path = "results",
                 timeout: float = 30.0, *, submissions_dir: str | Path = "submissions",
                 test_data: str | Path | None = None, options: GradeOptions | None = None) -> None:
        self.model_name = model_name
        self.results_dir = Path(results_dir)
        self.submissions_dir = Path(submissions_dir)
        self.test_data = Path(test_data) if test_data else default_test_data()
        self.options = options or GradeOptions(timeout_s=float(timeout))

    def discover(self) -> dict[str, ModelEntry]:
        return discover_models(self.submissions_dir)

    def grade(self, entries: list[ModelEntry], workers: int = 1,
              on_done: Callable[[ModelResult], None] | None = None) -> list[ModelResult]:
        """Grade entries; results come back sorted by model name whatever the worker count."""
        results: list[ModelResult] = []
        if workers <= 1 or len(entries) <= 1:
            for entry in entries:
                results.append(_grade_entry(entry, self.test_data, self.options))
                if on_done:
                    on_done(results[-1])
        else:
            context = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                futures = [pool.submit(_grade_entry, e, self.test_data, self.options) for e in entries]
                for future in as_completed(futures):
                    results.append(future.result())
                    if on_done:
                        on_done(results[-1])
        return sorted(results, key=lambda r: r.model)

    # ---- the spec's convenience API ------------------------------------------------------
    def _entry(self) -> ModelEntry:
        models = self.discover()
        if self.model_name not in models:
            raise KeyError(f"model '{self.model_name}' not found under {self.submissions_dir}")
        return models[self.model_name]

    def run_all_tests(self) -> dict[str, Any]:
        """Grade ``model_name`` on every prompt; returns the model's results dict."""
        from .reporting.results_json import model_to_dict

        return model_to_dict(self.grade([self._entry()])[0])

    def run_test(self, test_name: str) -> dict[str, Any]:
        """Grade one prompt (``"prompt_1"`` or ``"prompt_1_refactoring"``); returns its dict."""
        from .prompts import module_for
        from .reporting.results_json import prompt_to_dict

        prompt_id = "_".join(test_name.split("_")[:2])
        result = grade_prompt(module_for(prompt_id), self._entry().path,
                              test_data=self.test_data, options=self.options)
        return prompt_to_dict(result)
