"""Where the metrics endpoint says it is (WatchSettings.endpoint), as stored with the lease."""

import socket

from errorcount.config.load import load_config
from errorcount.observe.watch import WatchSettings


def settings(port: int, host: str) -> WatchSettings:
    return WatchSettings("job", metrics_host=host, metrics_port=port)


def test_off_when_no_port():
    assert settings(0, "0.0.0.0").endpoint({"NM_HOST": "node7.example"}) is None


def test_a_specific_address_is_the_endpoint():
    assert settings(9108, "10.1.2.3").endpoint({"NM_HOST": "node7.example"}) == "10.1.2.3:9108"


def test_every_address_on_yarn_is_the_node_yarn_names():
    for wildcard in ("0.0.0.0", "::", ""):
        assert settings(9108, wildcard).endpoint({"NM_HOST": "node7.example"}) == "node7.example:9108"


def test_every_address_elsewhere_is_the_machine_name():
    assert settings(9108, "0.0.0.0").endpoint({}) == f"{socket.getfqdn()}:9108"


def test_the_settings_are_the_job_s():
    cfg = load_config([], {"JOB_NAME": "orders", "METRICS_PORT": "9108", "METRICS_HOST": "0.0.0.0", "KAFKA_LAG_GROUP": "lag"})
    assert WatchSettings.of(cfg) == WatchSettings("orders", "0.0.0.0", 9108, "lag")
    cfg = load_config([], {"JOB_NAME": "orders", "TRIGGER_INTERVAL": "20 minutes", "SLO_OBJECTIVE": "0.99"})
    assert WatchSettings.of(cfg) == WatchSettings("orders", lag_group="errorcount-orders", slo_objective=0.99,
                                                   trigger_seconds=1200.0)
