"""Core types: frozen dataclasses inside, plain dicts only at the JSON boundary.

The TypedDicts at the bottom describe the JSON shapes library users read
(``PromptResultDict``/``ModelResults``); the spec calls them ``PromptResult`` and
``ModelResults`` in ``benchmark.types``, so ``PromptResult`` here is the dataclass and
``PromptResultDict`` the dict shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, NamedTuple, TypedDict


class Category(str, Enum):
    SYNTAX = "syntax"
    STRUCTURE = "structure"
    EXECUTION = "execution"
    QUALITY = "quality"
    SECURITY = "security"
    PERFORMANCE = "performance"
    MAINTAINABILITY = "maintainability"


CATEGORY_ORDER: tuple[Category, ...] = tuple(Category)

Status = Literal["pass", "partial", "fail", "error", "skipped"]
Method = Literal["ast", "bandit", "radon", "exec", "behaviour", "parse"]
# How a reason starts when the grader, not the submission, is at fault (the CLI exits 1).
INTERNAL_ERROR = "internal error"


class GradingStopped(RuntimeError):
    """Grading cannot go on for a reason of the grader's, not of any model (a ``--workers N``
    pool lost a worker; a cluster lost its scheduler or every worker): the run writes nothing,
    the models graded before it stay in the cache, and it exits 1 saying what was lost."""
# How a check's reason starts when it was not judged because the task's reference solution
# failed (the pack's fault, not the model's: the check is `error`, the CLI exits 3). UNFINISHED
# is a failure the machine may have caused (timed out, skipped, killed, no record): a model
# holding one is not cached, so the next run grades it again.
REFERENCE_FAILED = "reference solution failed"
REFERENCE_UNFINISHED = "reference solution did not finish"


def unjudged_by_reference(cause: object, *, unfinished: bool = False) -> bool:
    """Whether a check of this cause (``Check.cause``, a results document's ``cause``) was not
    judged because its task's reference solution failed (with ``unfinished``: because it did
    not finish). The one test of it, for a graded ``Check`` and a check read back alike."""
    return cause == "reference_unfinished" or (not unfinished and cause == "reference")

STATUSES: tuple[str, ...] = ("pass", "partial", "fail", "error", "skipped")
METHODS: tuple[str, ...] = ("ast", "bandit", "radon", "exec", "behaviour", "parse")


@dataclass(frozen=True)
class Evidence:
    """Where a finding was made: a file (submission-relative name), a line, a short note."""

    file: str
    line: int | None = None
    note: str = ""


class CaseGroup(NamedTuple):
    """One group of the cases (or runs) a check judged: ``shown`` (the pack's own, which an
    answer may have been written against) or ``hidden`` (generated at grading, ``perturbed_<n>``),
    and how many of them the answer got right."""
    name: str
    right: int
    of: int


@dataclass(frozen=True)
class Check:
    id: str
    category: Category
    points: float
    earned: float
    status: Status
    method: Method
    rationale: str
    evidence: tuple[Evidence, ...] = ()
    # why a check was not judged, when the answer is not the reason: one of CAUSES, else None
    cause: str | None = None
    # how many of the cases (or runs) the pack shows, and of the generated ones, it got right
    groups: tuple[CaseGroup, ...] = ()


# The typed causes of an unjudged check that is not the answer's fault (exit codes read these,
# never a rationale's text): the grader failed; the task's reference solution failed, or did
# not finish (which the machine's load may have caused)
CAUSE_INTERNAL, CAUSE_REFERENCE, CAUSE_REFERENCE_UNFINISHED = "internal", "reference", "reference_unfinished"
CAUSES: tuple[str, ...] = (CAUSE_INTERNAL, CAUSE_REFERENCE, CAUSE_REFERENCE_UNFINISHED)


@dataclass(frozen=True)
class CategoryScore:
    """``earned`` is the sum of the checks' earned points times ``factor`` (the gate)."""

    category: Category
    earned: float
    possible: float
    factor: float
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class ExecResult:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    killed_by: str | None  # "timeout", "signal:<n>", or None
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    blocked_events: tuple[dict[str, Any], ...] = ()
    observation: dict[str, Any] | None = None  # the harness's validated JSON record
    channel_error: str | None = None  # why no valid observation arrived
    output_truncated: bool = False
    blocked_unlisted: int = 0  # denied attempts beyond the distinct ones ``blocked_events`` lists


@dataclass(frozen=True)
class PromptResult:
    prompt_id: str
    title: str
    score: float
    max_score: float
    passed: bool
    status: Literal["ok", "error", "not_attempted"]  # not_attempted: no file of the task was submitted
    categories: tuple[CategoryScore, ...]
    execution: tuple[dict[str, Any], ...] = ()  # summaries of child runs
    error: str | None = None
    files: dict[str, str | None] = field(default_factory=dict)  # name -> sha256
    # what the sandbox denied its runs: {kind, event, target, count, where ("file:line" or "")}
    denials: tuple[dict[str, Any], ...] = ()
    # a critical check that capped the score: {check, fraction, factor, before} (``scoring.apply_critical``)
    cap: dict[str, Any] | None = None


@dataclass(frozen=True)
class ModelResult:
    """A model's results. A model of several samples (``benchmark.sampling``) has one
    ``ModelResult`` per sample (``sample``: its id) and, for the document, one holding them
    all (``samples``) whose prompts and totals are the samples' means. ``record``: for a
    result read from the result cache, the record's JSON as the cache stored it (what
    ``model_to_dict`` made of the result that was stored), which ``model_to_dict`` reads back
    instead of building it again; not part of the result's value (equality ignores it)."""

    model: str
    tier: str
    prompts: tuple[PromptResult, ...]
    score: float
    max_score: float
    percentage: float
    grade: str
    badge: str
    sample: str | None = None
    samples: tuple[ModelResult, ...] = ()
    record: bytes | None = field(default=None, compare=False, repr=False)


MAX_TIMEOUT_S = 86400.0  # the longest wall-clock time-out of one child run (RUBRICBENCH_TIMEOUT)
MEM_CHOICES = (256, 384, 512, 768, 1024)  # --mem, MB for each child


@dataclass(frozen=True)
class RunConfig:
    submissions_dir: str = "submissions"
    results_dir: str = "results"
    models: tuple[str, ...] = ()  # empty with all_models=True means every model found
    all_models: bool = False
    workers: int = 1
    memory_mb: int = 512
    timeout_s: float = 30.0
    unsafe: bool = False
    allow_network: bool = False
    trusted_model: bool = False
    no_metadata: bool = False
    quiet: bool = False
    verbose: bool = False  # -v: a block per model as it finishes, as before issue 30
    debug: bool = False
    require_isolation: bool = False
    no_cache: bool = False
    packs: tuple[str, ...] = ()  # --pack: task-pack folders or installed pack names, in order
    core: bool = True  # --no-core: grade only the --pack packs
    seed: int = 20261121  # --seed: the seed of every perturbed input (benchmark.engine.options.DEFAULT_SEED) and of the statistics
    pass_at: tuple[int, ...] = (1,)  # --pass-at: the k of each pass@k per task (docs/statistics.md)
    cluster: str | None = None  # --cluster local:N (an owned LocalCluster)
    scheduler: str | None = None  # --scheduler ADDRESS (an existing Dask cluster)
    scheduler_file: str | None = None  # --scheduler-file PATH
    tls_ca: str | None = None  # --tls-ca/--tls-cert/--tls-key: mutual TLS to the scheduler
    tls_cert: str | None = None
    tls_key: str | None = None


# ---- JSON shapes (what results.json holds) -------------------------------------------


class CategoryDict(TypedDict):
    earned: float
    max: float


class PromptResultDict(TypedDict, total=False):
    passed: bool
    score: float
    max_score: float
    status: str
    feedback: list[str]
    tests_passed: dict[str, bool]
    detailed_scoring: dict[str, CategoryDict]
    checks: list[dict[str, Any]]
    error: str


class ModelResults(TypedDict, total=False):
    model_name: str
    tier: str
    prompts: dict[str, PromptResultDict]
    overall_score: float
    total_possible: float
    percentage: float
    grade: str
    badge: str


@dataclass(frozen=True)
class RunResult:
    """One whole run, as ``benchmark.reporting.results_json.run_to_dict`` serialises it.

    ``environment`` is the run manifest (grader version, rubric hash, fixture and submission
    hashes, dependencies, platform, isolation state, ...); it becomes ``_metadata``.
    """

    schema_version: str
    run_id: str
    started_at: str
    finished_at: str
    config: dict[str, Any]
    environment: dict[str, Any]
    models: tuple[ModelResult, ...]
