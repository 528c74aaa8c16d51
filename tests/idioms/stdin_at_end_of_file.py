import sys

print(repr(sys.stdin.read()), sys.stdin.isatty(), sys.stdin.readable())
try:
    input("prompt> ")
except EOFError:
    print("EOFError")
print(list(sys.stdin), sys.stdin.readline() == "")
