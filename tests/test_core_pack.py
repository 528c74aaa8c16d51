"""The four built-in prompts as the core pack: its manifests are the rubric."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from dataclasses import replace

import pytest

import benchmark.packs.library  # noqa: F401  (registers the library types)
import pytest

from benchmark.packs import registry
from benchmark.packs.compile_core import compile_pack
from benchmark.packs.compiled import CORE_DIR, load_compiled
from benchmark.packs.loader import check_pack
from benchmark.packs.suite import core_pack
from benchmark.prompts import PROMPT_MODULES
from benchmark.rubric import RUBRIC, RubricError, rubric_hash

# The rubric hash, pinned so that a change of checks or points is deliberate (a new hash
# invalidates every cached result). ed2b6b2949760571 was the table as it stood in
# benchmark/rubric.py before the core pack existed. Issue 14 then moved points: prompt 4's
# secure_transport (2 points: bearer_auth 2 -> 1, explicit_timeout 1.5 -> 0.5); prompt 1's
# generated contract forms (correct_filtering 2 -> 1.5, perturbed_dataset 1 -> 1.5); prompt 3's
# differential run (six execution checks 2 -> 1.5, differential_run 3); measured performance:
# prompt 3 (single_pass 1 -> 0.25, measured_performance 0.75), prompt 1 (no_nested_loops and
# no_io_in_loops 1 -> 0.25 each, measured_performance 1.5). That was 62bca6b4799e56fe; then the
# core prompts' checks moved to library check types where one expresses them, and the syntax
# checks of prompts 1, 3 and 4 became the type `compiles`, whose method is ast (a manifest may
# not set another), not parse; and the hash reads each row's check type and its with: too.
HASH_BEFORE_PACKS = "04337d49367e5393"


def test_the_rubric_hash_changes_with_a_rows_check_type_or_its_parameters(monkeypatch):
    """A row judged by another type, or by the same type with other ``with:``, is another
    rubric: a result graded under it must not pass for one of this rubric."""
    import benchmark.rubric as rubric

    first = RUBRIC[0]
    row = next(r for r in first.checks if r.params != "{}")
    for changed in (replace(row, use="ast.other"), replace(row, params='{"limit": 1}')):
        checks = tuple(changed if r is row else r for r in first.checks)
        monkeypatch.setattr(rubric, "RUBRIC", (replace(first, checks=checks), *RUBRIC[1:]))
        assert rubric.rubric_hash() != HASH_BEFORE_PACKS
    monkeypatch.setattr(rubric, "RUBRIC", RUBRIC)
    assert rubric.rubric_hash() == HASH_BEFORE_PACKS


def test_the_compiled_core_pack_is_current():
    assert load_compiled() == compile_pack(), "run scripts/gen_core_pack.py"


def test_the_rubric_hash_is_the_pinned_one():
    assert rubric_hash() == HASH_BEFORE_PACKS


def test_the_core_manifests_pass_the_same_validation_as_a_users_pack():
    pack, problems = check_pack(CORE_DIR, builtin=True)
    assert problems == [] and pack is not None
    assert [t.key for t in pack.tasks] == ["prompt_1", "prompt_2", "prompt_3", "prompt_4"]


def test_the_loader_and_the_compiled_form_describe_the_same_tasks():
    loaded, _ = check_pack(CORE_DIR, builtin=True)
    for from_yaml, compiled in zip(loaded.tasks, core_pack().tasks):
        assert (from_yaml.key, from_yaml.title, from_yaml.points) == (compiled.key, compiled.title, compiled.points)
        assert dict(from_yaml.maxima) == dict(compiled.maxima)
        assert from_yaml.files == compiled.files
        assert [(c.id, c.category, c.points, c.method, c.use) for c in from_yaml.checks] == \
               [(c.id, c.category, c.points, c.method, c.use) for c in compiled.checks]
        assert from_yaml.observe is compiled.observe


def test_every_core_rubric_row_is_a_registered_check_type_bound_to_its_function():
    """A row using ``core.pN.<id>`` is its module's function; any other row uses a built-in
    library type, and the module holds no function for it."""
    for number, (rubric, module) in enumerate(zip(RUBRIC, PROMPT_MODULES), start=1):
        core = [row for row in rubric.checks if row.use.startswith("core.")]
        assert set(module.CHECKS) == {row.id for row in core}
        for row in core:
            assert row.use == f"core.p{number}.{row.id}"
            kind = registry.CHECK_TYPES[row.use]
            assert kind.fn is module.CHECKS[row.id] and kind.method == row.method
        for row in rubric.checks:  # a library row: a built-in type judging by the row's method
            kind = registry.check_type_named(row.use)
            assert kind.source == "builtin" and kind.method == row.method
        assert registry.OBSERVERS[f"core.p{number}.observe"] is module.observe


def test_a_prompt_module_needs_a_function_only_for_its_core_rows(monkeypatch):
    import benchmark.prompts as prompts

    prompt_4 = RUBRIC[3]
    assert any(not row.use.startswith("core.") for row in prompt_4.checks)
    prompts._verify(PROMPT_MODULES)  # library rows (compiles, ast.defines, ...) need no function
    stray = tuple(replace(row, use="core.p4.file_compiles") if row.id == "file_compiles" else row
                  for row in prompt_4.checks)
    monkeypatch.setattr(prompts, "RUBRIC", (*RUBRIC[:3], replace(prompt_4, checks=stray)))
    with pytest.raises(RubricError, match="file_compiles"):
        prompts._verify(PROMPT_MODULES)  # a core.* row must have its function


def test_each_core_task_folder_holds_its_prompt_text():
    for task in core_pack().tasks:
        text = (task.folder / "prompt.md").read_text(encoding="utf-8")
        assert all(name in text for name in task.file_names)


def _core_copy(tmp_path, old: str, new: str):
    folder = tmp_path / "core"
    shutil.copytree(CORE_DIR, folder)
    manifest = folder / "prompt_1" / "task.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert old in text
    manifest.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_custom_run_names_the_script_it_runs_or_the_function_it_calls_never_both(tmp_path):
    run = "entry: prompt_1_solution.py}"
    both = _core_copy(tmp_path / "a", run, f"{run[:-1]}, module: prompt_1_solution.py, function: main}}")
    _, problems = check_pack(both, builtin=True)
    line = next(n for n, text in enumerate((both / "prompt_1" / "task.yaml").read_text().splitlines(), 1)
                if text.startswith("run:"))
    assert [p.format(relative_to=both) for p in problems if p.is_error] == [
        f"prompt_1/task.yaml:{line}:6: run: give entry or function, not both: each says what the run is of"]
    unknown = _core_copy(tmp_path / "b", run, "entry: solution.py}")
    _, problems = check_pack(unknown, builtin=True)
    assert any(p.is_error and "solution.py is not one of files (prompt_1_solution.py)" in p.format()
               for p in problems)
    calls = _core_copy(tmp_path / "c", run, "module: prompt_1_solution.py, function: main}")
    pack, problems = check_pack(calls, builtin=True)
    assert pack is not None and not any(p.is_error for p in problems)
def test_building_the_core_pack_registers_the_library_types_its_rows_may_use():
    """A core-only run never loads a pack folder (whose loader imports the library), yet a core
    row may name a library type: building the core pack registers them."""
    import subprocess
    import sys

    code = ("from benchmark.packs.suite import core_pack\nfrom benchmark.packs import registry\n"
            "assert 'compiles' not in registry.CHECK_TYPES\ncore_pack()\n"
            "assert {'compiles', 'ast.logging', 'exec.sandbox_violations'} <= set(registry.CHECK_TYPES)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


PROMPT_5 = """schema_version: 1
id: prompt_5
title: Word counts
prompt: prompt.md
files:
  - {path: prompt_5_words.py, kind: python}
run:
  mode: call
  module: prompt_5_words.py
  function: word_counts
  cases:
    - {label: simple, args: ["a b a"], expect: {a: 2, b: 1}}
    - {label: folded, args: ["A a"], expect: {a: 2}}
    - {label: not_text, args: [3], raises: TypeError}
checks:
  - {id: compiles, category: syntax, points: 3, use: compiles}
  - {id: defines, category: structure, points: 3, use: ast.defines, with: {function: word_counts}}
  - {id: counts, category: execution, points: 12, use: cases.equal, with: {labels: [simple, folded]}}
  - {id: rejects, category: quality, points: 3, use: cases.raises, with: {labels: [not_text]}}
  - {id: sandbox, category: security, points: 2, use: exec.sandbox_violations}
  - {id: simple_code, category: maintainability, points: 2, use: radon.max_complexity, with: {limit: 5}}
"""
WORDS = ("def word_counts(text):\n    if not isinstance(text, str):\n        raise TypeError('not text')\n"
         "    counts = {}\n    for word in text{lower}.split():\n        counts[word] = counts.get(word, 0) + 1\n"
         "    return counts\n")


def test_adding_a_core_prompt_written_with_library_types_is_one_folder(tmp_path):
    """A copy of the grader gets a fifth core prompt: its folder (task.yaml, prompt.md), its id in
    pack.yaml and the compiled pack regenerated; no code changes. It is graded beside the four
    (out of 125), a right answer earns all of it and one that does not fold case loses the
    case it gets wrong, and the import command knows the task from its manifest."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    copy = tmp_path / "grader"
    shutil.copytree(root / "benchmark", copy / "benchmark", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "test_data", copy / "test_data")
    for name in ("run_benchmark.py", "scripts/gen_core_pack.py"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / name, copy / name)
    folder = copy / "benchmark" / "packs" / "core" / "prompt_5"
    folder.mkdir()
    (folder / "task.yaml").write_text(PROMPT_5, encoding="utf-8")
    (folder / "prompt.md").write_text("# Word counts\n\nWrite `word_counts(text)`.\n", encoding="utf-8")
    pack = copy / "benchmark" / "packs" / "core" / "pack.yaml"
    pack.write_text(pack.read_text().replace("prompt_3, prompt_4]", "prompt_3, prompt_4, prompt_5]"))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy), "RUBRICBENCH_TEST_DATA": str(copy / "test_data")}
    subprocess.run([sys.executable, "scripts/gen_core_pack.py"], cwd=copy, env=env, check=True, timeout=120)
    example = root / "submissions" / "reference_implementations" / "example_model"
    for model, lower in (("right", ".lower()"), ("case_blind", "")):
        shutil.copytree(example, copy / "subs" / "user_submissions" / model)
        (copy / "subs" / "user_submissions" / model / "prompt_5_words.py").write_text(WORDS.replace("{lower}", lower))
    done = subprocess.run([sys.executable, "run_benchmark.py", "--all-models", "--submissions-dir", "subs",
                           "--results-dir", "res", "-q", "--no-metadata"], cwd=copy, env=env, timeout=600,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads((copy / "res" / "latest_results.json").read_text())
    right, blind = doc["models"]["right"], doc["models"]["case_blind"]
    assert list(right["prompts"]) == ["prompt_1", "prompt_2", "prompt_3", "prompt_4", "prompt_5"]
    assert right["total_possible"] == 125 and right["prompts"]["prompt_5"]["score"] == 25
    counts = {c["id"]: c for c in blind["prompts"]["prompt_5"]["checks"]}["counts"]
    assert counts["earned"] == 6 and counts["rationale"].startswith("1/2 cases right")
    tasks = subprocess.run([sys.executable, "-c", "from benchmark.importing.tasks import builtin_tasks\n"
                            "print([(t.id, t.entry) for t in builtin_tasks()][-1])"],
                           cwd=copy, env=env, check=True, capture_output=True, text=True, timeout=120)
    assert tasks.stdout.strip() == "('prompt_5', 'word_counts')"
