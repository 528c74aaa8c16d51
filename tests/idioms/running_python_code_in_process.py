import code
import contextlib
import io
import pathlib
import runpy
import sys

pathlib.Path("tool.py").write_text("import sys\nRESULT = sum(range(10))\n"
                                   "print('tool ran as', __name__, sys.argv[1:])\n")
pathlib.Path("pkg").mkdir()
pathlib.Path("pkg/__init__.py").write_text("")
pathlib.Path("pkg/__main__.py").write_text("print('package main ran')\n")
saved = sys.argv[:]
sys.argv = ["tool.py", "--flag"]
namespace = runpy.run_path("tool.py", run_name="__main__")
sys.argv = saved
print(namespace["RESULT"])
sys.path.insert(0, ".")
runpy.run_module("pkg", run_name="__main__", alter_sys=True)
scope = {}
exec(compile("def twice(x):\n    return 2 * x\n", "<generated>", "exec"), scope)
print(scope["twice"](21), eval("1 + 2 * 3"), eval("x * y", {"x": 2}, {"y": 5}))
out = io.StringIO()
with contextlib.redirect_stdout(out):
    console = code.InteractiveInterpreter()
    console.runsource("answer = 6 * 7")
    console.runsource("print(answer)")
print(out.getvalue(), code.compile_command("if True:") is None)
