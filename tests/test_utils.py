import json

import pytest
import yaml

from benchmark import utils
from benchmark.reporting.results_json import model_to_dict, run_to_dict
from benchmark.utils import (
    SUBMISSION_FILES,
    LimitedSafeLoader,
    YAMLLimitError,
    create_comparison_chart,
    create_submission_template,
    ensure_directories,
    format_results,
    generate_comparison_chart,
    get_model_statistics,
    load_test_data,
    load_yaml_limited,
    safe_load_json,
    safe_load_yaml,
    validate_submission_structure,
)
from result_fakes import make_model, make_run

BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *[f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]" for prev, cur in zip("abcdefgh", "bcdefghi")],
    ]
)


def test_billion_laughs_is_rejected():
    with pytest.raises(YAMLLimitError, match="expands"):
        load_yaml_limited(BILLION_LAUGHS)


def test_too_many_aliases_rejected():
    text = "x: &a 1\n" + "\n".join(f"k{i}: *a" for i in range(101))
    with pytest.raises(YAMLLimitError, match="aliases"):
        load_yaml_limited(text)
    assert len(load_yaml_limited(text, max_aliases=200)[0]) == 102


def test_deep_nesting_rejected():
    with pytest.raises(YAMLLimitError, match="deeper"):
        load_yaml_limited("[" * 150 + "]" * 150)
    assert load_yaml_limited("[" * 50 + "]" * 50)


def test_recursive_alias_rejected():
    with pytest.raises(YAMLLimitError, match="recursive"):
        load_yaml_limited("a: &x [1, *x]")


def test_limit_error_is_a_yaml_error_and_plain_yaml_loads():
    assert issubclass(YAMLLimitError, yaml.YAMLError)
    docs = load_yaml_limited("base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n---\n- 1\n")
    assert docs == [{"base": {"x": 1}, "d": {"x": 1, "y": 2}}, [1]]
    assert load_yaml_limited("") == []
    assert issubclass(LimitedSafeLoader, yaml.SafeLoader)


def test_unsafe_tags_refused():
    with pytest.raises(yaml.YAMLError):
        load_yaml_limited("!!python/object/apply:os.system ['echo hi']")


def test_safe_load_json(tmp_path):
    good = tmp_path / "a.json"
    good.write_text('{"a": [1, 2]}', encoding="utf-8")
    assert safe_load_json(good) == {"a": [1, 2]}
    for name, content in [("bad.json", "{nope"), ("nan.json", '{"a": NaN}'), ("bin.json", b"\xff\xfe")]:
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        assert safe_load_json(path) is None
    assert safe_load_json(tmp_path / "missing.json") is None
    assert safe_load_json(tmp_path) is None
    assert safe_load_json(good, max_bytes=5) is None


def test_safe_load_yaml(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("a: 1\n---\nb: 2\na: 3\n", encoding="utf-8")
    assert safe_load_yaml(path) == {"a": 3, "b": 2}
    path.write_text("- 1\n---\nb: 2\n", encoding="utf-8")
    assert safe_load_yaml(path) == [[1], {"b": 2}]
    path.write_text("key: [unclosed\n", encoding="utf-8")
    assert safe_load_yaml(path) is None
    path.write_text(BILLION_LAUGHS, encoding="utf-8")
    assert safe_load_yaml(path) is None
    assert safe_load_yaml(tmp_path / "missing.yaml") is None


def test_load_test_data(tmp_path):
    (tmp_path / "user_data.json").write_text('[{"id": 1}]', encoding="utf-8")
    (tmp_path / "config.yaml").write_text("a: [\n", encoding="utf-8")
    data = load_test_data(tmp_path)
    assert data == {"user_data": [{"id": 1}], "config": None, "process_records": None}


def test_directories_template_and_structure(tmp_path):
    made = ensure_directories([tmp_path / "x" / "y", tmp_path / "z"])
    assert all(p.is_dir() for p in made)
    template = create_submission_template(tmp_path / "submissions")
    assert template == tmp_path / "submissions" / "templates" / "template"
    assert validate_submission_structure(template) == {name: True for name in SUBMISSION_FILES}
    assert all(template.joinpath(n).read_text().startswith(("#", "//")) for n in SUBMISSION_FILES)
    (template / "prompt_1_solution.py").write_text("print('mine')\n")
    create_submission_template(tmp_path / "submissions")  # does not overwrite
    assert (template / "prompt_1_solution.py").read_text() == "print('mine')\n"
    empty = tmp_path / "empty_model"
    empty.mkdir()
    (empty / "prompt_4_api_sync.py").symlink_to(template / "prompt_4_api_sync.py")
    assert not any(validate_submission_structure(empty).values())
    assert list(validate_submission_structure(empty)) == list(SUBMISSION_FILES)


def test_model_statistics_full_structure():
    empty = get_model_statistics({})
    assert empty == get_model_statistics(None)
    assert empty["prompts_total"] == 0 and empty["best_prompt"] is None and len(empty["category_totals"]) == 7
    stats = get_model_statistics(model_to_dict(make_model("m", fractions={"execution": 0.0})))
    assert set(stats) == set(empty)
    assert stats["prompts_total"] == 4 and stats["prompts_passed"] == 0 and stats["pass_rate"] == 0.0
    assert stats["category_totals"]["execution"] == {"earned": 0.0, "max": 33.0}


def test_format_results_and_charts(tmp_path):
    doc = run_to_dict(make_run(make_model("m_one", 0.8), make_model("m_two", 1.0)))
    text = format_results(doc)
    assert "Model: m_one" in text and "Model: m_two" in text
    assert format_results(doc["models"]["m_one"]).startswith("Model: m_one")
    chart = create_comparison_chart(doc)
    assert chart == create_comparison_chart(doc["models"])
    assert chart.index("m_two") < chart.index("m_one") and "100.00%" in chart
    out = generate_comparison_chart(doc, tmp_path / "charts" / "chart.txt")
    assert out.read_text(encoding="utf-8") == chart


def test_atomic_write_json_reexported(tmp_path):
    utils.atomic_write_json(tmp_path / "x.json", {"k": 1})
    assert json.loads((tmp_path / "x.json").read_text()) == {"k": 1}
