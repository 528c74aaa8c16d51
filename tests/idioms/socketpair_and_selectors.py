import selectors
import socket

left, right = socket.socketpair()
with left, right:
    left.sendall(b"ping")
    print(right.recv(16), left.family.name, left.type.name)
    selector = selectors.DefaultSelector()
    selector.register(right, selectors.EVENT_READ, data="right")
    print(selector.select(timeout=0))
    left.sendall(b"pong")
    ready = selector.select(timeout=1)
    print([key.data for key, events in ready], ready[0][0].fileobj.recv(4))
    selector.unregister(right)
    selector.close()
    right.setblocking(False)
    try:
        right.recv(1)
    except BlockingIOError:
        print("would block")
    left.sendmsg([b"scatter", b"/", b"gather"])
    print(right.recv(32))
    right.setblocking(True)
    socket.send_fds(left, [b"fd"], [right.fileno()])
    message, fds, _, _ = socket.recv_fds(right, 16, 1)
    print(message, len(fds))
    for fd in fds:
        socket.close(fd)
    left.shutdown(socket.SHUT_WR)
    print(right.recv(1) if right.setblocking(True) is None else None)
print(socket.gethostname() is not None, socket.AF_INET.name, socket.has_ipv6 in (True, False))
