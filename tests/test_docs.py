"""The documentation stays complete and true: every command and option is in docs/usage.md, every configuration
key in docs/configuration.md, every module in docs/architecture.md; every documented command line parses; every
docs page is linked from a README that a newcomer reads in minutes; every relative link lands."""
from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "speechproc"
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 250
PAGES = sorted(DOCS.glob("*.md"))
MARKDOWN = [README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *PAGES]
SHELL_FENCES = {"", "bash", "sh", "shell", "console"}  # fences whose `speechproc ...` lines must parse
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


# ------------------------------------------------------------------ reading markdown

def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def lines_outside_fences(text: str) -> Iterator[str]:
    fence = None
    for line in text.splitlines():
        found = FENCE.match(line)
        if fence is None and found:
            fence = found.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            yield line


def fenced_blocks(text: str) -> Iterator[tuple[str, list[str]]]:
    """(language, lines) of every fenced code block."""
    fence, language, body = None, "", []
    for line in text.splitlines():
        found = FENCE.match(line)
        if fence is None and found:
            fence, language, body = found.group(1), found.group(2).lower(), []
        elif fence is not None and line.strip().startswith(fence):
            yield language, body
            fence = None
        elif fence is not None:
            body.append(line)


def sections(text: str) -> dict[str, str]:
    """Each heading's title (backticks dropped) -> its text, up to the next heading of the same or a higher level."""
    headings: list[tuple[int, str, int]] = []  # (level, title, line index)
    lines = text.splitlines()
    fence = None
    for i, line in enumerate(lines):
        found = FENCE.match(line)
        if fence is None and found:
            fence = found.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and (heading := HEADING.match(line)):
            headings.append((len(heading.group(1)), heading.group(2).replace("`", "").strip(), i))
    found_sections = {}
    for n, (level, title, start) in enumerate(headings):
        end = next((i for lv, _, i in headings[n + 1:] if lv <= level), len(lines))
        found_sections[title] = "\n".join(lines[start:end])
    return found_sections


def slug(title: str) -> str:
    """GitHub's anchor of a heading."""
    title = title.strip().lower().replace("`", "")
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in lines_outside_fences(read(path)):
        if heading := HEADING.match(line):
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def mentioned(token: str, text: str) -> bool:
    """`token` (an option such as --workers or -w) appears as a whole word."""
    return re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", text) is not None


# ------------------------------------------------------------------ the command line and the schema

def commands() -> list[tuple[str, click.Command, click.Context]]:
    """(command path, command, context) for the group and every visible command and subcommand, recursively."""
    from speechproc.cli.commands import main

    found = []

    def walk(command: click.Command, path: list[str], parent: click.Context | None) -> None:
        ctx = click.Context(command, info_name=path[-1], parent=parent, **command.context_settings)
        found.append((" ".join(path), command, ctx))
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                if not sub.hidden:
                    walk(sub, [*path, name], ctx)

    walk(main, ["speechproc"], None)
    return found


def schema_keys() -> list[str]:
    """Every key path of the v3 configuration schema; `[]` stands for the items of an array."""
    from speechproc.config.v3 import SCHEMA
    from speechproc.schema import Arr, Obj

    keys: list[str] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, Obj):
            for key, child in node.fields.items():
                inner = f"{path}.{key}" if path else key
                keys.append(inner)
                walk(child, inner)
        elif isinstance(node, Arr):
            walk(node.item, f"{path}[]")

    walk(SCHEMA, "")
    return keys


def documented_command_lines() -> list[tuple[Path, str, list[str]]]:
    """(file, line, argv after `speechproc`) of every `speechproc ...` line in the shell blocks of the docs."""
    found = []
    for path in MARKDOWN:
        for language, body in fenced_blocks(read(path)):
            if language not in SHELL_FENCES:
                continue
            joined: list[str] = []
            for line in body:  # backslash continuations make one line
                if joined and joined[-1].endswith("\\"):
                    joined[-1] = joined[-1][:-1] + " " + line.strip()
                else:
                    joined.append(line.strip())
            for line in joined:
                line = line.removeprefix("$ ")
                if not line.startswith("speechproc "):
                    continue
                words = shlex.split(line, comments=True)
                stop = next((i for i, w in enumerate(words) if w in ("|", "||", "&&", ";", "&") or re.match(r"\d*[<>]", w)),
                            len(words))
                found.append((path, line, words[1:stop]))
    return found


@pytest.fixture
def paths_need_not_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    """Documented examples name files (corrected.txt) that need not exist on the reader's disk."""
    for _, command, _ in commands():
        for param in command.params:
            if isinstance(param.type, click.Path):
                monkeypatch.setattr(param.type, "exists", False)


def parse(argv: list[str]) -> None:
    """Parse a command line down to its subcommand, as click would, without running anything."""
    from speechproc.cli.commands import main

    no_args_is_help = getattr(click.exceptions, "NoArgsIsHelpError", ())
    try:
        ctx = main.make_context("speechproc", list(argv), resilient_parsing=False)
        command: click.Command = main
        while isinstance(command, click.Group):
            protected = getattr(ctx, "_protected_args", None)
            rest = [*(ctx.protected_args if protected is None else protected), *ctx.args]
            if not rest:
                return
            name, sub, rest = command.resolve_command(ctx, rest)
            assert sub is not None and name is not None
            ctx = sub.make_context(name, rest, parent=ctx)
            command = sub
    except click.exceptions.Exit:  # --help, --version
        return
    except no_args_is_help:  # a group alone prints its help
        return


# ------------------------------------------------------------------ the tests

def test_every_command_and_option_is_in_usage():
    usage = sections(read(DOCS / "usage.md"))
    missing = []
    for path, command, ctx in commands():
        section = usage.get(path)
        if section is None:
            missing.append(f"a section headed '{path}'")
            continue
        synopsis = " ".join([path, *command.collect_usage_pieces(ctx)])
        if f"`{synopsis}`" not in section:
            missing.append(f"{path}: its usage line `{synopsis}`")
        for param in command.params:
            if isinstance(param, click.Option):
                missing += [f"{path}: {opt}" for opt in (*param.opts, *param.secondary_opts) if not mentioned(opt, section)]
    help_options = commands()[0][2].help_option_names
    missing += [f"speechproc: {opt}" for opt in help_options if not mentioned(opt, usage["speechproc"])]
    assert not missing, f"docs/usage.md does not document: {missing}"


def test_every_configuration_key_is_in_configuration():
    text = read(DOCS / "configuration.md")
    keys = schema_keys()
    assert len(keys) > 100, keys  # the walk reached the whole schema
    missing = [key for key in keys if f"`{key}`" not in text]
    assert not missing, f"docs/configuration.md does not name these configuration keys: {missing}"


def test_every_module_is_in_architecture():
    text = read(DOCS / "architecture.md")
    modules = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")
    packages = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    missing = [m for m in modules if f"`{m}`" not in text] + [f"{p}/" for p in packages if f"`{p}/`" not in text]
    assert not missing, f"docs/architecture.md does not name {missing}"
    gone = sorted({m for m in re.findall(r"`([\w/]+\.py)`", text) if not (PACKAGE / m).is_file() and not (ROOT / m).is_file()})
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"


def test_every_documented_command_line_parses(paths_need_not_exist):
    lines = documented_command_lines()
    assert len(lines) > 40, lines  # the examples were found
    wrong = []
    for path, line, argv in lines:
        try:
            parse(argv)
        except click.UsageError as exc:
            wrong.append(f"{path.relative_to(ROOT)}: {line}\n    {exc.format_message()}")
    assert not wrong, "documented command lines that do not parse:\n" + "\n".join(wrong)


def test_the_readme_is_short_and_links_every_docs_page():
    readme = read(README)
    assert len(readme.splitlines()) <= README_MAX_LINES, f"README.md has {len(readme.splitlines())} lines"
    assert PAGES, "no docs pages"
    unlinked = [page.name for page in PAGES if f"](docs/{page.name}" not in readme]
    assert not unlinked, f"README.md does not link {unlinked}"


def test_the_readme_keeps_the_two_set_up_commands():
    setup = sections(read(README)).get("Set-up (two commands)", "")
    commands_given = [line.split("#")[0].strip() for _, body in fenced_blocks(setup) for line in body]
    assert [c for c in commands_given if c] == ["make demo", "make test"]


def test_every_relative_link_lands():
    broken = []
    for path in MARKDOWN:
        for line in lines_outside_fences(read(path)):
            line = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (path.parent / file_part).resolve() if file_part else path
                if not linked.exists():
                    broken.append(f"{path.relative_to(ROOT)}: {target} (no such file)")
                elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                    broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def documented_api() -> dict[str, str]:
    """Each name documented in the Reference of docs/python-api.md (a `#### name` heading) -> its text."""
    reference = sections(read(DOCS / "python-api.md")).get("Reference", "")
    titles = [m.group(2).replace("`", "").strip() for line in reference.splitlines() if (m := HEADING.match(line))
              and len(m.group(1)) == 4]
    found = sections(reference)
    return {title: found[title] for title in titles}


def test_every_public_name_of_the_api_is_documented():
    import inspect

    from speechproc import api

    documented = documented_api()
    assert len(api.__all__) <= 30, f"api.__all__ has {len(api.__all__)} names: the operations and their types only"
    missing = [name for name in api.__all__ if name not in documented]
    assert not missing, f"docs/python-api.md (Reference) does not document {missing}"
    gone = [name for name in documented if name not in api.__all__ or not hasattr(api, name)]
    assert not gone, f"docs/python-api.md documents what api does not offer: {gone}"
    unsaid = []
    for name, text in documented.items():
        function = getattr(api, name)
        if not inspect.isfunction(function):
            continue
        signature = re.search(rf"`{name}\(([^`]*)\)[^`]*`", text)
        if signature is None:
            unsaid.append(f"{name}: its signature")
            continue
        said = {re.split(r"[=:]", p)[0].strip(" *") for p in signature.group(1).split(",")}
        unsaid += [f"{name}: {p}" for p in inspect.signature(function).parameters if p not in said]
    assert not unsaid, f"docs/python-api.md misses these parameters: {unsaid}"
