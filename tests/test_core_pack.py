"""The four built-in prompts as the core pack: its manifests are the rubric."""

from __future__ import annotations

import pytest

from benchmark.packs import registry
from benchmark.packs.compiled import CORE_DIR, compile_pack, load_compiled
from benchmark.packs.loader import check_pack
from benchmark.packs.suite import core_pack
from benchmark.prompts import PROMPT_MODULES
from benchmark.rubric import RUBRIC, rubric_hash

# The rubric hash, pinned so that a change of checks or points is deliberate (a new hash
# invalidates every cached result). ed2b6b2949760571 was the table as it stood in
# benchmark/rubric.py before the core pack existed. Issue 14 then moved points: prompt 4's
# secure_transport (2 points: bearer_auth 2 -> 1, explicit_timeout 1.5 -> 0.5); prompt 1's
# generated contract forms (correct_filtering 2 -> 1.5, perturbed_dataset 1 -> 1.5); prompt 3's
# differential run (six execution checks 2 -> 1.5, differential_run 3); measured performance:
# prompt 3 (single_pass 1 -> 0.25, measured_performance 0.75), prompt 1 (no_nested_loops and
# no_io_in_loops 1 -> 0.25 each, measured_performance 1.5). That table hashed to 62bca6b4799e56fe
# until prompt 1's valid_syntax became the library type compiles, which judges by ast (its
# method parse -> ast; points unchanged).
RUBRIC_HASH = "b8bab67f9115bf48"


def test_the_compiled_core_pack_is_current():
    assert load_compiled() == compile_pack(), "run scripts/gen_core_pack.py"


def test_the_rubric_hash_is_the_pinned_one():
    assert rubric_hash() == RUBRIC_HASH


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
    """A core.* row is its prompt's function; any other row a library type, with no function."""
    core_pack()  # (building it registers the library types its rows use)
    for number, (rubric, module) in enumerate(zip(RUBRIC, PROMPT_MODULES), start=1):
        own = {row.id for row in rubric.checks if row.use.startswith("core.")}
        assert set(module.CHECKS) == own
        for row in rubric.checks:
            kind = registry.CHECK_TYPES[row.use]
            assert kind.method == row.method
            if row.id in own:
                assert row.use == f"core.p{number}.{row.id}" and kind.fn is module.CHECKS[row.id]
            else:
                assert f"core.p{number}.{row.id}" not in registry.CHECK_TYPES
        assert registry.OBSERVERS[f"core.p{number}.observe"] is module.observe


def test_each_core_task_folder_holds_its_prompt_text():
    for task in core_pack().tasks:
        text = (task.folder / "prompt.md").read_text(encoding="utf-8")
        assert all(name in text for name in task.file_names)


def _prompt(checks):
    from types import SimpleNamespace

    from benchmark.rubric import CheckRow, PromptRubric
    from benchmark.types import Category

    rows = tuple(CheckRow(check_id, Category.QUALITY, 1.0, "ast", use) for check_id, use in checks)
    rubric = PromptRubric("prompt_1", "t", {}, rows, ("a.py",))
    module = SimpleNamespace(PROMPT_ID="prompt_1", TITLE="t", FILES=("a.py",), PYTHON_FILES={"a.py"},
                             HAZARDS={}, fixture_files=dict, answer_keys=dict, observe=None,
                             CHECKS={check_id: None for check_id, use in checks if use.startswith("core.")})
    return (module,), (rubric,)


def test_only_rows_of_a_core_type_need_a_function_of_their_prompt():
    from benchmark.prompts import _verify
    from benchmark.rubric import RubricError

    _verify(*_prompt([("a", "core.p1.a"), ("b", "ast.good_naming"), ("c", "compiles")]))
    modules, table = _prompt([("a", "core.p1.a"), ("b", "ast.good_naming")])
    modules[0].CHECKS["b"] = None  # a function left behind for a row a library type judges
    with pytest.raises(RubricError, match=r"functions without a core.\* row \['b'\]"):
        _verify(modules, table)
    modules, table = _prompt([("a", "core.p1.a")])
    del modules[0].CHECKS["a"]
    with pytest.raises(RubricError, match=r"rows without a function \['a'\]"):
        _verify(modules, table)
    with pytest.raises(RubricError, match=r"not named core.p1.<id>: a \(core.p1.other\)"):
        _verify(*_prompt([("a", "core.p1.other")]))


def test_building_the_core_pack_registers_the_library_types_its_rows_may_use():
    """A core-only run never loads a pack folder (whose loader imports the library), yet a core
    row may name a library type: building the core pack registers them."""
    import subprocess
    import sys

    code = ("from benchmark.packs.suite import core_pack\nfrom benchmark.packs import registry\n"
            "assert 'compiles' not in registry.CHECK_TYPES\ncore_pack()\n"
            "assert {'compiles', 'ast.logging', 'exec.sandbox_violations'} <= set(registry.CHECK_TYPES)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
