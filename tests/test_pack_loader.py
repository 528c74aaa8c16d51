"""The pack loader: each mistake in a manifest is reported at its exact file:line:col."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.packs import loader, local_plugins, registry
from benchmark.packs.problems import PackError
from benchmark.types import Category

GOOD = Path(__file__).parent / "packs" / "good"


def fake_observe(manifest, folder, pack_id):
    return lambda *args, **kwargs: {"mode": manifest["run"]["mode"]}


@pytest.fixture(autouse=True)
def check_types(monkeypatch):
    """Test-only check types in a fresh table (the real library is not needed)."""
    monkeypatch.setattr(registry, "CHECK_TYPES", {})
    monkeypatch.setattr(registry, "_PLUGINS", {registry.CHECK_GROUP: {}, registry.GENERATOR_GROUP: {}})
    monkeypatch.setattr(loader, "_ensure_builtins", lambda: None)
    monkeypatch.setattr(local_plugins, "PACK_TABLES", {})
    monkeypatch.setattr(loader, "default_make_observe", lambda: fake_observe)

    @registry.builtin_check("tpl.loads", method="parse")
    def loads(ctx):
        """Earns its points when the file loads."""

    @registry.builtin_check("tpl.keys", method="parse", required=("keys",),
                            params={"keys": {"type": "array", "items": {"type": "string"}}})
    def keys(ctx, keys):
        """Earns its points when the keys are there."""

    @registry.builtin_check("exec.sandbox_violations", method="exec")
    def sandbox(ctx):
        """Earns its points when nothing was blocked."""


@pytest.fixture
def pack(tmp_path):
    folder = tmp_path / "good"
    shutil.copytree(GOOD, folder)
    return folder


def edit(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / name
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def located(folder: Path) -> list[str]:
    pack, problems = loader.check_pack(folder)
    return [p.format(relative_to=folder) for p in problems]


def only(folder: Path) -> str:
    lines = located(folder)
    assert len(lines) == 1, lines
    return lines[0]


def test_the_good_pack_loads_with_keys_maxima_gates_and_observe():
    pack = loader.load_pack(GOOD)
    assert [t.key for t in pack.tasks] == ["demo.config_check", "demo.normalize"]
    task = pack.tasks[1]
    assert task.points == 10 and task.maxima[Category.SECURITY] == 2 and task.maxima[Category.QUALITY] == 0
    assert len(task.maxima) == 7 and task.gates[Category.SECURITY] == "full"
    assert [c.method for c in task.checks] == ["parse", "parse", "exec"]
    assert task.observe() == {"mode": "call"} and task.submission_root == "demo"
    assert pack.content_hash.startswith("sha256:") and pack.plugins == ()


def test_a_category_not_in_the_list_is_reported_on_its_value(pack):
    edit(pack, "normalize/task.yaml", "category: execution", "category: correctness")
    assert only(pack).startswith("normalize/task.yaml:26:15: checks/1/category: 'correctness' is not one of")


def test_zero_points_are_reported_on_the_points_value(pack):
    edit(pack, "config_check/task.yaml", "points: 4", "points: 0")
    assert only(pack).startswith("config_check/task.yaml:10:43: checks/0/points: 0 is less than or equal")


def test_a_duplicate_key_names_both_lines(pack):
    edit(pack, "pack.yaml", "title: Demo tasks\n", "title: Demo tasks\ntitle: Again\n")
    assert only(pack) == "pack.yaml:5:1: title: key 'title' repeats line 4"


def test_sums_that_do_not_match_state_the_sums(pack):
    edit(pack, "config_check/task.yaml", "points: 6", "points: 5.5")
    assert only(pack) == ("config_check/task.yaml:10:3: checks: checks add up to 9.5, the task's points are 10 "
                          "(syntax 4, execution 5.5)")


def test_maxima_that_do_not_match_point_at_the_category(pack):
    edit(pack, "normalize/task.yaml", "security: 2}", "security: 3}")
    assert only(pack) == "normalize/task.yaml:12:45: maxima/security: checks in security add up to 2, maxima says 3"


def test_an_unknown_use_suggests_the_closest_names(pack):
    edit(pack, "config_check/task.yaml", "use: tpl.loads", "use: tpl.load")
    assert only(pack) == ("config_check/task.yaml:10:51: checks/0/use: unknown check type 'tpl.load'; "
                          "closest: tpl.loads, tpl.keys; entry points seen in rubricbench.checks: none")


def test_a_bad_with_parameter_points_at_the_parameter(pack):
    edit(pack, "normalize/task.yaml", "with: {keys: [a, b]}", "with: {keys: [a, 3]}")
    assert only(pack) == "normalize/task.yaml:29:22: checks/1/with/keys/1: 3 is not of type 'string'"


def test_an_unknown_with_parameter_points_at_its_key(pack):
    edit(pack, "normalize/task.yaml", "with: {keys: [a, b]}", "with: {keys: [a], extra: 1}")
    assert only(pack) == "normalize/task.yaml:29:23: checks/1/with/extra: unknown key 'extra' (allowed here: keys)"


def test_a_missing_fixture_file_is_reported_on_its_entry(pack):
    (pack / "normalize/data/extra.txt").unlink()
    assert only(pack) == "normalize/task.yaml:9:12: fixtures/0: data/extra.txt: no such file in the task folder"


def test_a_staged_answer_key_is_refused(pack):
    edit(pack, "normalize/task.yaml", "fixtures: [data/extra.txt]", "fixtures: [data/extra.txt, answers/expected.json]")
    assert only(pack) == ("normalize/task.yaml:9:28: fixtures/1: answers/expected.json would stage the answer key "
                          "answers/expected.json: answer keys are read by the grader only and are never staged")


def test_a_reference_file_listed_as_a_fixture_is_refused(pack):
    edit(pack, "normalize/task.yaml", "fixtures: [data/extra.txt]", "fixtures: [reference/phone.py]")
    assert "fixtures/0: reference/phone.py would stage the answer key reference" in only(pack)


def test_an_id_that_differs_from_its_folder_is_reported(pack):
    edit(pack, "normalize/task.yaml", "id: normalize", "id: normalise")
    assert only(pack) == "normalize/task.yaml:2:5: id: id 'normalise' differs from its folder's name 'normalize'"


def test_a_task_that_runs_code_needs_the_sandbox_check(pack):
    text = (pack / "normalize/task.yaml").read_text()
    text = text.replace("    points: 2\n    use: exec.sandbox_violations", "    points: 2\n    use: tpl.loads")
    (pack / "normalize/task.yaml").write_text(text)
    assert only(pack) == ("normalize/task.yaml:21:3: checks: run mode call runs code: add a check with "
                          "use: exec.sandbox_violations")


def test_a_path_escaping_the_task_folder_is_refused(pack):
    edit(pack, "normalize/task.yaml", "fixtures: [data/extra.txt]", "fixtures: [../pack.yaml]")
    assert only(pack) == "normalize/task.yaml:9:12: fixtures/0: ../pack.yaml: escapes the folder ('..')"


def test_a_symlink_leading_outside_is_refused(pack, tmp_path):
    (tmp_path / "secret.txt").write_text("s")
    (pack / "normalize/data/extra.txt").unlink()
    (pack / "normalize/data/extra.txt").symlink_to(tmp_path / "secret.txt")
    assert "escapes the folder (a symbolic link leads outside it)" in only(pack)


def test_a_non_utf8_file_names_the_bad_byte(pack):
    (pack / "normalize/task.yaml").write_bytes(b"schema_version: 1\nid: caf\xe9\n")
    assert only(pack).startswith("normalize/task.yaml:2:8: not UTF-8 text (byte 0xe9")


def test_a_binary_file_is_not_yaml(pack):
    (pack / "pack.yaml").write_bytes(b"id: x\n\x00\x01")
    assert only(pack).startswith("pack.yaml:2:1: a binary file")


def test_an_empty_file_is_reported(pack):
    (pack / "pack.yaml").write_text("")
    assert only(pack) == "pack.yaml:1:1: the file is empty (a YAML mapping was expected)"


def test_tab_indentation_is_reported_where_the_tab_is(pack):
    edit(pack, "pack.yaml", "  points: 10", "\tpoints: 10")
    assert only(pack).startswith("pack.yaml:7:1: not valid YAML:")


def test_a_custom_tag_is_refused(pack):
    edit(pack, "pack.yaml", "title: Demo tasks", "title: !!python/name:os.system ''")
    assert only(pack).startswith("pack.yaml:4:8: title: the tag tag:yaml.org,2002:python/name:os.system is not")


def test_an_unquoted_yaml11_boolean_where_a_string_is_wanted_is_a_warning(pack):
    edit(pack, "normalize/task.yaml", "with: {keys: [a, b]}", "with: {keys: [a, no]}")
    assert only(pack) == ("normalize/task.yaml:29:22: checks/1/with/keys/1: warning: unquoted no is a boolean "
                          "in YAML 1.1; read here as the string 'no': quote it")
    assert loader.load_pack(pack).tasks[1].checks[1].params == {"keys": ["a", "no"]}


def test_an_unknown_key_points_at_the_key(pack):
    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nauthor: me\n")
    assert only(pack).startswith("pack.yaml:4:1: author: unknown key 'author' (allowed here:")


def test_a_missing_required_key_points_at_the_mapping(pack):
    edit(pack, "config_check/task.yaml", "title: Write a settings file\n", "")
    assert only(pack) == "config_check/task.yaml:1:1: 'title' is a required property"


def test_the_core_id_is_reserved_for_the_builtin_pack(pack):
    edit(pack, "pack.yaml", "id: demo", "id: core")
    assert only(pack) == "pack.yaml:2:5: id: the id 'core' is reserved for the built-in pack"
    built = loader.load_pack(pack, builtin=True)
    assert [t.key for t in built.tasks] == ["config_check", "normalize"]


def test_a_title_with_a_control_or_bidi_character_is_refused_naming_it(pack):
    """A title reaches every report and terminal as it is: a newline broke ``pack docs``'s
    headings, an ESC or a U+202E reached summary.md and report.html raw."""
    edit(pack, "pack.yaml", "title: Demo tasks", 'title: "Demo \\e[31mtasks"')
    edit(pack, "config_check/task.yaml", "title: Write a settings file",
         'title: "Write a file\\n## injected \\u202e"')
    assert located(pack) == [
        "config_check/task.yaml:3:8: title: a title is one line of plain text: '\\n' at character 13 "
        "(no control, bidirectional or surrogate characters)",
        "pack.yaml:4:8: title: a title is one line of plain text: '\\x1b' at character 6 "
        "(no control, bidirectional or surrogate characters)"]


def test_a_title_in_any_script_is_accepted(pack):
    edit(pack, "pack.yaml", "title: Demo tasks", "title: Données – 数据 ✓")
    assert located(pack) == []
    assert loader.load_pack(pack).title == "Données – 数据 ✓"


def test_case_labels_are_unique_not_reserved_and_expect_or_raise(pack):
    edit(pack, "normalize/task.yaml", "label: garbage", "label: perturbed_1")
    edit(pack, "normalize/task.yaml", ', raises: ValueError}', ', raises: ValueError, expect: 1}')
    assert located(pack) == [
        "normalize/task.yaml:19:7: run/cases/1: a case needs exactly one of expect and raises",
        "normalize/task.yaml:19:15: run/cases/1/label: 'perturbed_1': perturbed_<n> labels are reserved "
        "for generated cases"]


def test_a_file_path_used_by_two_tasks_is_refused(pack):
    edit(pack, "config_check/task.yaml", "path: settings.yaml", "path: phone.py")
    assert "normalize/task.yaml:7:11: files/0/path: phone.py is already a file of task config_check" in located(pack)


def test_an_unmet_rubricbench_specifier_and_missing_distribution_are_reported(pack):
    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nrubricbench: '>=99'\nrequires: [no-such-dist-xyz>=1]\n")
    assert located(pack) == ["pack.yaml:4:14: rubricbench: needs rubricbench >=99; this is 0.1.0",
                             "pack.yaml:5:12: requires/0: no-such-dist-xyz>=1: no-such-dist-xyz is not installed"]


def test_an_installed_distribution_of_the_wrong_version_says_what_was_asked(pack):
    """It said only "PyYAML 6.0.3 is installed", which reads as no problem at all."""
    import yaml

    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nrequires: ['PyYAML>=99,<100']\n")
    assert located(pack) == [f"pack.yaml:4:12: requires/0: PyYAML>=99,<100: PyYAML {yaml.__version__} is "
                             "installed, which is not <100,>=99"]


def test_load_pack_raises_with_every_problem(pack):
    edit(pack, "normalize/task.yaml", "id: normalize", "id: normalise")
    with pytest.raises(PackError) as caught:
        loader.load_pack(pack)
    assert "differs from its folder's name" in str(caught.value) and len(caught.value.problems) == 1


PLUGIN = '''from benchmark.api import check_type

@check_type(method="ast")
def has_main(ctx):
    """Earns its points when main() exists."""
'''


def test_a_local_plugin_is_named_after_the_pack_and_recorded_by_hash(pack):
    (pack / "plugins.py").write_text(PLUGIN)
    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nlocal_plugins: [plugins.py]\n")
    edit(pack, "config_check/task.yaml", "use: tpl.loads", "use: demo.has_main")
    loaded = loader.load_pack(pack)
    assert loaded.tasks[0].checks[0].method == "ast"
    assert local_plugins.resolve_check("demo", "demo.has_main").fn.__name__ == "has_main"
    assert len(loaded.plugins) == 1 and loaded.plugins[0].startswith("plugins.py==sha256:")


def test_a_local_plugin_name_clashing_with_a_builtin_is_a_problem(pack, monkeypatch):
    (pack / "plugins.py").write_text(PLUGIN)
    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nlocal_plugins: [plugins.py]\n")
    monkeypatch.setitem(registry.CHECK_TYPES, "demo.has_main", registry.CHECK_TYPES["tpl.loads"])
    assert only(pack) == "pack.yaml:4:17: local_plugins/0: plugins.py: demo.has_main is a built-in name"


def test_a_local_plugin_that_fails_to_import_is_a_problem(pack):
    (pack / "plugins.py").write_text("x = 1\nraise ValueError('broken')\n")
    edit(pack, "pack.yaml", "\nversion: 1\n", "\nversion: 1\nlocal_plugins: [plugins.py]\n")
    assert only(pack) == ("pack.yaml:4:17: local_plugins/0: plugins.py: failed to import (line 2): "
                          "ValueError: broken")


def test_the_content_hash_follows_fixtures_but_not_the_prompt(pack):
    before = loader.load_pack(pack).content_hash
    (pack / "normalize/prompt.md").write_text("A different prompt.")
    assert loader.load_pack(pack).content_hash == before
    (pack / "normalize/data/extra.txt").write_bytes(b"extrA\n")
    assert loader.load_pack(pack).content_hash != before


def test_pack_validate_prints_each_problem_then_counts_and_exits_1(pack, capsys):
    edit(pack, "normalize/task.yaml", "id: normalize", "id: normalise")
    edit(pack, "normalize/task.yaml", "with: {keys: [a, b]}", "with: {keys: [a, yes]}")
    assert cli.main(["pack", "validate", str(pack), "--no-behaviour"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("normalize/task.yaml:2:5: id: id 'normalise' differs from its folder's name 'normalize'")
    assert "checks/1/with/keys/1: warning: unquoted yes" in lines[1]
    assert lines[2] == f"{pack}: 1 error(s), 1 warning(s)"


def test_pack_validate_exits_0_for_a_good_pack(pack, capsys):
    # the checks here are fakes: the behavioural gates are tested in test_pack_gates.py
    assert cli.main(["pack", "validate", str(pack), "--no-behaviour"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"{pack}: 0 error(s), 0 warning(s)\n")


def test_pack_validate_escapes_control_characters_in_what_it_prints(pack, capsys):
    edit(pack, "normalize/task.yaml", "id: normalize", 'id: "nor\\e[31mmalize"')
    assert cli.main(["pack", "validate", str(pack), "--no-behaviour"]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out


def test_pack_list_shows_builtin_check_types_with_their_first_doc_line(capsys):
    assert cli.main(["pack", "list"]) == 0
    assert "  tpl.keys: Earns its points when the keys are there." in capsys.readouterr().out
