"""make chaos (run.py): kill -9 the driver or the SQL server under a steady producer, each kill
aimed at a phase of the job (phases.py); exact or fail."""
