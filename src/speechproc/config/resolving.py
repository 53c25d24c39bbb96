"""The settings with the definitions a configuration names, read from the catalog before any audio is:
categories, keyword groups, classifiers, vocabularies, the encryption key and the enrolled speakers."""
from __future__ import annotations

from dataclasses import replace
from typing import cast

from speechproc import errors as E
from speechproc.config.settings import Settings
from speechproc.configuration import (
    CategoryDefinition,
    ClassifierDefinition,
    KeywordGroupDefinition,
)
from speechproc.store.database import Catalog
from speechproc.store.registered import keys, speakers, vocabularies


def resolve(settings: Settings, catalog: Catalog) -> Settings:
    """The settings with the category and keyword-group definitions they name, from the catalog.

    Raise ConfigurationError for a category or group that is not defined (or a group without keywords), a
    vocabulary that is not stored or is empty (20008, 20009), a term in two lists (20017), or an
    `encryption.publicKeyId` that is not stored. The catalog holds definitions as `store.registered.definitions`
    checked them: they have the shapes of `speechproc.configuration`."""
    public_key = keys.resolve(keys.configured_key_id(settings.raw), catalog)
    wanted = settings.category_names
    if settings.all_categories:
        found = cast(list[CategoryDefinition], catalog.definitions.list("category"))
    else:
        found = []
        for i, name in enumerate(wanted):
            definition = cast("CategoryDefinition | None", catalog.definitions.get("category", name))
            if definition is None:
                raise E.ConfigurationError(E.INVALID_VALUE, f"categories[{i}].categoryName: category {name!r} is not "
                                           "defined (speechproc categories put NAME FILE)")
            found.append(definition)
    groups = []
    for i, name in enumerate(settings.spotting_group_names):
        group = cast("KeywordGroupDefinition | None", catalog.definitions.get("group", name))
        if group is None:
            raise E.ConfigurationError(E.SPOTTING_GROUP_UNKNOWN, f"spotting.groups[{i}].groupName: keyword group "
                                       f"{name!r} is not defined (speechproc groups put NAME FILE)")
        if not group.get("keywords"):
            raise E.ConfigurationError(E.SPOTTING_GROUP_EMPTY, f"keyword group {name!r} has no keywords")
        groups.append(group)
    models = []
    stored = {c["classifierId"]: c for c in cast(list[ClassifierDefinition], catalog.definitions.list("classifier"))}
    for i, item in enumerate(settings.classifier_refs):
        classifier = cast("ClassifierDefinition | None", catalog.definitions.get("classifier", item["classifierName"])) \
            if "classifierName" in item else stored.get(item.get("classifierId", ""))
        if classifier is None:
            which = item.get("classifierName") or item.get("classifierId")
            raise E.ConfigurationError(E.INVALID_VALUE, f"prediction.classifiers[{i}]: classifier {which!r} is not "
                                       "registered (speechproc classifiers put NAME MODEL_FILE)")
        models.append(classifier)
    vocabulary = vocabularies.resolve(settings.value("vocabularies"),
                                      lambda name: catalog.definitions.get("vocabulary", name))
    people = speakers.resolve(catalog) if settings.local("speakerIdentification") else ()
    return replace(settings, categories=tuple(found), groups=tuple(groups), classifiers=tuple(models),
                   public_key=public_key, vocabulary=vocabulary, speakers=people, speakers_digest=speakers.digest(people))
