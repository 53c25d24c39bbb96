"""The commands over stored definitions: categories, keyword groups, custom vocabularies and classifiers
(put, list, get, delete), added to the command group by `add_commands`."""
from __future__ import annotations

import click

from speechproc import api
from speechproc.cli.support import TEXT, emit, v3_errors


def _definition_commands(main: click.Group, kind: str, group_name: str, noun: str, example_file: str, example_name: str,
                         put_from_document: bool = True) -> click.Group:
    """put / list / get / delete for one kind of definition (categories, keyword groups, classifiers)."""

    @main.group(group_name, help=f"Store and read {noun} definitions in the catalog.")
    def group() -> None:
        pass

    put_name = "put" if put_from_document else "_put"

    @group.command(put_name, hidden=not put_from_document,
                   help=f"""Create or update a {noun} from a JSON or YAML file; print it with its dates.

    NAME: letters, digits, '_', '.', '-' (no spaces). An invalid definition is
    reported with what is wrong (for a query, where) and nothing is stored; exit 2.

    \b
    Example:
      speechproc {group_name} put {example_name} {example_file}
    """)
    @click.argument("name", type=TEXT)
    @click.argument("file", type=click.Path(dir_okay=False))
    @v3_errors
    def put(name: str, file: str) -> None:
        emit(api.put_definition(kind, name, file))  # the file read as JSON or YAML

    @group.command("list", help=f"""List every {noun}, by name.

    \b
    Example:
      speechproc {group_name} list
    """)
    @v3_errors
    def list_() -> None:
        emit(api.list_definitions(kind))

    @group.command("get", help=f"""Print one {noun}.

    \b
    Example:
      speechproc {group_name} get {example_name}
    """)
    @click.argument("name", type=TEXT)
    @v3_errors
    def get(name: str) -> None:
        emit(api.get_definition(kind, name))

    @group.command("delete", help=f"""Delete one {noun} (prints nothing; an unknown name is a 404, exit 1).

    \b
    Example:
      speechproc {group_name} delete {example_name}
    """)
    @click.argument("name", type=TEXT)
    @v3_errors
    def delete(name: str) -> None:
        api.delete_definition(kind, name)

    if not put_from_document:
        del group.commands["_put"]
    return group


def add_commands(main: click.Group) -> None:
    """The categories, groups and classifiers commands, under `main`."""
    _definition_commands(main, "category", "categories", "category", "configs/categories/greeting.yaml", "greeting")
    _definition_commands(main, "group", "groups", "keyword group", "configs/groups/billing.yaml", "billing")
    _definition_commands(main, "vocabulary", "vocabularies", "custom vocabulary", "configs/vocabularies/products.yaml",
                         "products")
    classifiers = _definition_commands(main, "classifier", "classifiers", "classifier", "cancellation.skops",
                                       "cancellation", put_from_document=False)
    classifiers.add_command(classifiers_put)


@click.command("put")
@click.argument("name", type=TEXT)
@click.argument("model_file", type=click.Path(dir_okay=False))
@click.option("--display-name", type=TEXT, help="A human name for results (default: NAME, or the one stored before).")
@v3_errors
def classifiers_put(name: str, model_file: str, display_name: str | None) -> None:
    """Register or replace a text classifier: a scikit-learn pipeline saved with skops.

    The file is checked before anything is stored: only scikit-learn classes and
    NumPy scalar types are loaded (never pickle), and the model must be a binary
    classifier of texts. Prints the classifier (classifierId, classifierVersion,
    classes) with its dates; a refused file exits 2.

    \b
    Example:
      python configs/classifiers/train_cancellation.py cancellation.skops
      speechproc classifiers put cancellation cancellation.skops --display-name "Call is about cancellation"
    """
    emit(api.put_definition("classifier", name, model_file, display_name=display_name))
