"""How report.html scales: build results documents of many models from real graded records,
write them through the real writer, open report.html in headless Chromium and measure.

The records come from one real run of five models (``example_model`` and
``tests/models/{strong,decent,weak,broken}_model``, graded into a temporary folder unless
``--source`` names a results.json). Each made-up model takes each prompt's record from one of
those models, chosen at random (seeded), so totals, ranks, ties and states vary as in a real
field; a few prompts are turned into the states a real run also produces (not attempted, timed
out, a sandbox denial), and the figures of the document (totals, grade, badge, comparison) are
recomputed with the grader's own functions, so the writer validates it as it does any run.

Prints, per size: size on disk of report.html (and of the whole run folder), DOM nodes, page
height with everything closed, and load time (median of 3 loads, ``load`` event), also as a
ratio to the baseline (the 3-model report) measured in the same run. With ``--write-doc`` the
table goes into docs/performance.md between the ``report-scale`` markers (``scripts/bench.py``
keeps that section when it rewrites the file).

    .venv/bin/python scripts/report_scale.py --sizes 3 300 3000 --baseline 72614d8 --write-doc

``--baseline REV`` measures the same documents with the reporting of commit REV too (checked
out into a temporary git worktree, run in a child process with its own browser).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GRADER = Path(os.environ.get("REPORT_SCALE_GRADER") or ROOT)  # whose reporting is measured (--baseline: another tree's)
sys.path.insert(0, str(GRADER))

from benchmark.scoring import compare_models, generate_badge, get_grade  # noqa: E402
from benchmark.reporting.writer import write_run  # noqa: E402

DOC = ROOT / "docs" / "performance.md"
BEGIN = "<!-- report-scale:begin (scripts/report_scale.py writes this section; bench.py keeps it) -->"
END = "<!-- report-scale:end -->"
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
SOURCES = {"reference_implementations": [ROOT / "submissions/reference_implementations/example_model"],
           "user_submissions": [ROOT / "tests/models" / f"{m}_model" for m in ("strong", "decent", "weak", "broken")]}
VENDORS = ["acme", "globex", "initech", "umbrella", "hooli", "vandelay", "stark", "wayne"]


def graded_source(work: Path) -> dict[str, Any]:
    """One real run of the five models (about 3 s), its results document."""
    subs = work / "submissions"
    for tier, folders in SOURCES.items():
        for folder in folders:
            shutil.copytree(folder, subs / tier / folder.name)
    env = {**os.environ, "RUBRICBENCH_TEST_DATA": str(ROOT / "test_data"), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, str(ROOT / "run_benchmark.py"), "--all-models", "-q", "--submissions-dir",
                    str(subs), "--results-dir", str(work / "results")], env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    return json.loads((work / "results" / "latest_results.json").read_text(encoding="utf-8"))


def _name(rng: random.Random, index: int) -> str:
    vendor = rng.choice(VENDORS)
    size = rng.choice(["7b", "13b", "70b", "mini", "large", "xl-instruct-preview-2026-11"])
    return f"{vendor}-{size}-{index:04d}"


def _vary(prompt: dict[str, Any], rng: random.Random) -> None:
    """Now and then a state a real run also gives (when the schema of this checkout holds it)."""
    roll = rng.random()
    if roll < 0.02 and prompt.get("execution"):
        prompt["execution"][0]["timed_out"] = True
        prompt["execution"][0]["killed_by"] = "timeout"
    elif roll < 0.04:
        prompt["denials"] = [{"kind": "network", "event": "socket.connect", "target": "203.0.113.7:443",
                              "count": 1, "where": "prompt_1_solution.py:12"}]


def made_up(source: dict[str, Any], count: int, seed: int = 30) -> dict[str, Any]:
    """A valid results document of ``count`` models built from ``source``'s records."""
    rng = random.Random(seed)
    records = list(source["models"].values())
    models: dict[str, Any] = {}
    hashes: dict[str, Any] = {}
    for index in range(count):
        base = copy.deepcopy(rng.choice(records))
        name = _name(rng, index)
        prompts = {pid: copy.deepcopy(rng.choice(records)["prompts"][pid]) for pid in base["prompts"]}
        for prompt in prompts.values():
            _vary(prompt, rng)
        score = round(sum(p["score"] for p in prompts.values()), 4)
        pct = round(100.0 * score / base["total_possible"], 4) if base["total_possible"] else 0.0
        base.update(model_name=name, prompts=prompts, overall_score=score, percentage=pct,
                    grade=get_grade(pct), badge=generate_badge(pct), cached=False,
                    tier=rng.choice(["reference_implementations", "user_submissions", "user_submissions"]))
        models[name] = base
        hashes[name] = next(iter(source["_metadata"].get("submission_hashes", {}).values()), {})
    doc = copy.deepcopy({k: v for k, v in source.items() if k != "models"})
    doc["run_id"] = f"scale-{count}"
    doc["models"] = models
    doc["benchmark_run"]["total_models"] = count
    doc["comparison"] = compare_models(models)
    doc["_metadata"]["submission_hashes"] = hashes
    try:  # each made-up model's own statistics and the field's significance, as a run writes them
        from benchmark.reporting.run_stats import add_statistics
    except ImportError:  # (a checkout before the statistics)
        for record in models.values():
            record.pop("statistics", None)
    else:
        add_statistics(doc, 20261121)
    return doc


DROPPED: list[str] = []  # fields this checkout's schema does not hold yet (said in the doc)


def _write(doc: dict[str, Any], results: Path) -> tuple[Path, float]:
    """Write through the real writer; ``denials``, when this checkout's schema does not hold
    it yet, is dropped (and the doc says so)."""
    try:
        started = time.perf_counter()
        paths = write_run(doc, results, update_latest=False)
    except ValueError as exc:
        if "'denials' was unexpected" not in str(exc):
            raise
        for model in doc["models"].values():
            for prompt in model["prompts"].values():
                prompt.pop("denials", None)
        DROPPED.append("denials")
        started = time.perf_counter()
        paths = write_run(doc, results, update_latest=False)
    return paths["report"], time.perf_counter() - started


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def measure(browser: Any, report: Path, loads: int = 3) -> dict[str, Any]:
    times = []
    for _ in range(loads):
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        started = time.perf_counter()
        page.goto(report.resolve().as_uri(), wait_until="load", timeout=600_000)
        times.append(time.perf_counter() - started)
        nodes = page.evaluate("document.getElementsByTagName('*').length")
        height = page.evaluate("document.documentElement.scrollHeight")
        page.close()
    return {"load_s": statistics.median(times), "nodes": nodes, "height": height}


def run(sizes: list[int], source: dict[str, Any], work: Path) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            for size in sizes:
                doc = made_up(source, size)
                report, write_s = _write(doc, work / f"r{size}")
                figures = measure(browser, report)
                rows.append({"models": size, "bytes": report.stat().st_size,
                             "folder_bytes": sum(p.stat().st_size for p in _pages(report.parent)),
                             "files": len(_pages(report.parent)), "write_s": write_s, "dropped": bool(DROPPED),
                             **figures})
                print(_line(rows[-1], rows[0]), flush=True)
        finally:
            browser.close()
    return rows


def baseline(rev: str, sizes: list[int], source: dict[str, Any], work: Path) -> tuple[str, list[dict[str, Any]]]:
    """The same sizes measured with commit ``rev``'s reporting, in a child process."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_trees import baseline_tree

    (work / "source.json").write_text(json.dumps(source), encoding="utf-8")
    with baseline_tree(rev, work) as tree:
        env = {**os.environ, "REPORT_SCALE_GRADER": str(tree.root), "PYTHONPATH": str(tree.root)}
        subprocess.run([sys.executable, __file__, "--source", str(work / "source.json"), "--json",
                        str(work / "baseline.json"), "--sizes", *map(str, sizes)], env=env, check=True, timeout=3600)
        return tree.label, json.loads((work / "baseline.json").read_text(encoding="utf-8"))


def _mb(value: int) -> str:
    return f"{value / 1e6:.2f} MB"


def _line(row: dict[str, Any], base: dict[str, Any]) -> str:
    return (f"{row['models']:>5} models: report.html {_mb(row['bytes'])}, {row['files']} page(s) "
            f"{_mb(row['folder_bytes'])} in all, {row['nodes']} DOM nodes, {row['height']} px tall, "
            f"load {row['load_s']:.3f} s ({row['load_s'] / base['load_s']:.1f}x the {base['models']}-model report), "
            f"written in {row['write_s']:.2f} s")


def _rows(rows: list[dict[str, Any]]) -> list[str]:
    base = rows[0]
    lines = ["| models | report.html | pages (all .html) | DOM nodes | page height, all closed | load | load / "
             f"{base['models']}-model report | write_run |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['models']} | {_mb(r['bytes'])} | {r['files']}, {_mb(r['folder_bytes'])} | {r['nodes']:,} "
                     f"| {r['height']:,} px | {r['load_s']:.3f} s | {r['load_s'] / base['load_s']:.1f}x "
                     f"| {r['write_s']:.2f} s |")
    return lines


def table(rows: list[dict[str, Any]], commit: str, before: tuple[str, list[dict[str, Any]]] | None) -> str:
    sizes = " ".join(str(r["models"]) for r in rows)
    checkouts = [(commit, not any(r.get("dropped") for r in rows))]
    checkouts += [(before[0], not any(r.get("dropped") for r in before[1]))] if before else []
    lines = [BEGIN, "", "## report.html at scale", "",
             f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPUs, "
             f"Python {platform.python_version()}, Chromium headless; grader at commit {commit}. Reproduce with:", "",
             "```sh", f".venv/bin/python scripts/report_scale.py --sizes {sizes}"
             + (f" --baseline {before[0]}" if before else "") + " --write-doc", "```", "", *_rows(rows)]
    if before:
        lines += ["", f"The same documents with the reporting of commit {before[0]} (one page, a bar per model and "
                      "prompt, every drill-down inline):", "", *_rows(before[1])]
    lines += ["", "- The documents are made from one real run of five models (`example_model`, "
              "`tests/models/{strong,decent,weak,broken}_model`): each model takes each prompt's record from one of "
              "them at random (seeded), 2% of prompts time out and 2% carry a sandbox denial; totals, grades and the "
              "comparison are recomputed by the grader's functions and the writer validates the document"
              + (" (where the schema of the commit measured does not hold a prompt's `denials` yet, "
                 "they were left out: " + ", ".join(sorted(label for label, kept in checkouts if not kept)) + ")."
                 if not all(kept for _, kept in checkouts) else "."),
              "- Load: median of 3 loads of `report.html` from disk to the `load` event, in one browser; DOM nodes: "
              "elements; height: `scrollHeight` at 1366 px wide with every drill-down closed (and the leaderboard's "
              "script listing its first 100 rows, where there is one).",
              "- pages: report.html and the per-model pages written beside it (`models/`), and their size in all; "
              "write_run: the writer's whole call (validation, every report, every page, fsyncs).",
              "", END]
    return "\n".join(lines) + "\n"


# The sections of docs/performance.md other scripts write, each between its markers, which
# bench.py keeps when it rewrites the file: this script's, and scripts/stop_time.py's
STOP_BEGIN = "<!-- stop-time:begin (scripts/stop_time.py writes this section; bench.py keeps it) -->"
STOP_END = "<!-- stop-time:end -->"
KEPT = ((BEGIN, END), (STOP_BEGIN, STOP_END))


def splice(doc_text: str, section: str, begin: str = BEGIN, end: str = END) -> str:
    """``doc_text`` with its section between ``begin`` and ``end`` (the report-scale one by
    default) replaced by ``section`` (appended when absent)."""
    if begin in doc_text and end in doc_text:
        head, rest = doc_text.split(begin, 1)
        return head + section.rstrip("\n") + rest.split(end, 1)[1]
    return doc_text.rstrip("\n") + "\n\n" + section


def keep(new_doc: str, old_doc: str) -> str:
    """``new_doc`` (``scripts/bench.py``'s whole performance.md) with each section of
    ``old_doc`` (the file it replaces) that another script writes (``KEPT``) kept, where it was
    or at the end."""
    for begin, end in KEPT:
        if begin in old_doc and end in old_doc:
            section = begin + old_doc.split(begin, 1)[1].split(end, 1)[0] + end + "\n"
            new_doc = splice(new_doc, section, begin, end)
    return new_doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 300, 3000])
    parser.add_argument("--source", type=Path, help="a results.json to take the records from")
    parser.add_argument("--write-doc", action="store_true", help=f"write the figures into {DOC.relative_to(ROOT)}")
    parser.add_argument("--baseline", metavar="REV", help="measure commit REV's reporting too")
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)  # (the baseline's child: its rows)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="report-scale-") as tmp:
        work = Path(tmp)
        source = json.loads(args.source.read_text(encoding="utf-8")) if args.source else graded_source(work)
        rows = run(args.sizes, source, work)
        if args.json:
            args.json.write_text(json.dumps(rows), encoding="utf-8")
        before = baseline(args.baseline, args.sizes, source, work) if args.baseline else None
    if before:
        print(f"baseline {before[0]}:")
        for row in before[1]:
            print(_line(row, before[1][0]))
    if args.write_doc:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip() or "?"
        DOC.write_text(splice(DOC.read_text(encoding="utf-8"), table(rows, commit, before)), encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
