"""The write core: preparing a write, committing it (memory row, revision, full-text
row and vectors in one transaction), reinforcement, the governance mutations, pending
inserts, purge, turn re-keying and reindex. See docs/design.md for who may call it."""

from .commit import Writer
from .prepare import Request, prepare, prepare_items

__all__ = ["Request", "Writer", "prepare", "prepare_items"]
