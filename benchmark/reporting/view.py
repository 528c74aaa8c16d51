"""The typed reading of a results document that every reporter takes (``run_view``).

A reporter used to re-check the document it was given with a ``.get`` guard at every step,
although the document it gets has always passed ``results_json.validate_results`` (the run's
own, or a saved one read back through ``load_results``). Here that document is read once, into
frozen views: the run, its models (best first, with shared places for ties), their prompts (in
natural order), checks, evidence, child runs, sandbox denials and per-pack totals. What a
report shows but the document does not store is derived here once too: a prompt's state
(``Prompt.state``, one of ``STATES``), where its points went (``Prompt.losses``, adding up to
max - score), its failed security checks and whether a pass was clean.

The schema's optional keys are read here and nowhere else; a key the schema requires is
indexed directly (a document that lacks one was never valid, and ``KeyError`` says so). Text
in the document passed ``benchmark.untrusted`` when the document was built; the views do not
escape it again, and every renderer still escapes for its own format (HTML, XML, Markdown).
``run_view`` accepts a view as well, so a renderer called with either is converted once: the
writer converts a run's document once for all its reports. The many small views (checks,
evidence, child runs: about 100 per model) are named tuples, which build at a fraction of a
frozen dataclass's cost; the few large ones are frozen dataclasses whose derived figures are
computed on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from ..scoring import category_totals, pack_of, pack_rankings, pack_totals, prompt_sort_key
from ..types import CATEGORY_ORDER, unjudged_by_reference
from ..untrusted import NAME_LIMIT, text

CATEGORY_NAMES: tuple[str, ...] = tuple(c.value for c in CATEGORY_ORDER)
STATES = ("pass", "fail", "error", "not_attempted", "timed_out")
STATE_LABELS = {"pass": "passed", "fail": "failed", "error": "could not be graded",
                "not_attempted": "not attempted", "timed_out": "timed out"}
GATE_FORMULAS = {"full": "× w", "partial": "× (0.25 + 0.75·w)"}
SCORING_DOC = "docs/scoring.md"  # where the formulas are written out (the reports point there)
TINY = 1e-9


def _line(value: Any) -> int | None:
    return value if type(value) is int else None


def _place(file: str, line: int | None) -> str:
    """``file:line``, or the file alone when there is no line (lines count from 1: a line 0,
    which the schema allows, stands for the file as a whole)."""
    return f"{file}:{line}" if line else file


class Excerpt(NamedTuple):
    """A few source lines around an evidence line: the first one's number and the lines."""
    start: int
    lines: tuple[str, ...]

    @classmethod
    def of(cls, raw: Any) -> Excerpt | None:
        return cls(raw["start"], tuple(raw["lines"])) if isinstance(raw, Mapping) else None


class Evidence(NamedTuple):
    file: str
    line: int | None
    note: str
    excerpt: Excerpt | None = None

    @property
    def place(self) -> str:
        return _place(self.file, self.line)


class Group(NamedTuple):
    """How many of a check's shown (the pack's own) or hidden (generated) cases were right."""
    name: str
    right: int
    of: int


class Check(NamedTuple):
    id: str
    category: str
    points: float
    earned: float
    status: str
    method: str
    rationale: str
    cause: str | None
    evidence: tuple[Evidence, ...]
    groups: tuple[Group, ...] = ()  # shown and hidden (generated) cases apart, when it judged any

    @property
    def lost(self) -> float:
        return self.points - self.earned

    @property
    def groups_text(self) -> str:
        """``shown 4/4 · hidden 1/6`` ('' when the check judged no generated case)."""
        return " · ".join(f"{g.name} {g.right}/{g.of}" for g in self.groups)


class Category(NamedTuple):
    """One category's numbers on a prompt: earned after its gate, its maximum, the gate factor."""
    name: str
    earned: float
    max: float
    factor: float


class Raised(NamedTuple):
    """What a child run raised, at the submission's own line when the harness found one."""
    type: str
    message: str
    file: str | None
    line: int | None
    excerpt: Excerpt | None

    @property
    def place(self) -> str | None:
        return _place(self.file, self.line) if self.file else None


class ChildRun(NamedTuple):
    """One sandboxed run of a prompt (its ``execution`` entry)."""
    mode: str | None
    label: str | None
    returncode: int | None
    timed_out: bool
    skipped: bool
    killed_by: str | None
    wall_s: float | None
    cpu_s: float | None
    peak_rss_mb: float | None
    channel_error: str | None
    output_truncated: bool
    blocked_events: int
    raised: Raised | None
    stderr_tail: str

    @property
    def name(self) -> str:
        return self.label or self.mode or "a"

    def raised_text(self) -> str:
        """``fixture run raised KeyError: 'k' at prompt_3.py:102``."""
        raised = self.raised
        at = f" at {raised.place}" if raised and raised.place else ""
        return f"{self.name} run raised {raised.type}: {raised.message}{at}" if raised else ""


class Denial(NamedTuple):
    """One distinct attempt the sandbox denied: kind, audit event, target, count, where."""
    kind: str
    event: str
    target: str  # ('' when the event names none)
    count: int
    where: str  # the submission's file:line, else its file, else ''

    def text(self) -> str:
        """``network socket.connect 203.0.113.9:443 at prompt_3.py:140 (x2)``."""
        target = f" {self.target}" if self.target else ""
        where = f" at {self.where}" if self.where else ""
        return f"{self.kind} {self.event}{target}{where}{'' if self.count == 1 else f' (x{self.count})'}"


class Loss(NamedTuple):
    """One part of where a prompt's points went: a check (``kind`` "check"), a category gate
    ("gate": its factor and formula), a category's points no check carries ("category") or a
    failed critical check's cap on the task ("cap")."""
    kind: str
    id: str
    category: str
    status: str
    points: float
    reason: str
    factor: float | None = None
    formula: str | None = None
    evidence: tuple[Evidence, ...] = ()

    def text(self, places: bool = True) -> str:
        """``-3.00 perturbed_dataset [fail]: why [a.py:3]`` (up to three evidence places, unless
        ``places`` is False: a reporter that lists them itself)."""
        places = [e.place for e in self.evidence if e.file] if places else []
        where = f" [{', '.join(places[:3])}]" if places else ""
        status = "" if self.kind == "gate" else f" [{self.status}]"
        return f"-{self.points:.2f} {self.id}{status}: {self.reason}{where}"


def _gate_kind(factor: float, work: float) -> str:
    """Which of the rubric's gates a recorded factor is (``benchmark.scoring.gate_factor``): the
    document keeps the factor, not the gate, and a pack's task may set its own."""
    if abs(factor - work) < 1e-3:
        return "full"
    if abs(factor - (0.25 + 0.75 * work)) < 1e-3:
        return "partial"
    return "?"


def _losses(checks: tuple[Check, ...], categories: tuple[Category, ...],
            cap: Mapping[str, Any] | None = None) -> tuple[Loss, ...]:
    """Largest first: each check that earned less than its points (lost before the gates), each
    category gate that scaled credit down (what the gate itself took, with ``w`` = execution
    earned / execution maximum), a category's points no check carries, and what a failed
    critical check's cap took (``cap``: the prompt's record of it); the parts add up to max -
    score (within rounding)."""
    after = sum(c.earned for c in categories)
    if cap:  # the cap scaled every category's earned points after its gate (which keeps its factor):
        categories = tuple(c._replace(earned=min(sum(ch.earned for ch in checks if ch.category == c.name), c.max)
                                      * c.factor) for c in categories)  # (each as its gate left it)
    execution = next((c for c in categories if c.name == "execution"), None)
    work = execution.earned / execution.max if execution and execution.max > 0 else 1.0
    found = [Loss("check", c.id, c.category, c.status, c.lost, c.rationale, evidence=c.evidence)
             for c in checks if c.lost > TINY]
    for category in categories:
        mine = [c for c in checks if c.category == category.name]
        raw = min(sum(c.earned for c in mine), category.max)
        unchecked = category.max - sum(c.points for c in mine)
        if unchecked > TINY:
            found.append(Loss("category", category.name, category.name, "unchecked", unchecked,
                              f"{unchecked:.2f} of {category.name}'s points have no check"))
        lost = raw - category.earned
        if category.factor < 1 - TINY and lost > TINY:
            formula = GATE_FORMULAS.get(_gate_kind(category.factor, work), f"× {category.factor:.2f}")
            shown = execution or Category("execution", 0.0, 0.0, 1.0)
            found.append(Loss(
                "gate", f"{category.name} gate", category.name, "gate", lost,
                f"{category.name} credit {raw:.2f} {formula} = {category.earned:.2f}, with w = execution "
                f"{shown.earned:.2f}/{shown.max:.2f} = {work:.2f} (factor {category.factor:.2f}; {SCORING_DOC})",
                factor=category.factor, formula=formula))
    if cap:
        taken = float(cap["before"]) - after
        if taken > TINY:
            found.append(Loss("cap", f"critical {cap['check']}", "", "cap", taken, (
                f"the critical check {cap['check']} did not earn what it must, so the task keeps at most "
                f"{float(cap['fraction']):.0%} of its points: {float(cap['before']):.2f} × "
                f"{float(cap['factor']):.2f}")))
    return tuple(sorted(found, key=lambda loss: -loss.points))


@dataclass(frozen=True)
class Prompt:
    """One task of one model: its record and what the reports derive from it."""
    key: str
    title: str
    passed: bool
    score: float
    max_score: float
    status: str
    error: str | None
    feedback: tuple[str, ...]
    categories: tuple[Category, ...]  # in the rubric's order
    checks: tuple[Check, ...]
    runs: tuple[ChildRun, ...]
    files: Mapping[str, Any]
    denials: tuple[Denial, ...]
    cap: Mapping[str, Any] | None = None  # a failed critical check's cap (``scoring.apply_critical``)

    @cached_property
    def state(self) -> str:
        """One of ``STATES``: ``not_attempted`` (no file of the task was submitted), ``error``
        (it could not be graded), ``timed_out`` (a child run hit the wall-clock time-out), else
        ``pass`` or ``fail`` by its pass mark."""
        if self.status in ("error", "not_attempted"):
            return self.status
        if any(run.timed_out for run in self.runs):
            return "timed_out"
        return "pass" if self.passed else "fail"

    @cached_property
    def losses(self) -> tuple[Loss, ...]:
        return _losses(self.checks, self.categories, self.cap)

    @cached_property
    def security_failures(self) -> tuple[Check, ...]:
        """The security checks that did not pass in full: a pass with any is not a clean pass."""
        return tuple(c for c in self.checks if c.category == "security" and c.status != "pass"
                     and c.earned < c.points - TINY)

    @property
    def not_clean(self) -> bool:
        """Passed, with a security check not fully passed: every report says so beside it."""
        return self.state == "pass" and bool(self.security_failures)

    @property
    def pack(self) -> str:
        return pack_of(self.key)

    @property
    def lost(self) -> float:
        return self.max_score - self.score

    @property
    def raised_runs(self) -> tuple[ChildRun, ...]:
        """The child runs that reported an exception."""
        return tuple(run for run in self.runs if run.raised is not None)

    def category(self, name: str) -> Category | None:
        return next((c for c in self.categories if c.name == name), None)

    def check(self, check_id: str) -> Check | None:
        return next((c for c in self.checks if c.id == check_id), None)


class Interval(NamedTuple):
    """A figure and the ends of its 95 % interval (``statistics`` of a model record)."""
    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Interval:
        """From a record's ``{mean, low, high}``."""
        return cls(float(raw["mean"]), float(raw["low"]), float(raw["high"]))

    def text(self, digits: int = 1) -> str:
        """e.g. ``78.0–84.5``."""
        return f"{self.low:.{digits}f}–{self.high:.{digits}f}"


class TaskStats(NamedTuple):
    """One task's figures over a model's samples: mean points and interval, how many samples
    passed it, and pass@k by k."""
    interval: Interval
    passed: int
    pass_at: Mapping[int, float]


class PackTotal(NamedTuple):
    """A model's subtotal on one pack; ``attempted`` is False when it answered no task of it."""
    score: float
    max_score: float
    percentage: float
    tasks: int
    passed: int
    attempted: bool


@dataclass(frozen=True)
class Model:
    name: str
    tier: str
    timestamp: str | None
    prompts: tuple[Prompt, ...]  # natural order (prompt_2 before prompt_10, core first)
    score: float
    max_score: float
    percentage: float
    grade: str
    badge: str
    cached: bool
    packs: Mapping[str, PackTotal]  # in task order; every pack the model has a task of
    graded_by: Mapping[str, str] | None
    record: Mapping[str, Any] = field(repr=False)  # the document's record, for scoring's advice
    sample: str | None = None  # a sample's view: its id

    def prompt(self, key: str) -> Prompt | None:
        return next((p for p in self.prompts if p.key == key), None)

    @cached_property
    def samples(self) -> tuple[Model, ...]:
        """Each sample's own view, in id order; empty for a model of one folder."""
        held = self.record.get("samples") or {}
        return tuple(replace(model_view(raw, self.name), sample=sid) for sid, raw in held.items())

    @property
    def sample_count(self) -> int:
        statistics = self.record.get("statistics")
        if isinstance(statistics, Mapping):
            return int(statistics["samples"])
        return max(1, len(self.record.get("samples") or ()))

    @cached_property
    def interval(self) -> Interval | None:
        """The total's mean and 95 % interval (percentages), when the record has them."""
        total = (self.record.get("statistics") or {}).get("total")
        return Interval.of(total) if total else None

    @cached_property
    def task_stats(self) -> dict[str, TaskStats]:
        tasks = (self.record.get("statistics") or {}).get("tasks") or {}
        return {key: TaskStats(Interval.of(t), int(t["passed"]), {int(k): float(v) for k, v in t["pass_at"].items()})
                for key, t in tasks.items()}

    @property
    def subtotals(self) -> Mapping[str, PackTotal]:
        """The per-pack totals, or nothing when its tasks are all of one pack."""
        return self.packs if len(self.packs) > 1 else {}

    @property
    def denials(self) -> int:
        return sum(len(p.denials) for p in self.prompts)

    @cached_property
    def category_totals(self) -> dict[str, tuple[float, float]]:
        """Per category (all seven, in order), (earned, max) summed over the prompts and rounded
        as the model's own totals were (``scoring.category_totals``)."""
        return {cat: (t["earned"], t["max"]) for cat, t in category_totals(self.record).items()}


class Skipped(NamedTuple):
    """A model folder the run did not grade (its name escaped when the document was built)."""
    tier: str
    folder: str
    reason: str


class ReferenceFailure(NamedTuple):
    """A task whose reference solution left checks unjudged: the first such rationale, the
    checks it left unjudged and how many models it touched."""
    task: str
    reason: str
    checks: tuple[str, ...]
    models: int


@dataclass(frozen=True)
class Run:
    """A whole results document, read once."""
    schema_version: str
    run_id: str
    started: str
    finished: str | None
    models: tuple[Model, ...]  # best first (percentage, then score, descending), ties by name
    places: tuple[int, ...]  # each model's place: ties share one ("1, 1, 3")
    skipped: tuple[Skipped, ...]
    metadata: Mapping[str, Any]  # ``_metadata`` as written (grader, machine, isolation, config)
    comparison: Mapping[str, Any]  # ``comparison`` as written (rankings, per-prompt figures)
    doc: Mapping[str, Any] = field(repr=False)  # the document itself, for what embeds it

    def model(self, name: str) -> Model | None:
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> dict[str, Model]:
        return {m.name: m for m in self.models}

    @cached_property
    def ranked(self) -> tuple[tuple[int, Model], ...]:
        """(place, model), best first."""
        return tuple(zip(self.places, self.models))

    @cached_property
    def significance(self) -> Mapping[str, Any]:
        """``comparison.significance`` as written (empty for a document without it)."""
        found = self.comparison.get("significance")
        return found if isinstance(found, Mapping) else {}

    @cached_property
    def groups(self) -> tuple[int, ...]:
        """Each model's rank counting only significant differences (1 + the models surely
        better), aligned with ``models``; a document without them: the places."""
        ranks = self.significance.get("ranks") or {}
        if set(ranks) != {m.name for m in self.models}:
            return self.places
        return tuple(int(ranks[m.name]) for m in self.models)

    @cached_property
    def sampled(self) -> bool:
        """Whether any model holds several samples."""
        return any(m.sample_count > 1 for m in self.models)

    @cached_property
    def task_keys(self) -> tuple[str, ...]:
        """Every task key any model has, in natural order."""
        return tuple(sorted({p.key for m in self.models for p in m.prompts}, key=prompt_sort_key))

    @cached_property
    def pack_titles(self) -> dict[str, str]:
        """Pack id -> title, from the run's manifest (``_metadata.suite``) when it lists one."""
        suite = self.metadata.get("suite")
        return {str(p["id"]): text(p.get("title") or p["id"], NAME_LIMIT) for p in suite or ()
                if isinstance(p, Mapping) and "id" in p}

    @cached_property
    def pack_boards(self) -> tuple[tuple[str, tuple[tuple[int, Model, PackTotal], ...]], ...]:
        """Per pack, (place, model, its totals on the pack), best first on it; empty unless the
        run graded more than one pack. A model that attempted no task of a pack is not on it.
        The totals are summed from the prompts (``scoring.pack_totals``), as the ranking sums
        them, not read from the stored ``packs``, which no check holds to the prompts: a board
        is never out of the order of the figures it shows."""
        rankings = pack_rankings({m.name: m.record for m in self.models})
        if len(rankings) < 2:
            return ()
        summed = {m.name: pack_totals(m.record) for m in self.models}
        boards = []
        for pack, rows in rankings.items():
            entries = [(self._by_name[row["model"]], _pack_total(summed[row["model"]][pack])) for row in rows]
            found = places([(t.percentage, t.score) for _, t in entries])
            boards.append((pack, tuple((place, model, totals) for place, (model, totals) in zip(found, entries))))
        return tuple(boards)

    @cached_property
    def reference_failures(self) -> tuple[ReferenceFailure, ...]:
        """Each task whose reference solution left checks unjudged, once, in task order; empty
        for most runs."""
        found: dict[str, dict[str, Any]] = {}
        for model in self.models:
            for prompt in model.prompts:
                for check in prompt.checks:
                    if unjudged_by_reference(check.cause):
                        row = found.setdefault(prompt.key, {"reason": check.rationale, "models": set(), "checks": []})
                        row["models"].add(model.name)
                        if check.id not in row["checks"]:
                            row["checks"].append(check.id)
        return tuple(ReferenceFailure(key, row["reason"], tuple(row["checks"]), len(row["models"]))
                     for key, row in sorted(found.items(), key=lambda item: prompt_sort_key(item[0])))

    @property
    def isolation_origin(self) -> str | None:
        """Where the isolation report comes from when not from this run: a run served wholly from
        the cache measures nothing and reports what the run that filled the cache measured."""
        source = self.metadata.get("isolation_source")
        if not isinstance(source, Mapping):
            return None
        return (f"measured by run {text(source.get('measured_by_run', '?'), NAME_LIMIT)} at "
                f"{text(source.get('measured_at', '?'), NAME_LIMIT)}, not by this run: "
                f"{text(source.get('why', '?'), NAME_LIMIT)}")


def places(keys: list[tuple[float, float]]) -> tuple[int, ...]:
    """The place of each of ``keys`` ((percentage, score), best first): equal keys (to four
    decimals) share a place, and the next one skips as many ("1, 1, 3"), as standings do."""
    found: list[int] = []
    previous: tuple[float, float] | None = None
    for index, (percentage, score) in enumerate(keys):
        key = (round(percentage, 4), round(score, 4))
        found.append(found[-1] if index and key == previous else index + 1)
        previous = key
    return tuple(found)


# ---- the one conversion ---------------------------------------------------------------


def _evidence(raw: Mapping[str, Any]) -> Evidence:
    return Evidence(str(raw["file"]), _line(raw["line"]), str(raw["note"]), Excerpt.of(raw.get("excerpt")))


def _check(raw: Mapping[str, Any]) -> Check:
    """(About 100 per model: the most frequent view, so built in one call, no generator.)"""
    evidence, cases = raw["evidence"], raw.get("cases")
    return Check(raw["id"], raw["category"], raw["points"] + 0.0, raw["earned"] + 0.0, raw["status"],
                 raw["method"], raw["rationale"], raw.get("cause"), tuple(map(_evidence, evidence)) if evidence else (),
                 tuple(Group(g["group"], g["right"], g["of"]) for g in cases) if cases else ())


def _raised(raw: Any) -> Raised | None:
    if not isinstance(raw, Mapping):
        return None
    file = raw["file"]
    return Raised(str(raw["type"]), str(raw["message"]), str(file) if file else None, _line(raw["line"]),
                  Excerpt.of(raw.get("excerpt")))


def _number(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) else None


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _run(raw: Mapping[str, Any]) -> ChildRun:
    """An ``execution`` entry: the schema fixes only ``raised`` and ``stderr_tail``; the rest is
    what ``engine.grading._exec_summary`` writes, read here with its types checked."""
    blocked = raw.get("blocked_events")
    return ChildRun(
        mode=_string(raw.get("mode")), label=_string(raw.get("label")),
        returncode=raw.get("returncode") if type(raw.get("returncode")) is int else None,
        timed_out=raw.get("timed_out") is True, skipped=raw.get("skipped") is True,
        killed_by=_string(raw.get("killed_by")), wall_s=_number(raw.get("wall_s")),
        cpu_s=_number(raw.get("cpu_s")), peak_rss_mb=_number(raw.get("peak_rss_mb")),
        channel_error=_string(raw.get("channel_error")), output_truncated=raw.get("output_truncated") is True,
        blocked_events=blocked if type(blocked) is int else 0, raised=_raised(raw.get("raised")),
        stderr_tail=raw.get("stderr_tail") or "")


def _denial(raw: Mapping[str, Any]) -> Denial:
    return Denial(raw["kind"], raw["event"], raw["target"], int(raw["count"]) or 1, raw["where"])


def prompt_view(key: str, raw: Mapping[str, Any]) -> Prompt:
    """The typed reading of one validated prompt (task) record."""
    detailed = raw["detailed_scoring"]
    categories = tuple(Category(name, float(detailed[name]["earned"]), float(detailed[name]["max"]),
                                float(detailed[name]["factor"])) for name in CATEGORY_NAMES if name in detailed)
    return Prompt(
        key=key, title=raw.get("title") or "", passed=raw["passed"] is True, score=float(raw["score"]),
        max_score=float(raw["max_score"]), status=raw["status"], error=raw.get("error"),
        feedback=tuple(raw["feedback"]), categories=categories, checks=tuple(map(_check, raw["checks"])),
        runs=tuple(_run(r) for r in raw["execution"] if isinstance(r, Mapping)), files=raw.get("files") or {},
        denials=tuple(_denial(d) for d in raw.get("denials") or ()), cap=raw.get("cap"))


def _pack_total(raw: Mapping[str, Any]) -> PackTotal:
    return PackTotal(float(raw["score"]), float(raw["max_score"]), float(raw["percentage"]), int(raw["tasks"]),
                     int(raw["passed"]), raw.get("attempted") is not False)


def model_view(raw: Mapping[str, Any] | Model, name: str | None = None) -> Model:
    """The typed reading of one validated model record, by its key in the document ``name``
    (default: its ``model_name``, which a valid document keeps equal to the key); a ``Model``
    is returned as it is. The terminal shows each model as it is graded, before the run's
    document exists."""
    if isinstance(raw, Model):
        return raw
    name = raw["model_name"] if name is None else name
    prompts = raw["prompts"]
    totals = raw.get("packs")
    totals = totals if isinstance(totals, Mapping) else pack_totals(raw)  # (a core-only run writes none)
    return Model(
        name=name, tier=raw["tier"], timestamp=raw.get("timestamp"),
        prompts=tuple(prompt_view(key, prompts[key]) for key in sorted(prompts, key=prompt_sort_key)),
        score=float(raw["overall_score"]), max_score=float(raw["total_possible"]),
        percentage=float(raw["percentage"]), grade=raw["grade"], badge=raw["badge"],
        cached=raw.get("cached") is True, packs={pack: _pack_total(t) for pack, t in totals.items()},
        graded_by=raw.get("graded_by"), record=raw)


def run_view(doc: Mapping[str, Any] | Run) -> Run:
    """The typed reading of a validated results document (a ``Run`` is returned as it is)."""
    if isinstance(doc, Run):
        return doc
    models = sorted((model_view(raw, name) for name, raw in doc["models"].items()),
                    key=lambda m: (-m.percentage, -m.score, m.name))
    run = doc["benchmark_run"]
    return Run(
        schema_version=doc["schema_version"], run_id=doc["run_id"], started=run["timestamp"],
        finished=run.get("finished_at"), models=tuple(models),
        places=places([(m.percentage, m.score) for m in models]),
        skipped=tuple(Skipped(s["tier"], s["folder"], s["reason"]) for s in doc.get("skipped_models") or ()),
        metadata=doc["_metadata"], comparison=doc["comparison"], doc=doc)
