"""Pure pipeline stages: plain functions on polars frames, no Prefect import."""
