"""Screenshot of the usage footer with the conversation's totals, cache hit rate and estimated cost (#16): a
real X window under Xvfb, grabbed by ImageMagick's ``import``.

    for theme in light dark; do
        xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_usage_footer.py \
            "$theme" "docs/screenshots/usage-footer-$theme.png"
    done

Two turns on DeepSeek's preset (so the list price is known), answered by a scripted provider that reports
DeepSeek's prompt-cache hits and misses as the real API does.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    theme, out = sys.argv[1], Path(sys.argv[2]).resolve()
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.runtime import events as ev
    from desktop_app.runtime.providers.base import Completion, ContentChunk, UsageChunk
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.settings import ProviderSettings, Settings
    from desktop_app.ui.theme import themes
    from desktop_app.ui.window.main_window import MainWindow
    from tests.support.fakes import FakeHost, FakeProvider

    def reply(text: str, prompt: int, hit: int, completion: int) -> list[object]:
        usage = ev.TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion,
                              cache_hit_tokens=hit, cache_miss_tokens=prompt - hit)  # fmt: skip
        return [ContentChunk(text=text), UsageChunk(usage=usage), Completion(content=text)]

    provider = FakeProvider(
        [
            reply("A prompt cache keeps the start of a request the provider has seen before, so it is billed at "
                  "a tenth of the price and answered sooner.", 6_200, 0, 41),
            reply("Because every request repeats the previous one and only appends, almost all of this one came "
                  "from the cache.", 6_420, 6_144, 28),
        ]
    )  # fmt: skip
    app = QApplication([sys.argv[0]])
    app.setApplicationName("Switchboard")
    themes.apply_theme(theme, app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    settings = Settings(provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat",
                                                  dialect="deepseek"))  # fmt: skip
    home = Path(tempfile.mkdtemp(prefix="switchboard-usage-"))
    runtime = Runtime(settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider,
                      api_key_override="k", settings_path=home / "settings.json")  # fmt: skip
    win = MainWindow()
    win.attach_runtime(runtime)
    win.resize(1000, 640)
    win.move(20, 20)
    win.show()
    prompts = ["What does a prompt cache save?", "And this second question?"]

    def send() -> None:
        if win.controller.busy:
            QTimer.singleShot(100, send)
            return
        if not prompts:
            QTimer.singleShot(400, grab)
            return
        win.composer.edit.setPlainText(prompts.pop(0))
        win.composer.button.click()
        QTimer.singleShot(300, send)

    def grab() -> None:
        subprocess.run(["import", "-window", str(int(win.winId())), str(out)], check=True)
        print(f"screenshot: {out} ({theme})")
        app.quit()

    QTimer.singleShot(500, send)
    with loop:
        loop.run_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
