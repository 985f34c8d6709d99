"""make counts BY=...: which dimension a BY names (errorcount/tools/breakdown.py)."""

import pytest

from errorcount.tools.breakdown import dimension_of


@pytest.mark.parametrize(("by", "group_by", "named"), [
    ("", "level,status", "level"), ("", "", ""), (" status ", "status", "status"), ("level", "level", "level"),
    ("field:service.name", "field:service.name", "field:service.name"),
    ("service.name", "field:service.name", "field:service.name"),  # a JSON field's name alone
    ("resource:service.name", "resource:service.name", "resource:service.name"),
    ("attr:http.route", "attr:http.route", "attr:http.route"), ("scope:name", "scope:name", "scope:name"),
    ("severity", "severity", "severity"), ("topic", "topic", "topic")])
def test_by_names_a_dimension_as_written_or_a_json_field(by, group_by, named):
    assert dimension_of(by, group_by) == named
