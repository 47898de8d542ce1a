"""Packaging and repository hygiene: metadata, license, README, CI script.

These tests read files at the repository root, so they run from a clone (or an
sdist), not from an installed wheel alone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
README = ROOT / "README.md"
LICENSE = ROOT / "LICENSE"
CI_RUN = ROOT / ".ci" / "run"
BENCH = ROOT / "benchmarks" / "bench_core.py"

# Heavy or optional packages that `import autogradkit` must never pull in.
FORBIDDEN_ON_IMPORT = ("matplotlib", "ipywidgets", "IPython", "torch", "scipy", "pandas")


def _pyproject() -> dict:
    with PYPROJECT.open("rb") as f:
        return tomllib.load(f)


def _requirement_name(req: str) -> str:
    return re.split(r"[\s\[<>=!~;@]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _run_python(code: str, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


# ---------------------------------------------------------------- import


def test_import_pulls_in_no_heavy_or_optional_packages():
    code = (
        "import sys, autogradkit\n"
        f"bad = sorted(m for m in {FORBIDDEN_ON_IMPORT!r} if m in sys.modules)\n"
        "print(repr(bad))\n"
    )
    proc = _run_python(code)
    assert proc.returncode == 0, f"`import autogradkit` failed:\n{proc.stderr}"
    assert proc.stdout.strip() == "[]", (
        f"`import autogradkit` imported {proc.stdout.strip()}; the core must need NumPy only"
    )


def test_import_is_a_real_package_not_a_namespace():
    proc = _run_python("import autogradkit; print(autogradkit.__file__)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("__init__.py"), (
        f"autogradkit.__file__ is {proc.stdout.strip()}: autogradkit/__init__.py is missing, "
        "so Python imports an empty namespace package"
    )


# ---------------------------------------------------------------- metadata


def test_pyproject_core_metadata():
    project = _pyproject()["project"]
    assert project["name"] == "autogradkit"
    assert project["requires-python"] == ">=3.11"
    assert re.fullmatch(r"\d+\.\d+\.\d+", project["version"])
    assert project["license"] == "BSD-3-Clause"


def test_numpy_is_the_only_core_dependency():
    deps = _pyproject()["project"]["dependencies"]
    assert [_requirement_name(d) for d in deps] == ["numpy"], deps


def test_extras_and_torch_is_never_a_dependency():
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    assert {"lab", "test", "dev"} <= set(extras)
    lab = {_requirement_name(r) for r in extras["lab"]}
    assert {"jupyterlab", "ipywidgets", "matplotlib"} <= lab
    test = {_requirement_name(r) for r in extras["test"]}
    assert {"pytest", "hypothesis", "nbval"} <= test
    # torch is installed separately (CPU wheel) by .ci/run for differential
    # tests; as a requirement pip would fetch several GB of CUDA packages.
    for name, reqs in extras.items():
        assert "torch" not in {_requirement_name(r) for r in reqs}, f"torch in extra {name!r}"


def test_build_backend_is_hatchling():
    assert _pyproject()["build-system"]["build-backend"] == "hatchling.build"


def test_pytest_markers_are_declared():
    ini = _pyproject()["tool"]["pytest"]["ini_options"]
    # The notebooks are tests too: `python -m pytest` runs them with nbval.
    assert ini["testpaths"] == ["tests", "notebooks"]
    assert "--nbval" in ini["addopts"] and "--nbval-lax" not in ini["addopts"]
    declared = {m.split(":", 1)[0].strip() for m in ini["markers"]}
    assert {"e2e", "torch", "slow"} <= declared
    assert "--strict-markers" in ini["addopts"]


# ---------------------------------------------------------------- license


def test_license_is_bsd_3_clause():
    text = LICENSE.read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, the autogradkit developers" in text
    for clause in (
        "Redistribution and use in source and binary forms, with or without",
        "Redistributions of source code must retain the above copyright notice",
        "Redistributions in binary form must reproduce the above copyright notice",
        "Neither the name of the copyright holder nor the names of its",
        'THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"',
    ):
        assert clause in text, clause


# ---------------------------------------------------------------- README / CI


def _quick_start_commands() -> list[str]:
    text = README.read_text()
    m = re.search(r"^## Quick start\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert m, "README has no '## Quick start' section"
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", m.group(1), flags=re.S)
    return [b.strip() for b in blocks]


def test_readme_quick_start_has_exactly_two_single_line_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2, commands
    for cmd in commands:
        assert "\n" not in cmd, f"not a single line: {cmd!r}"
        assert cmd.startswith("python3 -m venv .venv && "), cmd
    lab, test = commands
    assert ".venv/bin/jupyter lab" in lab
    assert ".venv/bin/python -m pytest" in test


def test_readme_commands_name_existing_extras():
    extras = set(_pyproject()["project"]["optional-dependencies"])
    for cmd in _quick_start_commands():
        for extra in re.findall(r'-e "\.\[([\w,-]+)\]"', cmd):
            assert set(extra.split(",")) <= extras, (cmd, extras)


def test_ci_runs_the_readme_test_command():
    _, test_cmd = _quick_start_commands()
    ci_lines = {line.strip() for line in CI_RUN.read_text().splitlines()}
    # The README's one-liner, split at `&&`: CI creates the same venv, installs
    # the same extra and runs exactly the same pytest invocation.
    steps = [s.strip() for s in test_cmd.split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    for step in steps:
        assert step in ci_lines, f"{step!r} from the README is not a line of .ci/run"
    pytest_step = steps[-1]
    assert "pytest" in pytest_step
    ci_pytest = {line for line in ci_lines if "-m pytest" in line and not line.startswith("#")}
    # The README's command leaves the browser and Binder tests out (they need
    # Chromium and PyPI, and take minutes); CI runs exactly those in two more
    # invocations at once (the Binder one in the background), so together the
    # three run every test.
    quick = re.fullmatch(
        r'\.venv/bin/python -m pytest -n auto -m "not (\w+) and not (\w+)"', pytest_step
    )
    assert quick, pytest_step
    browser, binder = quick.groups()
    rest = {
        f'.venv/bin/python -m pytest -n 0 -m "{binder}" >"$binder_log" 2>&1 &',
        f'.venv/bin/python -m pytest -n 0 -m "{browser} and not {binder}"',
    }
    assert ci_pytest == {pytest_step, *rest}, ci_pytest


def test_ci_lints_and_type_checks_before_the_tests():
    lines = [line.strip() for line in CI_RUN.read_text().splitlines()]
    first_pytest = min(
        i for i, line in enumerate(lines) if line.startswith(".venv/bin/python -m pytest")
    )
    for check in (".venv/bin/ruff format --check .", ".venv/bin/ruff check .", ".venv/bin/mypy"):
        assert check in lines[:first_pytest], f"{check!r} must run in .ci/run before the tests"
    test_extra = {
        _requirement_name(r) for r in _pyproject()["project"]["optional-dependencies"]["test"]
    }
    assert {"ruff", "mypy", "pytest-xdist"} <= test_extra, "CI installs only the test extra"


def test_the_left_out_markers_are_declared_and_used():
    ini = _pyproject()["tool"]["pytest"]["ini_options"]
    declared = {m.split(":", 1)[0].strip() for m in ini["markers"]}
    assert {"browser", "binder"} <= declared
    tests = ROOT / "tests"
    assert "pytest.mark.browser" in (tests / "e2e" / "test_lab.py").read_text()
    assert "pytest.mark.browser" in (tests / "e2e" / "test_voila.py").read_text()
    assert "pytest.mark.binder" in (tests / "test_binder.py").read_text()


def test_ci_script_is_valid_strict_bash():
    text = CI_RUN.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert "torch==2.13.0" in text
    assert "bench_core.py --quick" in text
    proc = subprocess.run(["bash", "-n", str(CI_RUN)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_readme_layout_names_files_that_exist():
    text = README.read_text()
    m = re.search(r"^## Layout\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert m, "README has no '## Layout' section"
    paths = re.findall(r"^\| `(autogradkit/[^`]+)` \|", m.group(1), flags=re.M)
    assert paths, "no autogradkit paths found in the Layout table"
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"README's Layout names files that do not exist: {missing}"


# ---------------------------------------------------------------- benchmark


def _run_benchmark(tmp_path, libs: str, only: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`bench_core.py --quick` on some libraries and workloads: the process and its
    JSON report."""
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--libs", libs, "--only", only, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, json.loads(out.read_text())


def test_benchmark_script_runs_numpy_only_quickly(tmp_path):
    proc, report = _run_benchmark(tmp_path, "numpy", "chain,tutorial")
    assert "chain" in proc.stdout and "tutorial" in proc.stdout
    by_name = {r["workload"]: r for r in report["results"]}
    assert by_name["chain"]["us_per_iter"]["numpy"] > 0
    assert by_name["tutorial"]["us_per_iter"]["numpy"] > 0


def test_benchmark_times_growth_chains_in_a_process_per_library(tmp_path):
    # chain-N runs in worker processes (one per library, see bench_core's docstring):
    # each column must come back checked and timed through them.
    _, report = _run_benchmark(tmp_path, "autogradkit,numpy", "chain-200")
    (row,) = report["results"]
    assert row["errors"] == {}
    assert row["check"] == {"autogradkit": "ok", "numpy": "ref"}
    assert row["cpu_us_per_iter"]["autogradkit"] > 0
    assert row["cpu_us_per_iter"]["numpy"] > 0
