"""Kernel detection forks its probes side by side: the same answers, in the same order, as
probing one after another."""

from __future__ import annotations

import os
from dataclasses import asdict

from benchmark.sandbox import isolation, pids_cgroup


def _one_after_another() -> isolation.KernelSupport:
    """The detection as it was: each probe forked and waited for before the next."""
    checks = {
        "user_namespaces": lambda: isolation.enter_namespaces(network=False, pid=False),
        "network_namespace": lambda: isolation.enter_namespaces(network=True, pid=False),
        "pid_namespace": isolation._probe_pid_namespace,
        "ipc_namespace": lambda: isolation.enter_namespaces(network=False, pid=False, ipc=True),
        "private_root": isolation._probe_private_root,
        "seccomp": isolation.seccomp.probe,
    }
    reasons, found = {}, {}
    for name, action in checks.items():
        problem = isolation._probe(action)
        found[name] = problem is None
        if problem:
            reasons[name] = problem
    abi = isolation.landlock.abi_version()
    if abi <= 0:
        reasons["landlock"] = "Landlock is not available in this kernel"
    groups, why = pids_cgroup.detect()
    if groups is None:
        reasons["pids_cgroup"] = why or "unavailable"
    return isolation.KernelSupport(found["user_namespaces"], found["network_namespace"],
                                   found["pid_namespace"], max(abi, 0), found["seccomp"], reasons,
                                   ipc_namespace=found["ipc_namespace"],
                                   private_root=found["private_root"], pids_cgroup=groups is not None)


def test_probes_side_by_side_detect_what_probes_one_after_another_did(monkeypatch):
    monkeypatch.setattr(isolation, "_SUPPORT", None)
    side_by_side = isolation._detect()
    reference = _one_after_another()
    assert asdict(side_by_side) == asdict(reference)
    assert list(side_by_side.reasons) == list(reference.reasons)  # (the report lists them in order)


def test_a_failed_or_dead_probe_is_its_own_reason_and_the_others_still_answer(monkeypatch):
    def refuse():
        raise OSError("refused here")

    monkeypatch.setattr(isolation, "_SUPPORT", None)
    monkeypatch.setattr(isolation.seccomp, "probe", refuse)
    monkeypatch.setattr(isolation, "_probe_pid_namespace", lambda: os._exit(3))
    support = isolation._detect()
    assert not support.seccomp and support.reasons["seccomp"] == "OSError: refused here"
    assert not support.pid_namespace and support.reasons["pid_namespace"] == "probe died"
    reference = _one_after_another()  # (the same stand-ins)
    assert asdict(support) == asdict(reference)
    assert list(support.reasons) == list(reference.reasons)
    for name in ("user_namespaces", "network_namespace", "ipc_namespace", "private_root"):
        assert getattr(support, name) == getattr(reference, name)
