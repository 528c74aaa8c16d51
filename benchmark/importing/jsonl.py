"""A JSONL export of replies: ``{"model", "task", "response"}`` or ``{"task", "messages"}``.

A record may carry a ``"sample"`` (a string, or an integer read as its decimal string). A
model with a ``sample`` in any record, or with more than one record for some task, is
imported as samples (``Replies.samples``): each record's sample id is its ``sample``, or,
when no record of the model names one, its position (the k-th record of that model for that
task is sample ``k``). A model with one record per task and no ``sample`` is one submission,
as before.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import untrusted
from ..discovery import folded
from ..runner import model_name_problem
from . import markdown
from .sources import EXIT_ERROR, EXIT_USAGE, ImportInputError, Replies, Reply, _decode, _read
from .tasks import ImportTask, task_named


def _last_assistant(messages: object, where: str) -> str:
    """The last ``assistant`` message's text (content parts of type ``text`` joined)."""
    if not isinstance(messages, list):
        raise ImportInputError(EXIT_ERROR, f"{where}: 'messages' is not a list")
    said = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
    if not said:
        raise ImportInputError(EXIT_ERROR, f"{where}: no assistant message")
    content = said[-1].get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict) and part.get("type") in ("text", None))
    if not isinstance(content, str):
        raise ImportInputError(EXIT_ERROR, f"{where}: the last assistant message has no text")
    return content


def _record(line: str, where: str) -> dict:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise ImportInputError(EXIT_ERROR, f"{where}: not JSON ({exc})")
    if not isinstance(record, dict) or "task" not in record:
        raise ImportInputError(EXIT_ERROR, f"{where}: not an object with a 'task'")
    return record


def _reply_text(record: dict, where: str) -> str:
    if isinstance(record.get("response"), str):
        return record["response"]
    if "messages" in record:
        return _last_assistant(record["messages"], where)
    raise ImportInputError(EXIT_ERROR, f"{where}: neither a 'response' text nor 'messages'")


def models_in(path: Path) -> list[str]:
    """The models a JSONL file holds, sorted (``--all-models``); exit 2 when a record names no
    model (it would belong to every model asked for) or the file names none."""
    text = _decode(_read(path), str(path))
    models: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        record = _record(line, f"{path}:{number}")
        if "model" not in record:
            raise ImportInputError(EXIT_USAGE, f"{path}:{number}: a record without a 'model': with "
                                               f"--all-models every record must name its model")
        models.add(str(record["model"]))
    if not models:
        raise ImportInputError(EXIT_USAGE, f"{path} holds no record")
    return sorted(models)


_JSON_TYPES = {type(None): "null", bool: "a boolean", float: "a number with a fraction or exponent",
               list: "an array", dict: "an object"}


def sample_id_problem(sample: str) -> str | None:
    """Why ``sample`` cannot name a sample folder (``<model>/samples/<id>/``), or None: the rule
    of a model name, and no leading ``.`` or ``_`` (the grader skips such folders)."""
    problem = model_name_problem(sample)
    if problem:
        return problem
    if sample.startswith((".", "_")):
        return "it starts with '.' or '_' (the grader skips such folders)"
    return None


def _sample_of(record: dict, where: str) -> str | None:
    """The record's sample id (its ``"sample"``, an integer as its decimal string), or None
    when it has none; exit 2 naming the line when it is of another type or no id."""
    if "sample" not in record:
        return None
    value = record["sample"]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        kind = _JSON_TYPES.get(type(value), type(value).__name__)
        raise ImportInputError(EXIT_USAGE, f"{where}: 'sample' is {kind}; a sample is a string or "
                                           "an integer")
    sample = str(value)
    problem = sample_id_problem(sample)
    if problem:
        shown = untrusted.text(sample, untrusted.NAME_LIMIT)
        raise ImportInputError(EXIT_USAGE, f"{where}: sample '{shown}' cannot name a sample: {problem}")
    return sample


def load_jsonl(path: Path, model: str, tasks: tuple[ImportTask, ...]) -> Replies:
    """``model``'s replies; a record without a ``model`` belongs to whichever model is asked.
    Exit 2 naming the file's models when ``model`` is not one of them. Several replies of the
    model for one task, or a ``sample`` in its records, make ``samples`` (see the module)."""
    text = _decode(_read(path), str(path))
    result, models = Replies("jsonl"), set()
    records: list[tuple[str, ImportTask, str | None, Reply]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        record = _record(line, where)
        if "model" in record:
            models.add(str(record["model"]))
            if str(record["model"]) != model:
                continue
        task = task_named(str(record["task"]), tasks)
        if task is None:
            raise ImportInputError(EXIT_USAGE, f"{where}: unknown task {str(record['task'])!r}; "
                                               f"expected one of {', '.join(t.id for t in tasks)}")
        sample = _sample_of(record, where)
        reply = _reply_text(record, where)
        digest = hashlib.sha256(reply.encode("utf-8", "surrogatepass")).hexdigest()
        records.append((where, task, sample, Reply(task, where, digest, markdown.parse(reply))))
    result.models = tuple(sorted(models))
    if models and model not in models:
        raise ImportInputError(EXIT_USAGE, f"{path} holds no replies of model {model!r}; "
                                           f"it holds: {', '.join(result.models)}")
    per_task = [task.id for _, task, _, _ in records]
    if all(sample is None for _, _, sample, _ in records) and len(set(per_task)) == len(per_task):
        found = {reply.task.id: reply for _, _, _, reply in records}
        result.replies = [found[task.id] for task in tasks if task.id in found]
        return result
    result.samples = [(sample, Replies("jsonl", replies, models=result.models))
                      for sample, replies in _samples(records, model, tasks)]
    return result


def _samples(records: list[tuple[str, ImportTask, str | None, Reply]], model: str,
             tasks: tuple[ImportTask, ...]) -> list[tuple[str, list[Reply]]]:
    """``(sample id, its replies)`` in the order the file first names each sample. Exit 2 when
    the model's records mix named and positional samples, when two records give one task the
    same sample, or when two sample ids read as one (NFKC, case folded: one folder on a
    case-insensitive file system)."""
    name = untrusted.text(model, untrusted.NAME_LIMIT)
    named = [where for where, _, sample, _ in records if sample is not None]
    positional = [where for where, _, sample, _ in records if sample is None]
    if named and positional:  # the first record that breaks the model's first record's way
        first_named = records[0][2] is not None
        later, earlier = (positional[0], named[0]) if first_named else (named[0], positional[0])
        said = ("without a 'sample', though {} has one" if first_named
                else "with a 'sample', though {} has none").format(earlier)
        raise ImportInputError(EXIT_USAGE, f"{later}: a record of model '{name}' {said}; a model's "
                                           "records either all name their sample or none does")
    seen: dict[tuple[str, str], str] = {}  # (task, sample) -> its record's line
    counts: dict[str, int] = {}  # task -> its records so far (positional ids)
    ids: dict[str, tuple[str, str]] = {}  # folded id -> (the id as first given, its line)
    samples: dict[str, dict[str, Reply]] = {}
    for where, task, sample, reply in records:
        if sample is None:
            counts[task.id] = counts.get(task.id, 0) + 1
            sample = str(counts[task.id])
        shown = untrusted.text(sample, untrusted.NAME_LIMIT)
        if (task.id, sample) in seen:
            raise ImportInputError(EXIT_USAGE, f"two replies for {task.id} sample '{shown}' of model "
                                               f"'{name}': {seen[task.id, sample]} and {where}")
        first, first_where = ids.setdefault(folded(sample), (sample, where))
        if first != sample:
            raise ImportInputError(EXIT_USAGE, (
                f"{where}: sample '{shown}' of model '{name}' reads as sample "
                f"'{untrusted.text(first, untrusted.NAME_LIMIT)}' ({first_where}); sample ids must "
                "differ by more than case or Unicode form"))
        seen[task.id, sample] = where
        samples.setdefault(sample, {})[task.id] = reply
    return [(sample, [found[task.id] for task in tasks if task.id in found])
            for sample, found in samples.items()]
