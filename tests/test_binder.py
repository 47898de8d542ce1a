"""Binder: the ``binder/`` folder builds an environment that runs the notebooks.

Without Docker, the build itself cannot run here. What can be checked is what the
build would do: the pinned Python, that the requirements install this repository
with the extra the notebooks need, that repo2docker accepts the folder (its
``--no-build`` mode writes the Dockerfile without building), and that those very
requirements, installed into a clean virtual environment, run every notebook
under nbval.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
RUNTIME = BINDER / "runtime.txt"
REQUIREMENTS = BINDER / "requirements.txt"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
FIRST_NOTEBOOK = "notebooks/01_tensors_functions_graph.ipynb"
# What mybinder's repo2docker image for Python 3.11 already has; `pip install -r
# binder/requirements.txt` keeps them, since `.[lab]` accepts them.
BINDER_IMAGE = [
    "jupyterlab==4.4.9",
    "notebook==7.4.7",
    "ipywidgets==8.1.7",
    "jupyterlab_widgets==3.0.15",
    "ipykernel==7.0.1",
]


def _pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def _requirement_lines() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in REQUIREMENTS.read_text().splitlines())
    return [line for line in lines if line]


def test_the_runtime_is_a_pinned_python_the_package_supports():
    text = RUNTIME.read_text().strip()
    match = re.fullmatch(r"python-3\.(\d+)", text)
    assert match, f"binder/runtime.txt must pin one Python as 'python-3.X', got {text!r}"
    requires = _pyproject()["project"]["requires-python"]
    minimum = int(re.search(r">=\s*3\.(\d+)", requires).group(1))
    assert int(match.group(1)) >= minimum, (
        f"Binder's Python {text} is older than requires-python {requires}"
    )


def test_the_requirements_install_this_repository_with_the_lab_extra():
    lines = _requirement_lines()
    local = [line for line in lines if re.fullmatch(r"(-e\s+)?\.(\[[\w,\s-]+\])?", line)]
    assert local and local[0].startswith("-e "), (
        "install the repository editable (-e .[lab]): a learner's edits then take effect"
    )
    assert local, f"binder/requirements.txt must install this repository ('.[lab]'), got {lines}"
    extras = re.findall(r"[\w-]+", local[0].split("[", 1)[1]) if "[" in local[0] else []
    known = _pyproject()["project"]["optional-dependencies"]
    assert "lab" in extras, "the notebooks need the lab extra (ipywidgets, matplotlib)"
    assert set(extras) <= set(known), f"unknown extras {set(extras) - set(known)}"
    lab = " ".join(known["lab"])
    for needed in ("ipywidgets", "matplotlib", "jupyterlab"):
        assert needed in lab, f"the lab extra must bring {needed} for the notebooks"


def test_the_readme_badge_opens_the_first_notebook_in_jupyterlab():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\(https://mybinder\.org/v2/gh/[^)\s]+\)", readme)
    assert links, "the README needs a Binder badge linking to mybinder.org"
    assert any(f"urlpath=lab/tree/{FIRST_NOTEBOOK}" in link for link in links), links
    assert (ROOT / FIRST_NOTEBOOK).exists(), f"the badge opens {FIRST_NOTEBOOK}, which must exist"


def _repo2docker() -> str | None:
    beside = Path(sys.executable).with_name("repo2docker")
    return str(beside) if beside.exists() else shutil.which("repo2docker")


@pytest.mark.slow
def test_repo2docker_accepts_the_configuration(tmp_path):
    command = _repo2docker()
    if command is None:
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    proc = subprocess.run(
        [command, "--no-build", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "python=3.11" in output or "python-3.11" in output, (
        "repo2docker ignored binder/runtime.txt"
    )
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in output, (
        "repo2docker did not pick up binder/requirements.txt"
    )
    assert re.search(r"WORKDIR \$\{REPO_DIR\}", output), (
        "'.' in the requirements must mean the repository"
    )


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.binder
@pytest.mark.timeout(900)  # a fresh environment: several installs, then the notebooks
def test_the_binder_requirements_run_every_notebook_in_a_clean_environment(tmp_path):
    """What Binder does, minus Docker: a fresh environment, ``pip install -r
    binder/requirements.txt`` from the repository root, then the notebooks, which
    must reproduce their saved outputs there too (nbval)."""
    assert len(NOTEBOOKS) >= 6, f"expected the notebooks, found {[n.name for n in NOTEBOOKS]}"
    env_dir = tmp_path / "binder-env"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    environ = {
        key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    environ["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    def run(*args: str, cwd: Path = ROOT, timeout: int = 900) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(python), *args],
            cwd=cwd,
            env=environ,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, (
            f"{' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
        return proc

    # The image's own packages first, then the requirements from the repository root,
    # as repo2docker runs them (WORKDIR ${REPO_DIR}).
    run("-m", "pip", "install", "-q", *BINDER_IMAGE)
    run("-m", "pip", "install", "-q", "-r", str(REQUIREMENTS.relative_to(ROOT)))
    run("-m", "pip", "install", "-q", "pytest", "nbval")
    # Elsewhere than the repository, so only the environment's install can be found;
    # editable, it points at the repository's source (a learner's edits take effect).
    installed = run(
        "-c",
        "import autogradkit, ipywidgets, jupyterlab, ipykernel, notebook, matplotlib\n"
        "import importlib.metadata as md\n"
        "print(autogradkit.__file__)\n"
        "for name in ('jupyterlab', 'notebook', 'ipywidgets', 'jupyterlab_widgets', 'ipykernel'):\n"
        "    print(f'{name}=={md.version(name)}')",
        cwd=tmp_path,
    )
    assert str(ROOT / "autogradkit") in installed.stdout, installed.stdout
    for pinned in BINDER_IMAGE:
        assert pinned in installed.stdout, f"installing the requirements replaced {pinned}"

    # nbval alone, with an empty ini file: none of this repository's pytest settings or plugins.
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\n")
    proc = run(
        "-m",
        "pytest",
        "-c",
        str(ini),
        "--rootdir",
        str(ROOT),
        "-p",
        "no:cacheprovider",
        "--nbval",
        "--nbval-current-env",
        "--nbval-sanitize-with",
        str(ROOT / "notebooks" / "nbval_sanitize.cfg"),
        *map(str, NOTEBOOKS),
    )
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout[-2000:]
