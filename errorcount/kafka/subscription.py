"""Which topics a job reads: the names KAFKA_TOPIC lists, or every topic whose whole name
KAFKA_TOPIC_PATTERN matches. The pattern is Java's regex, compiled in the driver JVM: the engine
Spark's Kafka source matches topics with, so the job and Spark never disagree about a name."""

from collections.abc import Callable, Iterable

from errorcount.errors import ConfigError
from errorcount.retry import first_line


def anchored(pattern: str) -> str:
    """The pattern as Spark's subscribePattern is given it: Spark keeps a topic when the regex is
    found anywhere in its name; anchored at both ends, only a whole-name match is (as Kafka
    Connect's topics.regex, and as the job's own listing matches)."""
    return rf"\A(?:{pattern})\z"


class Subscription:
    """A topic list (`names`) or a pattern (`pattern`, with `matches`: a whole-name test in Java's
    regex). `topic in subscription` says whether the job reads a topic."""

    def __init__(self, names: Iterable[str] = (), pattern: str = "", matches: Callable[[str], bool] | None = None):
        self.names, self.pattern, self.matches = list(names), pattern, matches

    @classmethod
    def of(cls, names: Iterable[str], pattern: str, jvm) -> "Subscription":
        """KAFKA_TOPIC's `names`, or KAFKA_TOPIC_PATTERN's `pattern` when set, compiled by the
        driver JVM's Java regex (`jvm`); ConfigError for a pattern Java cannot compile."""
        if not pattern:
            return cls(names)
        try:
            compiled = jvm.java.util.regex.Pattern.compile(anchored(pattern))
        except Exception as error:
            raise ConfigError(f"KAFKA_TOPIC_PATTERN {pattern!r} is not a Java regex "
                              f"({first_line(error)}); fix it (java.util.regex.Pattern syntax)") from None
        return cls(pattern=pattern, matches=lambda topic: bool(compiled.matcher(topic).matches()))

    @property
    def is_pattern(self) -> bool:
        return bool(self.pattern)

    def __contains__(self, topic: object) -> bool:
        if self.matches is not None:
            return isinstance(topic, str) and self.matches(topic)
        return topic in self.names

    def current(self, existing: Iterable[str]) -> list[str]:
        """The topics read now: the listed names, or those of `existing` (Kafka's topics, internal
        ones left out as Spark leaves them out) that the pattern matches."""
        return list(self.names) if not self.is_pattern else sorted(t for t in existing if t in self)

    def source_options(self) -> dict[str, str]:
        """How Spark's Kafka source subscribes."""
        return {"subscribePattern": anchored(self.pattern)} if self.is_pattern else {"subscribe": ",".join(self.names)}

    def __str__(self) -> str:
        return f"pattern {self.pattern!r}" if self.is_pattern else ", ".join(repr(name) for name in self.names)
