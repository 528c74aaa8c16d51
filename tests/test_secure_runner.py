"""SecureRunner and the child harness: the conformance suite for the one module that starts processes."""

from __future__ import annotations

import os
import textwrap
import time

import psutil
import pytest

from benchmark.secure_runner import STDOUT_CAP, SecureRunner

VALUE_ERROR = ["ValueError", "Exception", "BaseException", "object"]  # (a raised exception's built-in ancestry)


def _src(code: str) -> bytes:
    return textwrap.dedent(code).encode()


def call(code: str, args=(None,), *, runner=None, timeout=10):
    runner = runner or SecureRunner("t")
    request = {"mode": "call", "module": "sub.py", "function": "f",
               "calls": [{"label": "one", "args": list(args)}]}
    return runner.run_harness(request, {"sub.py": _src(code)}, timeout=timeout)


def script(code: str, argv=(), *, runner=None, timeout=10, extra=None):
    runner = runner or SecureRunner("t")
    files = {"main.py": _src(code), **(extra or {})}
    return runner.run_harness({"mode": "script", "module": "main.py", "argv": list(argv)},
                              files, timeout=timeout)


def test_call_returns_json_round_tripped_value_and_output():
    res = call("""
        def f(x):
            print("working on", x)
            return {"ids": [1, 2.0, True, None], "n": x}
    """, args=[7])
    result = res.observation["results"][0]
    assert result["returned"] and result["value"] == {"ids": [1, 2.0, True, None], "n": 7}
    assert type(result["value"]["ids"][1]) is float and result["value"]["ids"][2] is True
    assert "working on 7" in result["output"]
    assert res.stdout == "" and res.channel_error is None


def _calls(code: str, args_list, *, runner=None):
    runner = runner or SecureRunner("t")
    request = {"mode": "call", "module": "sub.py", "function": "f",
               "calls": [{"label": str(i), "args": list(args)} for i, args in enumerate(args_list)]}
    return runner.run_harness(request, {"sub.py": _src(code)}, timeout=20)


def test_each_call_captures_its_own_output_and_none_of_the_call_before():
    """The worker keeps one capture file for its calls: a short output after a long one holds
    nothing of the long one, output written straight to the descriptors is captured too, and
    the run's own stdout stays empty."""
    res = _calls("""
        import logging, os, sys
        def f(n, text):
            print(text * n)
            logging.getLogger("sub").warning("warned %d", n)
            os.write(1, b"raw\\n")
            sys.stderr.write("err\\n")
            return n
    """, [(2000, "long "), (1, "short"), (0, "")])
    outputs = [r["output"] for r in res.observation["results"]]
    assert outputs[0].startswith("long long ") and "warned 2000" in outputs[0]
    assert sorted(outputs[1].splitlines()) == ["err", "raw", "short", "warned 1"], outputs[1]
    assert sorted(outputs[2].splitlines()) == ["", "err", "raw", "warned 0"], outputs[2]
    assert res.stdout == "" and res.channel_error is None


def test_a_call_that_puts_its_own_file_under_the_capture_descriptor_keeps_that_file():
    """Submission code that puts a file of its own under the descriptor its output goes to
    (``dup2``, as a close and an open can): the next call captures into a fresh file, and the
    submission's file keeps what it wrote (it is neither emptied nor read as output)."""
    res = _calls("""
        import os
        def f(step):
            if step == 0:
                print("first")
                for n in range(3, 64):
                    try:
                        same = os.path.sameopenfile(n, 1)  # the file fd 1 is captured into
                    except OSError:
                        continue
                    if same:  # its own file under that number (as a close and an open can do)
                        mine = os.open("mine.txt", os.O_RDWR | os.O_CREAT)
                        os.write(mine, b"kept")
                        return os.dup2(mine, n) == n
                return None
            print("second")
            with open("mine.txt") as handle:
                return handle.read()
    """, [(0,), (1,)])
    first, second = res.observation["results"]
    assert first["returned"] and first["value"] is True, first
    assert second["value"] == "kept" and second["output"].strip() == "second", second


def test_ints_past_pythons_digit_limit_cross_the_channel_exactly():
    """A 5,000-digit id converted as prompt 3's contract says comes back as that int
    (int.__repr__ and json.loads alone stop at 4300 digits); an absurdly long one is reported
    as not plain JSON, without a crash on either side."""
    res = call("""
        import decimal
        def f(text):
            return [int(decimal.Decimal(text)), -int(decimal.Decimal(text)), 10 ** 4300, 7]
    """, args=["9" * 5000])
    result = res.observation["results"][0]
    assert result["returned"] and result["unserializable"] is None
    assert result["value"] == [10 ** 5000 - 1, 1 - 10 ** 5000, 10 ** 4300, 7]
    huge = call("def f(x):\n    return 10 ** 30000\n").observation["results"][0]
    assert huge["returned"] and huge["value"] is None and "too long" in huge["unserializable"]


def test_object_with_forged_eq_does_not_cross_the_channel():
    res = call("""
        class Liar:
            def __eq__(self, other):
                return True
        def f(x):
            return Liar()
    """)
    result = res.observation["results"][0]
    assert result["value"] is None and result["unserializable"].startswith("Liar")


def test_input_mutation_and_exceptions_are_recorded():
    res = call("""
        def f(items):
            items.append(1)
            raise ValueError("boom")
    """, args=[[0]])
    result = res.observation["results"][0]
    assert result["mutated"] is True
    assert result["exception"] == {"type": "ValueError", "message": "boom", "builtin": VALUE_ERROR,
                                   "where": "sub.py:4"}  # (the submission's line it raised at)


def test_a_split_call_that_raises_is_made_again_item_by_item_from_fresh_copies():
    """``split_budget_s``: a call on a list that raises is made again once per item, each item
    alone and unchanged by the failed call (which emptied its list); a call that returned a
    list is not; an item past the budget is stopped and the items after it are not run."""
    code = _src("""
        def f(items):
            out = []
            for item in items:
                if item == "boom":
                    raise ValueError(f"boom on {item!r}")
                while item == "hang":
                    pass
                out.append({"v": item})
            items.clear()
            return out
    """)
    calls = [{"label": "a", "args": [["x", "boom", "y"]], "split_budget_s": 2},
             {"label": "b", "args": [["x", "y"]], "split_budget_s": 2},
             {"label": "c", "args": [["boom", "hang", "z"]], "split_budget_s": 0.5},
             {"label": "d", "args": [["boom"]]}]
    res = SecureRunner("t").run_harness({"mode": "call", "module": "sub.py", "function": "f",
                                         "calls": calls}, {"sub.py": code}, timeout=20)
    got = {r["label"]: r for r in res.observation["results"]}
    assert list(got) == ["a", "a/0", "a/1", "a/2", "b", "c", "c/0", "c/1", "d"]
    assert got["a"]["exception"]["type"] == "ValueError"
    assert [got[f"a/{i}"]["value"] for i in (0, 2)] == [[{"v": "x"}], [{"v": "y"}]]
    assert {k: v for k, v in got["a/1"]["exception"].items() if k != "where"} == {
        "type": "ValueError", "message": "boom on 'boom'", "builtin": VALUE_ERROR}
    assert got["a/1"]["exception"]["where"].startswith("sub.py:")
    assert got["a/0"]["mutated"] is True and got["b"]["value"] == [{"v": "x"}, {"v": "y"}]
    assert got["c/1"]["exception"]["type"] == "TimingBudgetExceeded"


def test_sys_exit_inside_the_function_is_an_exception_not_a_pass():
    res = call("import sys\ndef f(x):\n    sys.exit(0)\n")
    assert res.observation["results"][0]["exception"]["type"] == "SystemExit"


def test_exit_at_import_leaves_no_record():
    res = call("import os\nos._exit(0)\ndef f(x):\n    return 1\n")
    assert res.observation is None
    assert "ended the worker before it reported" in res.channel_error


def test_fake_record_printed_to_stdout_is_ignored():
    res = script("""
        import json
        print(json.dumps({"mode": "script", "exit_code": 0, "nonce": "x"}))
        raise SystemExit(4)
    """)
    assert res.observation["exit_code"] == 4
    assert res.returncode == 4


def test_script_mode_passes_argv_and_stages_files():
    res = script("""
        import sys, pathlib
        print(pathlib.Path(sys.argv[1]).read_text())
    """, argv=["data.txt"], extra={"data.txt": b"staged!"})
    assert res.stdout.strip() == "staged!" and res.observation["exit_code"] == 0


@pytest.mark.parametrize("name", ["{outside}/staged.txt", "../staged.txt", "sub/../../staged.txt",
                                  "sub\\..\\staged.txt", ""])
def test_a_staged_name_that_leaves_the_sandbox_is_refused_and_nothing_is_written(tmp_path, name):
    """A pack's ``run.stage`` name is the staged file's name: an absolute one made the grader
    write the fixture there, on the host, outside every sandbox."""
    name = name.format(outside=tmp_path)
    with pytest.raises(ValueError, match="not a plain relative path inside the sandbox"):
        script("print(1)", extra={name: b"planted"})
    assert list(tmp_path.iterdir()) == []


def test_request_file_is_gone_before_submission_runs():
    res = script("""
        import os
        root = os.environ["RUBRICBENCH_SANDBOX_ROOT"]
        print(sorted(n for n in os.listdir(root) if n.startswith("request")))
    """)
    assert res.stdout.strip() == "[]"


def test_environment_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("RUBRICBENCH_TEST_SECRET", "s3cr3t-value")
    res = script("""
        import os
        print(sorted(os.environ))
        print(os.environ.get("RUBRICBENCH_TEST_SECRET"))
    """)
    assert "s3cr3t-value" not in res.stdout
    assert "RUBRICBENCH_CHANNEL_FD" not in res.stdout
    assert os.environ["HOME"] not in res.stdout.splitlines()[0]


def test_private_home_and_tmp_are_inside_the_sandbox():
    res = script("""
        import os, tempfile
        print(os.environ["HOME"]); print(tempfile.gettempdir()); print(os.getcwd())
    """)
    home, tmp, cwd = res.stdout.split()
    root = os.path.dirname(cwd)
    assert home == os.path.join(root, "home") and tmp == os.path.join(root, "tmp")
    assert not os.path.exists(root), "sandbox must be removed after the run"


def test_timeout_kills_the_whole_tree_including_setsid_grandchildren(tmp_path):
    """Process layer alone (--unsafe drops the layers that would refuse the spawn)."""
    pidfile = tmp_path / "pids"
    res = script(f"""
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 start_new_session=True)
        with open({str(pidfile)!r}, "w") as fh:
            fh.write(str(child.pid))
        time.sleep(60)
    """, timeout=2, runner=SecureRunner("t", unsafe=True))
    assert res.timed_out and res.killed_by == "timeout" and res.observation is None
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while psutil.pid_exists(grandchild) and time.monotonic() < deadline:
        try:
            if psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    alive = psutil.pid_exists(grandchild) and psutil.Process(grandchild).status() != psutil.STATUS_ZOMBIE
    assert not alive, "a setsid grandchild survived the timeout"


def test_print_flood_is_capped():
    res = script("""
        import sys
        chunk = "x" * 65536
        for _ in range(80):  # about 5 MB, bounded
            sys.stdout.write(chunk)
    """)
    assert res.output_truncated
    assert len(res.stdout) <= STDOUT_CAP


def test_memory_limit_is_enforced():
    runner = SecureRunner("t", memory_mb=256)
    res = call("""
        def f(x):
            block = bytearray(600 * 1024 * 1024)
            return len(block)
    """, runner=runner)
    assert res.observation["results"][0]["exception"]["type"] == "MemoryError"


def test_a_run_under_the_default_memory_limit_starts_forty_threads_that_allocate():
    """Each thread that allocates gets a malloc arena of its own from glibc, 64 MB of address
    space: under RLIMIT_AS those reservations stopped the ninth thread with --mem 512
    (``zygote_connection.MALLOC_ARENAS``). Forty threads fit (the pids limit is 64 tasks)."""
    res = script("""
        import threading
        started, gate = [], threading.Event()
        def work():
            block = bytearray(256 * 1024)  # a malloc, as any real work does
            gate.wait()
        threads = []
        try:
            for _ in range(40):
                thread = threading.Thread(target=work)
                thread.start()
                threads.append(thread)
        finally:
            gate.set()
            for thread in threads:
                thread.join()
        print(len(threads))
    """)
    assert (res.returncode, res.stdout) == (0, "40\n"), res.stderr[-500:]


def test_ordinary_imports_work_under_the_default_limits():
    res = call("""
        import json, yaml, logging, dataclasses, pathlib, requests
        def f(x):
            return yaml.safe_load("a: 1")
    """)
    assert res.observation["results"][0]["value"] == {"a": 1}


def test_http_mode_intercepts_requests_and_records_calls():
    runner = SecureRunner("t")
    code = _src("""
        import requests, time
        def f(token):
            time.sleep(5)
            r = requests.post("https://api.example.test/x", json={"a": 1},
                              headers={"Authorization": f"Bearer {token}"}, timeout=3)
            return r.json()["job_id"]
    """)
    request = {"mode": "http", "module": "sub.py", "function": "f", "scenarios": [
        {"label": "ok", "args": ["tok"], "responses": [{"status": 200, "json": {"job_id": "J1"}}]},
        {"label": "down", "args": ["tok"], "responses": [{"exc": "ConnectionError"}]}]}
    started = time.monotonic()
    res = runner.run_harness(request, {"sub.py": code})
    assert time.monotonic() - started < 5, "time.sleep must be recorded, not slept"
    ok, down = res.observation["results"]
    assert ok["value"] == "J1" and ok["sleep_total"] == 5
    sent = ok["requests"][0]
    assert sent["method"] == "POST" and sent["json_body"] == {"a": 1} and sent["timeout"] == 3
    assert sent["headers"]["Authorization"] == "Bearer tok"
    assert down["exception"]["type"] == "ConnectionError"


def test_run_python_sandboxed_requires_a_sandbox():
    runner = SecureRunner("t")
    with pytest.raises(RuntimeError):
        runner.run_python_sandboxed(["-c", "pass"])
    with runner.sandbox() as root:
        (root / "work" / "m.py").write_text("print('hi')")
        res = runner.run_python_sandboxed(["m.py"], timeout=5)
    assert res.stdout.strip() == "hi" and res.returncode == 0


def test_isolation_report_follows_detection_and_flags():
    from benchmark.sandbox import isolation

    support = isolation.detect()
    report = SecureRunner("t").isolation_report()
    assert report["process"]["status"] == "applied"
    assert report["kernel"]["status"] == ("applied" if support.any else "unavailable")
    assert report["guard"]["status"] == "applied"
    unsafe = SecureRunner("t", unsafe=True).isolation_report()
    assert unsafe["kernel"]["status"] == unsafe["guard"]["status"] == "off"
    assert SecureRunner("t", allow_network=True).isolation_report()["network"].startswith("allowed")


def test_exec_path_enters_namespaces_with_unshare_and_a_pid_one_fork():
    """``run_python_sandboxed`` confines before exec with ``unshare`` and a fork to pid 1
    (the path the zygote also takes where it cannot clone into the namespaces)."""
    runner = SecureRunner("t")
    support = runner.support
    if not (support and support.user_namespaces and support.pid_namespace):
        pytest.skip("this kernel gives no pid namespace to unprivileged users")
    with runner.sandbox() as root:
        (root / "work" / "m.py").write_text("import os\nprint(os.getpid(), os.getuid() == %d)\n" % os.getuid())
        res = runner.run_python_sandboxed(["m.py"], timeout=10)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["1", "True"]  # pid 1, and the outer uid mapped to itself


def test_one_drain_thread_keeps_each_pipes_first_cap_bytes_and_says_when_it_cut():
    from benchmark.sandbox import process_tools as pt

    sizes_and_caps = [(0, 10), (10, 10), (11, 10), (200_000, 70_000), (5, 100)]
    pipes = [os.pipe() for _ in sizes_and_caps]
    drain = pt.PipeDrain([(read_fd, cap) for (read_fd, _), (_, cap) in zip(pipes, sizes_and_caps)])
    drain.start()
    payloads = [bytes(range(256)) * (size // 256) + bytes(size % 256) for size, _ in sizes_and_caps]
    for offset in range(0, 200_000, 4096):  # interleaved writes, as a run's streams arrive
        for (_, write_fd), payload in zip(pipes, payloads):
            if offset < len(payload):
                os.write(write_fd, payload[offset:offset + 4096])
    for _, write_fd in pipes:
        os.close(write_fd)
    drain.join(5)
    assert not drain.is_alive(), "the drain did not end at end of file on every pipe"
    for buffer, payload, (size, cap) in zip(drain.buffers, payloads, sizes_and_caps):
        assert buffer.data() == payload[:cap]
        assert buffer.truncated == (size > cap)
    for read_fd, _ in pipes:  # each read end was closed by the drain
        with pytest.raises(OSError):
            os.fstat(read_fd)


def test_a_split_call_whose_list_is_not_the_count_asked_is_made_again_item_by_item():
    """``split_unless_len``: a call that returned a list of another length than the request
    names is made again item by item too (a record dropped is then found), one that returned
    that many items is not, and without the key a list of any length stands."""
    code = _src("""
        def f(items):
            return [{"v": item} for item in items if item != "drop"]
    """)
    calls = [{"label": "a", "args": [["x", "drop", "y"]], "split_budget_s": 2, "split_unless_len": 3},
             {"label": "b", "args": [["x", "y"]], "split_budget_s": 2, "split_unless_len": 2},
             {"label": "c", "args": [["x", "drop"]], "split_budget_s": 2}]
    res = SecureRunner("t").run_harness({"mode": "call", "module": "sub.py", "function": "f",
                                         "calls": calls}, {"sub.py": code}, timeout=20)
    got = {r["label"]: r for r in res.observation["results"]}
    assert list(got) == ["a", "a/0", "a/1", "a/2", "b", "c"]
    assert got["a"]["length"] == 2 and got["a/1"]["value"] == [] and got["a/0"]["value"] == [{"v": "x"}]
