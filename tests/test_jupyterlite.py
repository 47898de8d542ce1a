"""The optional JupyterLite site (jupyterlite/): its build runs offline and holds the
learners' notebooks (no solutions), the kit's wheel in its package index and the
widgets' extension. Running it needs Pyodide from a CDN, which is not tested here
(see jupyterlite/README.md). Needs the ``lite`` extra; skipped without it, except
under CI, where it fails."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_site_builds_offline_with_the_notebooks_and_the_wheel(tmp_path):
    if importlib.util.find_spec("jupyterlite_core") is None:
        message = "jupyterlite-core is not installed (pip install -e '.[lite]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # The repository's config, with its relative paths made absolute for a build here.
    config = json.loads((ROOT / "jupyterlite" / "jupyter_lite_config.json").read_text())
    config["LiteBuildConfig"]["contents"] = [str(ROOT / "notebooks")]
    config["LiteBuildConfig"]["output_dir"] = str(tmp_path / "site")
    config["PipliteAddon"]["piplite_urls"] = [str(dist)]
    (tmp_path / "jupyter_lite_config.json").write_text(json.dumps(config))
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(
        [sys.executable, "-m", "jupyterlite_core", "build", "--config", "jupyter_lite_config.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    site = tmp_path / "site"
    shown = sorted(p.name for p in (site / "files").rglob("*") if p.is_file())
    learners = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert shown == learners, shown
    index = json.loads((site / "pypi" / "all.json").read_text())
    assert "autogradkit" in index, sorted(index)
    assert (site / "extensions" / "@jupyter-widgets").is_dir(), "no widgets extension"
