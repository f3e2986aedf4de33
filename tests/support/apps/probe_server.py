"""An MCP server with an MCP App (SEP-1865) for Switchboard's tests: the probe view and its tools.

* ``greet(name, actions=[])`` — linked to ``ui://probe/view`` (visible to the model and the view); the
  view runs the ``actions`` it is given once the result arrives (see ``probe_view.html``);
* ``bump(count)`` — app-only (``visibility: ["app"]``): the view calls it, the model never sees it;
* ``model_only()`` — ``visibility: ["model"]``: a view may not call it;
* ``set_csp(connect)`` — the view's declared ``connectDomains`` (the view is read again after
  ``notifications/resources/list_changed``).

Run as a stdio server: ``python -m tests.support.apps.probe_server``; in process: :func:`probe_server`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import FunctionResource

VIEW_URI = "ui://probe/view"
HTML = (Path(__file__).with_name("probe_view.html")).read_text(encoding="utf-8")


def probe_server(
    *, connect_domains: list[str] | None = None, name: str = "probe", ran: list[str] | None = None
) -> MCPServer:
    """``ran`` (when given) records each greet call's name: a test sees whether the tool ran."""
    apps = Apps()
    state: dict[str, Any] = {"connect": list(connect_domains or []), "bumps": 0}

    @apps.tool(resource_uri=VIEW_URI, description="Greet someone in the probe view")
    def greet(name: str, ctx: Context, actions: list[str] | None = None) -> dict[str, Any]:
        if ran is not None:
            ran.append(name)
        return {"greeting": f"Hello, {name}!", "apps": client_supports_apps(ctx)}

    @apps.tool(resource_uri=VIEW_URI, visibility=["app"], description="Add to the view's counter")
    def bump(count: int = 1) -> dict[str, Any]:
        state["bumps"] += count
        return {"count": state["bumps"]}

    @apps.tool(resource_uri=VIEW_URI, visibility=["model"], description="Only the model may call this")
    def model_only() -> str:
        return "model only"

    def view() -> str:
        return HTML

    def meta() -> dict[str, Any]:
        csp = ResourceCsp(connect_domains=state["connect"] or None)
        return {"ui": {"csp": csp.model_dump(by_alias=True, exclude_none=True), "prefersBorder": True}}

    resource = FunctionResource(uri=VIEW_URI, name="probe view", mime_type="text/html;profile=mcp-app", fn=view)
    object.__setattr__(resource, "meta", meta())
    apps.add_resource(resource)
    server = MCPServer(name, extensions=[apps], log_level="WARNING")

    @server.tool(description="Change the view's connectDomains and say the resources changed")
    async def set_csp(connect: list[str], ctx: Context) -> str:
        state["connect"] = list(connect)
        object.__setattr__(resource, "meta", meta())
        if ctx.client_capabilities is not None and ctx.request_context.session.protocol_version == "2026-07-28":
            await ctx.notify_resources_changed()  # the listen stream of a 2026-07-28 client
        else:
            await ctx.request_context.session.send_resource_list_changed()
        return "ok"

    return server


if __name__ == "__main__":
    probe_server().run()
