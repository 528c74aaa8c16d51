"""Build hook (the project's metadata is pyproject.toml): a wheel carries the fixtures.

``test_data/`` sits beside the package in a checkout, where ``default_test_data()`` finds it;
a built wheel (``pip install .``, not editable) has no checkout, so the fixtures are copied
into it as ``benchmark/test_data/``, where ``default_test_data()`` looks next.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithFixtures(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "benchmark" / "test_data"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "test_data", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithFixtures})
