import dataclasses

import pytest

from benchmark import scoring
from benchmark.reporting.results_json import model_to_dict
from benchmark.rubric import RUBRIC, by_id
from benchmark.scoring import (
    BenchmarkScorer,
    calculate_grade,
    calculate_score,
    compare_models,
    gate_factor,
    generate_badge,
    generate_feedback_summary,
    generate_improvement_suggestions,
    get_grade,
    score_model,
    score_prompt,
)
from benchmark.types import CATEGORY_ORDER, Category, Check
from result_fakes import make_checks, make_model, make_prompt

P1 = by_id("prompt_1")


def _check(cat: Category, points: float, earned: float, cid: str = "x") -> Check:
    return Check(cid, cat, points, earned, "pass" if earned >= points else "partial", "ast", "")


@pytest.mark.parametrize(
    "gate, work, expected",
    [("none", 0.0, 1.0), ("none", 0.3, 1.0), ("full", 0.0, 0.0), ("full", 0.4, 0.4), ("full", 1.0, 1.0),
     ("partial", 0.0, 0.25), ("partial", 0.5, 0.625), ("partial", 1.0, 1.0),
     ("full", 1.7, 1.0), ("full", -0.5, 0.0), ("partial", float("nan"), 0.25)],
)
def test_gate_factor(gate, work, expected):
    assert gate_factor(gate, work) == pytest.approx(expected)


def test_gate_factor_unknown_gate_raises():
    with pytest.raises(ValueError):
        gate_factor("sometimes", 0.5)


def test_full_marks_score_25_and_pass():
    categories, score, passed = score_prompt(P1, make_checks(P1))
    assert score == 25.0 and passed
    assert [c.category for c in categories] == list(CATEGORY_ORDER)
    assert all(c.factor == 1.0 and c.earned == c.possible for c in categories)


def test_no_execution_zeroes_gated_categories_and_quarters_partial_ones():
    categories, score, passed = score_prompt(P1, make_checks(P1, {"execution": 0.0}))
    by_cat = {c.category: c for c in categories}
    assert by_cat[Category.SECURITY].earned == 0.0 and by_cat[Category.SECURITY].factor == 0.0
    assert by_cat[Category.MAINTAINABILITY].earned == 0.0
    assert by_cat[Category.SYNTAX].earned == pytest.approx(5 * 0.25)
    assert by_cat[Category.STRUCTURE].earned == pytest.approx(3 * 0.25)
    assert by_cat[Category.EXECUTION].earned == 0.0
    assert score == pytest.approx(0.25 * (5 + 3 + 3))
    assert not passed


def test_half_execution_scales_gates():
    categories, score, _ = score_prompt(P1, make_checks(P1, {"execution": 0.5}))
    by_cat = {c.category: c for c in categories}
    assert by_cat[Category.EXECUTION].earned == pytest.approx(3.0)
    assert by_cat[Category.SECURITY].earned == pytest.approx(4 * 0.5)
    assert by_cat[Category.QUALITY].earned == pytest.approx(3 * 0.625)
    assert score == pytest.approx(sum(c.earned for c in categories))


def test_empty_category_present_and_zero_execution_max_means_full_work():
    p2 = by_id("prompt_2")
    categories, score, _ = score_prompt(p2, make_checks(p2))
    perf = [c for c in categories if c.category is Category.PERFORMANCE][0]
    assert perf.possible == 0.0 and perf.earned == 0.0 and perf.checks == ()
    no_exec = dataclasses.replace(p2, maxima={**p2.maxima, Category.EXECUTION: 0})
    cats, _, _ = score_prompt(no_exec, [_check(Category.SECURITY, 1.0, 1.0)])
    assert [c for c in cats if c.category is Category.SECURITY][0].factor == 1.0


def test_no_checks_scores_zero():
    categories, score, passed = score_prompt(P1, [])
    assert score == 0.0 and not passed and len(categories) == 7


def test_overclaimed_check_is_clamped_to_category_max():
    checks = [_check(Category.EXECUTION, 6.0, 6.0), _check(Category.SYNTAX, 5.0, 50.0, "y")]
    categories, _, _ = score_prompt(P1, checks)
    assert [c for c in categories if c.category is Category.SYNTAX][0].earned == 5.0


def test_scores_are_rounded_to_four_decimals():
    categories, score, _ = score_prompt(P1, [_check(Category.EXECUTION, 6.0, 2.0)])
    for c in categories:
        assert c.earned == round(c.earned, 4) and c.factor == round(c.factor, 4)
    assert score == round(score, 4)


@pytest.mark.parametrize("earned, passed", [(15.0, True), (14.9999, False), (15.00001, True)])
def test_pass_mark_is_exactly_sixty_percent(earned, passed):
    # Execution only (6 points) + others with a fixed amount: build a score of exactly `earned`.
    checks = [_check(Category.EXECUTION, 6.0, 6.0), _check(Category.SYNTAX, 5.0, 5.0, "s"),
              _check(Category.STRUCTURE, 3.0, 3.0, "t"), _check(Category.QUALITY, 3.0, earned - 14.0, "q")]
    _, score, ok = score_prompt(P1, checks)
    assert score == pytest.approx(earned, abs=1e-4)
    assert ok is passed


@pytest.mark.parametrize(
    "pct, grade",
    [(100, "A+"), (97, "A+"), (96.99, "A"), (93, "A"), (90, "A-"), (89.99, "B+"), (87, "B+"), (83, "B"),
     (80, "B-"), (77, "C+"), (73, "C"), (70, "C-"), (69.99, "D"), (60, "D"), (59.99, "F"), (0, "F")],
)
def test_grade_boundaries(pct, grade):
    assert get_grade(pct) == grade
    assert calculate_grade(pct) == grade
    assert BenchmarkScorer().calculate_grade(pct) == grade


def test_grade_thresholds_table_is_descending():
    minimums = [m for m, _ in scoring.GRADE_THRESHOLDS]
    assert minimums == sorted(minimums, reverse=True)


@pytest.mark.parametrize("pct, badge", [(95, "Gold"), (90, "Gold"), (89.9, "Silver"), (80, "Silver"),
                                        (70, "Bronze"), (69.9, "Participant"), (0, "Participant")])
def test_badges(pct, badge):
    assert generate_badge(pct) == badge == BenchmarkScorer().generate_badge(pct)


def test_calculate_score_spec_example():
    results = {"prompt_1": {"score": 23.5, "max_score": 25}, "prompt_2": {"score": 25.0, "max_score": 25},
               "prompt_3": {"score": 24.5, "max_score": 25}, "prompt_4": {"score": 21.0, "max_score": 25}}
    total = calculate_score(results)
    assert total == 94.0
    assert get_grade(total) == "A"


def test_score_model_totals_out_of_100_and_missing_prompts_count_zero():
    full = make_model("m")
    assert full.score == 100.0 and full.max_score == 100.0 and full.percentage == 100.0
    assert full.grade == "A+" and full.badge == "Gold"
    partial = score_model("m2", "user", [make_prompt(RUBRIC[0])])
    assert partial.max_score == 100.0 and partial.percentage == 25.0 and partial.grade == "F"


def _model_dict(name, score, prompt_scores=(), grade=None):
    prompts = {f"prompt_{i + 1}": {"score": s, "passed": s >= 15} for i, s in enumerate(prompt_scores)}
    return {"model_name": name, "overall_score": score, "percentage": score, "prompts": prompts,
            "grade": grade or get_grade(score)}


def test_compare_models_orders_by_score_then_name():
    results = {"zeta": _model_dict("zeta", 80.0, (20, 20, 20, 20)),
               "alpha": _model_dict("alpha", 80.0, (25, 15, 20, 20)),
               "best": _model_dict("best", 92.5, (25, 25, 22.5, 20)),
               "low": _model_dict("low", 40.0, (10, 10, 10, 10))}
    comparison = compare_models(results)
    assert [e["model"] for e in comparison["ranking"]] == ["best", "alpha", "zeta", "low"]
    p1 = comparison["prompt_performance"]["prompt_1"]
    assert p1["best_score"] == 25 and p1["avg_score"] == 20.0 and p1["pass_rate"] == 75.0
    assert [e["model"] for e in p1["ranking"]] == ["alpha", "best", "zeta", "low"]
    stats = comparison["summary_stats"]
    assert stats["models"] == 4 and stats["best_model"] == "best" and stats["worst_model"] == "low"
    assert stats["mean_percentage"] == pytest.approx(73.125) and stats["median_percentage"] == 80.0
    assert stats["grade_distribution"] == {"A-": 1, "B-": 2, "F": 1}


def test_compare_models_empty_has_full_structure():
    comparison = compare_models({})
    assert comparison["ranking"] == [] and comparison["prompt_performance"] == {}
    assert comparison["summary_stats"]["models"] == 0 and comparison["summary_stats"]["best_model"] is None


def test_prompt_performance_uses_natural_order():
    results = {"m": {"overall_score": 1, "percentage": 1,
                     "prompts": {"prompt_10": {"score": 1}, "prompt_2": {"score": 1}}}}
    assert list(compare_models(results)["prompt_performance"]) == ["prompt_2", "prompt_10"]


def _doc_model(model):
    return model_to_dict(model)


def test_feedback_summary_and_suggestions_name_weak_categories_and_lost_checks():
    weak = _doc_model(make_model("w", fractions={"security": 0.0, "performance": 0.5}))
    summary = generate_feedback_summary(weak)
    assert any("Passed 4 of 4" in line for line in summary)
    assert any("Weakest category: security" in line for line in summary)
    suggestions = generate_improvement_suggestions(weak)
    assert suggestions[0].startswith("security:")
    assert any("no_security_issues" in s and "pts lost" in s for s in suggestions)
    assert len([s for s in suggestions if "pts lost" in s]) <= scoring.MAX_CHECK_SUGGESTIONS
    scorer = BenchmarkScorer()
    assert scorer.generate_improvement_suggestions(weak) == suggestions
    assert scorer.generate_feedback_summary(weak) == summary


def test_suggestions_mention_gating_when_execution_is_short():
    model = _doc_model(make_model("g", fractions={"execution": 0.5}))
    assert scoring.GATED_NOTE in generate_improvement_suggestions(model)


def test_perfect_model_gets_a_single_positive_suggestion():
    assert generate_improvement_suggestions(_doc_model(make_model("p"))) == ["Every check passed: nothing to improve."]


def test_feedback_tolerates_garbage():
    assert generate_feedback_summary({})[0].startswith("Overall 0.0%")
    assert generate_improvement_suggestions({"prompts": {"prompt_1": "nope"}})
    assert BenchmarkScorer().compare_models({"x": "not a dict"})["ranking"] == []


@pytest.mark.parametrize("value, expected", [
    (1.5, 1.5), (-0.0, -0.0), (float("nan"), 0.0), (float("inf"), 0.0), (-float("inf"), 0.0),
    (3, 3.0), (True, 0.0), (False, 0.0), (None, 0.0), ("2", 0.0), ([1.0], 0.0),
])
def test_as_number_is_a_finite_float_from_untrusted_data_else_zero(value, expected):
    from benchmark.scoring import as_number

    got = as_number(value)
    assert type(got) is float and repr(got) == repr(expected)
