"""The `memvault` application: the global options and every command, registered in the
order `memvault --help` lists them."""

from __future__ import annotations

import typer

from .agents import lesson, promote, task_app, tool_result
from .entry import run
from .evaluation import eval_app
from .events import events_app, webhook_app
from .governance import (
    edit,
    expire,
    forget,
    freeze,
    purge,
    purge_status,
    rollback,
    sweep,
    unfreeze,
)
from .keys import keys_app
from .layers import expand, graph_app, recent, summarize
from .merging import consolidate, merge, split, unmerge, unsplit
from .onlineeval import eval_answer, eval_online, eval_sample
from .portability import export_, import_, migrate, reindex
from .reads import audit, context, diff, get, history, list_, profile, recall, trace, traces, users
from .replay import replay
from .services import demo, mcp, serve_rest
from .session import main_options
from .snapshots import snapshot_app
from .strategy import config_app
from .teams import team_app
from .writes import observe, propose, remember, review_app

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="memvault: governed long-term memory for LLM applications.")
app.callback()(main_options)

app.command()(remember)
app.command()(propose)
app.command()(get)
app.command("list")(list_)
app.command()(recall)
app.command()(context)
app.command()(observe)
app.command()(history)
app.command()(audit)
app.command()(diff)
app.command()(rollback)
app.command()(edit)
app.command()(freeze)
app.command()(unfreeze)
app.command()(forget)
app.command()(expire)
app.command()(promote)
app.command()(purge)
app.command("purge-status")(purge_status)
app.command()(merge)
app.command()(split)
app.command()(unmerge)
app.command()(unsplit)
app.command()(consolidate)
app.command()(sweep)
app.command()(recent)
app.command()(summarize)
app.command()(expand)
app.command("tool-result")(tool_result)
app.command()(lesson)
app.command("export")(export_)
app.command("import")(import_)
app.command()(reindex)
app.command()(trace)
app.command()(traces)
app.command()(profile)
app.command()(users)
app.command()(migrate)
app.command()(demo)
app.command()(mcp)
app.command("serve")(serve_rest)
app.command()(replay)

app.add_typer(review_app, name="review")
app.add_typer(task_app, name="task")
app.add_typer(graph_app, name="graph")
app.add_typer(config_app, name="config")
eval_app.command("online")(eval_online)
eval_app.command("answer")(eval_answer)
eval_app.command("sample")(eval_sample)
app.add_typer(eval_app, name="eval")
app.add_typer(keys_app, name="keys")
app.add_typer(events_app, name="events")
app.add_typer(webhook_app, name="webhook")
app.add_typer(snapshot_app, name="snapshot")
app.add_typer(team_app, name="team")


def main() -> None:
    run(app)
