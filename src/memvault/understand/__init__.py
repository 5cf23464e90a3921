"""Understanding a statement beyond a fixed list of phrasings: its stance (polarity and
the thing it is about), the discourse moves around it (a change of mind, a retraction,
an addition), its topic key, and how it relates to the memories it matches.

Everything here is pure and offline: text in, features out. The semantic lookup that
finds the matching memories is the read core's (reads/related.py); the decision of what
a candidate does to them is the gate's, which calls `relate` with those matches.
"""
