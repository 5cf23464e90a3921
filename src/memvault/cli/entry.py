"""Running the command line: `--json` accepted after the verb as well as before it, and,
with `--json`, every error (a verb's, or a usage error of the command line) printed to
stderr as one JSON object."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from .session import Ctx, print_error

_FLAG = "json_after_verb"
JsonFlag = Annotated[bool, typer.Option(
    "--json", help="Machine-readable output; errors as JSON on stderr (also accepted "
    "before the verb).")]


def with_json_flag(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with a `--json` option of its own that sets the global one: `memvault remember
    x --json` is `memvault --json remember x`. The verb reads it from its Ctx as before."""
    sig = inspect.signature(fn, eval_str=True)
    if _FLAG in sig.parameters or not any(p.annotation is typer.Context
                                          for p in sig.parameters.values()):
        return fn

    @functools.wraps(fn)
    def verb(*args: Any, **kwargs: Any) -> Any:
        if kwargs.pop(_FLAG, False):
            for val in (*args, *kwargs.values()):
                if isinstance(getattr(val, "obj", None), Ctx):  # the verb's typer.Context
                    val.obj.json = True
        return fn(*args, **kwargs)

    params = [*sig.parameters.values(),
              inspect.Parameter(_FLAG, inspect.Parameter.KEYWORD_ONLY, default=False,
                                annotation=JsonFlag)]
    verb.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    verb.__annotations__ = {p.name: p.annotation for p in params}
    return verb


def add_json_flag(app: typer.Typer) -> None:
    """Every verb of `app` and of its sub-apps (review, graph, config, eval, ...)."""
    for info in app.registered_commands:
        if info.callback is not None:
            info.callback = with_json_flag(info.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_json_flag(group.typer_instance)


def wants_json(args: Sequence[str]) -> bool:
    """`--json` anywhere before a `--` (after which it is an argument, not the flag)."""
    args = list(args)
    return "--json" in (args[:args.index("--")] if "--" in args else args)


def run(app: typer.Typer, args: Sequence[str] | None = None) -> None:
    add_json_flag(app)
    args = list(sys.argv[1:] if args is None else args)
    if not wants_json(args):
        app(args)  # typer's own handling: usage errors in a panel, exit codes
        return
    try:
        rv = app(args, standalone_mode=False)
    except typer.TyperException as e:  # a usage error: unknown option, missing argument
        print_error("usage", e.format_message(), as_json=True)
        sys.exit(getattr(e, "exit_code", 2))
    except typer.Abort:
        print_error("aborted", "aborted", as_json=True)
        sys.exit(1)
    sys.exit(rv if isinstance(rv, int) else 0)
