"""The admin page: a static HTML page with a little vanilla JS that calls the /v1 API with
the key the operator types in (kept in sessionStorage, sent as a Bearer token). The files
ship with the package (server/ui/); nothing is loaded from elsewhere, and the page needs no
key to load: every datum it shows comes through the API and its permission checks."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from .errors import ApiError

router = APIRouter(include_in_schema=False)  # a page, not part of the API schema

_FILES = {"index.html": "text/html; charset=utf-8",
          "app.css": "text/css; charset=utf-8",
          # ES modules: app.js imports the rest.
          **{f"{name}.js": "text/javascript; charset=utf-8"
             for name in ("app", "state", "i18n", "dom", "confirm", "fields", "drawer",
                          "views", "traces", "merge", "snapshots")}}

# The page renders memory content, which is untrusted text: the JS only ever sets it as
# textContent, and this policy is the second fence (no inline or foreign script, no
# framing, requests only to this origin).
_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _read(name: str) -> bytes:
    return resources.files("memvault.server").joinpath("ui", name).read_bytes()


@router.get("/admin")
def admin_root() -> Response:
    # Relative asset URLs in the page resolve against /admin/.
    return RedirectResponse("/admin/", status_code=307)


@router.get("/admin/")
def admin_page() -> Response:
    return Response(_read("index.html"), media_type=_FILES["index.html"], headers=_HEADERS)


@router.get("/admin/{name}")
def admin_asset(name: str) -> Response:
    media = _FILES.get(name)
    if media is None or name == "index.html":
        raise ApiError(404, "not_found", f"no admin page file {name}")
    return Response(_read(name), media_type=media, headers=_HEADERS)
