"""Ship the top-level templates (memory/, hooks/, skills/) inside the wheel.

In a checkout they are read in place; an installed package finds them under
souveraine/_data/, copied here at build time.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATES = ("memory", "hooks", "skills")


class BuildWithTemplates(build_py):
    def run(self):
        super().run()
        here = Path(__file__).parent
        data = Path(self.build_lib) / "souveraine" / "_data"
        for name in TEMPLATES:
            target = data / name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(here / name, target)


setup(cmdclass={"build_py": BuildWithTemplates})
