import logging

from bandit.core import config, manager

logging.getLogger("bandit").setLevel(logging.ERROR)
with open("target.py", "w") as handle:
    handle.write("import subprocess\nimport yaml\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n"
                 "    return yaml.load(open('x'))\n\npassword = 'hunter2'\n")
bandit = manager.BanditManager(config.BanditConfig(), "file", quiet=True)
bandit.discover_files(["target.py"])
bandit.run_tests()
issues = sorted((i.test_id, i.severity, i.lineno) for i in bandit.get_issue_list())
print(issues)
print(bandit.metrics.data["_totals"]["loc"], len(bandit.files_list))
