"""asyncio without ``ssl`` until something imports ``ssl`` (issue 27): the app's asyncio loads without it, and
once ``ssl`` is imported asyncio speaks TLS as if ``ssl`` had come first.

Each check runs in a fresh interpreter: this one has asyncio and ``ssl`` loaded already."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TLS_CLIENT = """
import sys
from desktop_app.lazy_ssl import import_asyncio
asyncio = import_asyncio()
assert "ssl" not in sys.modules, "asyncio brought ssl"
import asyncio.sslproto as sslproto
assert sslproto.ssl is None
{before}

async def main():
    seen = asyncio.get_running_loop().create_future()

    async def server(reader, writer):
        seen.set_result(await reader.read(5))
        writer.close()

    listening = await asyncio.start_server(server, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    import ssl  # as an HTTPS client does, to make its context

    try:
        await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, ssl=ssl.create_default_context(), server_hostname="x"), 10
        )
    except (ssl.SSLError, ConnectionError, asyncio.IncompleteReadError):
        pass  # the server hangs up after the ClientHello: what matters is that one was sent
    hello = await asyncio.wait_for(seen, 10)
    listening.close()
    print(hello[:2].hex(), sslproto.ssl is ssl, sslproto.SSLAgainErrors == (ssl.SSLWantReadError, ssl.SSLSyscallError))

asyncio.run(main())
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_asyncio_loads_without_ssl_and_speaks_tls_once_ssl_is_imported():
    # 1603: a TLS handshake record (ClientHello) reached the server through asyncio's SSL transport.
    assert _run(TLS_CLIENT.format(before="")) == "1603 True True"


def test_ssl_imported_in_another_thread_joins_asyncio_too():
    before = "import threading\nt = threading.Thread(target=__import__, args=('ssl',))\nt.start()\nt.join()\n"
    assert _run(TLS_CLIENT.format(before=before)) == "1603 True True"


def test_an_app_start_loads_no_ssl_before_ready():
    code = (
        "import sys\n"
        "from desktop_app.lazy_ssl import SslFinder, import_asyncio\n"
        "import_asyncio()\n"
        "import desktop_app.ui.qt_loop, desktop_app.runtime.service, desktop_app.runtime.host, desktop_app.assembly\n"
        "print('ssl' in sys.modules, any(isinstance(f, SslFinder) for f in sys.meta_path))\n"
    )
    assert _run(code) == "False True"


def test_looking_ssl_up_without_importing_it_leaves_the_join_in_place():
    before = (
        "import importlib.util\nassert importlib.util.find_spec('ssl') is not None\nassert 'ssl' not in sys.modules\n"
    )
    assert _run(TLS_CLIENT.format(before=before)) == "1603 True True"


def test_the_finder_leaves_once_ssl_is_loaded():
    code = (
        "import sys\n"
        "from desktop_app.lazy_ssl import SslFinder, import_asyncio\n"
        "import_asyncio()\n"
        "import ssl\n"
        "print(any(isinstance(f, SslFinder) for f in sys.meta_path))\n"
    )
    assert _run(code) == "False"
