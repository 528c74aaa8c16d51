"""junit.xml for CI: one testsuite per model, one testcase per model x prompt (task).

In a run with task-pack tasks a testcase's classname names its pack too
(``rubricbench.<model>.<pack>``), and a model's properties hold each pack's subtotal.

A prompt below the pass mark is a ``<failure>`` (``type="timed_out"`` when a child run hit the
wall-clock time-out); a prompt that could not be graded (status ``error``) is an ``<error>``;
a task the model submitted no file for is ``<skipped>``. Each carries where its points went
(every check that lost points, with its rationale and evidence places, and every gate
deduction with its formula), what the sandbox denied and what its runs raised; a pass that is
not clean (failed security checks, a sandbox denial) says so in its ``<system-out>``. A model folder the run did not grade
(``skipped_models``) is an ``<error>`` testcase of its own, in a testsuite ``not graded``.
Built with ``xml.etree`` (which escapes markup); characters XML 1.0 cannot hold at all (most
control characters) are replaced first.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from .common import SCORING_DOC, fixed, maximum, pack_score
from .fragments import part
from .view import Check, Model, Prompt, Run, run_view

INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
NOT_PASSED_ORDER = {"error": 0, "fail": 1, "skipped": 2, "partial": 3}
COUNTS = ("tests", "failures", "errors", "skipped")
SUITE_MARK = "rubricbench-suite"  # an element standing for a model's testsuite until it is put in


def xml_text(value: Any) -> str:
    """Text XML 1.0 can carry: invalid characters become U+FFFD."""
    return INVALID_XML.sub("\ufffd", str(value))


def _places(check: Check) -> str:
    places = [e.place + (f" ({e.note})" if e.note else "") for e in check.evidence if e.file]
    return "".join(f"\n      at {place}" for place in places[:5])


def not_passed(prompt: Prompt) -> list[Check]:
    """Checks that did not fully pass, worst status first (stable within a status)."""
    return sorted((c for c in prompt.checks if c.status != "pass"), key=lambda c: NOT_PASSED_ORDER.get(c.status, 9))


def check_lines(prompt: Prompt) -> str:
    """Where the prompt's points went (every check that lost points, with its evidence places,
    and every gate deduction), then what the sandbox denied and what its runs raised."""
    lines = []
    for loss in prompt.losses:
        check = prompt.check(loss.id) if loss.kind == "check" else None
        lines.append(loss.text(places=False) + (_places(check) if check else ""))
    if lines:
        lines.insert(0, f"where the points went (gates: {SCORING_DOC}):")
    lines += [f"sandbox denied: {d.text()}" for d in prompt.denials[:10]]
    for run in prompt.raised_runs[:3]:
        lines.append(run.raised_text())
        if run.stderr_tail:
            lines.append(f"  stderr (end): {run.stderr_tail[-TAIL_CHARS:]}")
    return "\n".join(lines)


TAIL_CHARS = 600  # of a raising run's stderr tail in a testcase's text


def _wall(prompt: Prompt) -> float:
    return sum(run.wall_s or 0.0 for run in prompt.runs)


def _testcase(suite: ET.Element, name: str, prompt: Prompt, packed: bool) -> str:
    classname = f"rubricbench.{name}.{prompt.pack}" if packed else f"rubricbench.{name}"
    case = ET.SubElement(suite, "testcase", classname=xml_text(classname),
                         name=xml_text(f"{prompt.key}: {prompt.title or prompt.key}"), time=f"{_wall(prompt):.3f}")
    score = f"{fixed(prompt.score, 2)}/{maximum(prompt.max_score)}"
    details = check_lines(prompt)
    state = prompt.state
    if state == "not_attempted":
        reason = prompt.checks[0].rationale if prompt.checks else ""
        ET.SubElement(case, "skipped", message=xml_text(reason or "not attempted"))
        return "skipped"
    if state == "error":
        node = ET.SubElement(case, "error", message=xml_text(f"{score}: not graded: {prompt.error or 'error'}"),
                             type="grading_error")
        node.text = xml_text(details)
        return "error"
    if state == "timed_out":
        node = ET.SubElement(case, "failure", type="timed_out",
                             message=xml_text(f"{score}: a child run hit the wall-clock time-out"))
        node.text = xml_text(details)
        return "failure"
    if not prompt.passed:
        count = sum(1 for c in not_passed(prompt) if c.status != "partial")
        node = ET.SubElement(case, "failure", type="below_pass_mark",
                             message=xml_text(f"{score}, below the pass mark; {count} check(s) failed"))
        node.text = xml_text(details)
        return "failure"
    if details:
        flags = [f"{len(prompt.security_failures)} security check(s) failed"] if prompt.security_failures else []
        flags += ["the sandbox denied an attempt"] if prompt.denials else []
        shown = f"passed, not clean: {'; '.join(flags)}" if flags else "passed"
        ET.SubElement(case, "system-out").text = xml_text(f"{score}, {shown}\n{details}")
    return "pass"


def _suite(root: ET.Element, model: Model, timestamp: str) -> dict[str, int]:
    suite = ET.SubElement(root, "testsuite", name=xml_text(model.name), timestamp=xml_text(timestamp))
    props = ET.SubElement(suite, "properties")
    for key, value in (("tier", model.tier), ("score", fixed(model.score, 2)),
                       ("total_possible", maximum(model.max_score)), ("percentage", fixed(model.percentage, 2)),
                       ("grade", model.grade), ("badge", model.badge)):
        ET.SubElement(props, "property", name=key, value=xml_text(value))
    for pack, totals in model.subtotals.items():
        ET.SubElement(props, "property", name=xml_text(f"pack.{pack}"), value=xml_text(pack_score(totals)))
    packed = any("." in p.key for p in model.prompts)
    counts = dict.fromkeys(COUNTS, 0)
    for prompt in model.prompts:
        outcome = _testcase(suite, model.name, prompt, packed)
        counts["tests"] += 1
        counts["failures"] += outcome == "failure"
        counts["errors"] += outcome == "error"
        counts["skipped"] += outcome == "skipped"
    suite.set("time", f"{sum(_wall(p) for p in model.prompts):.3f}")
    for key in COUNTS:
        suite.set(key, str(counts[key]))
    return counts


def _not_graded(root: ET.Element, run: Run) -> dict[str, int]:
    """A testsuite with an ``<error>`` testcase per model folder the run did not grade, so CI
    marks the run; nothing when there is none."""
    skipped = run.skipped
    if not skipped:
        return dict.fromkeys(COUNTS, 0)
    suite = ET.SubElement(root, "testsuite", name="not graded", timestamp=xml_text(run.started),
                          tests=str(len(skipped)), failures="0", errors=str(len(skipped)), skipped="0",
                          time="0.000")
    for folder in skipped:
        case = ET.SubElement(suite, "testcase", classname=xml_text(f"rubricbench.{folder.tier}"),
                             name=xml_text(folder.folder), time="0.000")
        ET.SubElement(case, "error", type="not_graded", message=xml_text(f"model folder not graded: {folder.reason}"))
    return {"tests": len(skipped), "failures": 0, "errors": len(skipped), "skipped": 0}


def _suite_part(model: Model) -> str:
    """A model's testsuite as indented XML (as ``ET.indent`` indents it inside the document),
    its timestamp left empty, after a line of its counts: the part ``fragments`` keeps."""
    holder = ET.Element("testsuites")
    counts = _suite(holder, model, "")
    suite = holder[0]
    ET.indent(suite, level=1)
    return " ".join(str(counts[key]) for key in COUNTS) + "\n" + ET.tostring(suite, encoding="unicode")


def _attribute(value: str) -> str:
    """``value`` escaped as ``xml.etree`` writes an attribute's value."""
    return ET.tostring(ET.Element("t", v=xml_text(value)), encoding="unicode")[len('<t v="'):-len('" />')]


def render_junit(doc: Mapping[str, Any] | Run) -> str:
    """The whole junit.xml document (UTF-8 text with an XML declaration), from a validated
    results document or its view. Each model's testsuite is made on its own (``_suite_part``;
    kept by the run's ``fragments``, when there are any), and stands in the document where an
    empty ``SUITE_MARK`` element marks its place (escaped text holds no ``<``); its timestamp
    is the run's, filled in where its first line leaves it empty (the name before it is
    escaped, so holds no quote)."""
    run = run_view(doc)
    root = ET.Element("testsuites", name="RubricBench")
    totals = dict.fromkeys(COUNTS, 0)
    suites, stamp = [], f' timestamp="{_attribute(run.started)}"'
    for model in run.models:
        made = part(model.name, model.record, "junit", [], lambda model=model: _suite_part(model))
        counted, text = made.split("\n", 1)
        suites.append(text.replace(' timestamp=""', stamp, 1))
        ET.SubElement(root, SUITE_MARK)
        totals = {key: totals[key] + int(n) for key, n in zip(COUNTS, counted.split())}
    counts = _not_graded(root, run)
    totals = {key: totals[key] + counts[key] for key in COUNTS}
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    pieces = ET.tostring(root, encoding="unicode").split(f"<{SUITE_MARK} />")
    text = "".join(piece + suite for piece, suite in zip(pieces, suites)) + pieces[-1]
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n"
