"""Grading on a Dask cluster (benchmark/cluster, docs/cluster.md): one module-scoped
LocalCluster of two worker processes, closed explicitly, and a leak check at teardown."""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402
import psutil  # noqa: E402

from benchmark.cluster.preflight import REFUSE_ENV  # noqa: E402
from benchmark.cluster.session import ClusterSession  # noqa: E402
from benchmark.cluster.spec import ClusterSpec, address_problem, is_loopback  # noqa: E402
from benchmark.cluster.worker import grade_unit  # noqa: E402
from benchmark.engine.cache import ResultCache  # noqa: E402
from benchmark.engine.options import GradeOptions, has_internal_error  # noqa: E402
from benchmark.reporting.results_json import model_to_dict  # noqa: E402
from benchmark.runner import BenchmarkRunner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from check_parallel import differences, normalise  # noqa: E402

SOURCES = [ROOT / "submissions" / "reference_implementations" / "example_model",
           *sorted((ROOT / "tests" / "models").iterdir())]
PACK = ROOT / "examples" / "data_pack"


@pytest.fixture(scope="module")
def cluster():
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                         host="127.0.0.1", dashboard_address=None)
    try:
        yield local
    finally:
        local.close()
        deadline = time.monotonic() + 15
        while True:
            left = _left_over(before)
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert not left, f"processes left over: {[(p.pid, p.cmdline()[:3]) for p in left]}"


def _ours() -> set[int]:
    """This process's own zygote and bandit server (the local runs here start them)."""
    from benchmark.sandbox import bandit_process, spawner

    found = set()
    for pid in spawner.protected_pids() | {bandit_process.pid()} - {None}:
        try:
            found |= {c.pid for c in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]}
        except psutil.NoSuchProcess:
            pass
    return found


def _left_over(before: set[int]) -> list[psutil.Process]:
    """Live descendants of this process that are not ours and were not there ``before`` (but
    for multiprocessing's resource tracker); one that ends while we look is not left over."""
    left = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if (proc.pid not in before | _ours() and proc.status() != psutil.STATUS_ZOMBIE
                    and "resource_tracker" not in " ".join(proc.cmdline())):
                left.append(proc)
        except psutil.NoSuchProcess:
            pass
    return left


@pytest.fixture()
def session(cluster):
    with ClusterSession(ClusterSpec(address=cluster.scheduler_address)) as opened:
        yield opened


@pytest.fixture(scope="module")
def submissions(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster-models") / "submissions"
    for source in SOURCES:
        shutil.copytree(source, root / "user_submissions" / source.name)
    return root


def _runner(submissions, results, **kwargs) -> BenchmarkRunner:
    return BenchmarkRunner(submissions_dir=submissions, results_dir=results,
                           options=GradeOptions(), **kwargs)


def _docs(models) -> list:
    return normalise([model_to_dict(m) for m in models])


def _kills_its_worker(unit, expected):
    """A test task: the unit named ``killer`` kills the worker process grading it."""
    if unit["name"] == "killer":
        os.kill(os.getpid(), 9)
    return grade_unit(unit, expected)


def _hangs_past_its_deadline(unit, expected, hang_s: float):
    """A test task: the unit named ``hung`` sits on its worker for ``hang_s``, well past the
    deadline (had it been waited for, its result would be this dict; bounded, so its worker
    frees up again)."""
    if unit["name"] == "hung":
        time.sleep(hang_s)
        return {"model": "hung", "late": True}
    return grade_unit(unit, expected)


def test_cluster_results_are_identical_to_a_local_run(session, submissions, tmp_path):
    runner = _runner(submissions, tmp_path)
    entries = sorted(runner.discover().values(), key=lambda e: e.name)
    rows = session.admit(runner.test_data, runner.options)
    assert [row["admitted"] for row in rows] == [True, True], rows
    remote, _ = runner.grade(entries, cluster=session)
    local, _ = runner.grade(entries, workers=1)
    assert session.submitted == len(entries) == 5
    assert differences(_docs(remote), _docs(local)) == []


def test_samples_are_units_on_the_cluster_and_come_back_as_their_model_s(session, tmp_path):
    from benchmark.cluster_command import mark_graded_by
    from benchmark.runner import expand_samples
    from benchmark.sampling import combine

    model = tmp_path / "submissions" / "user_submissions" / "sampled"
    shutil.copytree(SOURCES[0], model / "samples" / "1")
    shutil.copytree(ROOT / "tests" / "models" / "weak_model", model / "samples" / "2")
    runner = _runner(tmp_path / "submissions", tmp_path)
    units, refused = expand_samples(list(runner.discover().values()))
    assert refused == [] and [u.unit for u in units] == ["sampled/samples/1", "sampled/samples/2"]
    session.admit(runner.test_data, runner.options)
    remote, _ = runner.grade(units, cluster=session)
    local, _ = runner.grade(units, workers=1)
    assert [(r.model, r.sample) for r in remote] == [("sampled", "1"), ("sampled", "2")]
    assert differences(_docs(remote), _docs(local)) == []
    doc = {"models": {"sampled": model_to_dict(combine(remote)[0])}}
    mark_graded_by(doc, session)
    assert set(session.graded_by) == {"sampled/samples/1", "sampled/samples/2"}
    assert all("graded_by" in s for s in doc["models"]["sampled"]["samples"].values())
    assert "graded_by" not in doc["models"]["sampled"]


def test_a_pack_graded_on_the_cluster_equals_the_local_result(session, tmp_path):
    submissions = tmp_path / "submissions"
    model = submissions / "user_submissions" / "pack_model"
    shutil.copytree(SOURCES[0], model)
    for task in ("sales_report", "slugify"):
        for file in (PACK / task / "reference").iterdir():
            (model / "data_pack").mkdir(exist_ok=True)
            shutil.copy(file, model / "data_pack" / file.name)
    runner = _runner(submissions, tmp_path / "results", packs=(str(PACK),))
    rows = session.admit(runner.test_data, runner.options, runner.suite(), runner.core)
    assert all(row["admitted"] for row in rows), rows
    entries = list(runner.discover().values())
    remote, _ = runner.grade(entries, cluster=session)
    local, _ = runner.grade(entries)
    assert {p.prompt_id for p in remote[0].prompts} >= {"data_pack.slugify", "data_pack.sales_report"}
    assert differences(_docs(remote), _docs(local)) == []


def test_cached_units_are_not_submitted_and_one_changed_byte_regrades_one_model(session, submissions, tmp_path):
    runner = _runner(submissions, tmp_path)
    entries = sorted(runner.discover().values(), key=lambda e: e.name)
    session.admit(runner.test_data, runner.options)
    cache = ResultCache(tmp_path)
    first, cached = runner.grade(entries, cache=cache, cluster=session)
    assert cached == set() and session.submitted == 5
    again, cached = runner.grade(entries, cache=cache, cluster=session)
    assert cached == {e.name for e in entries} and session.submitted == 5
    assert differences(_docs(first), _docs(again)) == []
    changed = tmp_path / "changed"
    shutil.copytree(submissions, changed)
    target = changed / "user_submissions" / "weak_model" / "prompt_3_transform.py"
    target.write_bytes(target.read_bytes() + b"\n")
    moved = [e.__class__(e.name, e.tier, changed / e.tier / e.name) for e in entries]
    _, cached = runner.grade(moved, cache=cache, cluster=session)
    assert session.submitted == 6 and cached == {e.name for e in entries} - {"weak_model"}


def test_a_refused_worker_gets_no_units_and_says_why(cluster, session, submissions, tmp_path):
    os.environ[REFUSE_ENV] = "1"  # inherited by the worker process started next only
    try:
        cluster.scale(3)
        session.client.wait_for_workers(3, timeout=60)
    finally:
        del os.environ[REFUSE_ENV]
    try:
        runner = _runner(submissions, tmp_path)
        rows = session.admit(runner.test_data, runner.options)
        refused = [row for row in rows if not row["admitted"]]
        assert len(rows) == 3 and len(refused) == 1
        assert REFUSE_ENV in refused[0]["reason"]
        entries = sorted(runner.discover().values(), key=lambda e: e.name)
        from benchmark.cluster.units import make_unit

        units = [make_unit(e.name, e.tier, f"where-{e.name}-{time.time_ns()}", e.path,
                           [n for p in __import__("benchmark.rubric").rubric.RUBRIC for n in p.files])
                 for e in entries]
        seen = {}
        session.grade(units, deadline_s=120,
                      on_result=lambda unit, result: seen.__setitem__(unit["name"], result))
        assert sorted(seen) == sorted(session.graded_by) == [e.name for e in entries]
        assert not any(has_internal_error(result) for result in seen.values()), seen
        assert refused[0]["address"] not in {w["address"] for w in session.graded_by.values()}
    finally:
        cluster.scale(2)  # removes the worker added last: the refused one
        deadline = time.monotonic() + 30
        while len(session.client.scheduler_info()["workers"]) > 2 and time.monotonic() < deadline:
            time.sleep(0.2)


def test_a_worker_whose_profile_no_longer_matches_refuses_the_unit(session, submissions, tmp_path):
    runner = _runner(submissions, tmp_path)
    session.admit(runner.test_data, runner.options)
    session.expected = {**session.expected, "kernel_profile": {"landlock_abi": -1}}
    entry = runner.discover()["example_model"]
    from benchmark.cluster.units import make_unit

    seen = []
    session.grade([make_unit(entry.name, entry.tier, f"guard-{time.time_ns()}", entry.path, ["x.py"])],
                  deadline_s=60, on_result=lambda unit, result: seen.append(_reason(result)))
    assert len(seen) == 1 and "failed on 2 worker(s)" in seen[0], seen  # (tried on both: each refused)
    assert seen[0].count("refused on the worker") == 2 and "kernel profile" in seen[0], seen
    assert session.retried == 1 and not session.graded_by


def _grade_beside_example(session, submissions, tmp_path, name: str, task, deadline_s: float):
    """Units ``name`` and ``example_model`` (both the example's files) graded by ``task``:
    (the units, each name's outcome, the seconds ``session.grade`` took)."""
    runner = _runner(submissions, tmp_path)
    session.admit(runner.test_data, runner.options)
    entry = runner.discover()["example_model"]
    from benchmark.cluster.units import make_unit

    files = [n for p in __import__("benchmark.rubric").rubric.RUBRIC for n in p.files]
    units = [make_unit(unit, entry.tier, f"{unit}-{time.time_ns()}", entry.path, files)
             for unit in (name, "example_model")]
    seen = {}
    started = time.monotonic()
    session.grade(units, deadline_s=deadline_s, task=task,
                  on_result=lambda unit, result: seen.__setitem__(unit["name"], result))
    return units, seen, time.monotonic() - started


def _reason(result) -> str:
    """The reason an error record gives (every task of it says the same)."""
    assert all(p.status == "error" for p in result.prompts), result
    return result.prompts[0].error


def test_a_unit_that_keeps_killing_its_worker_is_recorded_and_the_others_are_graded(session, submissions, tmp_path):
    units, seen, _ = _grade_beside_example(session, submissions, tmp_path, "killer", _kills_its_worker, 120)
    assert not has_internal_error(seen["example_model"]), seen["example_model"]
    assert "worker lost" in _reason(seen["killer"])
    assert has_internal_error(seen["killer"]) and seen["killer"].score == 0
    assert session.retried == 0  # (Dask moved it after each death: not tried again on top)
    session.client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


def _cli(*args, cwd=ROOT, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "run_benchmark.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_cli_on_an_owned_local_cluster_matches_a_local_run(submissions, tmp_path):
    pooled = _cli("-q", "--workers", "1", "--submissions-dir", str(submissions),
                  "--results-dir", str(tmp_path / "pool"))
    clustered = _cli("-q", "--cluster", "local:2", "--submissions-dir", str(submissions),
                     "--results-dir", str(tmp_path / "cluster"))
    assert clustered.returncode == pooled.returncode, clustered.stderr
    docs = [json.loads((tmp_path / d / "latest_results.json").read_text()) for d in ("pool", "cluster")]
    assert docs[1]["_metadata"]["config"]["cluster"] == {"cluster": "local:2"}
    assert [w["admitted"] for w in docs[1]["_metadata"]["workers"]] == [True, True]
    workers = {w["address"] for w in docs[1]["_metadata"]["workers"]}
    assert all(a.startswith("tls://127.0.0.1:") for a in workers), workers  # (local:N is TLS)
    assert {m["graded_by"]["address"] for m in docs[1]["models"].values()} <= workers
    assert sum(w.get("graded", 0) for w in docs[1]["_metadata"]["workers"]) == len(docs[1]["models"])
    assert "kernel_profile" not in docs[0]["_metadata"]  # a local run's record is unchanged
    profile = docs[1]["_metadata"].pop("kernel_profile")
    assert profile["user_namespaces"] is True  # what the admitted workers share
    assert differences(normalise(docs[0]), normalise(docs[1])) == []


def test_no_admitted_worker_exits_1_before_grading(cluster, submissions, tmp_path, monkeypatch, capsys):
    from benchmark import cli
    from benchmark.cluster import session as session_module

    real = session_module.identity
    monkeypatch.setattr(session_module, "identity", lambda *a: {**real(*a), "grader": "0.0.0-other"})
    code = cli.main(["--scheduler", cluster.scheduler_address, "--submissions-dir", str(submissions),
                     "--results-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert "grader identity differs" in err and "no worker was admitted" in err
    assert not (tmp_path / "latest_results.json").exists()


def test_a_normal_run_never_imports_dask(tmp_path):
    code = ("import sys; from benchmark.cli import main; "
            f"rc = main(['-q', '--model', 'example_model', '--results-dir', {str(tmp_path)!r}]); "
            "print(rc, sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', "
            "'benchmark') and (m.startswith(('dask', 'distributed')) or 'cluster' in m)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.split(None, 1) == ["0", "[]\n"], out.stderr


@pytest.mark.parametrize("flags, message", [
    (["--unsafe", "--trusted-model", "--cluster", "local:2"], "--unsafe cannot be used with a cluster"),
    (["--allow-network", "--cluster", "local:2"], "--allow-network cannot be used with a cluster"),
    (["--scheduler", "tcp://10.1.2.3:8786"], "plain tcp:// is accepted only on loopback"),
    (["--scheduler", "tls://10.1.2.3:8786"], "tls:// needs --tls-ca, --tls-cert and --tls-key"),
])
def test_refused_cluster_options_exit_1_without_grading(flags, message, tmp_path):
    out = _cli("--model", "example_model", "--results-dir", str(tmp_path), *flags)
    assert out.returncode == 1 and message in out.stderr, out.stderr
    assert not (tmp_path / "latest_results.json").exists()


def test_workers_and_a_cluster_flag_cannot_be_combined():
    out = _cli("--workers", "2", "--cluster", "local:2")
    assert out.returncode == 2 and "cannot be combined" in out.stderr


def test_only_loopback_may_use_plain_tcp():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("10.0.0.1") and not is_loopback("sched.example")
    assert address_problem("tcp://127.0.0.1:8786", False) is None
    assert address_problem("127.0.0.1:8786", False) is None
    assert address_problem("tcp://[::1]:8786", False) is None
    assert "only on loopback" in address_problem("tcp://sched.example:8786", False)
    assert address_problem("tls://sched.example:8786", True) is None
    assert "only tcp:// (loopback) and tls://" in address_problem("ws://127.0.0.1:8786", True)


def test_tls_security_objects_work_when_cryptography_is_installed():
    pytest.importorskip("cryptography")
    security = distributed.security.Security.temporary()
    assert security.require_encryption


def test_fixture_folders_of_dead_workers_are_swept_at_the_next_admission(tmp_path, monkeypatch):
    from benchmark.cluster import worker

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = tmp_path / f"rb-fixtures-res-p{gone.pid}-abc"
    alive = tmp_path / f"rb-fixtures-res-p{os.getpid()}-def"
    other = tmp_path / f"rb-fixtures-other-p{gone.pid}-ghi"
    for folder in (dead, alive, other):
        (folder / "fixtures").mkdir(parents=True)
    assert worker.sweep_stale_fixtures("res") == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, other.name])


def test_a_unit_past_its_deadline_is_cancelled_and_recorded_and_the_others_are_graded(session, submissions,
                                                                                      tmp_path):
    # The deadline must hold a real grading of the example on this machine (on CI's 2 slow
    # cores a fixed 1 s cancelled the example too), so it is three times one measured here,
    # and the hung unit sits well past it.
    _, alone, took = _grade_beside_example(session, submissions, tmp_path / "alone", "also_example",
                                           grade_unit, 120)
    assert not has_internal_error(alone["example_model"]), alone["example_model"]
    deadline_s = float(math.ceil(3 * took))
    hang_s = 2 * deadline_s + 3
    units, seen, _ = _grade_beside_example(session, submissions, tmp_path / "hung", "hung",
                                        functools.partial(_hangs_past_its_deadline, hang_s=hang_s), deadline_s)
    assert not has_internal_error(seen["example_model"]), seen["example_model"]
    reason = _reason(seen["hung"])  # tried on both workers, late on each
    late = f"no result within {deadline_s:g} s of starting on a worker (cancelled)"
    assert reason.count(late) == 2, reason
    assert has_internal_error(seen["hung"]) and seen["hung"].score == 0
    free_by = time.monotonic() + hang_s + 30  # the hung task's worker frees up for the next test
    while any(session.client.processing().values()) and time.monotonic() < free_by:
        time.sleep(0.2)


def _tls_files(folder: Path) -> Path:
    """A fresh CA and its scheduler, worker and client certificates for 127.0.0.1, made by the
    recipes' own script (scripts/make_cluster_certs.py), as an operator would make them."""
    import make_cluster_certs

    make_cluster_certs.write_cluster_certs(folder, ["127.0.0.1", "localhost"])
    return folder


def test_the_cli_grades_over_mutual_tls_and_a_client_of_another_ca_is_refused(submissions, tmp_path):
    """A scheduler and a worker that speak only tls:// with certificates of a fresh CA: the
    command line, given that CA and a certificate it signed, grades exactly as a local run;
    given a certificate of another CA, the handshake fails and the run exits 1, grading nothing."""
    pytest.importorskip("cryptography")
    certs, other = _tls_files(tmp_path / "certs"), _tls_files(tmp_path / "stranger")
    security = distributed.security.Security(
        tls_ca_file=str(certs / "ca.pem"), tls_scheduler_cert=str(certs / "scheduler.pem"),
        tls_scheduler_key=str(certs / "scheduler.key"), tls_worker_cert=str(certs / "worker.pem"),
        tls_worker_key=str(certs / "worker.key"), tls_client_cert=str(certs / "client.pem"),
        tls_client_key=str(certs / "client.key"), require_encryption=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    local = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     protocol="tls://", security=security, dashboard_address=":0")
    try:
        address = local.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        tls = ["--tls-ca", str(certs / "ca.pem"), "--tls-cert", str(certs / "client.pem"),
               "--tls-key", str(certs / "client.key")]
        clustered = _cli("-q", "--scheduler", address, *tls, "--submissions-dir", str(submissions),
                         "--results-dir", str(tmp_path / "tls"))
        local_run = _cli("-q", "--workers", "1", "--submissions-dir", str(submissions),
                         "--results-dir", str(tmp_path / "local"))
        assert clustered.returncode == local_run.returncode, clustered.stderr[-2000:]
        docs = [json.loads((tmp_path / d / "latest_results.json").read_text()) for d in ("local", "tls")]
        assert [w["admitted"] for w in docs[1]["_metadata"]["workers"]] == [True]
        docs[1]["_metadata"].pop("kernel_profile")
        assert differences(normalise(docs[0]), normalise(docs[1])) == []

        stranger = ["--tls-ca", str(certs / "ca.pem"), "--tls-cert", str(other / "client.pem"),
                    "--tls-key", str(other / "client.key")]
        refused = _cli("-q", "--scheduler", address, *stranger, "--submissions-dir", str(submissions),
                       "--results-dir", str(tmp_path / "stranger"))
        assert refused.returncode == 1, refused.stderr[-2000:]
        assert "cannot use the cluster" in refused.stderr and "SSL" in refused.stderr, refused.stderr[-2000:]
        assert not (tmp_path / "stranger" / "latest_results.json").exists()
    finally:
        local.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            left = _left_over(before)
            if not left:
                break
            time.sleep(0.2)


# ---- faults: workers that fail after admission, drift, late joiners, losing the cluster ----

@contextmanager
def _extra_worker(cluster, session, first_on_path: Path | None = None, **env):
    """One more worker process, started with ``env`` added to its environment (and
    ``first_on_path`` first on its sys.path, which multiprocessing copies from this
    process's at the start); yields its address and removes it again (the worker added last
    goes first)."""
    before = set(session.client.scheduler_info(n_workers=-1)["workers"])
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    if first_on_path is not None:
        sys.path.insert(0, str(first_on_path))
    try:
        cluster.scale(len(before) + 1)
        session.client.wait_for_workers(len(before) + 1, timeout=60)
    finally:
        if first_on_path is not None:
            sys.path.remove(str(first_on_path))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        (added,) = set(session.client.scheduler_info(n_workers=-1)["workers"]) - before
        yield added
    finally:
        cluster.scale(len(before))
        deadline = time.monotonic() + 30
        while len(session.client.scheduler_info(n_workers=-1)["workers"]) > len(before) \
                and time.monotonic() < deadline:
            time.sleep(0.2)


def _copies(runner, count: int) -> list[dict]:
    """``count`` units, each the example model's files under its own name and key."""
    from benchmark.cluster.units import make_unit

    entry = runner.discover()["example_model"]
    files = [n for p in __import__("benchmark.rubric").rubric.RUBRIC for n in p.files]
    return [make_unit(f"copy{i}", entry.tier, f"copy{i}-{time.time_ns()}", entry.path, files)
            for i in range(count)]


def test_a_worker_that_fails_every_unit_after_admission_is_quarantined_and_nothing_is_lost(
        cluster, session, submissions, tmp_path):
    """A worker whose temporary folder disappears after its admission (as a full or
    removed /tmp would) fails every unit it is sent: each is tried again on a healthy
    worker, none becomes an error, and the worker is quarantined and named."""
    scratch = Path(tempfile.mkdtemp(prefix="rbw-", dir="/tmp"))  # (short: the zygote's socket is in it)
    with _extra_worker(cluster, session, TMPDIR=str(scratch)) as broken:
        runner = _runner(submissions, tmp_path / "results")
        rows = session.admit(runner.test_data, runner.options)
        assert [row["admitted"] for row in rows] == [True, True, True], rows
        shutil.rmtree(scratch)
        scratch.write_text("no longer a folder\n")
        heard, seen = [], {}
        session.on_worker = heard.append
        session.grade(_copies(runner, 6), deadline_s=120,
                      on_result=lambda unit, result: seen.__setitem__(unit["name"], result))
        assert len(seen) == 6 and not any(has_internal_error(r) for r in seen.values()), seen
        assert broken not in {where["address"] for where in session.graded_by.values()}
        row = next(row for row in session.rows if row["address"] == broken)
        assert row["failed"] >= 2 and "units failed there" in row["quarantined"], row
        assert "NotADirectoryError" in row["quarantined"] or "FileNotFoundError" in row["quarantined"], row
        assert heard == [row] and session.retried >= 2
        from benchmark.cluster.worker import worker_facts

        there = session.client.run(worker_facts, resource=session.expected["resource"], workers=[broken])
        assert there[broken]["admitted"] is False  # (its resource is 0 and grade_unit refuses there)
    scratch.unlink()


def test_a_worker_with_other_dependency_versions_is_refused_and_named_even_with_q(
        cluster, session, submissions, tmp_path, capsys):
    """A worker whose bandit is another version (another bandit's metadata first on its
    sys.path) is refused,
    the refusal names the package and both versions, and -q still prints it."""
    from importlib import metadata

    from benchmark.cluster_command import show_worker
    from benchmark.types import RunConfig

    fake = tmp_path / "site" / "bandit-1.0.0.dist-info"
    fake.mkdir(parents=True)
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: bandit\nVersion: 1.0.0\n")
    with _extra_worker(cluster, session, first_on_path=fake.parent) as drifted:
        runner = _runner(submissions, tmp_path / "results")
        rows = session.admit(runner.test_data, runner.options)
        row = next(row for row in rows if row["address"] == drifted)
        assert [r["admitted"] for r in rows if r is not row] == [True, True]
        assert not row["admitted"], row
        assert f"bandit {metadata.version('bandit')} on the client, 1.0.0 here" in row["reason"], row
        capsys.readouterr()
        show_worker(RunConfig(quiet=True), row)
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("warning: cluster worker refused") and "bandit" in err, err


def test_a_late_joiner_on_another_kernel_profile_is_refused_reported_and_given_nothing(
        cluster, session, submissions, tmp_path):
    from benchmark.cluster.preflight import PROFILE_ENV
    from benchmark.cluster.worker import worker_facts

    runner = _runner(submissions, tmp_path / "results")
    session.admit(runner.test_data, runner.options)  # publishes the profile the two share
    with _extra_worker(cluster, session, **{PROFILE_ENV: "another-kernel"}) as late:
        deadline = time.monotonic() + 60
        while session.client.run(worker_facts, resource=session.expected["resource"],
                                 workers=[late])[late] is None:
            assert time.monotonic() < deadline, "the joiner's preflight did not finish"
            time.sleep(0.2)
        heard, seen = [], []
        session.on_worker = heard.append
        session.grade(_copies(runner, 3), deadline_s=120, on_result=lambda unit, result: seen.append(result))
        assert len(seen) == 3 and not any(has_internal_error(r) for r in seen)
        assert [row["address"] for row in heard] == [late]
        assert heard[0]["joined_late"] and not heard[0]["admitted"]
        assert "kernel profile differs from the one the run's workers share (test_tag)" in heard[0]["reason"]
        assert late not in {where["address"] for where in session.graded_by.values()}
        assert heard[0] in session.rows  # (the manifest lists it)


def test_an_owned_local_cluster_is_tls_on_loopback_and_a_run_with_no_worker_left_ends(submissions, tmp_path):
    """``local:N`` listens on 127.0.0.1 with TLS only, with a key made for it: a plain client
    and a client with another key are refused, and its HTTP server answers nothing. When every worker goes, the run ends after
    ``wait_s`` with ClusterLost, the results already back having been handed over."""
    from distributed.security import Security

    from benchmark.cluster.session import ClusterLost

    with ClusterSession(ClusterSpec(local_workers=1), wait_s=2) as owned:
        address = owned.cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        assert all(w.startswith("tls://127.0.0.1:") for w in owned.client.scheduler_info(n_workers=-1)["workers"])
        import urllib.error
        import urllib.parse
        import urllib.request

        http = urllib.parse.urlsplit(owned.cluster.dashboard_link)
        assert http.hostname == "127.0.0.1"
        for path in ("/info/main/workers.html", "/metrics", "/json/counts.json", "/health"):
            with pytest.raises(urllib.error.HTTPError, match="404"):  # (Dask's HTTP server serves nothing)
                urllib.request.urlopen(f"http://127.0.0.1:{http.port}{path}", timeout=5)
        for intruder in ({"address": "tcp://" + address[len("tls://"):]},
                         {"address": address, "security": Security.temporary()}):
            with pytest.raises((OSError, TimeoutError)):
                distributed.Client(**intruder, timeout=3, set_as_default=False)
        runner = _runner(submissions, tmp_path / "results")
        owned.admit(runner.test_data, runner.options)
        seen = []

        def first_then_no_workers(unit, result):
            seen.append(result)
            owned.cluster.scale(0)

        with pytest.raises(ClusterLost, match=r"no admitted worker for 2 s .* after 1 of 3 model"):
            owned.grade(_copies(runner, 3), deadline_s=60, on_result=first_then_no_workers)
        assert len(seen) == 1 and not has_internal_error(seen[0])


def _start(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def _stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
        proc.wait(timeout=30)


def test_losing_the_scheduler_mid_run_writes_nothing_exits_1_and_a_rerun_resumes(tmp_path):
    """A ``dask scheduler`` killed while the grader waits on it: the run ends at once with
    exit 1 and a message saying what was lost; the previous latest_results.json and the
    results folder are as they were; the models graded before are in the cache, and a re-run
    grades only the others."""
    subs = tmp_path / "submissions"
    for i in range(6):
        shutil.copytree(SOURCES[0], subs / "user_submissions" / f"copy{i}")
    results = tmp_path / "results"
    results.mkdir()
    (results / "latest_results.json").write_text('{"an earlier run": true}\n')
    file = tmp_path / "scheduler.json"
    scheduler = _start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                       "--scheduler-file", str(file), log=tmp_path / "scheduler.log")
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not file.exists():
            assert time.monotonic() < deadline and scheduler.poll() is None, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.1)
        worker = _start("worker", "--scheduler-file", str(file), "--nthreads", "1", "--host", "127.0.0.1",
                        "--no-dashboard", log=tmp_path / "worker.log")
        run = subprocess.Popen([sys.executable, str(ROOT / "run_benchmark.py"), "-q", "--all-models",
                                "--scheduler-file", str(file), "--submissions-dir", str(subs),
                                "--results-dir", str(results)], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        cache = ResultCache(results).directory
        while not (cache.is_dir() and any(cache.glob("*.json"))):
            assert time.monotonic() < deadline + 60 and run.poll() is None, run.communicate()
            time.sleep(0.05)
        _stop(scheduler)
        killed = time.monotonic()
        out, err = run.communicate(timeout=60)
    finally:
        _stop(*(p for p in (scheduler, worker) if p is not None))
    assert run.returncode == 1, err
    assert time.monotonic() - killed < 30
    assert "the connection to the scheduler" in err and "was lost" in err, err
    assert "nothing of this run was written; models graded before it stay in the cache" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err  # (Dask's log muted)
    assert (results / "latest_results.json").read_text() == '{"an earlier run": true}\n'
    assert sorted(p.name for p in results.iterdir()) == sorted(["latest_results.json", cache.relative_to(results).parts[0]])
    graded = len(list(cache.glob("*.json")))
    assert 1 <= graded < 6
    again = _cli("-q", "--all-models", "--submissions-dir", str(subs), "--results-dir", str(results))
    doc = json.loads((results / "latest_results.json").read_text())
    assert sorted(doc["models"]) == [f"copy{i}" for i in range(6)], again.stderr
    assert sum(bool(m.get("cached")) for m in doc["models"].values()) == graded
