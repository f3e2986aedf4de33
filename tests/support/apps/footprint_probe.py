"""Run by tests/unit/ui/apps/test_footprint.py in a fresh process: the real window with MCP Apps wired, its
first paint, then a turn whose tool has no view; prints which Qt WebEngine modules were imported (none)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    import qasync
    from mcp.server.mcpserver import MCPServer
    from PySide6.QtWidgets import QApplication

    from desktop_app.runtime.host import Host
    from desktop_app.runtime.run.approvals import ApprovalPolicy
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.settings import AppsSettings, ProviderSettings, Settings
    from desktop_app.ui.apps.controller import attach_apps
    from desktop_app.ui.window.main_window import MainWindow
    from tests.support.apps.probe_server import probe_server
    from tests.support.fakes import FakeProvider, answer, calls

    def clock() -> MCPServer:
        server = MCPServer("clock", log_level="WARNING")

        @server.tool()
        def now() -> str:
            return "12:00"

        return server

    app = QApplication(sys.argv)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    seen: dict[str, list[str]] = {}

    def webengine() -> list[str]:
        return sorted(m for m in sys.modules if m.startswith("PySide6.QtWebEngine"))

    async def scenario() -> None:
        host = Host(call_timeout=10)
        host.add_in_process("clock", clock)
        host.add_in_process("probe", probe_server)  # a server with views is connected, but not used
        provider = FakeProvider(
            [
                calls(("c1", "mcp__clock__now", "{}")),
                answer("It is noon."),
                calls(("c2", "mcp__probe__greet", '{"name": "Ada"}')),
                answer("Greeted."),
            ]
        )
        runtime = Runtime(
            settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
            host=host,
            policy=ApprovalPolicy("always"),
            provider_factory=lambda _s, _k: provider,
        )
        window = MainWindow()
        window.attach_runtime(runtime)
        attach_apps(window, runtime, host)
        await host.start()
        window.show()
        await asyncio.sleep(0)  # one turn of the loop: the window paints
        app.processEvents()
        seen["first_paint"] = webengine()
        controller = window.controller
        assert controller is not None
        await controller.send("what time is it?")
        seen["text_result"] = webengine()
        # Settings → Apps off: a tool that has a view shows its text, and the web engine stays out
        runtime._settings = runtime.settings.model_copy(update={"apps": AppsSettings(enabled=False)})
        await controller.send("greet Ada")
        seen["apps_off"] = webengine()
        seen["cards"] = [card.result.text() for card in window.view.cards.values()]
        await runtime.aclose()
        window.close()

    with loop:
        loop.run_until_complete(scenario())
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
