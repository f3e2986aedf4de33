"""Screenshots of the Tasks page in the real app under Xvfb, light and dark:

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_tasks.py [light|dark ...]

For each theme: a fresh home whose store holds four tasks (a weekday prompt in Europe/Paris, a monthly workflow,
a single date in Europe/Berlin, a disabled one) and a history for the first (a catch-up run, finished runs, a
fire skipped while a run was still going, one missed while the app was closed, one interrupted), written with
the tasks' own store API. View → Tasks… opens the page; the first task is selected and the window taken
(``tasks-page-THEME.png``). Driven through ``scripts/_shots.py`` (real X input with xdotool).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme, home_with, xdotool
from tests.support.llm_server import ScriptedLLMServer

DAY = 86400.0


def seed(home: Path) -> None:
    from desktop_app.runtime.store import Store
    from desktop_app.runtime.tasks.model import make_task
    from desktop_app.runtime.tasks.records import TaskRecords

    now = [time.time() - 6 * DAY]
    with Store.open(home / "data" / "switchboard.db", clock=lambda: now[0]) as store:
        records = TaskRecords(store)
        morning = make_task(
            name="Morning briefing",
            prompt="Summarise my GitHub notifications and today's calendar.",
            schedule="0 9 * * 1-5",
            zone="Europe/Paris",
            now=now[0],
        )
        invoices = make_task(
            name="Monthly invoices", workflow="send-invoices", inputs={"month": "previous"}, schedule="0 8 1 * *",
            now=now[0] + 1,
        )  # fmt: skip
        eve = make_task(
            name="Christmas Eve reminder", prompt="Remind me to call grandma.", schedule="0 18 24 12 *",
            zone="Europe/Berlin", now=now[0] + 2,
        )  # fmt: skip
        paused = make_task(
            name="Weekly backlog triage", prompt="Sort the new issues by label.", schedule="30 16 * * 5",
            now=now[0] + 3,
            enabled=False,
        )  # fmt: skip
        for task in (morning, invoices, eve, paused):
            records.save(task)
        history = [
            ("catch_up", "finished", "catch-up run, missed while Switchboard was not running",
             "3 review requests and 2 CI failures; the standup moved to 09:30."),
            ("schedule", "finished", "", "No new notifications; 2 meetings, the first at 10:00."),
            ("schedule", "skipped", "skipped: still running", ""),
            ("schedule", "missed", "missed: 1 fire time(s) passed while Switchboard was not running, more than 12 "
             "hours ago, so none was run", ""),
            ("manual", "interrupted", "interrupted: Switchboard stopped during the run", "Reading your notific"),
            ("schedule", "finished", "", "One PR approved overnight; the release checklist is due today."),
        ]  # fmt: skip
        for trigger, status, note, answer in history:
            now[0] += DAY
            run = records.add_run(morning.id, trigger, "running", scheduled_for=now[0], note=note)  # type: ignore[arg-type]
            now[0] += 40
            records.set_status(run.id, status, note=note or None, answer=answer or None)  # type: ignore[arg-type]
        for task in (morning, invoices, eve, paused):  # fire times up to now are accounted for by the history above
            records.set_anchor(task.id, time.time())


def shoot(theme: str) -> None:
    with ScriptedLLMServer([]) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        keyring_file = home_with(
            home, theme=theme, provider=provider, secrets={f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000"}
        )
        seed(home)
        with App(home, keyring_file=keyring_file) as app:
            xdotool("mousemove", "97", "9")  # the View menu (no window manager: Alt+V does not reach the bar)
            xdotool("click", "1")
            app.settle(1.0)
            app.key("k")  # Tasks…
            page = app.wait_window("^Tasks$")
            app.wait_for("taskTable")
            app.settle(1.0)
            app.shot(OUT / f"tasks-page-{theme}.png", window=page)


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
