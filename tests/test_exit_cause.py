"""The exit code comes from a check's typed cause, never from its rationale's text: an answer
whose output quotes "internal error: ..." or "reference solution failed: ..." into a
rationale is the answer's result, not the grader's or the pack's failure."""

from __future__ import annotations

from dataclasses import replace

from result_fakes import make_model

from benchmark.console import EXIT_ERROR, EXIT_OK, EXIT_VALIDATION
from benchmark.engine.cache import model_from_dict
from benchmark.exit_status import exit_code
from benchmark.reporting.view import run_view
from benchmark.reporting.results_json import run_to_dict
from result_fakes import make_run


def _with_check(rationale: str, cause: str | None, status: str = "error"):
    model = make_model("m", 1.0)
    prompt = model.prompts[0]
    category = prompt.categories[0]
    check = replace(category.checks[0], status=status, earned=0.0, rationale=rationale, cause=cause)
    categories = (replace(category, checks=(check, *category.checks[1:])), *prompt.categories[1:])
    return replace(model, prompts=(replace(prompt, categories=categories), *model.prompts[1:]))


def test_a_rationale_that_reads_like_a_grader_failure_is_not_one():
    assert exit_code([_with_check("internal error: printed by the answer", None, "fail")]) == EXIT_OK
    assert exit_code([_with_check("reference solution failed: quoted output", None, "fail")]) == EXIT_OK


def test_the_typed_cause_sets_the_code_and_survives_the_results_document():
    internal = _with_check("internal error: observing failed: OSError", "internal")
    reference = _with_check("reference solution failed: task x", "reference")
    assert exit_code([internal]) == EXIT_ERROR and exit_code([reference]) == EXIT_VALIDATION
    doc = run_to_dict(make_run(reference))
    record = doc["models"]["m"]
    assert record["prompts"]["prompt_1"]["checks"][0]["cause"] == "reference"
    assert "cause" not in record["prompts"]["prompt_1"]["checks"][1]
    assert exit_code([model_from_dict(record)]) == EXIT_VALIDATION  # (as a cached record reads back)
    assert [row.task for row in run_view(doc).reference_failures] == ["prompt_1"]
    assert run_view(run_to_dict(make_run(_with_check("reference solution failed: x", None, "fail")))).reference_failures == ()
