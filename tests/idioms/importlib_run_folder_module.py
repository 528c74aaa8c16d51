import importlib
import importlib.util
import pathlib
import sys

pathlib.Path("plugins").mkdir()
pathlib.Path("plugins/__init__.py").write_text("")
pathlib.Path("plugins/hello.py").write_text("VERSION = 1\ndef greet(name):\n    return 'hi ' + name\n")
pathlib.Path("helper.py").write_text("VALUE = 'helper'\n")
sys.path.insert(0, ".")
importlib.invalidate_caches()
import helper  # noqa: E402

hello = importlib.import_module("plugins.hello")
print(helper.VALUE, hello.greet("ann"), hello.VERSION, hello.__name__, hello.__spec__.parent)
pathlib.Path("plugins/hello.py").write_text("VERSION = 2\ndef greet(name):\n    return 'hello ' + name\n")
importlib.invalidate_caches()
sys.modules.pop("plugins.hello")
hello = importlib.import_module("plugins.hello")
print(hello.VERSION, hello.greet("bo"))
spec = importlib.util.spec_from_file_location("loaded_by_path", "helper.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(module.VALUE, module.__name__, importlib.util.find_spec("plugins") is not None,
      importlib.util.find_spec("no_such_mod"))
print(importlib.reload(helper).VALUE, importlib.import_module("json").dumps([1]), __import__("os.path").sep)
import importlib.metadata  # noqa: E402
import importlib.resources  # noqa: E402

print(importlib.metadata.version("PyYAML"),
      importlib.resources.files("json").joinpath("__init__.py").is_file())
