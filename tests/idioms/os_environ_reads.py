import os

print(os.environ.get("RUBRICBENCH_IDIOM_UNSET", "default"), os.getenv("RUBRICBENCH_IDIOM_UNSET") is None)
print("PATH" in os.environ, isinstance(os.environ.get("HOME"), str), type(os.environ).__name__)
os.environ["APP_MODE"] = "test"
os.environ.setdefault("APP_LEVEL", "3")
print(os.environ["APP_MODE"], os.getenv("APP_LEVEL"), int(os.environ.get("APP_PORT", "8080")))
del os.environ["APP_MODE"]
print("APP_MODE" in os.environ, os.environ.pop("APP_LEVEL"),
      os.environb.get(b"RUBRICBENCH_IDIOM_UNSET", b"none"))
print(os.path.expanduser("~") == os.environ.get("HOME", os.path.expanduser("~")),
      os.path.expandvars("$RUBRICBENCH_IDIOM_UNSET/x"))
