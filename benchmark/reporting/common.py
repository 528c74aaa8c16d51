"""Small helpers shared by the text reporters (reading numbers and lists from the document)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import as_number as num
from ..scoring import prompt_sort_key
from ..types import CATEGORY_ORDER

CATEGORY_NAMES: tuple[str, ...] = tuple(c.value for c in CATEGORY_ORDER)
RULE_WIDTH = 70


def models_of(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    models = doc.get("models")
    if not isinstance(models, Mapping):
        return {}
    return {name: m for name, m in models.items() if isinstance(m, Mapping)}


def prompts_of(model: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """A model's prompts in natural order (prompt_2 before prompt_10)."""
    prompts = model.get("prompts")
    if not isinstance(prompts, Mapping):
        return []
    return [(pid, prompts[pid]) for pid in sorted(prompts, key=prompt_sort_key)
            if isinstance(prompts[pid], Mapping)]


def by_percentage(doc: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Models best first (percentage, then score, descending), ties by name."""
    return sorted(
        models_of(doc).items(),
        key=lambda item: (-num(item[1].get("percentage")), -num(item[1].get("overall_score")), item[0]),
    )


def fixed(value: Any, digits: int = 1) -> str:
    """A number for people, with a fixed number of decimals."""
    return f"{num(value):.{digits}f}"


def maximum(value: Any) -> str:
    """A maximum for people: whole numbers without decimals (25), others with one (2.5)."""
    number = num(value)
    return f"{number:.0f}" if number == int(number) else f"{number:.1f}"
