"""Turn environment.yml's `pip:` list into pip requirement files.

environment.yml stays the single source of truth; conda is not available on
every machine, so the Makefile installs the same pins into a plain venv.
Writes two files: one installed normally, one with `pip --no-deps` (entries
marked `# no-deps`).  Uses only the standard library, as it runs before the
venv exists.

``--uv-options`` prints the flags that give uv what pip's configuration gives pip
(the Makefile installs with uv, which takes seconds where pip takes minutes).
"""
import re
import shlex
import subprocess
import sys
from pathlib import Path


def pip_entries(text):
    in_pip = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if re.match(r"^\s*-\s*pip:\s*$", line):
            in_pip = True
            indent = None
            continue
        if not in_pip:
            continue
        m = re.match(r"^(\s*)-\s*(\S+)\s*(#.*)?$", line)
        if m:
            if indent is None:
                indent = len(m.group(1))
            if len(m.group(1)) < indent:
                break
            yield m.group(2), "no-deps" in (m.group(3) or "")
        elif line.strip() and not line.strip().startswith("#"):
            break


def canonical(name):
    """A distribution name as PEP 503 compares them (``Jupyter_Book`` == ``jupyter-book``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(pyproject_file):
    """pyproject.toml's declared names by part: ``{"rmlib": dependencies, <extra>: that extra's}``, canonical."""
    import tomllib  # Python 3.11+; only the tests call this, while main() runs on any python3 before the venv exists

    project = tomllib.loads(Path(pyproject_file).read_text())["project"]
    parts = {"rmlib": project["dependencies"], **project.get("optional-dependencies", {})}
    return {part: {canonical(re.split(r"[<>=!~ \[;(]", d)[0]) for d in names} for part, names in parts.items()}


def pinned(env_file):
    """environment.yml's pip list: canonical name -> installed with --no-deps."""
    return {canonical(spec.split("==")[0]): no_deps for spec, no_deps in pip_entries(Path(env_file).read_text())}


def main(env_file, out_deps, out_nodeps):
    entries = list(pip_entries(Path(env_file).read_text()))
    if not entries:
        sys.exit(f"{env_file}: no `pip:` list found")
    Path(out_deps).write_text("".join(f"{p}\n" for p, nd in entries if not nd))
    Path(out_nodeps).write_text("".join(f"{p}\n" for p, nd in entries if nd))


def uv_options(pip_config: str) -> list[str]:
    """uv flags for the find-links and constraints in ``pip config list`` output (lines ``scope.key='value'``).

    uv does not read pip's configuration. The find-links matter most: this kind of machine keeps the CPU build of
    torch on local disk there, and without them the pinned ``torch==2.13.0`` would come from PyPI as a multi-GB CUDA
    build. pip's extra index URLs are left out on purpose: uv takes each package from the first index that has it,
    and the partial local indexes would hide the pinned releases that PyPI has."""
    flags: list[str] = []
    for line in pip_config.splitlines():
        key, sep, value = line.partition("=")
        option = key.rsplit(".", 1)[-1]
        if not sep or option not in ("find-links", "constraint"):
            continue
        for item in shlex.split(value.strip().strip("'\"")):
            flag = [f"--{option}", item]
            if not any(flags[i:i + 2] == flag for i in range(0, len(flags), 2)):
                flags += flag
    return flags


if __name__ == "__main__":
    if sys.argv[1:2] == ["--uv-options"]:  # argv[2]: the venv's pip
        config = subprocess.run([sys.argv[2], "config", "list"], capture_output=True, text=True).stdout
        print(shlex.join(uv_options(config)))
    else:
        main(*sys.argv[1:4])
