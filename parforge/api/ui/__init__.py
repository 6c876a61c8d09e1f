"""The web UI (`/ui`), served by `parforge serve` beside the API, behind the same keys.

`install(app)` adds its pages, its packaged assets (`/ui/static`: no CDN, it works offline) and
the headers every UI response carries: a strict Content Security Policy (scripts, styles and
connections from this origin only, no inline script, no framing), `nosniff` and no referrer,
so that candidate code or program output shown on a page can only ever be text."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response, status
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

from parforge.api.ui.auth import PREFIX, LoginRequired, redact_access_log
from parforge.api.ui.pages import HERE, router

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=HERE / "static"), name="ui-static")

    icon = (HERE / "static" / "favicon.svg").read_bytes()

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:  # what a browser asks for on pages that name none (JSON)
        return Response(icon, media_type="image/svg+xml")

    @app.exception_handler(LoginRequired)
    async def to_login(request: Request, exc: LoginRequired) -> Response:
        return RedirectResponse(f"{PREFIX}/login", status.HTTP_303_SEE_OTHER)

    @app.middleware("http")
    async def ui_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        if request.url.path == PREFIX or request.url.path.startswith(f"{PREFIX}/"):
            response.headers["Content-Security-Policy"] = CSP
            response.headers["X-Content-Type-Options"] = "nosniff"
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["X-Frame-Options"] = "DENY"
            if not request.url.path.startswith(f"{PREFIX}/static/"):
                response.headers["Cache-Control"] = "no-store"
        return response

    redact_access_log()


__all__ = ["install"]
