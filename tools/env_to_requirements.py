"""Turn environment.yml's `pip:` list into pip requirement files.

environment.yml stays the single source of truth; conda is not available on
every machine, so the Makefile installs the same pins into a plain venv.
Writes two files: one installed normally, one with `pip --no-deps` (entries
marked `# no-deps`).  Uses only the standard library, as it runs before the
venv exists.
"""
import re
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


if __name__ == "__main__":
    main(*sys.argv[1:4])
