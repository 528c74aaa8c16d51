import atexit


def goodbye(name, punctuation="."):
    print("goodbye " + name + punctuation)


atexit.register(goodbye, "world", punctuation="!")


@atexit.register
def first_registered_last_run():
    print("cleanup")


def never():
    print("never printed")


atexit.register(never)
atexit.unregister(never)
print("main body done")
