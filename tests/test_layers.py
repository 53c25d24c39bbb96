"""The packages stand in layers: every import between them runs one way, down (docs/architecture.md)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "speechproc"
# lowest first; a module may import its own layer and the layers below it
LAYERS = ["foundation", "query", "engines", "stages", "formats", "store", "delivery", "config", "report", "batch",
          "api", "cli"]
MAX_TOP_LEVEL_MODULES = 12
MAX_MODULES_PER_FOLDER = 12
SPLIT_BY_CAPABILITY = ("stages", "store")  # packages whose modules live in capability sub-packages
STAGES_OWN_MODULES = {"pipeline.py", "options.py"}  # the stage table and the stages' options, at stages/ itself
MAX_MODULE_LINES = 450


def layer_of(module: str) -> str:
    """`store.database.catalog` -> store; a top-level module other than api and cli is the foundation."""
    head = module.split(".")[0]
    return head if head in LAYERS else "foundation"


def imports_of(path: Path) -> set[str]:
    """The speechproc modules and packages a file imports (without the `speechproc.` prefix)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                node.module.startswith("speechproc."):
            found.add(node.module.removeprefix("speechproc."))
        elif isinstance(node, ast.ImportFrom) and node.module == "speechproc":
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("speechproc.") for a in node.names if a.name.startswith("speechproc.")}
    return found


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(p for p in parts if p != "__init__") or "__init__"] = path
    return out


def test_every_import_between_packages_runs_down():
    upward = []
    for name, path in modules().items():
        mine = LAYERS.index(layer_of(name))
        for target in imports_of(path):
            if LAYERS.index(layer_of(target)) > mine:
                upward.append(f"{name} -> {target}")
    assert not upward, f"imports that run up a layer: {upward}"


def test_no_relative_imports_hide_a_layer():
    relative = [name for name, path in modules().items()
                if any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(ast.parse(path.read_text())))]
    assert not relative, f"relative imports (write them absolute, so the layers can be read): {relative}"


def test_the_top_of_the_package_stays_small():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_no_folder_holds_more_than_twelve_modules():
    crowded = {folder.relative_to(PACKAGE).as_posix() or ".": n for folder in [PACKAGE, *PACKAGE.rglob("*")]
               if folder.is_dir() and (n := len([p for p in folder.glob("*.py") if p.name != "__init__.py"]))
               > MAX_MODULES_PER_FOLDER}
    assert not crowded, f"folders with more than {MAX_MODULES_PER_FOLDER} modules: {crowded}"


def test_every_stage_is_in_a_capability_sub_package():
    stages = PACKAGE / "stages"
    at_the_top = {p.name for p in stages.glob("*.py") if p.name != "__init__.py"}
    assert at_the_top == STAGES_OWN_MODULES, f"stage modules outside a capability sub-package: {at_the_top - STAGES_OWN_MODULES}"
    for package in SPLIT_BY_CAPABILITY:
        folders = [p for p in (PACKAGE / package).iterdir() if p.is_dir() and p.name != "__pycache__"]
        assert all((folder / "__init__.py").is_file() for folder in folders), folders
        assert all(not list(folder.glob("*/*.py")) for folder in folders), f"{package}/: one level of sub-packages"
        named_like_a_module = [f"{f.name}/{f.name}.py" for f in folders if (f / f"{f.name}.py").is_file()]
        assert not named_like_a_module, named_like_a_module


def sub_package_of(module: str) -> str | None:
    """`stages.speakers.identify` -> `stages.speakers`; None outside the sub-packages of stages/ and store/."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] in SPLIT_BY_CAPABILITY and (PACKAGE / parts[0] / parts[1] / "__init__.py").is_file():
        return ".".join(parts[:2])
    return None


def exported(sub_package: str) -> set[str]:
    """The names a sub-package's `__init__.py` lists in `__all__` (none when it has no `__all__`)."""
    tree = ast.parse((PACKAGE.joinpath(*sub_package.split(".")) / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def test_a_sub_package_is_reached_through_its_face():
    """Each sub-package of `stages/` and `store/` is a capability with a face: its `__init__.py` says what it
    does and what it may import, and lists in `__all__` what the rest of speechproc uses of it. A module
    outside the sub-package (a sibling sub-package's, `stages/pipeline.py`, another package's) imports those
    names alone, `from speechproc.stages.personal_data import KINDS`, never one of its modules by path
    (`from speechproc.stages.personal_data.pii import KINDS`), so that what a capability keeps to itself can
    change without its neighbours noticing, and the ties between capabilities stay few and visible. Tests and
    benchmarks may reach inside."""
    around = []
    for name, path in modules().items():
        mine = sub_package_of(name)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [(a.name.removeprefix("speechproc."), []) for a in node.names if a.name.startswith("speechproc.")]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("speechproc."):
                targets = [(node.module.removeprefix("speechproc."), [a.name for a in node.names])]
            else:
                continue
            for target, names in targets:
                theirs = sub_package_of(target)
                if theirs is None or theirs == mine:
                    continue
                if target != theirs:
                    around.append(f"{name} -> {target}")
                else:
                    around += [f"{name} -> {target}.{n} (not in its __all__)" for n in names if n not in exported(theirs)]
    assert not around, f"imports that go around a sub-package's __init__: {around}"


def test_every_sub_package_says_what_it_is_and_what_it_exports():
    for package in SPLIT_BY_CAPABILITY:
        for init in sorted((PACKAGE / package).glob("*/__init__.py")):
            tree = ast.parse(init.read_text())
            assert ast.get_docstring(tree), f"{init.relative_to(PACKAGE)} has no docstring"
            names = exported(f"{package}.{init.parent.name}")
            bound = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
            assert names <= bound, f"{init.relative_to(PACKAGE)} lists in __all__ what it does not import: {names - bound}"


def test_no_module_outgrows_one_concern():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_the_command_line_reaches_the_library_through_api_alone():
    """`cli/` imports `api`, `errors`, the package's version and its own modules, nothing else of speechproc
    (a `TYPE_CHECKING` import included)."""
    allowed = {"api", "errors", "__version__"}
    beyond = [f"{name} -> {target}" for name, path in modules().items() if layer_of(name) == "cli"
              for target in imports_of(path) if target not in allowed and not target.startswith("cli")]
    assert not beyond, f"the command line goes around api: {beyond}"


def test_the_command_line_shows_text_as_the_library_does():
    """The CLI's own `printable` (it imports nothing but api and errors) is `paths.printable`."""
    from speechproc import paths
    from speechproc.cli import support

    samples = ["plain", "caf\u00e9", "bad \udcff byte", "lone \ud800 surrogate", "tab\tand\nline", "\\x41", ""]
    assert [support.printable(s) for s in samples] == [paths.printable(s) for s in samples]
