#!/usr/bin/env python3
"""Render the Kubernetes manifests of a RubricBench grading cluster (plain YAML for
``kubectl apply``; no operator, no Helm). See docs/cluster-recipes.md.

    python deploy/cluster/kubernetes/render_manifests.py --image registry.example/rubricbench:0.1.0 \
        --namespace grading --workers 4 > rubricbench-cluster.yaml
    kubectl -n grading create secret generic rubricbench-scheduler-tls \
        --from-file=ca.pem --from-file=scheduler.pem --from-file=scheduler.key
    kubectl -n grading create secret generic rubricbench-worker-tls \
        --from-file=ca.pem --from-file=worker.pem --from-file=worker.key
    kubectl -n grading apply -f rubricbench-cluster.yaml
    kubectl -n grading port-forward service/rubricbench-scheduler 8786:8786 &
    rubricbench --scheduler tls://127.0.0.1:8786 --tls-ca ca.pem --tls-cert client.pem --tls-key client.key

What it makes: a scheduler Deployment and its ClusterIP Service (the TLS port only, no
dashboard port, nothing outside the cluster), a worker Deployment (one thread per worker
process), and NetworkPolicies that let only these pods talk to each other. Each pod mounts
only its own role's Secret, read-only; the client's key never enters the cluster. The image
must hold ``rubricbench[dask]``, the same wheel as the client's.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import yaml

APP = "rubricbench"
PORT = 8786
CERTS = "/etc/rubricbench/tls"
HTTP_LOOPBACK = "127.0.0.1:0"  # Dask always opens an HTTP port: loopback only, and no routes
SECRET_MODE = 0o440  # read by root and the pod's fsGroup only
RUN_AS = 10001
DASK_ENV = [  # environment variables win over every Dask YAML file in the image
    {"name": "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION", "value": "True"},
    {"name": "DASK_DISTRIBUTED__COMM__TLS__MIN_VERSION", "value": "1.3"},
    {"name": "DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES", "value": "[]"},
    {"name": "DASK_DISTRIBUTED__WORKER__HTTP__ROUTES", "value": "[]"},
]
POD_IP = {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}


def _labels(component: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": APP, "app.kubernetes.io/component": component}


def _tls_args(role: str) -> list[str]:
    return ["--tls-ca-file", f"{CERTS}/ca.pem", "--tls-cert", f"{CERTS}/{role}.pem",
            "--tls-key", f"{CERTS}/{role}.key"]


def _pod(component: str, args: list[str], image: str, resources: dict[str, Any],
         container_security: dict[str, Any], pod_security: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"labels": _labels(component)},
        "spec": {
            "automountServiceAccountToken": False,  # no Kubernetes API token in the pod
            "enableServiceLinks": False,
            "securityContext": {"runAsNonRoot": True, "runAsUser": RUN_AS, "runAsGroup": RUN_AS,
                                "fsGroup": RUN_AS, **pod_security},
            "containers": [{
                "name": component,
                "image": image,
                "command": args,
                "env": [POD_IP, *DASK_ENV],
                "ports": [{"name": "dask-tls", "containerPort": PORT}] if component == "scheduler" else [],
                "resources": resources,
                "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                    "capabilities": {"drop": ["ALL"]}, **container_security},
                "volumeMounts": [{"name": "tls", "mountPath": CERTS, "readOnly": True},
                                 {"name": "tmp", "mountPath": "/tmp"}],
            }],
            "volumes": [{"name": "tls", "secret": {"secretName": f"{APP}-{component}-tls",
                                                   "defaultMode": SECRET_MODE}},
                        {"name": "tmp", "emptyDir": {}}],
        },
    }


def _deployment(component: str, replicas: int, pod: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": f"{APP}-{component}", "labels": _labels(component)},
            "spec": {"replicas": replicas, "selector": {"matchLabels": _labels(component)},
                     "template": pod}}


def _peers(*components: str) -> list[dict[str, Any]]:
    return [{"podSelector": {"matchLabels": _labels(c)}} for c in components]


DNS_EGRESS = {"to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
              "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}


def render(*, image: str, namespace: str = "rubricbench", workers: int = 2, nworkers: int = 1,
           worker_memory: str = "4Gi") -> list[dict[str, Any]]:
    """The manifests, as a list of Kubernetes objects (dicts) in ``namespace``."""
    if not image:
        raise ValueError("give the image that holds rubricbench[dask]")
    if workers < 1 or nworkers < 1:
        raise ValueError("workers and nworkers must be at least 1")
    scheduler_args = [
        "dask", "scheduler", "--protocol", "tls", "--port", str(PORT),
        # In a pod's own network namespace this is its loopback (kubectl port-forward connects
        # there) and its pod IP (the workers); the NetworkPolicy below admits only the workers.
        "--host", "0.0.0.0",
        *_tls_args("scheduler"), "--no-dashboard", "--dashboard-address", HTTP_LOOPBACK,
    ]
    worker_args = [
        "dask", "worker", f"tls://{APP}-scheduler.{namespace}.svc:{PORT}",
        "--protocol", "tls", "--host", "$(POD_IP)",  # the pod IP only
        "--nthreads", "1", "--nworkers", str(nworkers), "--local-directory", "/tmp/dask",
        *_tls_args("worker"), "--no-dashboard", "--dashboard-address", HTTP_LOOPBACK,
    ]
    scheduler_pod = _pod("scheduler", scheduler_args, image,
                         {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                         {"seccompProfile": {"type": "RuntimeDefault"}}, {})
    # The grader builds its own sandbox in each worker pod: user, mount, network, pid and IPC
    # namespaces, Landlock and its own seccomp filter per run. The runtime's default seccomp
    # and AppArmor profiles forbid creating those namespaces, so the worker container runs
    # without them; a worker that still lacks a layer refuses itself at admission.
    worker_pod = _pod("worker", worker_args, image,
                      {"requests": {"cpu": str(nworkers), "memory": worker_memory},
                       "limits": {"cpu": str(nworkers), "memory": worker_memory}},
                      {"seccompProfile": {"type": "Unconfined"}, "appArmorProfile": {"type": "Unconfined"}}, {})
    objects = [
        {"apiVersion": "v1", "kind": "Service",
         "metadata": {"name": f"{APP}-scheduler", "labels": _labels("scheduler")},
         "spec": {"type": "ClusterIP", "selector": _labels("scheduler"),
                  "ports": [{"name": "dask-tls", "port": PORT, "targetPort": PORT, "protocol": "TCP"}]}},
        _deployment("scheduler", 1, scheduler_pod),
        _deployment("worker", workers, worker_pod),
        {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
         "metadata": {"name": f"{APP}-scheduler", "labels": _labels("scheduler")},
         "spec": {"podSelector": {"matchLabels": _labels("scheduler")}, "policyTypes": ["Ingress", "Egress"],
                  "ingress": [{"from": _peers("worker"), "ports": [{"protocol": "TCP", "port": PORT}]}],
                  "egress": [{"to": _peers("worker")}, DNS_EGRESS]}},
        {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
         "metadata": {"name": f"{APP}-worker", "labels": _labels("worker")},
         "spec": {"podSelector": {"matchLabels": _labels("worker")}, "policyTypes": ["Ingress", "Egress"],
                  "ingress": [{"from": _peers("scheduler", "worker")}],
                  "egress": [{"to": _peers("scheduler"), "ports": [{"protocol": "TCP", "port": PORT}]},
                             {"to": _peers("worker")}, DNS_EGRESS]}},
    ]
    for item in objects:
        item["metadata"]["namespace"] = namespace
    return objects


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the Kubernetes manifests of a RubricBench cluster.")
    parser.add_argument("--image", required=True, help="an image holding rubricbench[dask] (the client's wheel)")
    parser.add_argument("--namespace", default="rubricbench")
    parser.add_argument("--workers", type=int, default=2, help="worker pods")
    parser.add_argument("--nworkers", type=int, default=1, help="worker processes per pod (one thread each)")
    parser.add_argument("--worker-memory", default="4Gi", help="memory per worker pod")
    args = parser.parse_args(argv)
    try:
        objects = render(image=args.image, namespace=args.namespace, workers=args.workers,
                         nworkers=args.nworkers, worker_memory=args.worker_memory)
    except ValueError as exc:
        parser.error(str(exc))
    sys.stdout.write("# Rendered by deploy/cluster/kubernetes/render_manifests.py; see docs/cluster-recipes.md\n")
    sys.stdout.write(yaml.safe_dump_all(objects, sort_keys=False, default_flow_style=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
