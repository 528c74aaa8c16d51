"""Scheduling and caching: parallel runs equal sequential ones; the cache re-grades exactly
what changed."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from benchmark.engine import grading as grading_module
from benchmark.sandbox import spawner
from benchmark.engine.cache import ResultCache
from benchmark.engine.grading import GradeOptions, has_internal_error
from benchmark.reporting.progress import Progress
from benchmark.runner import BenchmarkRunner

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"example_model": ROOT / "submissions/reference_implementations/example_model",
          **{p.name: p for p in (Path(__file__).parent / "models").iterdir() if p.is_dir()}}
VOLATILE = {"wall_s", "cpu_s", "peak_rss_mb"}


@pytest.fixture
def tree(tmp_path):
    for name, source in MODELS.items():
        shutil.copytree(source, tmp_path / "submissions" / "user_submissions" / name)
    return tmp_path


def _runner(tree: Path, options: GradeOptions | None = None) -> BenchmarkRunner:
    return BenchmarkRunner(results_dir=tree / "results", submissions_dir=tree / "submissions",
                           test_data=ROOT / "test_data", options=options)


def _stable(results) -> list:
    def strip(prompt):
        execution = tuple({k: v for k, v in e.items() if k not in VOLATILE} for e in prompt.execution)
        return replace(prompt, execution=execution)

    return [replace(m, prompts=tuple(strip(p) for p in m.prompts)) for m in results]


def test_four_workers_give_the_same_results_as_one(tree):
    bench = _runner(tree)
    entries = list(bench.discover().values())
    one, _ = bench.grade(entries, workers=1)
    four, _ = bench.grade(entries, workers=4)
    assert [m.model for m in one] == sorted(MODELS)
    assert _stable(one) == _stable(four)


def test_cache_regrades_exactly_what_changed(tree, monkeypatch):
    bench = _runner(tree)
    cache = ResultCache(tree / "results")
    entries = list(bench.discover().values())
    first, cached = bench.grade(entries, cache=cache)
    assert cached == set()
    graded: list[str] = []
    real = grading_module.grade_model  # (the runner imports it when it has a model to grade)
    monkeypatch.setattr(grading_module, "grade_model",
                        lambda path, *a, **k: graded.append(Path(path).name) or real(path, *a, **k))
    again, cached = bench.grade(entries, cache=cache)
    assert graded == [] and cached == set(MODELS) and again == first
    target = tree / "submissions/user_submissions/weak_model/prompt_3_transform.py"
    target.write_text(target.read_text() + "\n# edited\n")
    _, cached = bench.grade(entries, cache=cache)
    assert graded == ["weak_model"] and cached == set(MODELS) - {"weak_model"}
    graded.clear()
    other = _runner(tree, GradeOptions(memory_mb=768))
    _, cached = other.grade(entries, cache=cache)
    assert cached == set() and sorted(graded) == sorted(MODELS)


def test_a_transient_failure_is_not_replayed_from_the_cache(tree, monkeypatch):
    bench = _runner(tree)
    cache = ResultCache(tree / "results")
    entries = [bench.discover()["decent_model"]]

    def zygote_gone(self, request, fds, deadline):
        raise spawner.ZygoteError("the sandbox zygote exited")

    with monkeypatch.context() as patched:
        patched.setattr(spawner.Zygote, "run", zygote_gone)
        failed, cached = bench.grade(entries, cache=cache)
    assert cached == set() and has_internal_error(failed[0])
    assert "zygote exited" in failed[0].prompts[0].error
    assert not cache.directory.exists() or not any(cache.directory.iterdir())
    healed, cached = bench.grade(entries, cache=cache)
    assert cached == set() and not has_internal_error(healed[0])
    again, cached = bench.grade(entries, cache=cache)
    assert cached == {"decent_model"} and again == healed


def test_a_submissions_own_time_out_is_a_result_and_is_cached(tree):
    spinning = tree / "submissions/user_submissions/decent_model/prompt_3_transform.py"
    spinning.write_text(spinning.read_text() + "\n\nwhile True:\n    pass\n")
    bench = _runner(tree, GradeOptions(timeout_s=1.5))
    entries = [bench.discover()["decent_model"]]
    first, cached = bench.grade(entries, cache=ResultCache(tree / "results"))
    runs = first[0].prompts[2].execution
    assert runs[0]["timed_out"] and all(run.get("skipped") for run in runs[1:])
    assert not has_internal_error(first[0])
    again, cached = bench.grade(entries, cache=ResultCache(tree / "results"))
    assert cached == {"decent_model"} and _stable(again) == _stable(first)


def test_a_corrupt_cache_entry_is_a_miss(tree):
    bench = _runner(tree)
    cache = ResultCache(tree / "results")
    entries = [bench.discover()["decent_model"]]
    bench.grade(entries, cache=cache)
    for entry in cache.directory.iterdir():
        entry.write_text("{not json")
    results, cached = bench.grade(entries, cache=cache)
    assert cached == set() and results[0].model == "decent_model"
    for entry in cache.directory.iterdir():  # valid for Python's json module, not strict JSON
        entry.write_text(entry.read_text().replace('"overall_score": ', '"overall_score": NaN, "x": ', 1))
        assert "NaN" in entry.read_text()
    results, cached = bench.grade(entries, cache=cache)
    assert cached == set() and results[0].score == results[0].score  # graded again: no NaN


def test_progress_draws_no_bar_without_a_terminal_and_writes_its_lines_to_stderr(capsys):
    progress = Progress(2, quiet=False, ticking=False)  # pytest's stdout is not a terminal
    assert not progress.enabled and progress.bar is None and progress.lines
    progress.done("m")
    assert capsys.readouterr().err == ""  # (the first line comes after 10 s, or at the end)
    progress.done("n")
    progress.close()
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("graded 2/2 models (100 %), ")
    quiet = Progress(3, quiet=True)
    assert not quiet.enabled and not quiet.lines


def test_a_file_changed_while_its_model_is_graded_is_graded_again_next_time(tree, monkeypatch):
    """The key holds the bytes as they were before grading, never bytes graded by nobody."""
    bench = _runner(tree)
    entries = [bench.discover()["decent_model"]]
    target = tree / "submissions/user_submissions/decent_model/prompt_2_config_fixed.yaml"
    real = grading_module.grade_model

    def edit_while_grading(path, *args, **kwargs):
        result = real(path, *args, **kwargs)
        target.write_text(target.read_text() + "\n# edited during grading\n")
        return result

    with monkeypatch.context() as patched:
        patched.setattr(grading_module, "grade_model", edit_while_grading)
        bench.grade(entries, cache=ResultCache(tree / "results"))
    _, cached = bench.grade(entries, cache=ResultCache(tree / "results"))
    assert cached == set()


def test_the_keys_are_made_before_any_model_is_graded(tree, monkeypatch):
    """The run's part of every key (the grader's source hash, the fixtures, the kernel profile)
    is taken before grading: a result is never stored under hashes of code or fixtures that
    changed while it was graded."""
    import benchmark.runner as runner_module

    events: list[str] = []
    real_grade, real_context = grading_module.grade_model, runner_module.run_context
    monkeypatch.setattr(grading_module, "grade_model",
                        lambda path, *a, **k: events.append("grade") or real_grade(path, *a, **k))
    monkeypatch.setattr(runner_module, "run_context",
                        lambda *a, **k: events.append("context") or real_context(*a, **k))
    bench = _runner(tree)
    entries = [bench.discover()["decent_model"]]
    for refresh in (False, True):  # an empty cache, then --no-cache
        events.clear()
        bench.grade(entries, cache=ResultCache(tree / "results"), refresh=refresh)
        assert events == ["context", "grade"]


@pytest.mark.parametrize("options, error", [
    ({"timeout_s": -1}, ValueError), ({"timeout_s": 0}, ValueError),
    ({"timeout_s": float("nan")}, ValueError), ({"timeout_s": float("inf")}, ValueError),
    ({"timeout_s": 86401}, ValueError), ({"timeout_s": "5"}, TypeError),
    ({"timeout_s": True}, TypeError), ({"memory_mb": 1}, ValueError),
    ({"memory_mb": 512.0}, TypeError), ({"seed": 2**70}, ValueError), ({"seed": "1"}, TypeError),
])
def test_grade_options_the_cli_refuses_are_refused_before_anything_is_graded(options, error):
    with pytest.raises(error, match=f"GradeOptions.{next(iter(options))}"):
        GradeOptions(**options)


def test_a_library_runner_with_a_timeout_that_is_not_positive_raises_instead_of_scoring(tree):
    for timeout in (0, -1):
        with pytest.raises(ValueError, match="time-out is a number of seconds over 0"):
            BenchmarkRunner("example_model", submissions_dir=tree / "submissions", timeout=timeout)
    assert GradeOptions(timeout_s=86400, memory_mb=2048, seed=-2**63).timeout_s == 86400


def test_a_file_changed_between_keying_and_grading_is_not_stored_under_the_old_key(tree):
    """The key is made from a model's files before it is graded; a file edited in between (a
    submission folder changed during a run) must not leave a result for the new bytes under
    the old bytes' key, replayed by every later run (red team B, F4)."""
    bench = _runner(tree)
    cache = ResultCache(tree / "results")
    entries = [e for e in bench.discover().values() if e.name == "example_model"]
    plan = bench.plan(entries, cache)
    target = tree / "submissions/user_submissions/example_model/prompt_3_transform.py"
    original = target.read_bytes()
    target.write_bytes(original + b"\n# edited after keying\n")
    graded, cached = bench.grade(entries, cache=cache, plan=plan)
    assert cached == set() and graded[0].model == "example_model"
    target.write_bytes(original)  # the bytes the key was made from, back
    assert cache.get(plan.keys["example_model"], "example_model") is None
    _, cached = bench.grade(entries, cache=cache)  # graded from those bytes now: stored
    assert cached == set()
    assert cache.get(plan.keys["example_model"], "example_model") is not None
