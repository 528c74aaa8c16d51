"""The four built-in prompts as the core pack: its manifests are the rubric."""

from __future__ import annotations

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
# no_io_in_loops 1 -> 0.25 each, measured_performance 1.5). That was 62bca6b4799e56fe; then
# prompt 3's file_compiles became the library type `compiles`, whose method is ast (the manifest
# may not set another), not parse.
HASH_BEFORE_PACKS = "a9f9206324a00e57"


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
    for number, (rubric, module) in enumerate(zip(RUBRIC, PROMPT_MODULES), start=1):
        for row in rubric.checks:
            if not row.use.startswith("core."):  # a library type: no function of the prompt's
                assert row.id not in module.CHECKS and registry.CHECK_TYPES[row.use].method == row.method
                continue
            kind = registry.CHECK_TYPES[f"core.p{number}.{row.id}"]
            assert kind.fn is module.CHECKS[row.id] and kind.method == row.method
        assert registry.OBSERVERS[f"core.p{number}.observe"] is module.observe


def test_each_core_task_folder_holds_its_prompt_text():
    for task in core_pack().tasks:
        text = (task.folder / "prompt.md").read_text(encoding="utf-8")
        assert all(name in text for name in task.file_names)
