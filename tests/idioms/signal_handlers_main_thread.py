import os
import signal
import time

received = []


def handler(signum, frame):
    received.append(signal.Signals(signum).name)


previous = signal.signal(signal.SIGUSR1, handler)
os.kill(os.getpid(), signal.SIGUSR1)
signal.raise_signal(signal.SIGUSR1)
signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.01)
while "SIGALRM" not in received:
    time.sleep(0.001)
signal.alarm(0)
os.kill(os.getpid(), 0)  # "is it alive?"
os.killpg(0, 0)  # the run's own process group
print(received, previous == signal.SIG_DFL, signal.getsignal(signal.SIGUSR1) is handler)


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


signal.signal(signal.SIGALRM, on_alarm)
signal.alarm(1)
try:
    signal.setitimer(signal.ITIMER_REAL, 0.02)
    while True:
        time.sleep(0.005)
except Timeout:
    print("timed out as planned")
finally:
    signal.alarm(0)
old = signal.signal(signal.SIGINT, signal.SIG_IGN)
print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN, callable(old) or old is not None,
      signal.SIGTERM.name)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])
print(signal.SIGUSR2 in signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR2]))
