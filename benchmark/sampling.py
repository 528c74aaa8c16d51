"""A model of several samples: its samples' results folded into the one record the reports read.

A model whose folder holds ``samples/`` is graded sample by sample (``discovery.scan_samples``);
each sample's ``ModelResult`` carries its id. ``combine`` turns the graded units of a run into
one ``ModelResult`` per model: a model of one folder is its own result, unchanged; a model of
samples gets a result whose every figure is the mean over its samples, and which holds every
sample's own result (``ModelResult.samples``), in id order. A task passes when more than half
of the samples passed it (each by its own task's pass mark); pass@k says more
(``benchmark.stats``).

The mean record explains its points as a single one does: a task's categories earn the mean of
the samples' earned points, and each check earns the mean of what it earned in each sample
after its category's gate (so a category's factor is 1 and its checks add up to what it earned).
A check's status is the samples' when they agree and ``partial`` when they do not; its rationale
says which samples passed it and quotes the first one that did not, and its evidence is that
sample's, its files named under ``samples/<id>/`` so that excerpts come from the right file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .sample_names import SAMPLES, natural
from .scoring import DIGITS, _r, generate_badge, get_grade, prompt_sort_key
from .types import CATEGORY_ORDER, CaseGroup, CategoryScore, Check, Evidence, ModelResult, PromptResult

RATIONALE_QUOTE = 300  # characters of the first failing sample's rationale quoted


def combine(units: Iterable[ModelResult]) -> list[ModelResult]:
    """One result per model, by model name: a sample-less model as graded, the samples of a
    model folded into their mean (see the module's docstring)."""
    by_model: dict[str, list[ModelResult]] = {}
    for result in units:
        by_model.setdefault(result.model, []).append(result)
    combined = []
    for name in sorted(by_model):
        results = by_model[name]
        if len(results) == 1 and results[0].sample is None:
            combined.append(results[0])
        else:
            combined.append(mean_result(results))
    return combined


def mean_result(samples: Sequence[ModelResult]) -> ModelResult:
    """The mean of one model's samples (at least one, each with its id)."""
    samples = sorted(samples, key=lambda r: natural(r.sample or ""))
    first = samples[0]
    keys = sorted({p.prompt_id for s in samples for p in s.prompts}, key=prompt_sort_key)
    prompts = tuple(_mean_prompt(key, [(s.sample or "", _prompt(s, key)) for s in samples])
                    for key in keys)
    score = _r(sum(p.score for p in prompts))
    max_score = max(s.max_score for s in samples)  # (a pack no sample attempted left every one)
    percentage = _r(100.0 * score / max_score) if max_score else 0.0
    return ModelResult(model=first.model, tier=first.tier, prompts=prompts, score=score,
                       max_score=max_score, percentage=percentage, grade=get_grade(percentage),
                       badge=generate_badge(percentage), samples=tuple(samples))


def _prompt(result: ModelResult, key: str) -> PromptResult | None:
    return next((p for p in result.prompts if p.prompt_id == key), None)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _mean_prompt(key: str, graded: list[tuple[str, PromptResult | None]]) -> PromptResult:
    """One task's mean over the samples (a sample without the task counts 0 points)."""
    present = [p for _, p in graded if p is not None]
    first = present[0]
    statuses = {p.status for p in present}
    status = "not_attempted" if statuses == {"not_attempted"} else "error" if statuses == {"error"} else "ok"
    categories = []
    for category in CATEGORY_ORDER:
        scored = [(sid, next((c for c in p.categories if c.category == category), None) if p else None)
                  for sid, p in graded]
        possible = max((c.possible for _, c in scored if c is not None), default=None)
        if possible is None:
            continue
        checks = _mean_checks(scored)
        earned = _r(_mean([c.earned if c is not None else 0.0 for _, c in scored]))
        categories.append(CategoryScore(category, earned, possible, 1.0, checks))
    score = _r(sum(c.earned for c in categories))
    passed = sum(1 for p in present if p.passed)
    error = None
    if status != "ok" or any(p.status == "error" for p in present):
        failed = [sid for sid, p in graded if p is not None and p.status == "error"]
        if failed:
            error = f"an error in sample(s) {', '.join(failed)}: {_first_error(graded)}"
    files = {f"{SAMPLES}/{sid}/{name}": digest for sid, p in graded if p is not None
             for name, digest in p.files.items()}
    return PromptResult(prompt_id=key, title=first.title, score=score, max_score=first.max_score,
                        passed=passed * 2 > len(graded), status=status,
                        categories=tuple(categories), error=error, files=files)


def _first_error(graded: list[tuple[str, PromptResult | None]]) -> str:
    return next((p.error or "" for _, p in graded if p is not None and p.status == "error"), "")[:RATIONALE_QUOTE]


def _mean_checks(scored: list[tuple[str, CategoryScore | None]]) -> tuple[Check, ...]:
    """Each check of the category, in the order the samples first list them, at its mean
    earned points after the gate; a sample without the check earns nothing on it."""
    order: dict[str, Check] = {}
    for _, category in scored:
        for check in (category.checks if category is not None else ()):
            order.setdefault(check.id, check)
    checks = []
    for check_id, model in order.items():
        found = []  # (sample id, its check, its category's factor)
        for sid, category in scored:
            check = next((c for c in category.checks if c.id == check_id), None) if category else None
            found.append((sid, check, category.factor if category is not None else 0.0))
        checks.append(_mean_check(model, found))
    return tuple(checks)


def _mean_check(model: Check, found: list[tuple[str, Check | None, float]]) -> Check:
    earned = round(_mean([c.earned * factor if c is not None else 0.0 for _, c, factor in found]), DIGITS)
    statuses = [c.status if c is not None else "skipped" for _, c, _ in found]
    status = statuses[0] if len(set(statuses)) == 1 else "partial"
    passed = [sid for sid, c, _ in found if c is not None and c.status == "pass"]
    missed = [(sid, c) for sid, c, _ in found if c is None or c.status != "pass"]
    said = f"the mean of {len(found)} samples"
    if passed:
        said += f"; passed in {', '.join(passed)}"
    gated = [f"×{factor:.2f} in {sid}" for sid, c, factor in found
             if c is not None and c.earned > 0 and factor < 1 - 1e-9]
    if gated:
        said += f"; its category's gate kept {', '.join(gated)}"
    evidence: tuple[Evidence, ...] = ()
    if missed:
        sid, check = missed[0]
        said += f"; not in {', '.join(s for s, _ in missed)}"
        if check is not None:
            said += f" (sample {sid}: {check.rationale[:RATIONALE_QUOTE]})"
            evidence = tuple(Evidence(f"{SAMPLES}/{sid}/{e.file}" if e.file else e.file, e.line, e.note)
                             for e in check.evidence)
    causes = {c.cause for _, c, _ in found if c is not None}
    return Check(id=model.id, category=model.category, points=model.points, earned=earned,
                 status=status, method=model.method, rationale=said, evidence=evidence,
                 cause=causes.pop() if len(causes) == 1 else None, groups=_summed_groups(found))


def _summed_groups(found: list[tuple[str, Check | None, float]]) -> tuple[CaseGroup, ...]:
    """The samples' shown and hidden cases added up (3 samples of 4 shown cases: of 12), when
    every sample that has the check judged the same groups; else none."""
    kinds = {tuple(g.name for g in c.groups) for _, c, _ in found if c is not None}
    if len(kinds) != 1 or not (names := kinds.pop()):
        return ()
    return tuple(CaseGroup(name, sum(c.groups[i].right for _, c, _ in found if c is not None),
                           sum(c.groups[i].of for _, c, _ in found if c is not None))
                 for i, name in enumerate(names))
