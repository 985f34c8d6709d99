"""Tools people and tests run around the job: sample data, counts, topic and database admin,
chaos, YARN packaging. They work on a checkout (the project installed editable, `make venv`)
and are not shipped to YARN: they need confluent-kafka, which the driver does not."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout: .env, conf/, sql/, .local/
