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

from ..scoring import pack_of
from .common import (SCORING_DOC, by_percentage, denial_text, denials_of, fixed, loss_text, maximum, num, pack_score,
                     pack_subtotals, point_losses, prompts_of, raised_runs, raised_text, security_failures,
                     skipped_of, verdict)

INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
NOT_PASSED_ORDER = {"error": 0, "fail": 1, "skipped": 2, "partial": 3}


def xml_text(value: Any) -> str:
    """Text XML 1.0 can carry: invalid characters become U+FFFD."""
    return INVALID_XML.sub("\ufffd", str(value))


def _places(check: Mapping[str, Any]) -> str:
    places = []
    for item in check.get("evidence") or ():
        if isinstance(item, Mapping) and item.get("file"):
            line = item.get("line")
            note = f" ({item['note']})" if item.get("note") else ""
            places.append((f"{item['file']}:{line}" if line else str(item["file"])) + note)
    return "".join(f"\n      at {place}" for place in places[:5])


def not_passed(prompt: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Checks that did not fully pass, worst status first (stable within a status)."""
    checks = [c for c in prompt.get("checks") or () if isinstance(c, Mapping) and c.get("status") != "pass"]
    return sorted(checks, key=lambda c: NOT_PASSED_ORDER.get(str(c.get("status")), 9))


def check_lines(prompt: Mapping[str, Any]) -> str:
    """Where the prompt's points went (every check that lost points, with its evidence places,
    and every gate deduction), then what the sandbox denied and what its runs raised."""
    checks = {str(c.get("id")): c for c in prompt.get("checks") or () if isinstance(c, Mapping)}
    lines = []
    for loss in point_losses(prompt):
        check = checks.get(loss["id"]) if loss["kind"] == "check" else None
        lines.append(loss_text(loss) + (_places(check) if check else ""))
    if lines:
        lines.insert(0, f"where the points went (gates: {SCORING_DOC}):")
    lines += [f"sandbox denied: {denial_text(d)}" for d in denials_of(prompt)[:10]]
    for run, raised in raised_runs(prompt)[:3]:
        lines.append(raised_text(run, raised))
        if run.get("stderr_tail"):
            lines.append(f"  stderr (end): {str(run['stderr_tail'])[-TAIL_CHARS:]}")
    return "\n".join(lines)


TAIL_CHARS = 600  # of a raising run's stderr tail in a testcase's text


def _wall(prompt: Mapping[str, Any]) -> float:
    return sum(num(e.get("wall_s")) for e in prompt.get("execution") or () if isinstance(e, Mapping))


def _testcase(suite: ET.Element, name: str, pid: str, prompt: Mapping[str, Any], packed: bool) -> str:
    classname = f"rubricbench.{name}.{pack_of(pid)}" if packed else f"rubricbench.{name}"
    case = ET.SubElement(suite, "testcase", classname=xml_text(classname),
                         name=xml_text(f"{pid}: {prompt.get('title') or pid}"), time=f"{_wall(prompt):.3f}")
    score = f"{fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))}"
    details = check_lines(prompt)
    state = verdict(prompt)
    if state == "not_attempted":
        reason = next((c.get("rationale") for c in prompt.get("checks") or () if isinstance(c, Mapping)), "")
        ET.SubElement(case, "skipped", message=xml_text(reason or "not attempted"))
        return "skipped"
    if state == "error":
        node = ET.SubElement(case, "error", message=xml_text(f"{score}: not graded: {prompt.get('error') or 'error'}"),
                             type="grading_error")
        node.text = xml_text(details)
        return "error"
    if state == "timed_out":
        node = ET.SubElement(case, "failure", type="timed_out",
                             message=xml_text(f"{score}: a child run hit the wall-clock time-out"))
        node.text = xml_text(details)
        return "failure"
    if prompt.get("passed") is not True:
        count = sum(1 for c in not_passed(prompt) if c.get("status") != "partial")
        node = ET.SubElement(case, "failure", type="below_pass_mark",
                             message=xml_text(f"{score}, below the pass mark; {count} check(s) failed"))
        node.text = xml_text(details)
        return "failure"
    if details:
        flags = [f"{len(security_failures(prompt))} security check(s) failed"] if security_failures(prompt) else []
        flags += ["the sandbox denied an attempt"] if denials_of(prompt) else []
        shown = f"passed, not clean: {'; '.join(flags)}" if flags else "passed"
        ET.SubElement(case, "system-out").text = xml_text(f"{score}, {shown}\n{details}")
    return "pass"


def _suite(root: ET.Element, name: str, model: Mapping[str, Any], timestamp: str) -> dict[str, int]:
    suite = ET.SubElement(root, "testsuite", name=xml_text(name), timestamp=xml_text(timestamp))
    props = ET.SubElement(suite, "properties")
    for key, value in (("tier", model.get("tier")), ("score", fixed(model.get("overall_score"), 2)),
                       ("total_possible", maximum(model.get("total_possible"))),
                       ("percentage", fixed(model.get("percentage"), 2)), ("grade", model.get("grade")),
                       ("badge", model.get("badge"))):
        ET.SubElement(props, "property", name=key, value=xml_text(value))
    for pack, totals in pack_subtotals(model).items():
        ET.SubElement(props, "property", name=xml_text(f"pack.{pack}"), value=xml_text(pack_score(totals)))
    packed = any("." in pid for pid, _ in prompts_of(model))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    wall = 0.0
    for pid, prompt in prompts_of(model):
        outcome = _testcase(suite, name, pid, prompt, packed)
        counts["tests"] += 1
        counts["failures"] += outcome == "failure"
        counts["errors"] += outcome == "error"
        counts["skipped"] += outcome == "skipped"
        wall += _wall(prompt)
    suite.set("time", f"{wall:.3f}")
    for key in ("tests", "failures", "errors", "skipped"):
        suite.set(key, str(counts[key]))
    return counts


def _not_graded(root: ET.Element, doc: Mapping[str, Any], timestamp: str) -> dict[str, int]:
    """A testsuite with an ``<error>`` testcase per model folder the run did not grade, so CI
    marks the run; nothing when there is none."""
    skipped = skipped_of(doc)
    if not skipped:
        return {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    suite = ET.SubElement(root, "testsuite", name="not graded", timestamp=xml_text(timestamp),
                          tests=str(len(skipped)), failures="0", errors=str(len(skipped)), skipped="0",
                          time="0.000")
    for folder in skipped:
        case = ET.SubElement(suite, "testcase", classname=xml_text(f"rubricbench.{folder.get('tier')}"),
                             name=xml_text(folder.get("folder")), time="0.000")
        ET.SubElement(case, "error", type="not_graded",
                      message=xml_text(f"model folder not graded: {folder.get('reason')}"))
    return {"tests": len(skipped), "failures": 0, "errors": len(skipped), "skipped": 0}


def render_junit(doc: Mapping[str, Any]) -> str:
    """The whole junit.xml document (UTF-8 text with an XML declaration)."""
    root = ET.Element("testsuites", name="RubricBench")
    run = doc.get("benchmark_run") if isinstance(doc.get("benchmark_run"), Mapping) else {}
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for name, model in by_percentage(doc):
        counts = _suite(root, name, model, str(run.get("timestamp", "")))
        totals = {key: totals[key] + counts[key] for key in totals}
    counts = _not_graded(root, doc, str(run.get("timestamp", "")))
    totals = {key: totals[key] + counts[key] for key in totals}
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
