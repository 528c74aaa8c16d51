"""A grader's pids-cgroup folder is named for its process (pid, pid namespace, start time),
so a folder another grader left under the same pid (a container restarted, a grader that was
pid 1 of a namespace and was killed) is never taken for ours, and the sweep removes only
folders whose process it can see has ended."""

from __future__ import annotations

import os
import subprocess
import sys

from benchmark.sandbox import pids_cgroup


def test_the_name_is_this_process_and_the_sweep_judges_only_what_it_can_see():
    namespace = pids_cgroup.pid_namespace()
    name = pids_cgroup._folder_name()
    pid, ns, start = name.split("-")[1:]
    assert int(pid) == os.getpid() and int(ns) == namespace and start == pids_cgroup._start_of(os.getpid())
    assert not pids_cgroup._gone(name, namespace)  # (alive)
    assert pids_cgroup._gone(f"rubricbench-{os.getpid()}-{namespace}-{int(start) + 1}", namespace)  # pid reused
    assert not pids_cgroup._gone(f"rubricbench-{os.getpid()}-{namespace + 1}-0", namespace)  # another namespace's
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    old = int(ended.stdout)
    if pids_cgroup._start_of(old) is None:  # (the pid not reused yet)
        assert pids_cgroup._gone(f"rubricbench-{old}", namespace)  # the older name: the pid alone
    assert not pids_cgroup._gone("rubricbench-notapid", namespace)


def test_two_processes_with_the_same_pid_in_different_namespaces_get_different_folders():
    command = [sys.executable, "-c", "from benchmark.sandbox import pids_cgroup as p; print(p._folder_name())"]
    try:
        inside = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", *command], capture_output=True,
                                text=True, timeout=60, cwd=os.path.dirname(os.path.dirname(__file__)))
    except OSError:
        inside = None
    if inside is None or inside.returncode != 0:
        return  # (this machine does not let the test make a pid namespace)
    pid, ns, _ = inside.stdout.strip().split("-")[1:]
    assert pid == "1" and int(ns) != pids_cgroup.pid_namespace()
