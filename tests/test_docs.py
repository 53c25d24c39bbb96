"""The README's architecture section names every module of the package, so the map stays true."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "speechproc"


def architecture() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Architecture\n")
    return readme[start: readme.index("\n## ", start + 1)]


def test_every_module_is_on_the_readme_map():
    text = architecture()
    modules = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                     if p.name not in ("__init__.py", "__main__.py"))
    missing = [m for m in modules if f"`{m}`" not in text and f"`{Path(m).name}`" not in text]
    assert not missing, f"the README's architecture section does not name {missing}"
