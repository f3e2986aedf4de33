"""Builds the Qt-free half of the app from the user's files: settings, mcp.json, keyring, host, grants, store.

Both composition roots use it: ``app.py`` (lenient: a broken file becomes a problem line and defaults) and
``cli/`` (strict: a broken config is an error, exit code 2). Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.paths import AppPaths
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.run.approvals import ApprovalPolicy, GrantStore
from desktop_app.runtime.settings import Settings, load_settings

if TYPE_CHECKING:
    from desktop_app.runtime.agents import AgentRunner
    from desktop_app.runtime.hooks.runner import HookRunner
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.store import Recorder, Store
    from desktop_app.runtime.tasks import Tasks
    from desktop_app.runtime.tasks.wiring import TasksOnFirstUse
    from desktop_app.runtime.workflows.wiring import Workflows

GRANTS_FILENAME = "grants.json"
PROMOTED_TOOLS_FOLDER = "promoted-tools"
TRANSPORTS_FILENAME = "transports.json"


@dataclass
class Assembly:
    """The runtime with everything it was built from; ``aclose`` shuts it down in order."""

    runtime: Runtime
    host: Host
    store: Store | None
    recorder: Recorder | None
    problems: list[str] = field(default_factory=list)
    agent_runner: AgentRunner | None = None
    workflows: Workflows | None = None
    tasks_on_first_use: TasksOnFirstUse | None = None
    later_problems: list[Callable[[], list[str]]] = field(default_factory=list)
    """Problems found by a discovery left for later (``assemble(discover_later=True)``): the app asks after ready."""

    @property
    def tasks(self) -> Tasks | None:
        """The session's tasks (``None`` without a store), made when first asked for (the app: after ready)."""
        return self.tasks_on_first_use.get() if self.tasks_on_first_use is not None else None

    async def aclose(self) -> None:
        try:
            made = self.tasks_on_first_use.made if self.tasks_on_first_use is not None else None
            if made is not None:
                await made.aclose()  # task runs end as interrupted, keeping their partial answers
            await self.runtime.aclose()  # runs stop and write their last events first
        finally:
            if self.recorder is not None:
                self.recorder.close()
            if self.store is not None:
                self.store.close()


def assemble(
    paths: AppPaths,
    *,
    strict: bool,
    settings: Settings | None = None,
    mcp_config: Path | None = None,
    policy: ApprovalPolicy | None = None,
    persist: bool = True,
    project_dir: Path | None = None,
    serve_default_agent: bool = False,
    discover_later: bool = False,
) -> Assembly:
    """Build the runtime. ``strict`` raises ``ConfigError`` for broken files; otherwise they are reported
    in ``problems``, defaults are used, and the broken file is never written (settings are then not saved).
    ``serve_default_agent``: the built-in default agent gets its ``chat-with-`` server too (``switchboard serve``).
    ``discover_later``: the workflows are registered but not read yet, and the hooks' runner is built on first
    use (``Host.set_hooks_later``); their problems are in ``later_problems`` (the app: after ``runtime: ready``;
    the built-in server reads the workflows, the first run or tool call the hooks, when first used)."""
    from desktop_app.runtime.host import Host, load_mcp_config
    from desktop_app.runtime.host.config import unknown_field_warnings
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.store import Store, StoreError, attach_store, store_path
    from desktop_app.runtime.store.unwritable import StoreUnwritableError, report_unsaved

    problems: list[str] = []
    settings_path: Path | None = paths.settings_file
    settings_problem: ConfigError | None = None
    if settings is None:
        try:
            settings = load_settings(paths.settings_file)
        except ConfigError as exc:
            if strict:
                raise
            problems.append(f"The settings file is broken; running on defaults (the file is left as is): {exc}")
            settings, settings_path, settings_problem = Settings(), None, exc
    from desktop_app.runtime.secret_scope import reserve_settings

    reserve_settings(settings)  # no server may read the provider key's variable (${VAR} in its env)
    mcp_path = mcp_config or paths.mcp_config_file
    try:
        servers = load_mcp_config(mcp_path)
        problems.extend(unknown_field_warnings(servers, mcp_path))  # a typo must not pass silently
        problems.extend(  # accepted for compatibility, but it grants nothing: say so rather than let it mislead
            f"{mcp_path}: mcpServers.{name}.trust: not supported, ignored; its tool calls are approved as any "
            "other's (grant 'Always allow' per tool, or use --approve)"
            for name, config in servers.items()
            if config.trust
        )
    except ConfigError as exc:
        if strict:
            raise
        problems.append(f"mcp.json is broken; no MCP servers loaded (the file is left as is): {exc}")
        servers = {}
    try:
        grants = GrantStore(paths.data_dir / GRANTS_FILENAME)
    except ConfigError as exc:
        problems.append(f"{exc}. Remembered approvals are off until it is fixed or removed.")
        grants = GrantStore()
    credentials = Credentials()
    from desktop_app.runtime.extensions.variables import configure as configure_extensions

    configure_extensions(paths.data_dir, paths.settings_file)  # installed MCP Bundles start from here
    host = Host(
        servers,
        credentials=credentials,
        transport_cache=paths.data_dir / TRANSPORTS_FILENAME,
        max_output_chars=settings.tool_output_limit,
    )
    problems.extend(host.refused.values())  # a user server named like a built-in (switchboard.*)
    if settings.roots:  # the folders granted earlier, before any server connects and asks for them
        host.client_features.set_roots(settings.roots)
    later: list[Callable[[], list[str]]] = []
    build_hooks = _hooks_builder(paths, settings, settings_path, mcp_path, project_dir)
    if discover_later and not strict:  # the app: hook files are read (and their modules loaded) on first use
        host.set_hooks_later(build_hooks)
        later.append(lambda: _hook_problems(host.hooks))
    else:
        problems.extend(_wire_hooks(host, build_hooks(), settings_path or paths.settings_file, strict=strict))
    runtime = Runtime(
        settings=settings,
        host=host,
        credentials=credentials,
        settings_path=settings_path,
        policy=policy,
        grants=grants,
        settings_problem=settings_problem,
    )
    store: Store | None = None
    recorder: Recorder | None = None
    if persist:
        try:
            store = Store.open(store_path(paths))
            _mark_interrupted_runs(store, problems)
            recorder = attach_store(runtime, store)
        except StoreError as exc:
            problems.append(f"Conversation history is off for this session: {exc}")
            if isinstance(exc, StoreUnwritableError):  # a full disk: every run is told it is not saved
                report_unsaved(runtime.subscribe, runtime.notify, exc)
    # Deferred tools: the catalog behind tool_search, promotions per conversation (saved with the catalog hash).
    from desktop_app.runtime.tools.deferral import DeferralSettings, PromotionStore, ToolDeferral

    deferral = ToolDeferral(
        host,
        lambda: DeferralSettings.from_settings(runtime.settings),
        PromotionStore(paths.data_dir / PROMOTED_TOOLS_FOLDER) if persist else None,
    )
    runtime.attach_deferral(deferral)
    if store is not None and deferral.store is not None:  # promotions of purged conversations go too
        deferral.store.prune({c.id for c in store.list_conversations(include_deleted=True)})
    # The built-in servers (switchboard.system, .history, .artifacts, .tools): registered only, created on first use.
    from desktop_app.runtime.builtins import register_builtins

    problems.extend(register_builtins(host, store=store, paths=paths, tool_catalog=deferral.catalog))
    problems.extend(_wire_skills(host, runtime, paths))
    if _plugins_enabled(settings.plugins):  # the plugins package (model, tomllib) loads only when one is in use
        from desktop_app.runtime.plugins.prompts import wire_prompts

        wire_prompts(host, paths.data_dir, paths.settings_file)  # enabled plugins' prompts, as switchboard.plugins
    # Agents: definitions from the settings, agents/*.md and enabled plugins; each one a lazy chat-with-<agent> server.
    from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents

    catalog = AgentCatalog.load(settings, paths.config_dir, data_dir=paths.data_dir)  # with plugins' agents
    problems.extend(catalog.problems)
    runtime.attach_agents(catalog)
    agent_runner = AgentRunner(runtime, catalog)
    problems.extend(register_agents(host, agent_runner, include_implicit_default=serve_default_agent))
    # Workflows: workflows/<name>/SKILL.md in the project, the config folder and plugins; switchboard.workflows.
    from desktop_app.runtime.workflows.wiring import wire_workflows

    workflows, workflow_problems = wire_workflows(
        host,
        runtime,
        config_dir=paths.config_dir,
        data_dir=paths.data_dir,
        project_dir=project_dir or Path.cwd(),
        store=store,
        discover_now=not discover_later,
    )
    problems.extend(workflow_problems)
    # Tasks (prompts or workflows on a schedule) live in the store; switchboard.tasks. The app and serve start them.
    from desktop_app.runtime.tasks.wiring import wire_tasks

    tasks, task_problems = wire_tasks(host, runtime, store=store, workflows=workflows)
    problems.extend(task_problems)
    if discover_later:
        later.append(workflows.problems)
    return Assembly(
        runtime,
        host,
        store,
        recorder,
        problems,
        agent_runner=agent_runner,
        workflows=workflows,
        tasks_on_first_use=tasks,
        later_problems=later,
    )


def _mark_interrupted_runs(store: Any, problems: list[str]) -> None:
    """Mark runs left by a dead process; a disk that takes no writes leaves them for the next start (the
    recorder reports the first write that fails)."""
    import sqlite3

    from desktop_app.runtime.store.unwritable import advice, disk_problem

    try:
        store.mark_interrupted_runs()
    except sqlite3.Error as exc:
        problem = disk_problem(exc)
        if problem is None:
            raise
        problems.append(f"{store.path}: {problem} ({exc}); {advice(problem)}, or this session's runs are not saved.")


def _hooks_builder(
    paths: AppPaths, settings: Settings, settings_path: Path | None, mcp_path: Path, project_dir: Path | None
) -> Callable[[], HookRunner]:
    """What builds the hooks' runner from every source (untrusted sources are listed but never run)."""
    workspace = project_dir or Path.cwd()

    def build() -> HookRunner:
        from desktop_app.runtime.hooks.sources import build_runner

        return build_runner(
            settings_hooks=settings.hooks,
            settings_path=settings_path or paths.settings_file,
            mcp_config=mcp_path,
            project_dirs=[workspace, *(Path(root) for root in settings.roots)],
            config_dir=paths.config_dir,
            data_dir=paths.data_dir,
            cwd=workspace,
        )

    return build


def _wire_hooks(host: Host, runner: HookRunner, settings_path: Path, *, strict: bool) -> list[str]:
    """Hooks inside ``Host.call`` (and for the run loop) now; ``strict``: a broken own hook file is an error."""
    host.set_hooks(runner)
    own = runner.own_problems  # a broken project/plugin/imported file is skipped and reported, never fatal
    if strict and own:
        raise ConfigError(settings_path, "broken hooks: " + "; ".join(own))
    return _hook_problems(runner)


def _hook_problems(runner: HookRunner | None) -> list[str]:
    return [f"A hook was skipped: {problem}" for problem in runner.problems] if runner is not None else []


def _wire_skills(host: Any, runtime: Any, paths: AppPaths) -> list[str]:
    """Skills: the lazy built-in ``switchboard.skills`` (``load_skill``) and the index block in the system prompt;
    both appear once a skill exists, also one added while the app runs (runtime/skills/wiring.py)."""
    from desktop_app.runtime.skills import discover, skill_roots
    from desktop_app.runtime.skills.wiring import SkillsWiring

    def load() -> Any:
        settings = runtime.settings
        roots = skill_roots(
            paths.config_dir / "skills", settings.skills_folders, read_external=settings.skills_read_external
        )
        if _plugins_enabled(settings.plugins):
            from desktop_app.runtime.plugins.manage import enabled_skill_roots

            roots = [*roots, *enabled_skill_roots(paths.data_dir, settings.plugins)]
        return discover(roots)

    def rules() -> str:  # Whale plugins' rules/*.md, as Whale injects them
        if not _plugins_enabled(runtime.settings.plugins):
            return ""
        from desktop_app.runtime.plugins.rules import rules_block

        return rules_block(paths.data_dir, runtime.settings.plugins)

    wiring = SkillsWiring(host, load)
    found = wiring.refresh()
    runtime.system_blocks.append(wiring.block)
    runtime.system_blocks.append(rules)
    return [*found.problems, *([wiring.problem] if wiring.problem else [])]


def _plugins_enabled(records: dict[str, dict[str, Any]]) -> bool:
    """Whether any plugin is enabled: without one, nothing of the plugins package is needed (issue 27)."""
    return any(record.get("enabled") for record in records.values())
