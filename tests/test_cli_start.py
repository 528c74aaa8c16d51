"""The CLI detects the kernel mechanisms before the run starts its threads (the probes fork
without exec: a lock another thread holds at that moment would stay held in the child); the
zygote and the pool's server start first, so their start-up overlaps the detection."""

import threading

import pytest

from benchmark import cli, commands
from benchmark.engine import pool_server
from benchmark.sandbox import isolation, spawner


@pytest.fixture
def order(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # (./results: a cache of its own, empty)
    seen: list[str] = []
    before = set(threading.enumerate())

    def detect():  # (a thread of an earlier test may end meanwhile: only new threads count)
        seen.append("detect with a new thread" if set(threading.enumerate()) - before else "detect")

    monkeypatch.setattr(isolation, "detect", detect)
    monkeypatch.setattr(spawner, "prestart", lambda: seen.append("zygote"))
    monkeypatch.setattr(pool_server, "prestart", lambda: seen.append("pool server"))
    monkeypatch.setattr(commands, "run", lambda config, **kwargs: seen.append("run") or 0)
    return seen


@pytest.mark.parametrize("flag", ["--no-cache", "--require-isolation"])
def test_detection_comes_before_the_run_starts_any_thread(order, flag):
    assert cli.main(["--all-models", "-q", flag]) == 0
    assert order == ["zygote", "detect", "run"]


def test_a_run_the_cache_may_serve_leaves_detection_to_the_run(order):
    assert cli.main(["--all-models", "-q"]) == 0
    assert order == ["zygote", "run"]


def test_a_run_the_cache_may_serve_wholly_leaves_the_zygote_to_the_run(order, tmp_path):
    """With entries in the cache, the run starts its zygote only once it finds a model to grade
    (``local_plan``); --no-cache, --unsafe and --require-isolation runs start it first."""
    entries = tmp_path / "results" / ".cache" / "models"
    entries.mkdir(parents=True)
    (entries / ".partial.json.tmp").write_text("")  # (an entry being written is none yet)
    assert cli.main(["--all-models", "-q"]) == 0
    assert order == ["zygote", "run"]
    (entries / "0123abcd.json").write_text("{}")
    order.clear()
    assert cli.main(["--all-models", "-q"]) == 0
    assert order == ["run"]
    for flags in (["--no-cache"], ["--unsafe", "--trusted-model"], ["--require-isolation"]):
        order.clear()
        assert cli.main(["--all-models", "-q", *flags]) == 0
        assert order[0] == "zygote", flags


def test_a_run_that_grades_detects_before_it_starts_a_thread_of_its_own(tmp_path, monkeypatch):
    """Without --no-cache the run detects once it knows it will grade (the cache has no entry
    here), still before any thread but the zygote's reader (see ``cli._detect_first``)."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    shutil.copytree(root / "submissions/reference_implementations/example_model",
                    tmp_path / "submissions/reference_implementations/example_model")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(root / "test_data"))
    spawner.prestart()  # (its reader thread is there when the run detects, as in a real run)
    before = set(threading.enumerate())
    new_threads: list[list[str]] = []
    detect = isolation._detect

    def watched():
        new_threads.append(sorted(t.name for t in set(threading.enumerate()) - before))
        return detect()

    monkeypatch.setattr(isolation, "_SUPPORT", None)
    monkeypatch.setattr(isolation, "_detect", watched)
    assert cli.main(["--model", "example_model", "-q"]) == 0
    assert new_threads == [[]]


def test_with_a_pool_the_pool_server_starts_before_detection_too(order):
    assert cli.main(["--all-models", "-q", "--workers", "2", "--no-cache"]) == 0
    assert order == ["zygote", "pool server", "detect", "run"]


def test_unsafe_runs_detect_nothing(order):
    assert cli.main(["--all-models", "-q", "--unsafe", "--trusted-model"]) == 0
    assert order == ["zygote", "run"]


def test_saved_results_commands_start_nothing(order, monkeypatch):
    monkeypatch.setattr(commands, "saved_command", lambda args, config: order.append("saved") or 0)
    assert cli.main(["--report-only", "results.json"]) == 0
    assert order == ["saved"]
