"""Where a prompt's points went (``reporting.view.Prompt.losses``) and its state (``state``):
the parts a report lists add up to what the prompt lost, gates named with their formula."""

from __future__ import annotations

from benchmark.scoring import score_prompt
from benchmark.reporting.results_dicts import prompt_to_dict
from benchmark.reporting.view import Prompt, prompt_view
from benchmark.types import Category, Check, PromptResult
from benchmark.rubric import RUBRIC


def _check(cid: str, category: Category, points: float, earned: float) -> Check:
    status = "pass" if earned >= points else ("fail" if earned == 0 else "partial")
    return Check(cid, category, points, earned, status, "exec", f"{cid} says why", ())


def _prompt(checks: list[Check], *, status: str = "ok", execution=()) -> Prompt:
    categories, score, passed = score_prompt(RUBRIC[0], checks)
    return prompt_view("prompt_1", prompt_to_dict(PromptResult("prompt_1", "t", score, 25.0, passed, status,
                                                              categories, tuple(execution), None, {})))


def test_losses_add_up_to_what_the_prompt_lost_and_name_each_gate() -> None:
    checks = [_check("syntax", Category.SYNTAX, 5, 5), _check("ran", Category.EXECUTION, 6, 3),
              _check("safe", Category.SECURITY, 4, 4), _check("tidy", Category.QUALITY, 3, 1.5)]
    prompt = _prompt(checks)
    losses = prompt.losses
    assert abs(sum(loss.points for loss in losses) - (25.0 - prompt.score)) < 0.01
    by_id = {loss.id: loss for loss in losses}
    assert by_id["ran"].points == 3 and by_id["ran"].reason == "ran says why"
    assert by_id["security gate"].formula == "× w" and abs(by_id["security gate"].points - 2.0) < 1e-6
    assert by_id["syntax gate"].formula == "× (0.25 + 0.75·w)"
    assert "w = execution 3.00/6.00 = 0.50" in by_id["syntax gate"].reason
    assert "execution gate" not in by_id  # (execution itself is never gated)
    assert [loss.points for loss in losses] == sorted((loss.points for loss in losses), reverse=True)
    assert by_id["ran"].text() == "-3.00 ran [partial]: ran says why"


def test_a_full_answer_loses_nothing() -> None:
    maxima = RUBRIC[0].maxima
    prompt = _prompt([_check(c.value, c, maxima[c], maxima[c]) for c in maxima])
    assert prompt.score == 25.0 and prompt.losses == ()


def test_states_are_distinct_and_a_pass_with_a_failed_security_check_is_flagged() -> None:
    maxima = RUBRIC[0].maxima
    full = [_check(c.value, c, maxima[c], maxima[c]) for c in maxima]
    leaky = [c if c.category is not Category.SECURITY else _check("leak", c.category, c.points, 0) for c in full]
    assert _prompt(full).state == "pass" and not _prompt(full).security_failures and not _prompt(full).not_clean
    leaked = _prompt(leaky)
    assert leaked.state == "pass" and [c.id for c in leaked.security_failures] == ["leak"] and leaked.not_clean
    late = _prompt(full, execution=[{"mode": "script", "timed_out": True}])
    assert late.state == "timed_out"
    assert _prompt([], status="error").state == "error"
    assert _prompt([], status="not_attempted").state == "not_attempted"
    assert _prompt([]).state == "fail"
