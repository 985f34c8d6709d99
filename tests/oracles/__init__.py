"""Independent expectations for the tests, the bench and `make chaos`: the contracts written a
second time in plain Python (pyparse: app lines; pyformats: access and json; pydims: dimensions).
Nothing here is used by the job itself, nor shipped with it."""
