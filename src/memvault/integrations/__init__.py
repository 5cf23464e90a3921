"""Adapters that put memvault behind the frameworks people already use (docs/integrations.md)."""
