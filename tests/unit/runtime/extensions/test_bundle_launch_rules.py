"""Each rule of the mcpb manifest's launch (``mcp_config``), as the server is really started: through
:func:`~desktop_app.runtime.host.targets.stdio_parameters` on an installed bundle (real install, real settings,
the test keyring or none at all).

Fixtures are written to the shapes of the reference examples: ``hello-world-node`` (every user_config type,
an optional sensitive ``api_key``, ``--config=${user_config.config_file}`` with no default), a python bundle
with ``PYTHONPATH=${__dirname}/server/lib``, and a binary bundle whose command is the relative ``server/…``.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.extensions import compat
from desktop_app.runtime.extensions.archive import read_bundle
from desktop_app.runtime.extensions.install import Places, install
from desktop_app.runtime.extensions.launch import configure, fit_to_bundle, system_variables
from desktop_app.runtime.extensions.manifest import McpConfig
from desktop_app.runtime.host import config_edit
from desktop_app.runtime.host.config import ServerConfig
from desktop_app.runtime.host.targets import stdio_parameters

AUTHOR = {"name": "Acme Inc", "email": "support@acme.example"}


def hello_world_node() -> dict[str, Any]:
    """The reference example's shape: node, every user_config type, most of them optional."""
    return {
        "manifest_version": "0.3",
        "name": "hello-node",
        "version": "0.1.0",
        "description": "A reference-shaped bundle",
        "author": AUTHOR,
        "server": {
            "type": "node",
            "entry_point": "server/index.js",
            "mcp_config": {
                "command": "node",
                "args": [
                    "${__dirname}/server/index.js",
                    "--verbose=${user_config.verbose_logging}",
                    "--max-results=${user_config.max_results}",
                    "--config=${user_config.config_file}",
                    "--workspace=${user_config.workspace_directory}",
                ],
                "env": {"API_KEY": "${user_config.api_key}", "DEBUG": "${user_config.debug_mode}"},
            },
        },
        "user_config": {
            "api_key": {"type": "string", "title": "API Key", "description": "k", "sensitive": True, "required": False},
            "verbose_logging": {"type": "boolean", "title": "Verbose", "description": "v", "default": False},
            "max_results": {"type": "number", "title": "Max", "description": "m", "default": 10, "min": 1, "max": 100},
            "config_file": {"type": "file", "title": "Config", "description": "c", "required": False},
            "workspace_directory": {
                "type": "directory",
                "title": "Workspace",
                "description": "w",
                "default": "${HOME}/Documents",
            },
            "debug_mode": {"type": "string", "title": "Debug", "description": "d", "default": "info"},
        },
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"node": ">=16.0.0"}},
    }


def write(path: Path, document: dict[str, Any], files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(document))
        for name, text in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            zf.writestr(info, text)
    return path


@pytest.fixture
def places(tmp_path: Path) -> Places:
    home = tmp_path / "sb"
    p = Places(home / "data", home / "config" / "settings.json", home / "config" / "mcp.json")
    configure(p.data_dir, p.settings_file)
    return p


def probe(runtime: str) -> compat.Version | None:
    return (3, 11, 0) if runtime == "python" else (20, 1, 0)


def installed_params(
    tmp_path: Path, places: Places, document: dict[str, Any], files: dict[str, str], given: dict[str, str]
) -> Any:
    bundle = read_bundle(write(tmp_path / f"{document['name']}.mcpb", document, files))
    credentials = Credentials()
    install(bundle, places, credentials, given, probe=probe)
    entry = config_edit.read_servers(places.mcp_file)[document["name"]]
    return stdio_parameters(ServerConfig.model_validate(entry), name=document["name"], credentials=credentials)


def test_unset_optional_values_are_left_out_and_the_rest_substituted(tmp_path: Path, places: Places) -> None:
    params = installed_params(tmp_path, places, hello_world_node(), {"server/index.js": "//"}, {})
    folder = places.folder("hello-node")
    assert params.args == [
        f"{folder}/server/index.js",
        "--verbose=false",
        "--max-results=10",
        f"--workspace={Path.home()}/Documents",
    ]
    assert "API_KEY" not in params.env and params.env["DEBUG"] == "info"
    assert not any("${" in item for item in [*params.args, *params.env.values()])


def test_an_optional_sensitive_value_is_skipped_without_a_keyring(tmp_path: Path, places: Places) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # the conftest puts the memory keyring back
    params = installed_params(tmp_path, places, hello_world_node(), {"server/index.js": "//"}, {"max_results": "7"})
    assert "API_KEY" not in params.env and "--max-results=7" in params.args


def test_given_values_reach_the_server_typed(tmp_path: Path, places: Places) -> None:
    config_file = tmp_path / "c.json"
    given = {"api_key": "sk-hello-0123456789", "verbose_logging": "true", "config_file": str(config_file)}
    params = installed_params(tmp_path, places, hello_world_node(), {"server/index.js": "//"}, given)
    assert params.env["API_KEY"] == "sk-hello-0123456789"
    assert "--verbose=true" in params.args and f"--config={config_file}" in params.args


def test_an_option_whose_value_is_unset_goes_with_it() -> None:
    variables = {"user_config.timeout": "30", "__dirname": "/b"}
    args = ["server/main.py", "--database", "${user_config.db}", "--timeout", "${user_config.timeout}", "-q"]
    _, kept, _ = fit_to_bundle("s", Path("/b"), "python", args, {}, variables)
    assert kept == ["server/main.py", "--timeout", "30", "-q"]


def test_a_command_naming_an_unset_value_is_refused_clearly() -> None:
    with pytest.raises(ServerStartError, match=r"its command refers to user_config\.bin, which is not set"):
        fit_to_bundle("s", Path("/b"), "${user_config.bin}", [], {}, {})


@pytest.mark.parametrize(
    ("text", "variable"),
    [
        ("${HOME}", "HOME"),
        ("${DESKTOP}", "DESKTOP"),
        ("${DOCUMENTS}", "DOCUMENTS"),
        ("${DOWNLOADS}", "DOWNLOADS"),
        ("${pathSeparator}", "pathSeparator"),
        ("${/}", "/"),
    ],
)
def test_system_variables(text: str, variable: str) -> None:
    variables = {**system_variables(), "__dirname": "/b"}
    _, args, env = fit_to_bundle("s", Path("/b"), "node", [f"a{text}z"], {"V": text}, variables)
    expected = {"HOME": str(Path.home()), "DESKTOP": str(Path.home() / "Desktop"), "/": os.sep}
    value = expected.get(variable, system_variables()[variable])
    assert args == [f"a{value}z"] and env == {"V": value}


def test_pythonpath_inside_the_bundle_is_allowed(tmp_path: Path, places: Places) -> None:
    document = {
        "manifest_version": "0.3",
        "name": "py-lib",
        "version": "1.0.0",
        "description": "python with bundled packages",
        "author": AUTHOR,
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "python",
                "args": ["${__dirname}/server/main.py"],
                "env": {"PYTHONPATH": "${__dirname}/server/lib"},
            },
        },
    }
    params = installed_params(tmp_path, places, document, {"server/main.py": "", "server/lib/dep.py": ""}, {})
    assert params.env["PYTHONPATH"] == f"{places.folder('py-lib')}/server/lib"


@pytest.mark.parametrize(
    "env",
    [
        {"PYTHONPATH": "/usr/lib/evil"},
        {"PYTHONPATH": "${__dirname}/server/lib" + os.pathsep + "/elsewhere"},
        {"PYTHONPATH": "${__dirname}/../other-bundle"},
        {"LD_PRELOAD": "/tmp/hook.so"},
        {"NODE_OPTIONS": "--inspect=0.0.0.0:9229"},
        {"NODE_OPTIONS": "--require ./server/x.js"},
    ],
)
def test_loader_variables_outside_the_bundle_are_still_refused(
    tmp_path: Path, places: Places, env: dict[str, str]
) -> None:
    document = {
        "manifest_version": "0.3",
        "name": "py-out",
        "version": "1.0.0",
        "description": "d",
        "author": AUTHOR,
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {"command": "python", "args": ["server/main.py"], "env": env},
        },
    }
    with pytest.raises(ServerStartError, match="changes what code the server loads"):
        installed_params(tmp_path, places, document, {"server/main.py": ""}, {})


def test_a_relative_command_and_arguments_resolve_against_the_bundle(tmp_path: Path, places: Places) -> None:
    """The spec's binary example: ``server/my-server --config server/config.json``, run from the bundle."""
    document = {
        "manifest_version": "0.3",
        "name": "bin-tool",
        "version": "1.0.0",
        "description": "a binary",
        "author": AUTHOR,
        "server": {
            "type": "binary",
            "entry_point": "server/my-server",
            "mcp_config": {"command": "server/my-server", "args": ["--config", "server/config.json"]},
        },
    }
    files = {"server/my-server": "#!/bin/sh\n", "server/config.json": "{}"}
    params = installed_params(tmp_path, places, document, files, {})
    folder = places.folder("bin-tool")
    assert params.command == str(folder / "server" / "my-server")
    assert Path(params.cwd) == folder and (Path(params.cwd) / params.args[1]).is_file()


def test_platform_overrides_replace_each_field_they_give() -> None:
    config = McpConfig(
        command="server/my-server",
        args=["--config", "server/config.json"],
        env={"A": "1"},
        platform_overrides={"win32": {"command": "server/my-server.exe"}, "darwin": {"env": {"B": "2"}}},
    )
    assert config.for_platform("win32") == ("server/my-server.exe", ["--config", "server/config.json"], {"A": "1"})
    assert config.for_platform("darwin") == ("server/my-server", ["--config", "server/config.json"], {"B": "2"})
    assert config.for_platform("linux") == ("server/my-server", ["--config", "server/config.json"], {"A": "1"})


@pytest.mark.parametrize(
    ("version", "fits"), [((3, 11, 0), True), ((3, 7, 9), False), ((4, 0, 0), False), ((3, 8, 0), True)]
)
def test_the_manifest_docs_comma_range_is_read(version: compat.Version, fits: bool) -> None:
    """MANIFEST.md's Python example writes ``"python": ">=3.8,<4.0"``."""
    assert compat.satisfies(version, ">=3.8,<4.0") is fits


def test_an_empty_override_replaces_the_base_args_and_env() -> None:
    """mcpb takes an override's ``args``/``env`` whenever it is given (``[]`` and ``{}`` are values in JS)."""
    config = McpConfig(
        command="server/s", args=["--a"], env={"A": "1"}, platform_overrides={"win32": {"args": [], "env": {}}}
    )
    assert config.for_platform("win32") == ("server/s", [], {})


def test_a_uv_bundle_needs_uv_not_a_local_python() -> None:
    """The hello-world-uv shape: ``runtimes.python >=3.10`` is uv's to meet ("no user Python installation")."""
    from desktop_app.runtime.extensions.manifest import Manifest

    uv = Manifest.model_validate(
        {
            "manifest_version": "0.4",
            "name": "hello-uv",
            "version": "1.0.0",
            "description": "d",
            "author": {"name": "A"},
            "server": {"type": "uv", "entry_point": "src/server.py"},
            "compatibility": {"platforms": ["darwin", "linux", "win32"], "runtimes": {"python": ">=3.10"}},
        }
    )
    assert compat.refusals(uv, probe=lambda runtime: None, which=lambda command: "/usr/bin/uv") == []
    refused = compat.refusals(uv, probe=lambda runtime: None, which=lambda command: None)
    assert len(refused) == 1 and "uv is not installed" in refused[0]
