"""The spec's helper functions: safe loading, directories, templates, statistics and charts.

YAML is read with ``LimitedSafeLoader``: yaml's SafeLoader plus limits on aliases, nesting
depth and the size of the document once aliases are expanded, so an alias bomb
("billion laughs") or a deeply nested document is refused while it is being composed,
before anything large is built. ``load_yaml_limited`` is the entry point other modules use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent

from .reporting.chart import render_comparison_chart
from .reporting.terminal import format_model_block
from .reporting.writer import atomic_write_json, atomic_write_text
from .scoring import as_number, category_totals, prompt_sort_key

__all__ = [
    "LimitedSafeLoader", "YAMLLimitError", "load_yaml_limited", "safe_load_json", "safe_load_yaml",
    "load_test_data", "ensure_directories", "create_submission_template",
    "validate_submission_structure", "get_model_statistics", "format_results",
    "create_comparison_chart", "generate_comparison_chart", "atomic_write_json", "atomic_write_text",
    "SUBMISSION_FILES",
]

MAX_DATA_BYTES = 5 * 1024 * 1024
MAX_ALIASES = 100
MAX_DEPTH = 100
MAX_NODES = 100_000  # nodes in the document with every alias expanded

SUBMISSION_FILES: dict[str, str] = {
    "prompt_1_solution.py": "# Prompt 1: the refactored version of test_data/process_records.py.\n",
    "prompt_2_config_fixed.yaml": "# Prompt 2: the corrected YAML of test_data/config.yaml.\n",
    "prompt_2_config.json": "// Prompt 2: the same configuration as JSON. Replace this line; "
    "it is a placeholder and deliberately not valid JSON.\n",
    "prompt_3_transform.py": "# Prompt 3: define transform_and_enrich_users(user_list) here.\n",
    "prompt_4_api_sync.py": "# Prompt 4: define sync_users_to_crm(user_data, api_token) here.\n",
}


class YAMLLimitError(yaml.YAMLError):
    """A YAML document exceeded a safety limit (aliases, depth or expanded size)."""


class LimitedSafeLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases, nesting depth and expanded size while composing.

    Limits are per stream, set as attributes (``max_aliases``, ``max_depth``, ``max_nodes``).
    Recursive aliases (a node containing itself) are refused: they have no finite expansion.
    """

    max_aliases = MAX_ALIASES
    max_depth = MAX_DEPTH
    max_nodes = MAX_NODES

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0
        self._total = 0
        self._sizes: dict[int, int] = {}  # id(node) -> expanded size, for finished nodes

    def compose_document(self) -> Any:
        self._sizes = {}
        node = super().compose_document()
        if node is not None:
            self._total += self._sizes.get(id(node), 1)
            if self._total > self.max_nodes:
                raise YAMLLimitError(f"YAML stream expands to more than {self.max_nodes} nodes")
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            self._aliases += 1
            if self._aliases > self.max_aliases:
                raise YAMLLimitError(f"more than {self.max_aliases} YAML aliases")
            node = super().compose_node(parent, index)
            if id(node) not in self._sizes:
                raise YAMLLimitError("recursive YAML alias (a node refers to itself)")
            return node
        self._depth += 1
        if self._depth > self.max_depth:
            raise YAMLLimitError(f"YAML nested deeper than {self.max_depth} levels")
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._sizes[id(node)] = size = self._size_of(node)
        if size > self.max_nodes:
            raise YAMLLimitError(f"YAML document expands to more than {self.max_nodes} nodes")
        return node

    def _size_of(self, node: Any) -> int:
        if isinstance(node, yaml.MappingNode):
            return 1 + sum(self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value)
        if isinstance(node, yaml.SequenceNode):
            return 1 + sum(self._sizes.get(id(item), 1) for item in node.value)
        return 1


def load_yaml_limited(
    text: str | bytes,
    *,
    max_aliases: int = MAX_ALIASES,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> list[Any]:
    """Every document in ``text``, safely loaded. Raises ``YAMLLimitError`` when a limit is
    exceeded and ``yaml.YAMLError`` for invalid YAML."""
    loader = LimitedSafeLoader(text)
    loader.max_aliases, loader.max_depth, loader.max_nodes = max_aliases, max_depth, max_nodes
    try:
        documents = []
        while loader.check_data():
            documents.append(loader.get_data())
        return documents
    finally:
        loader.dispose()


def _read_limited(path: str | Path, max_bytes: int) -> bytes | None:
    target = Path(path)
    if not target.is_file() or target.stat().st_size > max_bytes:
        return None
    with open(target, "rb") as handle:
        data = handle.read(max_bytes + 1)
    return data if len(data) <= max_bytes else None


def safe_load_json(path: str | Path, *, max_bytes: int = MAX_DATA_BYTES) -> Any | None:
    """Parsed JSON, or None on any problem (missing, too large, not UTF-8, invalid, NaN)."""
    try:
        data = _read_limited(path, max_bytes)
        if data is None:
            return None
        return json.loads(data.decode("utf-8-sig"), parse_constant=_reject_constant)
    except (OSError, ValueError, RecursionError):
        return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def safe_load_yaml(path: str | Path, *, max_bytes: int = MAX_DATA_BYTES) -> Any | None:
    """Parsed YAML, or None on any problem. A single document is returned as is; several
    documents that are all mappings are merged (later keys win); other streams as a list."""
    try:
        data = _read_limited(path, max_bytes)
        if data is None:
            return None
        documents = load_yaml_limited(data.decode("utf-8-sig"))
    except (OSError, ValueError, yaml.YAMLError, RecursionError):
        return None
    if len(documents) <= 1:
        return documents[0] if documents else None
    present = [doc for doc in documents if doc is not None]
    if all(isinstance(doc, dict) for doc in present):
        merged: dict[Any, Any] = {}
        for doc in present:
            merged.update(doc)
        return merged
    return documents


def load_test_data(test_data_dir: str | Path) -> dict[str, Any]:
    """The shared fixtures: ``user_data`` (JSON), ``config`` (YAML; None while it is the
    deliberately broken original) and ``process_records`` (source text). Missing -> None."""
    folder = Path(test_data_dir)
    script = _read_limited(folder / "process_records.py", MAX_DATA_BYTES)
    try:
        source = script.decode("utf-8") if script is not None else None
    except UnicodeDecodeError:
        source = None
    return {
        "user_data": safe_load_json(folder / "user_data.json"),
        "config": safe_load_yaml(folder / "config.yaml"),
        "process_records": source,
    }


def ensure_directories(dirs: Iterable[str | Path]) -> list[Path]:
    created = []
    for folder in dirs:
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        created.append(path)
    return created


def create_submission_template(submissions_dir: str | Path) -> Path:
    """Create ``submissions/templates/template/`` with a stub per expected file.
    Existing files are left alone."""
    template = Path(submissions_dir) / "templates" / "template"
    template.mkdir(parents=True, exist_ok=True)
    for name, stub in SUBMISSION_FILES.items():
        target = template / name
        if not target.exists():
            atomic_write_text(target, stub)
    return template


def validate_submission_structure(model_dir: str | Path) -> dict[str, bool]:
    """For each expected file: is it present as a regular file (symbolic links do not count)?"""
    folder = Path(model_dir)
    return {name: (folder / name).is_file() and not (folder / name).is_symlink() for name in SUBMISSION_FILES}


def get_model_statistics(results: Mapping[str, Any] | None) -> dict[str, Any]:
    """Key numbers from one model's results dict; every key is always present."""
    results = results if isinstance(results, Mapping) else {}
    prompts = results.get("prompts") if isinstance(results.get("prompts"), Mapping) else {}
    prompts = {pid: p for pid, p in prompts.items() if isinstance(p, Mapping)}
    scores = {pid: as_number(p.get("score")) for pid, p in prompts.items()}
    ordered = sorted(scores, key=lambda pid: (-scores[pid], prompt_sort_key(pid)))
    passed = sum(1 for p in prompts.values() if p.get("passed") is True)
    return {
        "model_name": results.get("model_name"),
        "overall_score": as_number(results.get("overall_score")),
        "total_possible": as_number(results.get("total_possible")),
        "percentage": as_number(results.get("percentage")),
        "grade": results.get("grade"),
        "badge": results.get("badge"),
        "prompts_total": len(prompts),
        "prompts_passed": passed,
        "prompts_failed": len(prompts) - passed,
        "prompts_errored": sum(1 for p in prompts.values() if p.get("status") == "error"),
        "pass_rate": round(100.0 * passed / len(prompts), 4) if prompts else 0.0,
        "best_prompt": ordered[0] if ordered else None,
        "worst_prompt": ordered[-1] if ordered else None,
        "category_totals": category_totals(results),
    }


def format_results(results: Mapping[str, Any]) -> str:
    """A whole validated results document (every model, in its order) or one model's record, as
    terminal text (``format_model_block`` reads each record into its view)."""
    if "models" in results:
        return "\n\n".join(format_model_block(record) for record in results["models"].values())
    return format_model_block(results)


def _as_doc(results: Mapping[str, Any]) -> Mapping[str, Any]:
    """Accept a results document or a bare ``{model_name: model_dict}`` mapping, which gets
    the frame of a document around it (no run, no comparison, no manifest) for the view."""
    if isinstance(results.get("models"), Mapping):
        return results
    return {"schema_version": "", "run_id": "", "benchmark_run": {"timestamp": "", "total_models": len(results)},
            "models": results, "comparison": {}, "_metadata": {}}


def create_comparison_chart(results: Mapping[str, Any]) -> str:
    return render_comparison_chart(_as_doc(results))


def generate_comparison_chart(results: Mapping[str, Any], output_file: str | Path) -> Path:
    """Write the comparison chart to ``output_file`` atomically and return its path."""
    return atomic_write_text(output_file, create_comparison_chart(results))
