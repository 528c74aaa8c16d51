"""The CLI detects the kernel mechanisms before the run starts its threads (the probes fork
without exec: a lock another thread holds at that moment would stay held in the child); the
zygote and the pool's server start first, so their start-up overlaps the detection."""

import threading

import pytest

from benchmark import cli, commands
from benchmark.engine import pool_server
from benchmark.sandbox import isolation, spawner


@pytest.fixture
def order(monkeypatch):
    seen: list[str] = []
    before = set(threading.enumerate())

    def detect():
        seen.append("detect" if set(threading.enumerate()) == before else "detect with a new thread")

    monkeypatch.setattr(isolation, "detect", detect)
    monkeypatch.setattr(spawner, "prestart", lambda: seen.append("zygote"))
    monkeypatch.setattr(pool_server, "prestart", lambda: seen.append("pool server"))
    monkeypatch.setattr(commands, "run", lambda config, **kwargs: seen.append("run") or 0)
    return seen


def test_detection_comes_before_the_run_starts_any_thread(order):
    assert cli.main(["--all-models", "-q"]) == 0
    assert order == ["zygote", "detect", "run"]


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
