"""Pydantic v2 models generated from `strata schema ...` (see ../../codegen.py)."""
