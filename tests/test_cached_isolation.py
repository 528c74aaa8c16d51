"""A run served wholly from the cache measures nothing of the machine and reports what the run
that graded under the same kernel profile measured; any other run detects and probes as always."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.engine.cache import Measured, ResultCache
from benchmark.sandbox import isolation, sandbox_report, spawner

from trees import REFERENCE, reference_tree


@pytest.fixture
def tree(tmp_path, monkeypatch):
    return reference_tree(tmp_path, monkeypatch)


@pytest.fixture
def counted(monkeypatch):
    """Counts of kernel detections and isolation probes made from now on (detection is
    forgotten first: it is cached per process)."""
    counts = {"detect": 0, "probe": 0}
    detect, probe = isolation._detect, sandbox_report.measured_isolation

    def counting_detect():
        counts["detect"] += 1
        return detect()

    def counting_probe(runner):
        counts["probe"] += 1
        return probe(runner)

    monkeypatch.setattr(isolation, "_SUPPORT", None)
    monkeypatch.setattr(isolation, "_detect", counting_detect)
    monkeypatch.setattr(sandbox_report, "measured_isolation", counting_probe)
    return counts


def _run(*args: str) -> int:
    """One CLI run, as in a new process (kernel detection is cached per process)."""
    isolation._SUPPORT = None  # (the fixture restores it)
    return cli.main(list(args))


def _doc(tree: Path) -> dict:
    return json.loads((tree / "results/latest_results.json").read_text())


def _record(tree: Path) -> Path:
    [record] = (tree / "results/.cache/isolation").iterdir()
    return record


def test_a_run_served_wholly_from_the_cache_reports_what_the_grading_run_measured(tree, counted):
    assert _run("--model", "example_model", "-q") == 0
    graded = _doc(tree)
    assert counted == {"detect": 1, "probe": 1} and "isolation_source" not in graded["_metadata"]
    assert graded["_metadata"]["isolation"]["network_probe"]["with_guard"].startswith("blocked")

    assert _run("--model", "example_model", "-q") == 0
    served = _doc(tree)
    assert counted == {"detect": 1, "probe": 1}  # nothing detected or probed again
    assert served["models"]["example_model"]["cached"] is True
    assert served["_metadata"]["isolation"] == graded["_metadata"]["isolation"]
    source = served["_metadata"]["isolation_source"]
    assert source["measured_by_run"] == graded["run_id"]
    assert source["measured_at"] == graded["_metadata"]["timestamp_utc"]
    record = json.loads(_record(tree).read_text())
    assert record["kernel"] == asdict(isolation.detect())  # the profile the entries' keys hold


def test_a_served_run_says_under_its_banner_whose_measure_the_banner_is(tree, counted, capsys):
    assert _run("--model", "example_model") == 0
    graded = _doc(tree)
    assert "every model comes from the cache" not in capsys.readouterr().out
    assert _run("--model", "example_model") == 0
    out = capsys.readouterr().out
    assert "RubricBench isolation status" in out
    assert (f"every model comes from the cache and nothing runs: the isolation above is what run "
            f"{graded['run_id']} measured at {graded['_metadata']['timestamp_utc']}") in out


def _reports(tree: Path) -> dict[str, str]:
    folder = tree / "results" / _doc(tree)["run_id"]
    return {name: (folder / name).read_text(encoding="utf-8")
            for name in ("summary_report.txt", "report.html", "summary.md")}


def test_every_report_of_a_served_run_names_the_run_that_measured_its_isolation(tree, counted):
    assert _run("--model", "example_model", "-q") == 0
    graded = _doc(tree)
    for name, report in _reports(tree).items():  # a grading run's own measure: no other run named
        assert "not by this run" not in report, name
    assert "Isolation (as measured at run time):" in _reports(tree)["summary_report.txt"]

    assert _run("--model", "example_model", "-q") == 0
    origin = f"measured by run {graded['run_id']} at {graded['_metadata']['timestamp_utc']}, not by this run"
    reports = _reports(tree)
    assert f"Isolation ({origin}: every model came from the cache" in reports["summary_report.txt"]
    assert "as measured at run time" not in reports["summary_report.txt"]
    assert f"Isolation layers ({origin}: every model came from the cache" in reports["report.html"]
    assert "(measured at run time)" not in reports["report.html"]
    assert f"(isolation {origin.replace('_', chr(92) + '_')}" in reports["summary.md"]


def test_a_served_run_starts_no_zygote(tree, counted):
    assert _run("--model", "example_model", "-q") == 0
    graded = spawner.get()
    graded.close()  # as in a new process: a run that grades starts a zygote of its own
    assert _run("--model", "example_model", "-q") == 0
    assert _doc(tree)["models"]["example_model"]["cached"] is True
    assert spawner._current is graded and not graded.alive


def test_a_served_run_ends_a_zygote_started_before_it_without_using_it(tree, counted):
    assert _run("--model", "example_model", "-q") == 0
    spawner.get().close()
    spawner.prestart()  # (started by whoever called the run, in case a model had to be graded)
    assert _run("--model", "example_model", "-q") == 0
    zygote = spawner._current
    assert _doc(tree)["models"]["example_model"]["cached"] is True
    assert not zygote.used and zygote.closed == "discarded unused"
    deadline = time.monotonic() + 10
    while zygote.process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert zygote.process.poll() is not None  # killed


def test_a_run_with_one_model_not_cached_detects_and_measures_again(tree, counted):
    assert _run("--model", "example_model", "-q") == 0
    record = _record(tree)
    stale = json.loads(record.read_text())
    stale["isolation"]["network_probe"]["with_guard"] = "a stale marker"
    record.write_text(json.dumps(stale))
    shutil.copytree(REFERENCE, tree / "submissions/reference_implementations/copy_model")

    assert _run("--all-models", "-q") == 0
    doc = _doc(tree)
    assert counted == {"detect": 2, "probe": 2}
    assert {name: model["cached"] for name, model in doc["models"].items()} == {
        "copy_model": False, "example_model": True}
    assert "isolation_source" not in doc["_metadata"]
    assert doc["_metadata"]["isolation"]["network_probe"]["with_guard"] != "a stale marker"
    assert json.loads(record.read_text())["run_id"] == doc["run_id"]  # this run's measure replaced it


def test_a_record_of_another_kernel_profile_is_never_reported(tree, counted):
    """The keys then hold a profile this machine does not have: every lookup misses, the
    kernel is detected, and the entries graded under the detected profile are served."""
    assert _run("--model", "example_model", "-q") == 0
    record = _record(tree)
    other = json.loads(record.read_text())
    other["kernel"]["seccomp"] = not other["kernel"]["seccomp"]
    other["isolation"]["network_probe"]["with_guard"] = "another machine"
    record.write_text(json.dumps(other))

    assert _run("--model", "example_model", "-q") == 0
    doc = _doc(tree)
    assert counted == {"detect": 2, "probe": 2}
    assert doc["models"]["example_model"]["cached"] is True
    assert "isolation_source" not in doc["_metadata"]
    assert doc["_metadata"]["isolation"]["network_probe"]["with_guard"] != "another machine"


@pytest.mark.parametrize("flag", ["--no-cache", "--require-isolation"])
def test_no_cache_and_require_isolation_always_measure(tree, counted, flag):
    assert _run("--model", "example_model", "-q") == 0
    code = _run("--model", "example_model", "-q", flag)
    assert counted == {"detect": 2, "probe": 2}
    if code == 0:  # (--require-isolation exits 1 on a machine without every layer)
        assert "isolation_source" not in _doc(tree)["_metadata"]


def _measured() -> Measured:
    kernel = asdict(isolation.KernelSupport(True, True, True, 6, True, {"x": "why"},
                                            ipc_namespace=True, private_root=False, pids_cgroup=True))
    report = {"process": {"status": "applied"}, "kernel": {"status": "applied"},
              "guard": {"status": "applied"}, "network": "blocked by the kernel and the guard",
              "unsafe": False, "network_probe": {"kernel_layer": "blocked", "with_guard": "blocked"}}
    return Measured(kernel, report, "20260101T000000Z-abcdef", "2026-01-01T00:00:00Z")


def test_a_record_reads_back_as_written(tmp_path):
    cache = ResultCache(tmp_path)
    assert cache.measured("ctx") is None
    cache.record_measured("ctx", _measured())
    assert cache.measured("ctx") == _measured() and cache.measured("other") is None


@pytest.mark.parametrize("spoil", [
    lambda item: item["kernel"].update(seccomp=1),  # not a bool
    lambda item: item["kernel"].update(landlock_abi=True),
    lambda item: item["kernel"].pop("pids_cgroup"),
    lambda item: item["kernel"].update(extra=False),
    lambda item: item["isolation"].update(unsafe=True),
    lambda item: item["isolation"].pop("network_probe"),
    lambda item: item["isolation"]["network_probe"].update(with_guard=None),
    lambda item: item["isolation"].update(kernel="applied"),
    lambda item: item.update(run_id=7),
], ids=["flag-int", "abi-bool", "missing-field", "extra-field", "unsafe", "no-probe",
        "probe-not-text", "layer-not-dict", "run-id-not-text"])
def test_a_record_not_as_written_is_not_used(tmp_path, spoil):
    cache = ResultCache(tmp_path)
    cache.record_measured("ctx", _measured())
    path = cache.measures / "ctx.json"
    item = json.loads(path.read_text())
    spoil(item)
    path.write_text(json.dumps(item))
    assert cache.measured("ctx") is None


@pytest.mark.parametrize("raw", [b"", b"{", b"\0" * 64, b'{"kernel": NaN}',
                                 '{"run_id": "\u202e"}'.encode()])
def test_an_unreadable_record_is_not_used(tmp_path, raw):
    cache = ResultCache(tmp_path)
    cache.measures.mkdir(parents=True)
    (cache.measures / "ctx.json").write_bytes(raw)
    assert cache.measured("ctx") is None
