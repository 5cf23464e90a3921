"""The read core: retrieval and ranking with their traces (retrieve.py), and the reads
of stored records (records.py)."""

from .retrieve import Reader, time_range

__all__ = ["Reader", "time_range"]
