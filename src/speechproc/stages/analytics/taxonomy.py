"""Topic taxonomies: the bundled contact-centre one, or a user's file of the same shape."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "topics.yaml"


@dataclass(frozen=True)
class SubtopicDefinition:
    name: str
    description: str


@dataclass(frozen=True)
class TopicDefinition:
    name: str
    description: str
    subtopics: tuple[SubtopicDefinition, ...] = ()


def load(path: str | Path | None = None) -> tuple[TopicDefinition, ...]:
    """The topics of a taxonomy file (YAML or JSON); raise ValueError saying what is wrong with it."""
    file = Path(path).expanduser() if path else BUNDLED
    if not file.is_file():
        raise ValueError(f"taxonomy file {file} not found")
    return _load(str(file.resolve()), file.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _load(file: str, _mtime: int) -> tuple[TopicDefinition, ...]:
    try:
        doc = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ValueError(f"taxonomy file {file} is not YAML or JSON: {exc}") from None
    topics = doc.get("topics") if isinstance(doc, dict) else None
    if not isinstance(topics, list) or not topics:
        raise ValueError(f"taxonomy file {file} needs a non-empty list 'topics'")
    out, seen = [], set()
    for i, item in enumerate(topics):
        where = f"topics[{i}]"
        name, description = _named(item, "topicName", where)
        if name in seen:
            raise ValueError(f"{where}: topic {name!r} is listed twice")
        seen.add(name)
        subs = item.get("subtopics") or []
        if not isinstance(subs, list):
            raise ValueError(f"{where}.subtopics must be a list")
        out.append(TopicDefinition(name, description,
                                   tuple(SubtopicDefinition(*_named(s, "name", f"{where}.subtopics[{j}]"))
                                         for j, s in enumerate(subs))))
    return tuple(out)


def _named(item: object, key: str, where: str) -> tuple[str, str]:
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be a mapping")
    name, description = item.get(key), item.get("description")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}.{key} must be a non-empty string")
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{where}.description must be a non-empty string (the text topics are matched by)")
    unknown = set(item) - {key, "description", "subtopics"}
    if unknown:
        raise ValueError(f"{where} has unknown keys: {', '.join(sorted(unknown))}")
    return name.strip(), description.strip()
