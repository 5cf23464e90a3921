"""The permission matrix: which role may call which action. The one table; docs/server.md
repeats it and tests/test_server_permissions.py checks every cell over HTTP.

Roles (a key has exactly one, and always one tenant):
  admin    everything in its tenant, including purge, key management and the access log
  service  an application: reads and writes for any user of its tenant (the request names
           the user); no purge, no key management, no access log
  user     bound to one user id: its own memories, no governance verbs
  reader   read only in its tenant (names the user per request); a reader key created
           with a user is bound to that user like a user key
Any key may also be bound to a team (a project key): see PROJECT_KEY_ACTIONS.
"""

from __future__ import annotations

from ..apikeys import ROLES

__all__ = ["KIND_ACTIONS", "PERMISSIONS", "PROJECT_KEY_ACTIONS", "ROLES", "TEAM_NEEDS",
           "allowed", "edit_actions"]

_A, _S, _U, _R = "admin", "service", "user", "reader"

PERMISSIONS: dict[str, frozenset[str]] = {
    # writes
    "remember": frozenset({_A, _S, _U}),
    "observe": frozenset({_A, _S, _U}),
    "propose": frozenset({_A, _S, _U}),
    "edit": frozenset({_A, _S, _U}),
    "forget": frozenset({_A, _S, _U}),
    "rollback": frozenset({_A, _S, _U}),
    "merge": frozenset({_A, _S, _U}),  # merge, split and their undo: a user's own memories
    "split": frozenset({_A, _S, _U}),
    "unmerge": frozenset({_A, _S, _U}),
    "unsplit": frozenset({_A, _S, _U}),
    "consolidate": frozenset({_A, _S}),  # lifecycle work, like sweep
    "freeze": frozenset({_A, _S}),
    "unfreeze": frozenset({_A, _S}),
    "expire": frozenset({_A, _S}),
    "sweep": frozenset({_A, _S}),
    "summarize": frozenset({_A, _S}),  # lifecycle work, like sweep
    "maintain": frozenset({_A, _S}),
    "purge": frozenset({_A}),
    "import": frozenset({_A, _S}),
    "review.approve": frozenset({_A, _S}),
    "review.reject": frozenset({_A, _S}),
    # agent memory (docs/agents.md): a tool result comes from the application's tool
    # runner, never from an end user's key; keeping one past its shelf life is governance
    "tool_result": frozenset({_A, _S}),
    "task.step": frozenset({_A, _S, _U}),
    "task.close": frozenset({_A, _S, _U}),
    "lesson": frozenset({_A, _S, _U}),
    "promote": frozenset({_A, _S}),
    # reads
    "get": frozenset({_A, _S, _U, _R}),
    "list": frozenset({_A, _S, _U, _R}),
    "recall": frozenset({_A, _S, _U, _R}),
    "context": frozenset({_A, _S, _U, _R}),
    "history": frozenset({_A, _S, _U, _R}),
    "diff": frozenset({_A, _S, _U, _R}),
    "profile": frozenset({_A, _S, _U, _R}),
    "traces": frozenset({_A, _S, _U, _R}),
    "trace": frozenset({_A, _S, _U, _R}),
    "replay": frozenset({_A, _S, _U, _R}),  # recall as of two times: a read of the scope
    "review.list": frozenset({_A, _S, _U, _R}),
    "review.show": frozenset({_A, _S, _U, _R}),
    "export": frozenset({_A, _S, _U, _R}),
    "audit": frozenset({_A, _S, _R}),
    "jobs.get": frozenset({_A, _S, _U, _R}),
    "users": frozenset({_A, _S, _U, _R}),  # a bound key sees only its own user
    "whoami": frozenset({_A, _S, _U, _R}),  # the calling key itself (Client reads it)
    "recent": frozenset({_A, _S, _U, _R}),
    "expand": frozenset({_A, _S, _U, _R}),
    "graph.entity": frozenset({_A, _S, _U, _R}),
    "graph.facts": frozenset({_A, _S, _U, _R}),
    "graph.neighbours": frozenset({_A, _S, _U, _R}),
    "task.steps": frozenset({_A, _S, _U, _R}),
    "task.resume": frozenset({_A, _S, _U, _R}),
    # change events (docs/events.md): a page, or the stream; the tenant's, or a bound
    # key's user's
    "events": frozenset({_A, _S, _U, _R}),
    # named snapshots (docs/snapshots.md): restoring or dropping one is an admin's call
    "snapshots.create": frozenset({_A, _S}),
    "snapshots.list": frozenset({_A, _S, _R}),
    "snapshots.diff": frozenset({_A, _S, _R}),
    "snapshots.restore": frozenset({_A}),
    "snapshots.drop": frozenset({_A}),
    # strategy versions (docs/retrieval.md): the store's strategies are the operator's
    # configuration, not a user's memory; a shadow run replays the tenant's traces
    "strategies.history": frozenset({_A, _S, _R}),
    "strategies.show": frozenset({_A, _S, _R}),
    "strategies.shadow": frozenset({_A, _S, _R}),
    # online evaluation (docs/evaluation.md): an application reports the answer it gave;
    # the figures are the tenant's, counts without text
    "answer": frozenset({_A, _S, _U}),
    "eval.online": frozenset({_A, _S, _R}),
    # administration
    "keys.create": frozenset({_A}),
    "keys.list": frozenset({_A}),
    "keys.revoke": frozenset({_A}),
    "access_log": frozenset({_A}),
    "webhooks.create": frozenset({_A}),
    "webhooks.list": frozenset({_A}),  # and their deliveries
    "webhooks.remove": frozenset({_A}),
    "webhooks.retry": frozenset({_A}),
    # teams (docs/teams.md): shared scopes under the tenant. A user key lists only its
    # user's teams and the members of those; adding and removing members with a user key
    # needs the team's admin role (TEAM_NEEDS "manage")
    "teams.create": frozenset({_A}),
    "teams.drop": frozenset({_A}),
    "teams.list": frozenset({_A, _S, _U, _R}),
    "teams.members": frozenset({_A, _S, _U, _R}),
    "teams.add_member": frozenset({_A, _S, _U}),
    "teams.remove_member": frozenset({_A, _S, _U}),
}

# The second table: a call in a team's scope (`team=` on a memory route) is allowed by
# PERMISSIONS for the key's role, and then needs this of the acting member's team role
# (teams.NEEDS: read = reader, write and govern = writer, policy and manage = admin). The
# acting member is a bound key's user, or the user an unbound key names; an unbound key
# naming no user acts tenant-wide, as its role allows. An action not listed has no team
# form (422).
_READ, _WRITE, _GOVERN, _POLICY = "read", "write", "govern", "policy"
TEAM_NEEDS: dict[str, str] = {
    **dict.fromkeys(("get", "list", "recall", "context", "history", "diff", "profile",
                     "traces", "trace", "review.list", "review.show", "export", "audit",
                     "recent", "expand", "graph.entity", "graph.facts", "graph.neighbours",
                     "task.steps", "task.resume"), _READ),
    **dict.fromkeys(("remember", "observe", "propose", "edit", "lesson", "task.step",
                     "task.close", "tool_result"), _WRITE),
    **dict.fromkeys(("forget", "rollback", "merge", "split", "unmerge", "unsplit"), _GOVERN),
    **dict.fromkeys(("freeze", "unfreeze", "expire", "purge", "promote", "review.approve",
                     "review.reject", "consolidate", "summarize", "maintain", "sweep",
                     "import"), _POLICY),
    "teams.members": "read",
    "teams.add_member": "manage",
    "teams.remove_member": "manage",
}

# A key bound to a team (a project key) acts in that team, and in its own user's scope
# when it is bound to a user; it calls nothing else (no keys, webhooks, snapshots, events,
# access log or team administration, which would reach past the project).
PROJECT_KEY_ACTIONS = frozenset(TEAM_NEEDS) | {"whoami", "jobs.get", "teams.list"}


# An agent kind written or edited through the plain verbs (remember, propose, edit) needs
# the permission of its own verb too.
KIND_ACTIONS = {"tool_result": "tool_result", "step": "task.step", "lesson": "lesson"}


def allowed(role: str, action: str) -> bool:
    return role in PERMISSIONS[action]


def edit_actions(kind: str, promotes: bool) -> list[str]:
    """The actions an edit of a memory of `kind` needs besides `edit`: its agent verb's,
    and `promote`'s when it keeps the memory past its shelf life."""
    out = [KIND_ACTIONS[kind]] if kind in KIND_ACTIONS else []
    return [*out, "promote"] if promotes else out
