"""The counting rules stored on the lease row (errorcount/config/rules.py): which settings they hold,
their canonical text and digest, computed here a second way from the settings' declarations."""

import hashlib

from errorcount.config import settings as declared
from errorcount.config.load import load_config
from errorcount.config.rules import Rules, change_warning


def expected_text(overrides: dict[str, str]) -> str:
    """The canonical JSON written by hand: every classifier setting and MAX_SERIES, by name, sorted."""
    names = sorted([s.name for s in declared.SETTINGS if s.classifier] + ["MAX_SERIES"])
    values = {s.name: overrides.get(s.name, s.default) for s in declared.SETTINGS if s.name in names}
    return "{" + ",".join(f'"{name}":"{values[name].lower() if values[name] in ("true", "false") else values[name]}"'
                          for name in names) + "}"


def test_the_rules_are_the_classifier_settings_and_max_series_in_canonical_json():
    env = {"LOG_FORMAT": "access", "ERROR_STATUS_MIN": "400", "GROUP_BY": "path,status", "MAX_SERIES": "7",
           "COUNT_LINES": "true", "KAFKA_TOPIC": "not-a-rule", "BATCH_TIMEOUT": "9m"}
    rules = Rules.of(load_config([], env))
    assert rules.text == expected_text({k: v for k, v in env.items() if k not in ("KAFKA_TOPIC", "BATCH_TIMEOUT")})
    assert rules.digest == hashlib.sha256(rules.text.encode()).hexdigest()
    assert Rules.from_text(rules.text) == rules


def test_the_digest_changes_with_every_rule_and_with_no_other_setting():
    base = Rules.of(load_config([], {}))
    assert Rules.of(load_config([], {"KAFKA_TOPIC": "other", "LATENESS": "60", "SLO_OBJECTIVE": "0.99"})) == base
    for name, value in (("ERROR_LEVELS", "ERROR,FATAL"), ("MAX_SERIES", "5"), ("GROUP_BY", "level"),
                        ("COUNT_LINES", "false"), ("PATH_DEPTH", "2")):
        changed = Rules.of(load_config([], {name: value}))
        assert changed.digest != base.digest
        assert changed.differences(base) == [f"{name}: {dict(changed.settings)[name]!r} vs {dict(base.settings)[name]!r}"]


def test_a_start_under_changed_rules_names_each_change_and_what_to_do():
    before = Rules.of(load_config([], {"ERROR_LEVELS": "ERROR", "COUNT_LINES": "false"}))
    now = Rules.of(load_config([], {"ERROR_LEVELS": "ERROR,FATAL", "COUNT_LINES": "true", "MAX_SERIES": "7"}))
    said = change_warning("web", (4, before), now)
    assert said is not None and said.startswith(
        "job 'web' counts under other rules than epoch 4 did (COUNT_LINES 'false' before, 'true' now; "
        "ERROR_LEVELS 'ERROR' before, 'ERROR,FATAL' now; MAX_SERIES '1000' before, '7' now).")
    assert "line_count holds only the lines counted from now on" in said  # COUNT_LINES came on
    assert "make recount FROM=" in said and "When the rules change" in said


def test_the_same_rules_or_unknown_ones_say_nothing_and_turning_lines_off_is_no_ratio_warning():
    rules = Rules.of(load_config([], {"COUNT_LINES": "true"}))
    assert change_warning("web", (4, rules), Rules.of(load_config([], {"COUNT_LINES": "true"}))) is None
    assert change_warning("web", None, rules) is None  # the job's first start, or a lease without rules
    off = change_warning("web", (4, rules), Rules.of(load_config([], {"COUNT_LINES": "false"})))
    assert off is not None and "COUNT_LINES 'true' before, 'false' now" in off and "line_count holds" not in off


def test_a_lease_row_whose_rules_cannot_be_read_is_no_rules():
    assert [Rules.parse(text) for text in (None, "", "not json", "[1, 2]", "7")] == [None] * 5
    assert Rules.parse('{"COUNT_LINES": "true"}') == Rules((("COUNT_LINES", "true"),))
