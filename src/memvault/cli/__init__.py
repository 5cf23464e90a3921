"""`memvault` command line: the Vault's verbs, one command each, no logic of their own."""

from .app import app, main

__all__ = ["app", "main"]
