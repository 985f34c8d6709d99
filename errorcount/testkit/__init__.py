"""Independent expectations for the tests, the bench and `make chaos`: the contracts written a
second time in plain Python (pyparse: app lines; pyformats: access and json) and sample records
that carry their expected outcome (samples). Nothing here is used by the job itself."""
