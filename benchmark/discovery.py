"""Model discovery: the model folders of the graded tiers, and those that are not graded.

A folder is a model when its name can be one (the results schema's ``display_name``, nothing
``benchmark.untrusted`` would have to escape) and it is not a symbolic link; the others are
``RejectedModel``s, reported and never graded. ``benchmark.runner`` re-exports every name here.

A model folder that holds ``samples/`` is graded as its samples: each folder
``samples/<id>/`` is a complete submission of the model (an id follows a model name's rules),
graded as a unit of its own (``ModelEntry.sample``); the files beside ``samples/`` are not
graded. A model without ``samples/`` is one sample, as it always was.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from . import untrusted
from .reporting.results_json import load_schema
from .sample_names import SAMPLES, natural, unit_name  # noqa: F401 (re-exported)

TIERS = ("reference_implementations", "user_submissions")
TEMPLATE_TIER = "templates"
MAX_NAME = 128  # the results schema's display_name


class DiscoveryError(Exception):
    """The submissions tree is unusable (e.g. one model name in two tiers)."""


@dataclass(frozen=True)
class ModelEntry:
    """A unit of grading: a model folder, or one sample of a model (``sample``: its id, and
    ``path`` the sample's folder)."""

    name: str
    tier: str
    path: Path
    sample: str | None = None

    @property
    def unit(self) -> str:
        """The unit's name, unique in a run: the model's, or ``<model>/samples/<id>`` (no
        model name holds a ``/``)."""
        return unit_name(self.name, self.sample)


@dataclass(frozen=True)
class RejectedModel:
    """A model folder whose name cannot be a model name, or that is a symbolic link: never
    graded, reported by the CLI with ``reason``. A sample folder refused likewise is one too,
    named ``<model>/samples/<id>``."""

    name: str
    tier: str
    path: Path
    reason: str


LINKED = "it is a symbolic link (not followed)"
# Characters a reader cannot see, beyond the format characters (category Cf: zero-width
# spaces and joiners, U+FEFF, the soft hyphen) and every space but U+0020: the combining
# grapheme joiner, the Hangul fillers, the Khmer inherent vowels, the Mongolian variation
# selectors and free variation selectors (Unicode's Default_Ignorable_Code_Point, in part)
INVISIBLE = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0,
                       *range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)})


def invisible(name: str) -> str | None:
    """The first character of ``name`` a reader cannot see (as U+XXXX), or None: a model named
    like another plus a zero-width space looks the same in every report."""
    for char in name:
        category = unicodedata.category(char)
        if category == "Cf" or (category[0] == "Z" and char != " ") or ord(char) in INVISIBLE:
            return f"U+{ord(char):04X}"
    return None


def folded(name: str) -> str:
    """The form two names that read alike share (NFKC, case folded)."""
    return unicodedata.normalize("NFKC", name).casefold()


def model_name_problem(name: str) -> str | None:
    """Why a folder name cannot name a model, or None: the results schema's ``display_name``
    (1 to 128 characters, no control character, ``/`` or ``\\``), and nothing that
    ``benchmark.untrusted`` would have to escape to show it (C1 controls, bidirectional
    overrides, bytes that are not UTF-8)."""
    if len(name) > MAX_NAME:
        return f"it is {len(name)} characters long; a model name has at most {MAX_NAME}"
    if not untrusted.is_clean(name):
        return "it contains control, bidirectional or non-UTF-8 characters"
    hidden = invisible(name)
    if hidden:
        return f"it contains a character no report shows ({hidden}), so it would read as another name"
    if not re.fullmatch(load_schema()["$defs"]["display_name"]["pattern"], name):
        return "it is not a model name the results schema accepts (no / or \\, 1 to 128 characters)"
    return None


def scan_models(submissions_dir: Path) -> tuple[dict[str, ModelEntry], list[RejectedModel]]:
    """Every model folder under the graded tiers (templates are never graded), and the folders
    that are not graded: a name that cannot name a model (see :func:`model_name_problem`), one
    that reads as a model already found (``folded``: the reference tier first, then by name),
    or a symbolic link to a folder (not followed, as no submission path is). Files are ignored."""
    found: dict[str, ModelEntry] = {}
    rejected: list[RejectedModel] = []
    seen: dict[str, str] = {}  # folded name -> the name graded under it
    for tier in TIERS:
        tier_dir = Path(submissions_dir) / tier
        if not tier_dir.is_dir():
            continue
        for path in sorted(tier_dir.iterdir()):
            if not path.is_dir() or path.name.startswith((".", "_")):
                continue
            problem = LINKED if path.is_symlink() else model_name_problem(path.name)
            if problem:
                rejected.append(RejectedModel(path.name, tier, path, problem))
            elif path.name in found:
                raise DiscoveryError(
                    f"model name '{path.name}' appears twice: {found[path.name].path} and {path}")
            elif folded(path.name) in seen:
                rejected.append(RejectedModel(path.name, tier, path, (
                    f"it reads as the model '{seen[folded(path.name)]}' (the same name once "
                    "Unicode-normalised and case-folded): the reports could not tell them apart")))
            else:
                found[path.name] = ModelEntry(path.name, tier, path)
                seen[folded(path.name)] = path.name
    return found, rejected


def scan_samples(entry: ModelEntry) -> tuple[list[ModelEntry], list[RejectedModel]]:
    """The units of a model: the model itself when its folder has no ``samples/``, else one
    per sample folder (ids in natural order), and the sample folders that are not graded (an id
    that cannot be a name, one that reads as another, a symbolic link). A ``samples`` that is a
    link, not a folder, or holds no sample rejects the model."""
    folder = entry.path / SAMPLES
    if not folder.exists() and not folder.is_symlink():
        return [entry], []
    where = f"{entry.name}/{SAMPLES}"
    if folder.is_symlink() or not folder.is_dir():
        why = LINKED if folder.is_symlink() else "it is not a folder"
        return [], [RejectedModel(where, entry.tier, folder, f"{why}: the model's samples are not graded")]
    units: list[ModelEntry] = []
    rejected: list[RejectedModel] = []
    seen: dict[str, str] = {}
    for path in sorted(folder.iterdir(), key=lambda p: natural(p.name)):
        if not path.is_dir() or path.name.startswith((".", "_")):
            continue
        problem = LINKED if path.is_symlink() else model_name_problem(path.name)
        if problem is None and folded(path.name) in seen:
            problem = f"it reads as the sample '{seen[folded(path.name)]}'"
        if problem:
            rejected.append(RejectedModel(f"{where}/{path.name}", entry.tier, path, problem))
            continue
        seen[folded(path.name)] = path.name
        units.append(ModelEntry(entry.name, entry.tier, path, path.name))
    if not units:
        rejected.append(RejectedModel(where, entry.tier, folder, "it holds no sample folder to grade"))
    return units, rejected


def expand_samples(entries: list[ModelEntry]) -> tuple[list[ModelEntry], list[RejectedModel]]:
    """Every unit of ``entries`` (see :func:`scan_samples`), models in their order."""
    units: list[ModelEntry] = []
    rejected: list[RejectedModel] = []
    for entry in entries:
        found, refused = scan_samples(entry)
        units += found
        rejected += refused
    return units, rejected


def discover_models(submissions_dir: Path) -> dict[str, ModelEntry]:
    """Every gradable model folder under the graded tiers (see :func:`scan_models`)."""
    return scan_models(submissions_dir)[0]

