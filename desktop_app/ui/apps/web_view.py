"""The sandboxed web view of one MCP App (imports Qt WebEngine: loaded only through :mod:`.engine`).

:class:`AppWebView` shows the host's outer page (:mod:`.html`) in the shared off-the-record profile; the view's
document goes into its sandboxed iframe. Its page refuses every navigation but the outer page's own load and
the iframe's ``about:srcdoc`` (and the frame origins the view declared), opens no windows, grants no
permission, downloads nothing; its request filter lets through only the origins the view declared (the CSP
says the same inside the page). :class:`HostChannel` is the only object the page can reach over the web
channel: it takes the view's messages as JSON text and nothing else. Wheel events go to the chat (the view is
sized to its content); the view takes the keyboard only when clicked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.runtime.apps.meta import ResourceCsp, host_allowed
from desktop_app.ui.apps.engine import view_profile
from desktop_app.ui.apps.html import OUTER_ORIGIN, outer_page

log = logging.getLogger(__name__)

_LOCAL_SCHEMES = frozenset({"qrc", "data", "blob", "about"})


class HostChannel(QObject):
    """The web channel's one object: the view's messages in (``fromView``), the host's out (``toView``)."""

    toView = Signal(str)
    loadView = Signal(str)
    received = Signal(str)
    page_ready = Signal()

    @Slot(str)
    def fromView(self, text: str) -> None:
        self.received.emit(text)

    @Slot()
    def ready(self) -> None:
        self.page_ready.emit()


class RequestFilter(QWebEngineUrlRequestInterceptor):
    """Lets through local resources and the declared origins; everything else is blocked (and recorded)."""

    def __init__(self, csp: ResourceCsp, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.csp = csp
        self.blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        scheme = url.scheme().lower()
        if scheme in _LOCAL_SCHEMES:
            return
        if scheme in ("http", "https", "ws", "wss") and host_allowed(url.host().lower(), scheme, self.csp):
            return
        self.blocked.append(url.toString())
        log.info("MCP App view: blocked a request to %s (not declared by the view)", url.toString()[:200])
        info.block(True)


class AppPage(QWebEnginePage):
    """The outer page: no navigation away, no windows, no permissions."""

    def __init__(self, csp: ResourceCsp, parent: QObject | None = None) -> None:
        super().__init__(view_profile(), parent)
        self.csp = csp
        self.refused: list[str] = []
        self._loaded = False
        self.filter = RequestFilter(csp, self)
        self.setUrlRequestInterceptor(self.filter)
        self.permissionRequested.connect(lambda permission: permission.deny())

    def load_outer(self) -> None:
        self.setHtml(outer_page(), QUrl(OUTER_ORIGIN))

    def acceptNavigationRequest(self, url: QUrl | str, kind: QWebEnginePage.NavigationType, main_frame: bool) -> bool:
        target = QUrl(url)
        text = target.toString()
        if main_frame:
            if not self._loaded and (target.scheme() == "data" or text == OUTER_ORIGIN):
                self._loaded = True
                return True
        elif text in ("about:srcdoc", "about:blank") or (
            target.scheme() in ("http", "https")
            and host_allowed(target.host().lower(), target.scheme(), ResourceCsp(frame_domains=self.csp.frame_domains))
        ):
            return True
        self.refused.append(text)
        log.info("MCP App view: refused a navigation to %s", text[:200])
        return False

    def createWindow(self, _kind: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        return None  # type: ignore[return-value]  # no windows: Qt takes None as "refused"

    def javaScriptConsoleMessage(
        self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str, line: int, source: str
    ) -> None:
        log.debug("MCP App view console: %s (%s:%d)", message[:300], source[:100], line)


class AppWebView(QWebEngineView):
    """One view's web view (see the module docstring)."""

    def __init__(
        self,
        csp: ResourceCsp,
        *,
        scroll_target: Callable[[], QWidget | None] = lambda: None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.app_page = AppPage(csp, self)
        self.setPage(self.app_page)
        self.channel = QWebChannel(self)
        self.host = HostChannel(self)
        self.channel.registerObject("host", self.host)
        self.app_page.setWebChannel(self.channel)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self.setAcceptDrops(False)
        self._scroll_target = scroll_target
        self._filtered: QObject | None = None
        self.loadFinished.connect(lambda _ok: self._filter_input())
        self.app_page.load_outer()

    def _filter_input(self) -> None:
        proxy = self.focusProxy()
        if proxy is not None and proxy is not self._filtered:
            proxy.installEventFilter(self)
            self._filtered = proxy

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel:
            target = self._scroll_target()
            if target is not None:
                QApplication.sendEvent(target, event.clone())
                return True
        return super().eventFilter(watched, event)


__all__ = ["AppPage", "AppWebView", "HostChannel", "RequestFilter"]
