"""Clean and enrich legacy user records.

Each transformation is a :class:`RecordRule`; concrete rules register themselves through
the :class:`RuleRegistry` metaclass and are applied in definition order.
"""
from __future__ import annotations

import enum
import inspect
import json
import logging
import re
from abc import ABC, ABCMeta, abstractmethod
from contextlib import suppress
from typing import Any, ClassVar, Optional, Union

logger = logging.getLogger(__name__)

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


class AccountTier(enum.Enum):
    """Account tiers with the minimum purchase count of each (inclusive)."""

    GOLD = ("Gold", 100)
    SILVER = ("Silver", 50)
    BRONZE = ("Bronze", 0)

    def __init__(self, label: str, minimum: int) -> None:
        self.label = label
        self.minimum = minimum

    @classmethod
    def for_purchases(cls, purchases: Optional[Union[int, float]]) -> AccountTier:
        """The highest tier whose minimum the count reaches; Bronze for no count."""
        if purchases is None:
            return cls.BRONZE
        if purchases >= cls.GOLD.minimum:
            return cls.GOLD
        if purchases >= cls.SILVER.minimum:
            return cls.SILVER
        return cls.BRONZE


def to_int(value: Any) -> Optional[int]:
    """Strict integer conversion; None when the value is not convertible."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        with suppress(ValueError):  # beyond Python's integer string length limit
            return int(value.strip())
    return None


def to_number(value: Any) -> Optional[Union[int, float]]:
    """A purchase count as a number; None for anything that is not a plain number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value.strip()):
        return float(value.strip())
    return None


def copy_mapping(value: Any) -> dict[str, Any]:
    """A shallow copy of a dict, or a new empty dict for anything else."""
    return dict(value) if isinstance(value, dict) else {}


class RuleRegistry(ABCMeta):
    """Keeps every concrete RecordRule subclass, in definition order."""

    rules: ClassVar[list[RuleRegistry]] = []

    def __new__(cls, name: str, bases: tuple[type, ...],
                namespace: dict[str, Any]) -> RuleRegistry:
        rule_class = super().__new__(cls, name, bases, namespace)
        if not inspect.isabstract(rule_class):
            cls.rules.append(rule_class)
        return rule_class


class RecordRule(ABC, metaclass=RuleRegistry):
    """One transformation: reads the original record, writes into the new one."""

    @abstractmethod
    def apply(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        """Set the rule's keys on ``target``; ``source`` must not be modified."""


class StandardiseId(RecordRule):
    """Whole-number ids become ints; other ids stay as they are."""

    def apply(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        if "id" not in source:
            return
        converted = to_int(source["id"])
        if converted is not None:
            target["id"] = converted


class AddEmailProvider(RecordRule):
    """contact.email_provider: the lower-cased domain after the last '@'."""

    def apply(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        contact = copy_mapping(source.get("contact"))
        contact["email_provider"] = self._provider(contact.get("email"))
        target["contact"] = contact

    @staticmethod
    def _provider(email: Any) -> Optional[str]:
        if not isinstance(email, str) or "@" not in email:
            return None
        return email.rpartition("@")[2].strip().lower() or None


class NormaliseAge(RecordRule):
    """stats.age: an int, or None when there is no usable age."""

    def apply(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        stats = copy_mapping(source.get("stats"))
        stats["age"] = to_int(stats.get("age"))
        target["stats"] = stats


class AssignAccountTier(RecordRule):
    """account_tier from stats.total_purchases."""

    def apply(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        purchases = to_number(copy_mapping(source.get("stats")).get("total_purchases"))
        target["account_tier"] = AccountTier.for_purchases(purchases).label


class UserTransformer:
    """Applies every registered rule to a copy of each record."""

    def __init__(self) -> None:
        self._rules = [rule_class() for rule_class in RuleRegistry.rules]

    def transform(self, record: dict[str, Any]) -> dict[str, Any]:
        """A new record; the input record is left untouched."""
        result = dict(record)
        for rule in self._rules:
            rule.apply(record, result)
        return result


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Return the cleaned and enriched copies of the dict records in ``user_list``.

    Items that are not dicts are skipped; a non-list argument yields ``[]``.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list, got %s; returning no users", type(user_list).__name__)
        return []
    transformer = UserTransformer()
    return [transformer.transform(item) for item in user_list if _is_record(item)]


def _is_record(item: Any) -> bool:
    """True for dicts; anything else is logged and skipped."""
    if isinstance(item, dict):
        return True
    logger.warning("skipping an entry that is not an object: %s", type(item).__name__)
    return False


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as source_file:
        users = json.load(source_file)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
