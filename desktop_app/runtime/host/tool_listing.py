"""A connected server's tool list: listing every page of it (:func:`list_all_tools`) and following its changes
on 2026-07-28 connections (:func:`listen_for_changes`: an acknowledged ``subscriptions/listen`` stream, then
:func:`mark_dirty_on_events` sets the connection's "re-list" flag or tells it the resources changed). Legacy
servers push ``notifications/…/list_changed`` to the connection's message handler instead. Used by
``connection.ServerConnection``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Literal

import mcp_types as mtypes
from mcp import Client
from mcp.client.subscriptions import Subscription
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger("desktop_app.runtime.host.connection")

MAX_TOOL_PAGES = 100


async def listen_for_changes(stack: AsyncExitStack, client: Client, name: str) -> Subscription | None:
    """On 2026-07-28 connections, an acknowledged ``subscriptions/listen`` stream for tool changes."""
    capability = client.server_capabilities.tools
    tools = bool(capability and capability.list_changed)
    resources = bool(client.server_capabilities.resources and client.server_capabilities.resources.list_changed)
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or not (tools or resources):
        return None  # legacy servers push notifications/…/list_changed to the message handler
    try:  # resource-list changes too: MCP App views are read again after one
        return await stack.enter_async_context(
            client.listen(tools_list_changed=tools, resources_list_changed=resources)
        )
    except Exception as exc:  # listening is a convenience: the connection stays usable without it
        logger.info("MCP server '%s': not following tool-list changes: %s", name, exc)
        return None


async def mark_dirty_on_events(
    subscription: Subscription, name: str, tools_dirty: asyncio.Event, resources_changed: Callable[[], None]
) -> None:
    """Set ``tools_dirty`` on a tool-list change, call ``resources_changed`` on a resource-list change."""
    try:
        async for event in subscription:
            if type(event).__name__ == "ResourcesListChanged":
                resources_changed()
            else:
                tools_dirty.set()
    except Exception as exc:  # e.g. SubscriptionLost: the connection itself may still be fine
        logger.info("MCP server '%s': stopped following tool-list changes: %s", name, exc)


async def list_all_tools(
    client: Client, *, cache_mode: Literal["use", "refresh", "bypass"] = "use"
) -> list[mtypes.Tool]:
    """Every page of the server's tools (at most ``MAX_TOOL_PAGES``)."""
    tools: list[mtypes.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools
