import importlib.machinery

import orjson
import yaml

print(orjson.dumps({"a": [1, 2.5, None], "é": True}), orjson.loads(b'{"k":[1,2]}'))
print(orjson.dumps({"b": 1, "a": 2}, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode())
print(orjson.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) or orjson.__name__)
print(yaml.__with_libyaml__, yaml.safe_load("a: 1"))
import charset_normalizer  # noqa: E402  (requests' optional accelerator)

print(charset_normalizer.from_bytes("héllo wörld".encode("utf-8")).best().encoding)
