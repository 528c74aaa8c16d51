import io

import yaml

doc = """
service:
  name: api
  ports: [80, 443]
  enabled: yes
  ratio: 0.5
  started: 2024-01-02
  tags:
    - a
    - b
---
second: document
"""
first, second = yaml.safe_load_all(doc)
print(first, second)
print(yaml.safe_dump(first, sort_keys=False, default_flow_style=False))
print(yaml.safe_dump({"b": [1, {"c": None}], "a": "multi\nline"}, indent=4, allow_unicode=True))
print(yaml.safe_load("anchors: &x {k: 1}\nref: *x"), yaml.safe_load(io.StringIO("- 1\n- two")))
try:
    yaml.safe_load("key: [unclosed")
except yaml.YAMLError as exc:
    print(type(exc).__name__, exc.problem_mark.line)
try:
    yaml.safe_load("!!python/object/apply:os.system ['echo hi']")
except yaml.constructor.ConstructorError as exc:
    print("refused:", exc.problem.split(" ")[0:4])
with open("config.yaml", "w") as handle:
    yaml.safe_dump({"x": 1}, handle)
with open("config.yaml") as handle:
    print(yaml.safe_load(handle), yaml.__version__)
loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
print(yaml.load("c: 3", Loader=loader),
      yaml.dump([1, 2], Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)),
      yaml.__with_libyaml__)
