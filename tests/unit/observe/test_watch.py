"""Where the metrics endpoint says it is (errorcount.watch.endpoint), as stored with the lease."""

import socket
from types import SimpleNamespace

from errorcount.observe.watch import endpoint


def settings(port: int, host: str) -> SimpleNamespace:
    return SimpleNamespace(metrics_port=port, metrics_host=host)


def test_off_when_no_port():
    assert endpoint(settings(0, "0.0.0.0"), {"NM_HOST": "node7.example"}) is None


def test_a_specific_address_is_the_endpoint():
    assert endpoint(settings(9108, "10.1.2.3"), {"NM_HOST": "node7.example"}) == "10.1.2.3:9108"


def test_every_address_on_yarn_is_the_node_yarn_names():
    for wildcard in ("0.0.0.0", "::", ""):
        assert endpoint(settings(9108, wildcard), {"NM_HOST": "node7.example"}) == "node7.example:9108"


def test_every_address_elsewhere_is_the_machine_name():
    assert endpoint(settings(9108, "0.0.0.0"), {}) == f"{socket.getfqdn()}:9108"
