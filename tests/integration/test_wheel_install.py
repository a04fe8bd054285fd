"""#64 item 4: rmlib installs anywhere. The wheel that ``pip wheel .`` builds holds rmlib alone (the book is run from
a checkout), ships the data manifest, and once installed into a fresh venv its ``rmlib sweep`` writes the cache
under the user's cache folder (platformdirs, here ``$XDG_CACHE_HOME/rmlib``), never beside ``site-packages`` as
``PROJECT_ROOT = parents[2]`` made it do. Nothing is downloaded: the wheel is built without build isolation and the
fresh venv finds its dependencies in this venv's ``site-packages`` (a path in a ``.pth`` file, which runs none of
that folder's own ``.pth`` files, so the checkout's editable ``src/`` stays off the path)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''
import importlib.util, json, rmlib
from rmlib import config
from rmlib.data.manifest import load_manifest
print(json.dumps({"rmlib": rmlib.__file__, "rmbook": importlib.util.find_spec("rmbook") is not None,
                  "cache": str(config.cache_dir()), "data": str(config.data_dir()), "datasets": len(load_manifest())}))
'''


def _wheel(tmp_path: Path) -> Path:
    """The wheel, built from a copy of the project's packaging files and both packages (src/rmbook too: the wheel
    must leave it out though it is there)."""
    project = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("pyproject.toml", "README.md"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    for package in ("rmlib", "rmbook"):
        shutil.copytree(ROOT / "src" / package, project / "src" / package, ignore=skip)
    out = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "--disable-pip-version-check", "-w", str(out), str(project)], check=True, cwd=tmp_path,
                   capture_output=True, timeout=300)
    (wheel,) = out.glob("rmlib-*.whl")
    return wheel


def test_the_wheel_holds_rmlib_alone_and_its_sweep_caches_outside_site_packages(tmp_path):
    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.startswith("rmbook")], "the book is in rmlib's wheel"
    assert {"rmlib/config.py", "rmlib/data/sources.yml", "rmlib/registry.yaml"} <= set(names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # this venv's packages, last on the path
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    "--disable-pip-version-check", str(wheel)], check=True, capture_output=True, timeout=300)

    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RMLIB_", "PYTHON"))}
    env.update(XDG_CACHE_HOME=str(home / "cache"), XDG_DATA_HOME=str(home / "data"), TQDM_DISABLE="1")
    work = tmp_path / "elsewhere"
    work.mkdir()
    probe = subprocess.run([str(python), "-c", PROBE], env=env, cwd=work, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-3000:]
    found = json.loads(probe.stdout.splitlines()[-1])
    assert Path(found["rmlib"]).is_relative_to(site) and not found["rmbook"]  # the wheel's rmlib, and no book
    assert found["cache"] == str(home / "cache" / "rmlib") and found["data"] == str(home / "data" / "rmlib")
    assert found["datasets"] > 0  # the data manifest is found inside the installed package

    sweep = subprocess.run([str(venv / "bin" / "rmlib"), "sweep", "--model", "tiny-llama", "--head", "rm",
                            "--allow-untrained-head", "--dtype", "float32", "--prompt", "What is the best thing?",
                            "--tokens", "0:40", "--top", "3"], env=env, cwd=work, capture_output=True, text=True,
                           timeout=300)
    assert sweep.returncode == 0, sweep.stderr[-3000:]
    (saved,) = [p for p in (home / "cache" / "rmlib" / "sweeps").iterdir() if p.is_dir()]
    assert any(saved.rglob("*.parquet"))
    assert not [p for p in venv.rglob("*") if p.name in {"sweeps", ".cache", "external"}]  # nothing beside the install
