"""Memory layers (docs/layers.md): short-term turns, rolling summaries, the profile, the
knowledge graph, and the router that mixes them into one context section."""
