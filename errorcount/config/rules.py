"""The counting rules: the settings a minute's counts are a function of, besides the records
themselves. The classifier's (every setting marked `classifier`: the log format, what an error is,
GROUP_BY, COUNT_LINES) and MAX_SERIES (which series are admitted). A job stores its rules, and
their digest, on its lease row at every start (store.Store.acquire_lease): whoever reads the row
under its lock knows the rules of every count the holder commits, so counts made under other
rules (a recount, docs/operations.md) can be told apart and refused."""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from errorcount.config.load import Config
from errorcount.config.settings import BY_NAME, CLASSIFIER_SETTINGS, Setting

RULE_SETTINGS = (*CLASSIFIER_SETTINGS, BY_NAME["MAX_SERIES"])


def as_text(cfg: Config, settings: Iterable[Setting]) -> tuple[tuple[str, str], ...]:
    """`settings`' values in `cfg` by name, in their order, as validated text (booleans lower case,
    as the classifier reads them): the Rules and the classifier's Contract are both made of these."""
    values = ((s.name, getattr(cfg, s.field)) for s in settings)
    return tuple((name, str(value).lower() if isinstance(value, bool) else str(value)) for name, value in values)


@dataclass(frozen=True)
class Rules:
    """The rule settings by name, as validated text (booleans lower case)."""

    settings: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, cfg: Config) -> "Rules":
        return cls(tuple(sorted(as_text(cfg, RULE_SETTINGS))))

    @property
    def text(self) -> str:
        """The rules as canonical JSON: keys sorted, no spaces, UTF-8 as written."""
        return json.dumps(dict(self.settings), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @property
    def digest(self) -> str:
        """SHA-256 of `text`, hex: equal exactly when the rules are."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def changed(self, other: "Rules") -> list[tuple[str, str, str]]:
        """(name, this value, other's value) of each setting whose values differ, by name."""
        mine, theirs = dict(self.settings), dict(other.settings)
        return [(name, mine.get(name, "(unset)"), theirs.get(name, "(unset)"))
                for name in sorted(set(mine) | set(theirs)) if mine.get(name) != theirs.get(name)]

    def differences(self, other: "Rules") -> list[str]:
        """The settings whose values differ, as 'NAME: this vs other', by name."""
        return [f"{name}: {mine!r} vs {theirs!r}" for name, mine, theirs in self.changed(other)]

    @classmethod
    def from_text(cls, text: str) -> "Rules":
        """The Rules a lease row's `rules` column holds (text)."""
        return cls(tuple(sorted((str(name), str(value)) for name, value in json.loads(text).items())))

    @classmethod
    def parse(cls, text: str | None) -> "Rules | None":
        """from_text, or None for a column that holds no rules this code can read (NULL: written
        before rules were stored; anything but a JSON object)."""
        try:
            return cls.from_text(text) if text else None
        except (ValueError, AttributeError):
            return None


def change_warning(job: str, replaced: tuple[int, Rules] | None, rules: Rules) -> str | None:
    """What a start logs when it counts under other rules than the lease it took over (`replaced`:
    that lease's epoch and rules), else None. Counts already committed stay as they were counted;
    the minutes the start resumes in then hold counts under both (docs/operations.md, "When the
    rules change")."""
    if replaced is None or replaced[1] == rules:
        return None
    epoch, before, now = replaced[0], dict(replaced[1].settings), dict(rules.settings)
    changes = "; ".join(f"{name} {old!r} before, {new!r} now" for name, old, new in replaced[1].changed(rules))
    turned_on = now.get("COUNT_LINES") == "true" and before.get("COUNT_LINES") != "true"
    lines = (" COUNT_LINES was just turned on (an upgrade that leaves it unset turns it on: docs/operations.md, "
             "\"Upgrading: COUNT_LINES on by default\"): in those minutes line_count holds only the lines counted from "
             "now on, so their error ratio reads high." if turned_on else "")
    return (f"job {job!r} counts under other rules than epoch {epoch} did ({changes}). Every count committed "
            f"before this start stays as the old rules made it, and the minutes this start resumes in are counted "
            f"under both.{lines} To count a past range under the new rules, recount it: make recount FROM='YYYY-MM-DD "
            f"HH:MM' TO='YYYY-MM-DD HH:MM' (scripts/submit-yarn.sh recount on YARN; docs/operations.md, "
            f"\"When the rules change\")")
