"""Which scope wins when the user's own memory and a team's disagree (docs/teams.md).

Pure: given the live memories of several scopes that share a slot (or, without a slot, a
topic), the scope whose memories are served and why. The rule, in order:

1. a frozen team memory is policy: its team wins ("team_policy"; "team_policy_over_team"
   when no memory of the user's own competes, so the context never claims one was beaten);
2. otherwise the user's own memory wins over a team default ("personal_over_team");
3. between teams only, the most recently changed one wins ("newer_team").

Two teams that both hold a frozen memory of the slot: the most recently changed policy
wins (a tie an administrator should resolve; the context shows which one was served).
"""

from __future__ import annotations

from .model import Memory
from .validate import team_of

TEAM_POLICY = "team_policy"
TEAM_POLICY_OVER_TEAM = "team_policy_over_team"
PERSONAL_OVER_TEAM = "personal_over_team"
NEWER_TEAM = "newer_team"


def key_of(m: Memory) -> tuple[str, str] | None:
    """What two memories must share to compete: the slot, else the topic."""
    if m.slot:
        return ("slot", m.slot)
    if m.topic:
        return ("topic", m.topic)
    return None


def _newest(mems: list[Memory]) -> Memory:
    return max(mems, key=lambda m: (m.updated_at, m.version, m.id))


def winning_user(mems: list[Memory]) -> tuple[str, str]:
    """(the user id of the winning scope, why) among memories of one key; the scopes'
    tenants are the same."""
    teams = [m for m in mems if team_of(m.scope.user) is not None]
    policy = [m for m in teams if m.frozen]
    personal = [m for m in mems if team_of(m.scope.user) is None]
    if policy:
        return _newest(policy).scope.user, TEAM_POLICY if personal else TEAM_POLICY_OVER_TEAM
    if personal:
        return _newest(personal).scope.user, PERSONAL_OVER_TEAM
    return _newest(teams).scope.user, NEWER_TEAM


def mark(m: Memory, why: str | None = None, overrides: list[str] | None = None
         ) -> dict[str, object]:
    """The scope mark of a hit: personal or team (which), and what it won over."""
    team = team_of(m.scope.user)
    out: dict[str, object] = {"scope": "team" if team else "personal", "team": team}
    if why is not None:
        out["precedence"] = why
        out["overrides"] = list(overrides or [])
    return out
