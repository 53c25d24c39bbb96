"""The packages stand in layers: every import between them runs one way, down (docs/architecture.md)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "speechproc"
# lowest first; a module may import its own layer and the layers below it
LAYERS = ["foundation", "query", "engines", "stages", "formats", "store", "delivery", "config", "report", "batch",
          "api", "cli"]
MAX_TOP_LEVEL_MODULES = 12
MAX_MODULE_LINES = 450


def layer_of(module: str) -> str:
    """`store.catalog` -> store; a top-level module other than api and cli is the foundation."""
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
