"""The settings: each declared once (settings.py), read and validated into a Config (load.py; the
type is generated, config_type.py), and GROUP_BY's canonical form (dimensions.py)."""
