"""The layers of rmlib and rmbook, enforced: a module imports only from its own layer or below (ARCHITECTURE.md), so
rmlib imports nothing of the book; no module is over ~400 lines, every package names its public API, and the lower
layers load without torch."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"  # holds both packages; modules are named from here
PACKAGES = ("rmlib", "rmbook")

# package (or module) -> layer, bottom to top; the same table is in ARCHITECTURE.md. Every rmlib layer is below
# every rmbook layer: the library a researcher installs alone imports nothing of the book.
LAYERS = {
    "rmlib": 0, "rmlib.config": 0, "rmlib.errors": 0, "rmlib.background": 0, "rmlib.costs": 0, "rmlib.storage": 0,
    "rmlib.registry": 1, "rmlib.trained": 1, "rmlib.data": 1,
    "rmlib.models": 2,
    "rmlib.engine": 3, "rmlib.train": 3,
    "rmlib.stats": 4, "rmlib.lens": 4,
    "rmlib.cli": 5,
    "rmbook": 6, "rmbook.analysis": 6, "rmbook.chapters": 6,
    "rmbook.report": 7, "rmbook.course": 7,
    "rmbook.book": 8,
    "rmbook.cli": 9,
}
MAX_LINES = 400
# the faces of the torch packages import lazily (rmlib.lazy): importing them loads no torch until a name is used
# modules that load without torch yet use the torch packages: only they may import those inside a function (the
# command line starts in seconds, a plan is costed and the course's method checks import without torch)
DEFERS_TORCH = ["rmlib.cli", "rmlib.engine.plan", "rmbook.chapters.method.course"]
TORCH_PACKAGES = ("rmlib.engine", "rmlib.models", "rmlib.train")
TORCH_FREE = [*DEFERS_TORCH, "rmlib.registry", "rmlib.trained", "rmlib.data", "rmlib.storage", "rmlib.stats", "rmbook.analysis", "rmbook.report",
              "rmbook.chapters", "rmbook.course", "rmbook.book", "rmlib.engine", "rmlib.models", "rmlib.train"]


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    parts = module.split(".")
    if parts[:2] == ["rmbook", "chapters"] and len(parts) == 4 and parts[3] in ("charts", "course", "tables"):
        return LAYERS["rmbook.report"]  # a chapter's charts, tables and exercise checks: with the report and course
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len, default=None)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add its package to LAYERS and to ARCHITECTURE.md")
    return LAYERS[best]


def rmlib_imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, imported rmlib or rmbook module) for every import in a file (or in ``text`` as if it were that file),
    relative imports resolved."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in PACKAGES]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] not in PACKAGES:
                continue
            # `from rmlib.pkg import sub` may name a submodule: judge the deepest module that exists
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.append((node.lineno, sub if (SRC / (sub.replace(".", "/") + ".py")).exists()
                            or (SRC / sub.replace(".", "/")).is_dir() else mod))
    return out


FILES = sorted(p for package in PACKAGES for p in (SRC / package).rglob("*.py"))


def test_the_layer_table_finds_upward_imports():
    assert layer_of("rmlib.engine.sweep") == 3 and layer_of("rmlib.data.kinds") == 1 and layer_of("rmlib") == 0
    assert max(v for k, v in LAYERS.items() if k.split(".")[0] == "rmlib") < min(
        v for k, v in LAYERS.items() if k.split(".")[0] == "rmbook")
    upward = [(f, line, mod) for f in FILES for line, mod in rmlib_imports(f)
              if layer_of(mod) > layer_of(_module_name(f))]
    assert upward == [], "imports from a higher layer:\n" + "\n".join(
        f"  {f.relative_to(SRC)}:{line} imports {mod} (layer {layer_of(mod)} > {layer_of(_module_name(f))})"
        for f, line, mod in upward)


def test_the_checker_would_catch_an_upward_import():
    fake = SRC / "rmlib" / "data" / "kinds.py"
    text = "from rmlib.engine import token_sweep\nfrom ..models import load_model\nimport rmbook.book.runner\n"
    found = [mod for _, mod in rmlib_imports(fake, text)]
    assert found == ["rmlib.engine.token_sweep", "rmlib.models", "rmbook.book.runner"]
    assert all(layer_of(m) > layer_of("rmlib.data.kinds") for m in found)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_over_400_lines(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(SRC)} has {n} lines: split it by concern"


@pytest.mark.parametrize("path", [p for p in FILES if p.name == "__init__.py"], ids=lambda p: str(p.relative_to(SRC)))
def test_every_package_names_its_public_api(path):
    if path.parent.parent == SRC:
        return  # rmlib/__init__.py holds only the version, rmbook/__init__.py only its docstring
    tree = ast.parse(path.read_text())
    names = [n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__"
                                                                        for t in n.targets)]
    assert names, f"{path.relative_to(SRC)} has no __all__"
    defined = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert not defined, f"{path.relative_to(SRC)} implements {[d.name for d in defined]}: move them to a module"
    module = __import__(_module_name(path), fromlist=["__all__"])
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == [], f"{_module_name(path)}.__all__ names {missing}, which do not exist"


def test_the_lower_layers_and_the_published_mode_path_load_without_torch():
    code = ("import sys\n" + "".join(f"import {m}\n" for m in TORCH_FREE)
            + "rmlib.cli.build_parser()\n"  # with the book's subcommands (entry points)
            + "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False", f"importing {TORCH_FREE} imported torch"
    from rmlib.data import LM_LOGPROB, RM_SCORE  # the reward-kind labels, in one place
    from rmlib.engine import rewards
    assert (rewards.RM_SCORE, rewards.LM_LOGPROB) == (RM_SCORE, LM_LOGPROB)


PACKAGE_FOLDERS = sorted(p.parent for p in FILES if p.name == "__init__.py")


def _unlisted(package: Path) -> list[str]:
    """The modules (``name.py``) and subpackages (``name/``) of a package that its ``__init__.py`` docstring does not
    name in double backticks (as ``name``, ``name.py`` or, for a subpackage, ``name/``)."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    modules = [p.stem for p in package.glob("*.py") if p.name != "__init__.py"]
    subpackages = [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    missing = [m + ".py" for m in modules if f"``{m}``" not in doc and f"``{m}.py``" not in doc]
    missing += [s + "/" for s in subpackages if not any(f"``{s}{end}``" in doc for end in ("", ".py", "/"))]
    return sorted(missing)


# packages that hold one folder per chapter, named after it and found by that name (#41 item 2): a new chapter's
# folder needs no line in their docstrings, only a docstring of its own
BY_CHAPTER = ["rmbook/chapters"]


def _chapter_names() -> set[str]:
    """The book's chapters and the templates that serve them (``value_profiles`` for big_two and moral_foundations)."""
    from rmbook import book

    return set(book.chapters()) | {book.chapter(n).template.stem for n in book.chapters()}


def _unlisted_and_undocumented(package: Path, by_chapter: bool, chapters: set[str]) -> tuple[list, list]:
    """What :func:`_unlisted` finds, less (in a by-chapter package) the chapters' own modules; and those of them
    without a docstring of their own."""
    missing = _unlisted(package)
    if not by_chapter:
        return missing, []
    own = [m for m in missing if m.removesuffix(".py").removesuffix("/") in chapters]
    undocumented = [m for m in own if not ast.get_docstring(ast.parse(
        (package / m / "__init__.py" if m.endswith("/") else package / m).read_text()))]
    return [m for m in missing if m not in own], undocumented


@pytest.mark.parametrize("package", PACKAGE_FOLDERS, ids=lambda p: str(p.relative_to(SRC)))
def test_every_package_docstring_lists_its_modules(package):
    by_chapter = str(package.relative_to(SRC)) in BY_CHAPTER
    missing, undocumented = _unlisted_and_undocumented(package, by_chapter, _chapter_names() if by_chapter else set())
    assert undocumented == [], f"{undocumented}: a chapter's module says in its own docstring what it holds"
    assert missing == [], (f"{_module_name(package / '__init__.py')}: the __init__.py docstring does not name "
                           f"{', '.join(missing)} (write each as ``name`` or ``name.py``, or ``name/``)")


@pytest.mark.parametrize("path", sorted(p for layer in ("analysis", "report", "chapters")
                                         for p in (SRC / "rmbook" / layer).rglob("*.py")
                                         if p.name != "course.py"),  # exercise checks: the course layer's rule
                         ids=lambda p: str(p.relative_to(SRC)))
def test_the_engine_is_imported_at_the_top_of_a_file(path):
    """The torch packages' faces are lazy (rmlib.lazy), so analysis and report modules import them where a reader
    looks first, the top of the file, and never hide them inside a function."""
    tree = ast.parse(path.read_text())
    hidden = [f"line {n.lineno}: {ast.unparse(n)}" for fn in ast.walk(tree)
              if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))
              and any((getattr(n, "module", None) or a.name).startswith(("rmlib.engine", "rmlib.models", "rmlib.train"))
                      for a in n.names)]
    assert hidden == [], f"{path.relative_to(SRC)} imports the engine inside a function: {hidden}"


def _imports_anywhere(path: Path) -> set[str]:
    """The rmlib modules ``path`` imports, at the top or inside a function (a function-level import hides a circle
    from Python, not from a reader), less its own packages (a module importing its parent package is no circle)."""
    modules = {_module_name(p) for p in FILES}
    name, out = _module_name(path), set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(PACKAGES):
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names}
    packages = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return {m for m in out if m in modules and m not in packages and m != name}


def test_no_import_circle_even_through_imports_inside_functions():
    """#41 item 4: engine.checks <-> engine.tokens (only to share SweepError) and models.loading <-> models.local
    (a partial checkpoint loading its base) were circles hidden by function-level imports."""
    import graphlib

    graph = {_module_name(p): _imports_anywhere(p) for p in FILES}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        pytest.fail(f"an import circle: {' -> '.join(e.args[1])}")


def test_a_results_type_imports_no_chapters_analysis():
    """The claims page reads every chapter's typed results: a type that imported its chapter's analysis made an edit
    to any analysis rerun the claims page (its stamp hashes what its kernel imported, rmbook.book.imported)."""
    allowed = {"rmbook.analysis.choices", "rmbook.analysis.claims.rules", "rmbook.analysis.results.types.beside"}
    for path in sorted((SRC / "rmbook" / "chapters").glob("*/types.py")):
        analysis = {m for m in _imports_anywhere(path) if m.startswith(("rmbook.analysis", "rmbook.chapters"))}
        assert analysis <= allowed, f"{path.relative_to(SRC)} imports {sorted(analysis - allowed)}"
    from rmbook.chapters.claims.analysis import source_chapters
    from rmbook.analysis.results import result_type

    assert all(result_type(c).__module__.endswith(".types") for c in source_chapters())


MAX_FUNCTION_LINES = 60


def test_no_function_over_sixty_lines():
    """#41 item 4: a function a reader can hold in view; the last seven long ones (train at 129 lines) were split."""
    long = set()
    for path in FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                long.add(f"{path.relative_to(SRC)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert long == set(), f"functions over {MAX_FUNCTION_LINES} lines: split them"


def _imports_inside_functions(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, imported rmlib or rmbook module) for each import inside a function of ``path`` (or of ``text``)."""
    text = path.read_text() if text is None else text
    tree = ast.parse(text)
    inner = {id(n) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}
    top = {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in inner}
    return [(line, mod) for line, mod in rmlib_imports(path, text) if line not in top]


def test_an_import_inside_a_function_only_defers_torch():
    """#41 item 4: the project's own modules are imported at the top of a file, where a reader sees what it uses (116
    were inside functions). The one exception defers torch: a module that loads without torch (DEFERS_TORCH, checked
    by the torch-free test above) may import a torch package (rmlib.engine, .models, .train) where it is used."""
    hidden = [f"{path.relative_to(SRC)}:{line} imports {mod}" for path in FILES
              for line, mod in _imports_inside_functions(path)
              if not (mod.startswith(TORCH_PACKAGES)
                      and any(_module_name(path) == d or _module_name(path).startswith(d + ".") for d in DEFERS_TORCH))]
    assert hidden == [], "imports inside functions (move them to the top of the file):\n  " + "\n  ".join(hidden)


def test_the_check_of_imports_inside_functions_finds_one():
    fake = SRC / "rmlib" / "data" / "kinds.py"
    text = ("from rmlib.config import data_dir\n\n\ndef f():\n    from rmlib.storage import atomic\n"
            "    import rmlib.models\n    return atomic\n")
    assert _imports_inside_functions(fake, text) == [(5, "rmlib.storage.atomic"), (6, "rmlib.models")]


def test_a_new_chapters_module_needs_no_line_in_a_package_docstring(tmp_path):
    package = tmp_path / "course"
    package.mkdir()
    (package / "__init__.py").write_text('"""Checks: ``exercises.py``."""\n')
    (package / "exercises.py").write_text('"""The catalogue."""\n')
    (package / "new_chapter.py").write_text('"""The checks of the new chapter."""\n')
    (package / "helpers.py").write_text('"""Not a chapter."""\n')
    assert _unlisted_and_undocumented(package, True, {"new_chapter"}) == (["helpers.py"], [])
    assert _unlisted_and_undocumented(package, False, set()) == (["helpers.py", "new_chapter.py"], [])
    (package / "new_chapter.py").write_text("x = 1\n")
    assert _unlisted_and_undocumented(package, True, {"new_chapter"}) == (["helpers.py"], ["new_chapter.py"])


# --------------------------------------------------------------------------- #64: shared code never imports a chapter

SHARED_LAYERS = ("rmbook.analysis", "rmbook.report", "rmbook.course")


def _chapter_of(module: str) -> str | None:
    """The chapter folder a module of ``rmbook.chapters`` lies in (None for the package itself or another module)."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["rmbook", "chapters"] and len(parts) > 2 else None


def _shared_imports_of_chapters(files) -> list[str]:
    return [f"{_module_name(f)} imports {m}" for f in files for m in sorted(_imports_anywhere(f))
            if _module_name(f).startswith(SHARED_LAYERS) and (m == "rmbook.chapters" or _chapter_of(m))]


def test_no_shared_module_imports_a_chapter():
    """#64 item 2: report, course and analysis (the layers every chapter builds on) imported chapters (report ×9,
    course ×2, analysis ×1), so they sat above what they serve. They find a chapter's module by its name
    (:mod:`rmbook.locate`), and what two chapters share lives below both."""
    assert _shared_imports_of_chapters(FILES) == []


def test_the_check_of_shared_imports_finds_one(tmp_path):
    fake = SRC / "rmbook" / "report" / "charts" / "lexical.py"
    text = "from rmbook.chapters.framing.analysis import FRAMING_HALVES\nfrom rmbook.chapters import FOLDER\n"
    found = [m for _, m in rmlib_imports(fake, text)]
    assert found == ["rmbook.chapters.framing.analysis", "rmbook.chapters"]
    assert all(m == "rmbook.chapters" or _chapter_of(m) for m in found)


def _declared_uses(chapter: str) -> dict:
    """The chapters that ``chapter``'s folder declares it imports (``USES`` in its ``__init__.py``), with why."""
    return getattr(__import__(f"rmbook.chapters.{chapter}", fromlist=["USES"]), "USES", {})


def test_a_chapter_imports_another_only_through_a_declared_dependency():
    """#64 item 2: 17 imports ran between 9 pairs of chapters. A chapter's folder may import another chapter only
    where its ``__init__.py`` declares it (``USES``, with the reason: e.g. finetuning's trained RMs), so a reader
    sees every arrow between chapters in one place. value_cards' imports are its helper's (#64)."""
    undeclared = []
    for f in FILES:
        mine = _chapter_of(_module_name(f))
        if mine is None or mine == "value_cards":
            continue
        others = {_chapter_of(m) for m in _imports_anywhere(f)} - {None, mine}
        undeclared += [f"{_module_name(f)} imports chapter {o}" for o in sorted(others - set(_declared_uses(mine)))]
    assert undeclared == []
    assert _declared_uses("implicit_vs_explicit") and all(why for why in _declared_uses("implicit_vs_explicit").values())


def test_a_chapters_claims_import_no_chapter_module():
    """A chapter's ``claims.py`` is imported by its own brief and by the claims page: were it to import the chapter's
    analysis, an edit to any analysis would rerun the claims page (its stamp hashes what its kernel imported)."""
    for path in sorted((SRC / "rmbook" / "chapters").glob("*/claims.py")):
        chapters = {m for m in _imports_anywhere(path) if m.startswith("rmbook.chapters")}
        assert chapters == set(), f"{path.relative_to(SRC)} imports {sorted(chapters)}"


# --------------------------------------------------------------------------- #64 item 6: docs the test missed

_LISTED = re.compile(r"^\s*(?:[*-]|\|(?:\s*\d+\s*\|)?)\s*``([\w./-]+)``", re.M)


def _listed_but_missing(package: Path) -> list[str]:
    """The modules, templates or folders that ``package``'s docstring lists (an item that starts with ``name``, in a
    bullet or a table row) but that do not exist in it."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    return [n for n in _LISTED.findall(doc)
            if not any((package / c).exists() for c in (n, n + ".py", n.rstrip("/")))]


@pytest.mark.parametrize("package", PACKAGE_FOLDERS, ids=lambda p: str(p.relative_to(SRC)))
def test_a_package_docstring_lists_only_what_exists(package):
    """#64 item 6: report/prose listed 15 templates/*.md.j2 files that no longer existed (2 did). A package of
    chapters (:data:`BY_CHAPTER`) lists what each chapter's folder may hold, not files of its own."""
    if str(package.relative_to(SRC)) in BY_CHAPTER:
        return
    assert _listed_but_missing(package) == [], f"{package.relative_to(SRC)}'s docstring lists files it does not have"


def test_the_listing_check_finds_a_missing_template(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "beside.md.j2").write_text("")
    (tmp_path / "render.py").write_text("")
    (tmp_path / "__init__.py").write_text('"""Sentences.\n\n* ``render.py``: renders;\n* ``templates/beside.md.j2``: '
                                          'one;\n* ``templates/method.md.j2``: gone.\n"""\n')
    assert _listed_but_missing(tmp_path) == ["templates/method.md.j2"]


def _architecture_layers() -> dict[str, int]:
    """ARCHITECTURE.md's layer table: {package or module: layer}, from rows ``| N | `a`, `b` | ... |``."""
    text = (SRC.parent / "ARCHITECTURE.md").read_text()
    out = {}
    for layer, names in re.findall(r"^\| (\d+) \| ([^|]+) \|", text, flags=re.M):
        out |= {n: int(layer) for n in re.findall(r"`((?:rmlib|rmbook)[\w.]*)`", names)}
    return out


def test_the_layer_numbers_agree_with_architecture_md():
    """#64 item 6: the package docstrings gave layers 6 and 7 for report/course and book, where ARCHITECTURE.md says
    7, 7 and 8. The test's table, ARCHITECTURE.md's and each package docstring's "(layer N)" agree."""
    documented = _architecture_layers()
    assert documented, "ARCHITECTURE.md has no layer table"
    assert {k: layer_of(k) for k in documented} == documented
    said = {}
    for package in PACKAGE_FOLDERS:
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        if m := re.search(r"\(layer (\d+)", doc.split("\n\n")[0]):
            said[_module_name(package / "__init__.py")] = int(m.group(1))
    assert said and {k: layer_of(k) for k in said} == said
    top = ast.get_docstring(ast.parse((SRC / "rmbook" / "__init__.py").read_text()))
    rows = {f"rmbook.{n}": int(layer) for layer, n in re.findall(r"^\| (\d+) \| ``(\w+)/``", top, flags=re.M)}
    assert rows and {k: layer_of(k) for k in rows} == rows


# --------------------------------------------------------------------------- #64 item 3: statistics in rmlib.stats

STATS_LIBRARIES = ("scipy", "statsmodels")
# calls rmlib.stats makes that a chapter may make too: a coefficient, a rank, a moment, a quantile or a special
# function that the library computes in one call and rmlib.stats adds nothing to, and the OLS model itself (which
# rmlib.stats.cell_slopes fits per cell; the framing chapter fits its own four-slope design with it)
PRIMITIVES = {"scipy.stats.rankdata", "scipy.stats.kendalltau", "scipy.stats.spearmanr", "scipy.stats.skew",
              "scipy.stats.kurtosis", "scipy.special.gammaln", "scipy.stats.norm.ppf", "scipy.stats.t.ppf",
              "statsmodels.api.OLS"}


def _library_calls(path: Path, text: str | None = None) -> set[tuple[str, int]]:
    """(dotted scipy/statsmodels function, line) for each call in a file, through its imports' names."""
    tree = ast.parse(path.read_text() if text is None else text)
    alias = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            alias |= {a.asname or a.name: a.name for a in n.names if a.name.split(".")[0] in STATS_LIBRARIES}
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in STATS_LIBRARIES:
            alias |= {a.asname or a.name: f"{n.module}.{a.name}" for a in n.names}
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f, chain = n.func, []
            while isinstance(f, ast.Attribute):
                chain.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name) and f.id in alias:
                out.add((".".join([alias[f.id], *reversed(chain)]), n.lineno))
    return out


def _wrapped_calls_in_chapters() -> list[str]:
    wrapped = {c for p in (SRC / "rmlib" / "stats").glob("*.py") for c, _ in _library_calls(p)} - PRIMITIVES
    return [f"{f.relative_to(SRC)}:{line} calls {c}" for f in FILES if _chapter_of(_module_name(f))
            for c, line in sorted(_library_calls(f)) if c in wrapped]


def test_a_chapter_calls_no_scipy_or_statsmodels_function_that_rmlib_stats_wraps():
    """#64 item 3: the bootstrap CI was written three ways (rmlib.stats, scipy again in implicit_vs_explicit, numpy
    in value_cards). A chapter that needs what rmlib.stats computes with scipy or statsmodels calls rmlib.stats."""
    assert _wrapped_calls_in_chapters() == []


def test_the_check_of_library_calls_finds_one():
    fake = SRC / "rmbook" / "chapters" / "framing" / "analysis.py"
    text = ("from scipy import stats as sps\nimport statsmodels.stats.multitest as mt\n"
            "x = sps.bootstrap((v,), f)\ny = mt.multipletests(p)\n")
    assert _library_calls(fake, text) == {("scipy.stats.bootstrap", 3), ("statsmodels.stats.multitest.multipletests", 4)}
