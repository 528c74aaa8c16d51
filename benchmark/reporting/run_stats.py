"""The statistics of a results document (docs/statistics.md): per model its total's mean and
95 % interval and per task the mean, interval and pass@k; across the models, which of them
are surely better than which (``comparison.significance``).

Everything is computed from the document's own records (a model's samples, or the model as its
one sample), so a saved run gives the same figures again. Each model's draws come from a seed
made of the run's seed and the model's name: a model's interval does not depend on which other
models the run graded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from .. import stats
from ..scoring import DIGITS, unattempted_packs, pack_of

ALPHA = 0.05  # the level of the leaderboard's grouping (``--significance`` sets --compare's)
DEFAULT_PASS_AT = (1,)
TEST = "stratified permutation test over tasks, answers dealt within each task (sign-flip with one sample)"


def model_seed(seed: int, name: str) -> int:
    """The seed of one model's draws: the run's seed and the model's name."""
    digest = hashlib.sha256(f"{seed}\x00{name}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big")


def samples_of(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A model record's samples, in order (the record itself when it has none)."""
    return list(record["samples"].values()) if record.get("samples") else [record]


def counted_tasks(record: Mapping[str, Any]) -> list[str]:
    """The tasks a model's total counts: all but those of a pack it attempted nothing of."""
    left = unattempted_packs({key: prompt["status"] for key, prompt in record["prompts"].items()})
    return [key for key in record["prompts"] if pack_of(key) not in left]


def matrix(record: Mapping[str, Any], tasks: Sequence[str]) -> tuple[list[list[float]], list[list[bool]]]:
    """Points and passes, a row per sample and a column per task (a sample without the task:
    0 points, not passed)."""
    points, passes = [], []
    for sample in samples_of(record):
        prompts = sample["prompts"]
        points.append([float(prompts[key]["score"]) if key in prompts else 0.0 for key in tasks])
        passes.append([bool(prompts[key]["passed"]) if key in prompts else False for key in tasks])
    return points, passes


def _r(value: float) -> float:
    return round(float(value), DIGITS)


def model_statistics(name: str, record: Mapping[str, Any], seed: int,
                     pass_at: Sequence[int] = DEFAULT_PASS_AT) -> dict[str, Any]:
    """``statistics`` of one model record (see the schema): how many samples, the total's
    mean and interval (percentages), and per counted task its mean points, interval and
    pass@k for each k up to the number of samples."""
    tasks = counted_tasks(record)
    points, passes = matrix(record, tasks)
    maxima = [float(record["prompts"][key]["max_score"]) for key in tasks]
    mine = model_seed(seed, name)
    out: dict[str, Any] = {"samples": len(points), "level": stats.LEVEL}
    if tasks and sum(maxima) > 0:
        total = stats.interval(points, maxima, mine)
        out["total"] = {"mean": _r(total.mean), "low": _r(total.low), "high": _r(total.high)}
    per_task = {}
    for column, key in enumerate(tasks):
        values = [row[column] for row in points]
        spread = stats.sample_interval(values, mine + column + 1)
        passed = sum(row[column] for row in passes)
        per_task[key] = {
            "mean": _r(spread.mean), "low": _r(spread.low), "high": _r(spread.high), "passed": passed,
            "pass_at": {str(k): _r(stats.pass_at_k(len(values), passed, k)) for k in pass_at if k <= len(values)},
        }
    out["tasks"] = per_task
    return out


def significance(models: Mapping[str, Mapping[str, Any]], seed: int, alpha: float = ALPHA) -> dict[str, Any]:
    """``comparison.significance``: each model's rank counting only significant differences
    (``stats.ranks``) on the tasks every model's total counts."""
    names = list(models)
    counted = [set(counted_tasks(models[name])) for name in names[1:]]  # (each model's, once)
    shared = [key for key in (counted_tasks(models[names[0]]) if names else [])
              if all(key in tasks for tasks in counted)]
    out: dict[str, Any] = {"test": TEST, "alpha": alpha, "tasks": len(shared), "ranks": {}}
    if not names or not shared:
        out["ranks"] = {name: 1 for name in names}
        return out
    maxima = [float(models[names[0]]["prompts"][key]["max_score"]) for key in shared]
    found = stats.ranks([matrix(models[name], shared)[0] for name in names], maxima, seed, alpha)
    out["ranks"] = dict(zip(names, found))
    return out


def set_statistics(name: str, record: dict[str, Any], seed: int, pass_at: Sequence[int] = DEFAULT_PASS_AT) -> None:
    """Give one model record its ``statistics`` (before ``cached``, where a record ends)."""
    cached = record.pop("cached", None)
    record["statistics"] = model_statistics(name, record, seed, pass_at)
    if cached is not None:
        record["cached"] = cached


def add_statistics(doc: dict[str, Any], seed: int, pass_at: Sequence[int] = DEFAULT_PASS_AT) -> None:
    """Give every model record its ``statistics`` and the comparison its ``significance``."""
    for name, record in doc["models"].items():
        set_statistics(name, record, seed, pass_at)
    doc["comparison"]["significance"] = significance(doc["models"], seed)


def settings_of(doc: Mapping[str, Any]) -> tuple[int, tuple[int, ...]]:
    """The seed and pass@k values a document's run used (``_metadata.config``, which holds
    them only when they are not the defaults)."""
    from ..types import RunConfig

    config = doc.get("_metadata", {}).get("config")
    config = config if isinstance(config, Mapping) else {}
    seed = config.get("seed", RunConfig.seed)
    ks = config.get("pass_at", RunConfig.pass_at)
    ks = tuple(k for k in ks if type(k) is int and k >= 1) if isinstance(ks, (list, tuple)) else RunConfig.pass_at
    return (seed if type(seed) is int else RunConfig.seed), (ks or RunConfig.pass_at)
