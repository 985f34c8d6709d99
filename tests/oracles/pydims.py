"""The dimensions clause of the contract (docs/contract.md, "Dimensions") in plain Python: `re`,
`json`, `str` methods. The second implementation the JVM classifier's series are checked against
(tests/unit/config/test_dimensions.py, make differential). Independent of java/errorcount/Label.java and
Grouping.java on purpose: text first, then the rules."""

import re

from errorcount.pipeline.classify import Contract
from tests.oracles import pyparse
from tests.oracles.pyformats import ACCESS, Number, Reference, first_present, lookup, strict_json, upper_ascii

MAX_BYTES = 64
SEPARATOR = "\x1f"
TRIMMED = "".join(chr(c) for c in range(0x21))  # U+0000 to U+0020
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
SURROGATE = re.compile("[\ud800-\udfff]")


def label(text: str | None) -> str:
    """A value as stored: trimmed, controls replaced, at most MAX_BYTES bytes of UTF-8."""
    if text is None:
        return ""
    text = CONTROL.sub("\ufffd", text.strip(TRIMMED))
    while len(text.encode("utf-8")) > MAX_BYTES:
        text = text[:-1]
    return text


def path(target: str, depth: int) -> str:
    cut = re.split("[?#]", target, maxsplit=1)[0]
    if not cut.startswith("/"):
        return label(cut)
    return label("/" + "/".join([segment for segment in cut.split("/") if segment][:depth]))


class Dimensions:
    """The series of each line under one contract (its GROUP_BY): every line's with COUNT_LINES,
    else an ERROR line's; None for the rest."""

    def __init__(self, contract: Contract):
        self.reference = Reference(contract)
        self.contract = dict(contract.settings)
        self.names = [name for name in self.contract["GROUP_BY"].split(",") if name]

    def series(self, value: bytes | None) -> str | None:
        _minute, error, reason = self.reference.classify(value)
        every_line = self.contract.get("COUNT_LINES") == "true"
        if not (error or every_line and reason is None) or not self.names or value is None:
            return None
        text = value.decode("utf-8", "replace")
        event: dict = {}
        if self.contract["LOG_FORMAT"] == "json":
            event = strict_json(text)
            builtins = (self.line(self.contract["MESSAGE_FORMAT"], lookup(event, self.contract["JSON_MESSAGE_FIELD"]))
                        if self.contract["JSON_MESSAGE_FIELD"] else self.event_builtins(event))
        else:
            builtins = self.line(self.contract["LOG_FORMAT"], text)
        values = [self.field(event, name[6:]) if name.startswith("field:") else builtins.get(name, "")
                  for name in self.names]
        return SEPARATOR.join(values)

    def line(self, fmt: str, text: str) -> dict[str, str]:
        text = SURROGATE.sub("\ufffd", text)  # a JSON message's lone surrogate escapes
        first = text.split("\n", 1)[0].removesuffix("\r").strip(" \t")
        if fmt == "app":
            matched = pyparse.LINE.match(first)
            assert matched is not None, "a line"
            return {"level": label(upper_ascii(matched.group(2).strip("[]")))}
        matched = ACCESS.fullmatch(first)
        assert matched is not None, "a line"
        bracket = len(first) - len(first.split(" ", 3)[3])  # HOST IDENT USER hold no space
        request = first[bracket + 30:matched.start(9) - 2]  # '[' + 26 + '] "' ... '" ' STATUS
        parts = request.split(" ")
        return {"status": matched.group(9), "method": label(parts[0]),
                "path": path(parts[1] if len(parts) > 1 else "", int(self.contract["PATH_DEPTH"]))}

    def event_builtins(self, event: dict) -> dict[str, str]:
        if self.contract["JSON_STATUS_FIELD"]:
            status = lookup(event, self.contract["JSON_STATUS_FIELD"])
            return {"status": str(int(status))}
        level = first_present(event, self.contract["JSON_LEVEL_FIELDS"])
        return {"level": label(SURROGATE.sub("\ufffd", upper_ascii(level.strip(" \t"))))}

    @staticmethod
    def field(event: dict, name: str) -> str:
        value = lookup(event, name)
        if value is True or value is False:
            return "true" if value else "false"
        if isinstance(value, Number):
            return label(str(value))
        return label(SURROGATE.sub("\ufffd", value)) if isinstance(value, str) else ""
