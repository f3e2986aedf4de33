"""Composition root of the desktop app: arguments, logging, QApplication + qasync loop, Runtime, window.

Start-up order keeps the first paint near the bare-Qt floor: Qt and the window's shell first (the chat
column, the composer, the conversation list and the menus; ``MainWindow(defer_rest=True)``), shown and
painted on a plain Qt event loop; only then asyncio and qasync, the find bar and the Help menu
(``build_rest``), the tray, and the runtime, imported in a worker thread and attached to the window, which
shows "Starting…" until then. What a first prompt does not need comes right after ``runtime: ready``
(``App._after_ready``: the hidden docks, the welcome screen, the keyring, the MCP servers). Shutdown order: the window
closes, the UI's tasks are cancelled, ``await runtime.aclose()`` stops runs and MCP servers, and only then the
loop stops.

``--smoke-test`` does the same start-up, prints ``startup: <seconds> s to first paint``, creates the
runtime, shuts down in order and exits 0 (1 if anything failed).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.launch_args import build_parser
from desktop_app.paths import HOME_ENV, AppPaths, app_paths
from desktop_app.startup_log import open_log_file, start_logging

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtWidgets import QApplication

    from desktop_app.assembly import Assembly
    from desktop_app.runtime.service import Runtime
    from desktop_app.ui.tray.desktop import DesktopShell
    from desktop_app.ui.window.main_window import MainWindow

log = logging.getLogger("desktop_app.app")

EXIT_OK, EXIT_FAILED = 0, 1
FIRST_PAINT_TIMEOUT_S = 30.0


def _version() -> str:
    from desktop_app import __version__

    return __version__


def resource_path(name: str) -> Path:
    """A file from ``resources/`` (next to the package in a checkout, under ``_MEIPASS`` when frozen)."""
    base = getattr(sys, "_MEIPASS", None)
    root = Path(base) if base else Path(__file__).resolve().parent.parent
    return root / "resources" / name


class App:
    """Runs the window and the runtime on the qasync loop; owns the start-up and shutdown order."""

    def __init__(self, qapp: QApplication, window: MainWindow, paths: AppPaths, t0: float, *, smoke: bool) -> None:
        self.qapp = qapp
        self.window = window
        self.paths = paths
        self.t0 = t0
        self.smoke = smoke
        self.runtime: Runtime | None = None
        self.assembly: Assembly | None = None
        self.shell: DesktopShell | None = None
        self.show_window = True
        """False for ``--background`` and ``--quick`` where a tray exists: the window stays hidden."""
        self._closed: asyncio.Future[None] | None = None
        self._quit_requested = False  # asked before run() was waiting for it (a signal during start-up)
        self.state_file: Path | None = None
        """The window's saved layout (docks, splitters), restored with the docks after ready; None: not kept."""

    def request_quit(self) -> None:
        """Quit the app (tray menu, File → Quit, SIGINT/SIGTERM/SIGHUP): the same ordered shutdown as closing
        the last window. The window's layout is saved and every window leaves the screen at once; the
        runtime and the MCP servers close after that (``shutdown``), out of sight."""
        if not self._quit_requested:
            self._leave_screen()
        self._quit_requested = True
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)

    def _leave_screen(self) -> None:
        """Save the window's size, docks and splitters (every quit path, not only the title bar's close),
        then hide the window, the quick prompt and the tray icon: the user sees the quit take effect now."""
        try:
            self.window.save_state()
        except Exception:  # a layout that cannot be saved must not stop the quit
            log.exception("could not save the window's layout")
        self.window.close_interceptor = None
        self.window.hide()
        if self.shell is not None:
            self.shell.quick.hide()
            self.shell.tray.hide()

    async def run(self) -> int:
        import asyncio

        from desktop_app.ui.asyncqt import first_paint, install_asyncgen_hooks

        loop = asyncio.get_running_loop()
        install_asyncgen_hooks(loop)
        closed: asyncio.Future[None] = loop.create_future()
        self._closed = closed
        if self._quit_requested:
            closed.set_result(None)
        self.qapp.lastWindowClosed.connect(self.request_quit)
        if self.show_window and self.window.isVisible():  # shown and painted by main(), before the loop
            if self.shell is not None:
                self.shell.quick.raise_if_shown()
        elif self.show_window:
            painted = first_paint(self.window)
            self.window.show()
            painted_at = await asyncio.wait_for(painted, FIRST_PAINT_TIMEOUT_S)
            print(f"startup: {painted_at - self.t0:.3f} s to first paint", flush=True)
            if self.shell is not None:
                self.shell.quick.raise_if_shown()  # --quick without a tray: the box stays above the window
        else:
            print(f"startup: {time.perf_counter() - self.t0:.3f} s (in the background)", flush=True)
        status = EXIT_OK
        try:
            await self._start_runtime()
            print(f"runtime: ready {time.perf_counter() - self.t0:.3f} s after start", flush=True)
            await asyncio.sleep(0)  # input that came during start-up is handled before the rest below
            self._after_ready()
            gc.enable()
            self.qapp.setApplicationVersion(_version())  # importlib.metadata: not on the way to ready
            from desktop_app.ui.asyncqt import freeze_startup_objects

            # Once start-up has settled (the runtime is in, the servers are starting): freeze what it made, and
            # give back the memory it freed.
            asyncio.get_running_loop().call_later(1.0, freeze_startup_objects)
            if self.smoke:
                self.window.close()
            await closed
        except Exception:
            log.exception("start-up failed")
            status = EXIT_FAILED
            if self.smoke:
                import traceback

                traceback.print_exc()
        finally:
            gc.enable()
            await self.shutdown()
        return status

    async def _start_runtime(self) -> None:
        import asyncio
        import importlib

        # Import the runtime (mcp, ~0.8 s) off the UI thread so the "Starting…" window stays responsive.
        await asyncio.to_thread(importlib.import_module, "desktop_app.runtime.service")
        await asyncio.to_thread(importlib.import_module, "desktop_app.runtime.host")
        from desktop_app.assembly import assemble

        self.assembly = assemble(self.paths, strict=False, discover_later=True)  # workflows read after ready
        runtime = self.assembly.runtime
        self.runtime = runtime
        self.window.attach_runtime(runtime)
        store = self.assembly.store
        if store is not None:
            self.window.attach_store(store)
        if self.shell is not None:
            self.shell.attach(runtime, self.assembly.host, store, self.assembly.recorder)

    def _after_ready(self) -> None:
        """What a first prompt does not need, right after ready (issue 27): the keyring's backend discovery (a
        thread), the welcome screen or the key check and the hidden docks (``window.after_ready``, ~40 ms for
        the docks) with the saved dock layout, the purge of conversations deleted in an earlier session, the
        Servers dock's host and the importers (``attach_host``, ~30–70 ms), the workflows' and tasks' window
        parts, then the MCP servers' start and the HTTP host."""
        if self.assembly is None or self.runtime is None or self._quit_requested:  # quit during start-up
            return
        from desktop_app.runtime.credentials import start_discovery

        start_discovery()  # the keyring's backend, in a thread: its imports (~50 ms of CPU) are not on the way to ready
        self.window.after_ready()
        if self.state_file is not None:
            self.window.restore_state(self.state_file)  # the dock layout needs the docks
        runtime, store = self.runtime, self.assembly.store
        if store is not None:
            try:  # conversations deleted in an earlier session (their undo time is over) go for good now
                store.purge_deleted()
            except Exception:
                log.exception("could not purge deleted conversations")
        # MCP App views (issue 26): wired before the servers start (MCP Apps is advertised when they connect);
        # Qt WebEngine itself loads with the first view shown, never here.
        from desktop_app.runtime.apps.known import KnownViews
        from desktop_app.ui.apps.controller import attach_apps

        attach_apps(self.window, runtime, self.assembly.host, store, KnownViews(self.paths.data_dir / "app-views.json"))
        self.window.attach_host(  # before host.start(): the Servers dock sees every state change
            self.assembly.host, credentials=runtime.credentials, mcp_config=self.paths.mcp_config_file
        )
        for problem in [*self.assembly.problems, *(p for later in self.assembly.later_problems for p in later())]:
            self.window.view.show_error(problem)
        if self.assembly.workflows is not None:  # the step lists in the chat, View → Workflows… (no run has one yet)
            from desktop_app.ui.workflows import install_workflows

            install_workflows(self.window, self.assembly.workflows)
        if self.assembly.tasks is not None:  # View → Tasks…, task notifications, the tray's runs in progress
            from desktop_app.ui.tasks import install_tasks  # the Tasks are made here (not before ready)

            install_tasks(self.window, self.assembly.tasks, shell=self.shell, recorder=self.assembly.recorder)
        if not self.smoke:
            self.window.tasks.start(self._start_servers(runtime), name="start-mcp-servers")
            if runtime.settings.http_host.enabled:  # MCP over HTTP: imported only when it is on
                from desktop_app.ui.servers.http_host import attach_http_host

                served = attach_http_host(self.window, runtime, self.assembly.host, self.assembly.agent_runner)
                served.announce = lambda line: print(line, flush=True)
                served.apply(runtime.settings)

    async def _start_servers(self, runtime: Runtime) -> None:
        host: Any = runtime.host
        if hasattr(host, "start"):
            self.window.servers_dock.panel.mark_starting()  # the host has no "starting" event
            await host.start()
            failed = [(name, s.error) for name, s in host.states().items() if s.state == "failed"]
            for name, error in failed:
                self.window.view.add_notice(f"MCP server '{name}' failed to start: {error}", "error")
        if self.assembly is not None and self.assembly.tasks is not None:  # scheduled runs see the servers' tools
            self.assembly.tasks.start()

    async def shutdown(self) -> None:
        """Cancel the UI's tasks, close the runtime (runs, MCP servers, HTTP clients)."""
        import asyncio

        runners = [self.window.tasks]
        if self.shell is not None:
            self.shell.close()
            runners.append(self.shell.quick.tasks)
        await asyncio.gather(*(runner.cancel_all() for runner in runners))
        http = sys.modules.get("desktop_app.runtime.serve.service")  # never imported while the host was off
        served = http.existing_service(self.runtime) if http is not None and self.runtime is not None else None
        if served is not None:
            await served.stop()
        if self.assembly is not None:  # runs stop, then every MCP server closes (side by side: Host.aclose)
            try:
                await self.assembly.aclose()
            except Exception:
                log.exception("runtime did not close cleanly")
        await _cancel_stragglers()


async def _cancel_stragglers() -> None:
    """Cancel and await the UI tasks still running once the runtime is closed.

    Dialogs keep their own task runners (the welcome screen's loopback probe, a provider test): quitting
    while one waits must end it here, not leave the loop to destroy it pending at close. Only tasks started
    through a ``TaskRunner`` are touched: the task running ``App.run`` and whatever awaits it are not."""
    from desktop_app.ui.asyncqt import TaskRunner

    await TaskRunner.cancel_everywhere()


def main(argv: Sequence[str] | None = None) -> int:
    t0 = time.perf_counter()
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    gc.disable()  # and none before the first paint either: ~8 ms of passes over the modules, classes and enums so far
    if args.home:
        os.environ[HOME_ENV] = str(args.home)
    paths = app_paths().ensure()
    early_log = start_logging(args.log_level)  # the log file opens after the first paint

    from desktop_app.ui.qt_imports import lighten_feature_hook

    lighten_feature_hook()  # before anything else is imported (see its docstring)
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    # MCP App views (Qt WebEngine, loaded with the first view) share GL contexts with the window: Qt wants this
    # set before the QApplication exists (it costs nothing until a web view is made).
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    qapp = QApplication.instance()
    if qapp is None:
        # Fusion from the start (the one style whose drawing follows the palette, theme.apply_theme): set by Qt
        # itself, so that no Python wrapper of the style is made before the first paint (QStyle's ~300 enums,
        # ~4 ms; issue 27).
        qapp = QApplication([sys.argv[0], "-style", "Fusion"])
        qapp.setProperty("switchboardFusion", True)
    assert isinstance(qapp, QApplication)
    qapp.setApplicationName("Switchboard")
    qapp.setDesktopFileName("switchboard")
    icon = resource_path("switchboard.svg")
    if icon.exists():
        qapp.setWindowIcon(QIcon(str(icon)))
    qapp.setQuitOnLastWindowClosed(False)  # we stop the loop ourselves, after runtime.aclose()

    instance = None
    if not (args.smoke_test or args.no_single_instance):
        from desktop_app.instance import forward_main, server_address
        from desktop_app.ui.tray.single_instance import InstanceServer

        instance = InstanceServer(server_address(str(args.home) if args.home else None), lambda _m: {"ok": False})
        claimed = instance.claim()
        if claimed == "taken":  # another instance started first (a race): hand it this launch
            open_log_file(paths, args.log_level, early_log)
            gc.enable()
            return forward_main(list(sys.argv[1:] if argv is None else argv)) or EXIT_OK
        if claimed == "failed":  # run anyway; a second launch then starts a second app
            log.warning("single instance is off for this session (see the error above)")
            instance = None

    from desktop_app.ui.theme import themes as theme
    from desktop_app.ui.window.main_window import MainWindow

    theme.install()  # the light or dark stylesheet, following the system until the settings say otherwise
    window = MainWindow(defer_rest=True)  # the shell the first paint shows; build_rest() adds the rest
    window.detect_local_on_welcome = not args.smoke_test  # first run: look for Ollama/LM Studio on loopback
    state_file = paths.config_dir / "window.ini"  # geometry, maximised, docks, splitters
    # --background and --quick start with the tray (the window may stay hidden): the shell comes first then.
    shell_first = not args.smoke_test and (args.background or args.quick)
    if not shell_first:
        if not args.smoke_test:
            window.restore_geometry(state_file)
        if not _first_paint(window, t0):
            open_log_file(paths, args.log_level, early_log)
            gc.enable()
            return EXIT_FAILED
    # No collection passes until the start-up after ready is done (App.run): the way makes almost no cyclic garbage,
    # yet each pass walks every object so far (ready ~25 ms sooner, issue 27). freeze_startup_objects collects later.
    gc.disable()
    open_log_file(paths, args.log_level, early_log)
    window.wait_for_ready = True  # the hidden docks, the welcome screen: right after 'runtime: ready' (_after_ready)
    window.build_rest()  # the find bar, the key banner, the Help menu: after the first paint

    from desktop_app.lazy_ssl import import_asyncio

    import_asyncio()  # without ssl (~6 ms): it comes with the first TLS client's import, after ready
    import asyncio

    from desktop_app.ui.qt_loop import EventLoop

    loop = EventLoop(qapp)
    asyncio.set_event_loop(loop)
    app = App(qapp, window, paths, t0, smoke=args.smoke_test)
    app.state_file = None if args.smoke_test else state_file  # the dock layout, once the docks exist
    from desktop_app.ui.window.quit_signals import install_quit_signals

    quit_signals = install_quit_signals(app.request_quit)  # Ctrl+C, SIGTERM, SIGHUP: the ordered shutdown
    if not args.smoke_test:
        _install_shell(app, args, paths, instance)
    try:
        with loop:
            exit_code: int = loop.run_until_complete(app.run())  # qasync's loop is untyped
            return exit_code
    finally:
        gc.enable()
        quit_signals.close()
        if instance is not None:
            instance.close()
        asyncio.set_event_loop(None)
        logging.shutdown()


def _first_paint(window: MainWindow, t0: float) -> bool:
    """Show the window and wait for its first paint on Qt's own event loop (asyncio is not imported yet);
    print the ``startup:`` line. False (and an error on stderr) when it did not paint in time."""
    from desktop_app.ui.window.first_paint import show_and_wait_for_paint

    painted_at = show_and_wait_for_paint(window, FIRST_PAINT_TIMEOUT_S)
    if painted_at is None:
        log.error("the window was not painted within %g s; giving up", FIRST_PAINT_TIMEOUT_S)
        return False
    print(f"startup: {painted_at - t0:.3f} s to first paint", flush=True)
    return True


def _install_shell(app: App, args: argparse.Namespace, paths: AppPaths, instance: Any) -> None:
    """Tray, quick prompt and notifications around the window; this launch's own --quick/--background/files."""
    from desktop_app.ui.tray.desktop import DesktopShell

    home = os.environ.get(HOME_ENV)
    shell = DesktopShell(
        app.window,
        resource_path(""),
        paths.data_dir,
        quit_app=app.request_quit,
        home=Path(home).expanduser().resolve() if home else None,
    )
    app.shell = shell
    if instance is not None:
        instance.handler = shell.handle_request
    shell.start()
    app.show_window = not ((args.background or args.quick) and shell.has_tray)
    files = [str(Path(f).resolve()) for f in args.files]
    if args.quick:
        shell.show_quick()
    if files:
        if args.quick:
            shell.quick.attach_files(files)
        else:
            app.window.add_launch_files(files)  # a .mcpb opened from the file manager: the install screen
    if args.background and not shell.has_tray:
        app.window.view.add_notice("Started with --background, but there is no system tray: showing the window.")


if __name__ == "__main__":
    raise SystemExit(main())
