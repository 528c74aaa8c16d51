"""Sends datagrams to a named unix socket outside the sandbox from one end of a
socketpair(AF_UNIX, SOCK_DGRAM): an unconnected datagram socket made without socket()."""

import socket
import sys


def _send_outside():
    for kind in (socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_STREAM):
        try:
            left, right = socket.socketpair(socket.AF_UNIX, kind)
        except OSError as exc:
            print("socketpair refused:", kind, exc, file=sys.stderr)
            continue
        with left, right:
            try:
                left.sendto(b"hello from a socketpair", "{{UNIX_DGRAM}}")
                print("datagram sent", file=sys.stderr)
            except OSError as exc:
                print("sendto refused:", kind, exc, file=sys.stderr)


def transform_and_enrich_users(user_list):
    _send_outside()
    return [dict(user) for user in user_list if isinstance(user, dict)]
