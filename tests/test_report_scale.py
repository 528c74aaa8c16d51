"""``scripts/report_scale.py``: the documents it makes are valid results of many models, and
its section of docs/performance.md (and scripts/stop_time.py's) survives ``scripts/bench.py``
rewriting the file."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import report_scale  # noqa: E402
from benchmark.reporting.results_json import run_to_dict, validate_results  # noqa: E402
from result_fakes import make_model, make_run  # noqa: E402

SECTION = f"{report_scale.BEGIN}\n\n## report.html at scale\n\n| 3 | ... |\n\n{report_scale.END}\n"


def test_bench_keeps_the_report_scale_section_it_does_not_write():
    old = "# Performance\n\nold figures\n\n" + SECTION + "\n## after\n"
    new = "# Performance\n\nnew figures\n"
    kept = report_scale.keep(new, old)
    assert kept.startswith(new.rstrip("\n")) and SECTION.strip() in kept and "old figures" not in kept
    assert report_scale.keep(new, "# Performance\n\nno section\n") == new
    assert report_scale.keep(kept, old) == kept  # (again: in place, once)
    assert kept.count(report_scale.BEGIN) == 1


def test_bench_keeps_the_stop_time_section_too():
    stop = f"{report_scale.STOP_BEGIN}\n\n## Stopping a run\n\n0.10 s\n\n{report_scale.STOP_END}\n"
    kept = report_scale.keep("# Performance\n\nnew\n", "# Performance\n\nold\n\n" + SECTION + stop)
    assert SECTION.strip() in kept and stop.strip() in kept and "old" not in kept
    fresh = f"{report_scale.STOP_BEGIN}\nnewer\n{report_scale.STOP_END}\n"
    replaced = report_scale.splice(kept, fresh, report_scale.STOP_BEGIN, report_scale.STOP_END)
    assert "newer" in replaced and "0.10 s" not in replaced and SECTION.strip() in replaced


def test_splice_replaces_the_section_in_place():
    doc = "a\n" + SECTION + "b\n"
    fresh = f"{report_scale.BEGIN}\nnew\n{report_scale.END}\n"
    assert report_scale.splice(doc, fresh) == "a\n" + fresh + "b\n"
    assert report_scale.splice("a\n", fresh) == "a\n\n" + fresh


def test_made_up_documents_are_valid_runs_of_that_many_models():
    source = run_to_dict(make_run(make_model("strong", 0.95), make_model("weak", 0.3), make_model("mid", 0.7)))
    doc = report_scale.made_up(source, 40)
    assert len(doc["models"]) == 40 == doc["benchmark_run"]["total_models"] == len(doc["comparison"]["ranking"])
    for model in doc["models"].values():
        for prompt in model["prompts"].values():
            prompt.pop("denials", None)  # (until the schema holds the sandbox's denials)
    validate_results(doc)  # totals, grades and the comparison agree with the records
    assert len({m["overall_score"] for m in doc["models"].values()}) > 3  # prompts mixed: scores vary
