"""What each package needs is declared (#41 item 1): pyproject.toml names rmlib's dependencies and the book's extra,
environment.yml pins every one of them, and every third-party module a package imports belongs to a distribution
that its part declares (rmlib: the dependencies; rmbook: those and the ``book`` extra)."""
from __future__ import annotations

import ast
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from env_to_requirements import canonical as _canonical, declared, pinned, uv_options  # noqa: E402  (the Makefile's reader)


def _declared() -> dict[str, set[str]]:
    return declared(ROOT / "pyproject.toml")


def _pinned() -> dict[str, bool]:
    """environment.yml's pip list: canonical name -> installed with --no-deps."""
    return pinned(ROOT / "environment.yml")


def _third_party_imports(package: str, top_only: bool = False) -> dict[str, list[str]]:
    """Top-level module -> the files of ``package`` that import it (at the top or, unless ``top_only``, inside a
    function), stdlib and the project's own packages left out."""
    out: dict[str, list[str]] = {}
    for path in sorted((ROOT / "src" / package).rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in (tree.body if top_only else ast.walk(tree)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("rmlib", "rmbook", "__future__"):
                    out.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return out


def test_every_declared_dependency_is_pinned_in_environment_yml():
    pins = _pinned()
    for part, names in _declared().items():
        assert names - set(pins) == set(), f"{part}: declared in pyproject.toml but not pinned in environment.yml"


OPTIONAL = ["ray"]  # extras of the library: imported only where the feature is used, with a message when missing


@pytest.mark.parametrize("package,parts", [("rmlib", ["rmlib", *OPTIONAL]), ("rmbook", ["rmlib", "book"])])
def test_every_import_belongs_to_a_declared_distribution(package, parts):
    """rmlib may import only what ``pip install -e .`` installs (plus the no-deps packages environment.yml marks,
    which pyproject.toml says why it leaves out, and its optional extras); rmbook also what ``book`` installs."""
    allowed = set().union(*(_declared()[p] for p in parts))
    no_deps = {n for n, nd in _pinned().items() if nd}
    owners = metadata.packages_distributions()
    undeclared = {}
    for module, files in _third_party_imports(package).items():
        dists = {_canonical(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {files[0]}) belongs to no installed distribution"
        if not dists & (allowed | no_deps):
            undeclared[module] = (sorted(dists), files[0])
    assert undeclared == {}, f"{package} imports modules whose distributions its part does not declare: {undeclared}"


def test_the_library_imports_its_optional_extras_only_where_they_are_used():
    optional = set().union(*(_declared()[p] for p in OPTIONAL)) | {n for n, nd in _pinned().items() if nd}
    owners = metadata.packages_distributions()
    at_top = {m: f for m, f in _third_party_imports("rmlib", top_only=True).items()
              if {_canonical(d) for d in owners.get(m, [])} & optional}
    assert at_top == {}, f"imported at the top of a module, so `import rmlib` would need them: {at_top}"
    assert set(_declared()) == {"rmlib", "book", *OPTIONAL}


def test_the_checker_sees_an_undeclared_import():
    assert "papermill" in _third_party_imports("rmbook")
    assert "papermill" not in _third_party_imports("rmlib")  # the library runs no notebook
    assert "torch" in _third_party_imports("rmlib") and "torch" in _declared()["rmlib"]
    assert {"papermill", "jupyter-book", "altair"} <= _declared()["book"]
    assert not ({"papermill", "jupyter-book", "altair", "jinja2"} & _declared()["rmlib"])


def test_uv_is_given_pips_find_links_and_constraints_but_not_its_partial_indexes():
    """`make venv` installs with uv, which does not read pip's configuration: without pip's find-links the pinned
    torch would come from PyPI as a CUDA build, and pip's local indexes, which uv would search first, lack releases."""
    config = ("global.cert='/etc/ssl/certs/ca.crt'\n"
              "global.constraint='/etc/xdg/pip/constraints.txt'\n"
              "global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'\n"
              "global.find-links='/opt/wheels'\n"
              ":env:.find-links='/opt/wheels /srv/more wheels'\n")
    assert uv_options(config) == ["--constraint", "/etc/xdg/pip/constraints.txt", "--find-links", "/opt/wheels",
                                  "--find-links", "/srv/more", "--find-links", "wheels"]
    assert uv_options("global.index-url='https://example.org/simple'\n") == []



def test_the_installed_packages_come_with_their_bytecode():
    """`make venv` compiles what it installs (uv does not by default, pip does): where PYTHONDONTWRITEBYTECODE is set,
    as on the project's machines, every process would otherwise compile torch, pandas and the rest from source."""
    import importlib.util

    for module in ("torch", "pandas", "transformers", "altair"):
        source = importlib.util.find_spec(module).origin
        assert Path(importlib.util.cache_from_source(source)).is_file(), f"{module} was installed without its .pyc"
