"""The SQLite catalog and what reads or writes through it, in sub-packages by capability (`database`,
`files`, `media_items`, `registered`, `collection`), each reached through the names its `__init__`
exports."""
