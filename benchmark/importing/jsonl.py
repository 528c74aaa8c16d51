"""A JSONL export of replies: ``{"model", "task", "response"}`` or ``{"task", "messages"}``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from . import markdown
from .sources import EXIT_ERROR, EXIT_USAGE, ImportInputError, Replies, Reply, _add, _decode, _read
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


def load_jsonl(path: Path, model: str, tasks: tuple[ImportTask, ...]) -> Replies:
    """``model``'s replies; a record without a ``model`` belongs to whichever model is asked.
    Exit 2 naming the file's models when ``model`` is not one of them."""
    text = _decode(_read(path), str(path))
    result, found, models = Replies("jsonl"), {}, set()
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
        reply = _reply_text(record, where)
        digest = hashlib.sha256(reply.encode("utf-8", "surrogatepass")).hexdigest()
        _add(found, Reply(task, where, digest, markdown.parse(reply)))
    result.models = tuple(sorted(models))
    if models and model not in models:
        raise ImportInputError(EXIT_USAGE, f"{path} holds no replies of model {model!r}; "
                                           f"it holds: {', '.join(result.models)}")
    result.replies = [found[task.id] for task in tasks if task.id in found]
    return result
