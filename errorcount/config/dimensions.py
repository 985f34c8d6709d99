"""GROUP_BY: the dimensions ERROR lines are counted by besides the per-minute total (docs/contract.md,
"Dimensions"). Pure: which dimensions a log format offers, the canonical GROUP_BY text, and what a
series (one combination of values, as the classifier reports it) is made of.

A series reaches the driver as its values joined by SEPARATOR, in the canonical (sorted) order of
GROUP_BY; it is registered under a digest of that order and those values (series_key)."""

import hashlib
from collections.abc import Mapping
from typing import Any

from errorcount.config.settings import reads_requests
from errorcount.errors import ConfigError

BUILTIN = ("level", "method", "path", "status")
OTLP = ("level", "scope:name", "severity")  # otlp's own, besides its prefixed ones
TOPIC = "topic"  # the record's Kafka topic: offered by every format, added by Spark (not the classifier)
VALUE_BYTES = 64  # a value's bound (docs/contract.md); Kafka topic names are ASCII
FIELD = "field:"
RESOURCE, ATTRIBUTE = "resource:", "attr:"  # otlp: a resource attribute, a log record attribute
PREFIXES = (FIELD, RESOURCE, ATTRIBUTE)
EXAMPLES = {FIELD: "field:<dotted.path>", RESOURCE: "resource:<key>", ATTRIBUTE: "attr:<key>"}
MAX_DIMENSIONS = 8
SEPARATOR = "\x1f"  # Grouping.SEPARATOR: a control character, which no value holds (Label replaces them)
NAME_CHARS = 255    # error_series_labels.dimension


def offered(values: Mapping[str, Any]) -> tuple[set[str], tuple[str, ...]]:
    """The named dimensions a configuration's records have and the prefixes of those that name a
    key (field:<name> for json; resource:<key>, attr:<key> for otlp), from the settings' values by
    field name (log_format, json_status_field, ...)."""
    line = values["log_format"]
    if reads_requests(line):
        return set(OTLP), (RESOURCE, ATTRIBUTE)
    fields = (FIELD,) if line == "json" else ()
    if fields and values["json_message_field"]:
        line = values["message_format"]
    if line == "app":
        return {"level"}, fields
    if line == "access":
        return {"status", "method", "path"}, fields
    return ({"status"} if values["json_status_field"] else {"level"}), fields


def is_dimension(name: str) -> bool:
    """Whether `name` is written as a dimension of some format (a named one or a prefixed key)."""
    return name in BUILTIN or name in OTLP or name == TOPIC or name.startswith(PREFIXES)


def canonical(group_by: str, values: Mapping[str, Any]) -> str:
    """GROUP_BY as the job and the classifier use it: entries trimmed, sorted, joined by commas.
    ConfigError for an unknown, duplicate or unavailable dimension, naming what is offered."""
    names = [name.strip() for name in group_by.split(",")] if group_by.strip() else []
    builtins, prefixes = offered(values)
    what = (f"LOG_FORMAT={values['log_format']}" + (f" with MESSAGE_FORMAT={values['message_format']}"
                                                    if values["log_format"] == "json" and values["json_message_field"] else ""))
    choices = ", ".join(sorted(builtins) + [EXAMPLES[prefix] for prefix in prefixes] + [TOPIC])
    for name in names:
        prefix = next((p for p in PREFIXES if name.startswith(p)), None)
        if prefix is not None:
            if prefix not in prefixes:
                raise ConfigError(f"GROUP_BY: {name!r} reads a {prefix[:-1]} value, and {what} has none; offered: {choices}")
            key = name[len(prefix):]
            if not key.strip() or key != key.strip() or len(name) > NAME_CHARS:
                raise ConfigError(f"GROUP_BY: {name!r} must name a key, e.g. {prefix}service.name (at most {NAME_CHARS} "
                                  "characters, no blanks around the name)")
        elif name not in builtins and name != TOPIC:
            known = is_dimension(name)
            raise ConfigError(f"GROUP_BY: {name!r} is {'not a dimension of ' + what if known else 'no dimension'}; "
                              f"offered: {choices}")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ConfigError(f"GROUP_BY names {', '.join(duplicates)} twice; list each dimension once")
    if len(names) > MAX_DIMENSIONS:
        raise ConfigError(f"GROUP_BY lists {len(names)} dimensions, at most {MAX_DIMENSIONS}: every one multiplies the series")
    return ",".join(sorted(names))


def for_classifier(group_by: str) -> str:
    """A canonical GROUP_BY without `topic`: what the classifier is built with. `topic` sorts after
    every other dimension, so a series is the classifier's values, then the topic."""
    return ",".join(name for name in names(group_by) if name != TOPIC)


def names(group_by: str) -> tuple[str, ...]:
    """The dimensions of a canonical GROUP_BY, in order."""
    return tuple(group_by.split(",")) if group_by else ()


def labels(group_by: str, series: str) -> tuple[tuple[str, str], ...]:
    """(dimension, value) of each dimension of a series the classifier reported under `group_by`."""
    values = series.split(SEPARATOR)
    dimensions = names(group_by)
    if len(values) != len(dimensions):
        raise ValueError(f"series {series!r} has {len(values)} values, GROUP_BY={group_by!r} has {len(dimensions)}")
    return tuple(zip(dimensions, values, strict=True))


def series_key(group_by: str, series: str | None) -> bytes:
    """The registry's key of a series of `group_by` (32 bytes); None: that GROUP_BY's overflow series."""
    text = f"{group_by}\x1e{'overflow' if series is None else 'series' + SEPARATOR + series}"
    return hashlib.sha256(text.encode("utf-8")).digest()
