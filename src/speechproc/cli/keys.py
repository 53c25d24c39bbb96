"""`speechproc keys`: the OpenPGP public keys of client-supplied encryption (the v3 `/security/public-keys`
endpoints): add, list, get, delete."""
from __future__ import annotations

import click

from speechproc import api
from speechproc.cli.support import TEXT, emit, v3_errors


def add_commands(main: click.Group) -> None:
    """Add the `keys` group to the command line."""
    main.add_command(keys)


@click.group()
def keys() -> None:
    """Public keys that results are encrypted to (v3 /security/public-keys).

    A configuration with "encryption": {"publicKeyId": ID} makes every file of
    each media item an OpenPGP message to that key (NAME.gpg), and the catalog
    keeps none of its results.
    """


@keys.command("add")
@click.argument("key_file", type=click.Path(dir_okay=False))
@v3_errors
def keys_add(key_file: str) -> None:
    """Store an OpenPGP public key (armored or binary) and print its publicKeyId.

    The file must hold exactly one public key that can encrypt: a private key,
    anything that is not OpenPGP, a file over 1 MiB or a key without a valid
    encryption subkey is refused with the v3 error body (exit 2). Prints
    {_links, publicKeyId, publicKeyHash}; publicKeyHash is the SHA-256 of the
    key's binary OpenPGP encoding.

    \b
    Example:
      gpg --armor --export ops@example.com > ops.asc
      speechproc keys add ops.asc
    """
    emit(api.add_key(key_file))


@keys.command("list")
@v3_errors
def keys_list() -> None:
    """List the stored public keys (oldest first), without the keys themselves.

    \b
    Example:
      speechproc keys list
    """
    emit(api.list_definitions("key"))


@keys.command("get")
@click.argument("public_key_id", type=TEXT)
@v3_errors
def keys_get(public_key_id: str) -> None:
    """Print one stored public key with its armored text (publicKey).

    An unknown id is a 404 (exit 1).

    \b
    Example:
      speechproc keys get 0b3f...-...
    """
    emit(api.get_definition("key", public_key_id))


@keys.command("delete")
@click.argument("public_key_id", type=TEXT)
@v3_errors
def keys_delete(public_key_id: str) -> None:
    """Delete a stored public key. Items already encrypted to it stay as they are;
    a configuration naming it is refused from now on. An unknown id is a 404 (exit 1).

    \b
    Example:
      speechproc keys delete 0b3f...-...
    """
    api.delete_definition("key", public_key_id)
