"""MCP Bundle checks without a server: manifest errors, zip-slip, compatibility, user_config, substitution,
signatures (``mcpb sign`` by the official CLI, and a tampered copy)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions import compat
from desktop_app.runtime.extensions.archive import BundleError, read_bundle
from desktop_app.runtime.extensions.install import MissingValues, Places, install, installed, uninstall
from desktop_app.runtime.extensions.launch import configure, resolve_launch, substitute
from desktop_app.runtime.extensions.signature import chain_trusted, verify
from desktop_app.runtime.host import config_edit
from desktop_app.runtime.host.config import ServerConfig
from tests.support.bundles import HERE, mcpb, sign_self_signed


def manifest(**changes: Any) -> dict[str, Any]:
    base = json.loads((HERE / "python-probe" / "manifest.json").read_text())
    base.update(changes)
    return base


def write_bundle(path: Path, document: dict[str, Any] | str, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", document if isinstance(document, str) else json.dumps(document))
        zf.writestr("server/main.py", "print('hi')\n")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path


@pytest.fixture
def places(tmp_path: Path) -> Places:
    home = tmp_path / "sb"
    p = Places(home / "data", home / "config" / "settings.json", home / "config" / "mcp.json")
    configure(p.data_dir, p.settings_file)
    return p


def no_runtime_probe(runtime: str) -> compat.Version | None:
    return (3, 11, 0) if runtime == "python" else (20, 1, 0)


def test_a_malformed_manifest_names_the_file_and_the_field(tmp_path: Path) -> None:
    broken = manifest()
    del broken["server"]["entry_point"]
    broken["user_config"]["limit"]["type"] = "integer"
    with pytest.raises(BundleError) as exc:
        read_bundle(write_bundle(tmp_path / "b.mcpb", broken))
    message = str(exc.value)
    assert f"{tmp_path / 'b.mcpb'}: manifest.json: " in message
    assert "server.entry_point: Field required" in message
    assert "user_config.limit.type: Input should be" in message


def test_invalid_json_and_unknown_fields_and_versions_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match=r"manifest.json:1:2: not valid JSON"):
        read_bundle(write_bundle(tmp_path / "a.mcpb", "{oops"))
    typo = manifest()
    typo["server"]["comand"] = "x"  # inside a part: refused (a top-level unknown key is named, not refused)
    with pytest.raises(BundleError, match=r"server\.comand: unknown field"):
        read_bundle(write_bundle(tmp_path / "b.mcpb", typo))
    with pytest.raises(BundleError, match=r"manifest version '0.9' is not supported"):
        read_bundle(write_bundle(tmp_path / "c.mcpb", manifest(manifest_version="0.9")))
    uv = manifest()
    uv["server"]["type"] = "uv"
    with pytest.raises(BundleError, match=r"server.type 'uv' needs manifest_version '0.4'"):
        read_bundle(write_bundle(tmp_path / "d.mcpb", uv))


@pytest.mark.parametrize("member", ["../evil.txt", "/etc/evil.txt", "server/../../evil.txt", "C:/evil.txt"])
def test_zip_slip_is_refused_and_nothing_is_extracted(tmp_path: Path, places: Places, member: str) -> None:
    bundle_path = write_bundle(tmp_path / "slip.mcpb", manifest(), {member: b"pwned"})
    with pytest.raises(BundleError, match=r"zip-slip\); nothing was extracted"):
        read_bundle(bundle_path)
    assert not places.data_dir.exists() or not any(places.data_dir.rglob("*"))
    assert not (tmp_path / "evil.txt").exists()
    assert not places.mcp_file.exists()


def test_wrong_platform_and_runtime_are_refused_with_the_reason(tmp_path: Path, places: Places) -> None:
    mac_only = manifest(compatibility={"platforms": ["darwin"], "runtimes": {"python": ">=3.8"}})
    bundle = read_bundle(write_bundle(tmp_path / "mac.mcpb", mac_only))
    with pytest.raises(BundleError, match=r"supports darwin only, and this computer runs linux"):
        install(bundle, places, Credentials(), {"api_key": "k"}, platform="linux", probe=no_runtime_probe)
    too_new = manifest(compatibility={"runtimes": {"python": ">=3.99"}})
    bundle = read_bundle(write_bundle(tmp_path / "new.mcpb", too_new))
    with pytest.raises(BundleError, match=r"needs Python >=3.99, and this computer has 3.11.0"):
        install(bundle, places, Credentials(), {"api_key": "k"}, probe=no_runtime_probe)
    assert not places.mcp_file.exists()


def test_uv_is_refused_when_uv_is_missing() -> None:
    uv = manifest(manifest_version="0.4")
    uv["server"]["type"] = "uv"
    from desktop_app.runtime.extensions.manifest import Manifest

    parsed = Manifest.model_validate(uv)
    assert any(
        "uv is not installed" in p for p in compat.refusals(parsed, probe=no_runtime_probe, which=lambda c: None)
    )
    assert compat.refusals(parsed, probe=no_runtime_probe, which=lambda c: "/usr/bin/uv") == []


@pytest.mark.parametrize(
    ("version", "spec", "fits"),
    [
        ((3, 11, 2), ">=3.8", True),
        ((3, 7, 0), ">=3.8", False),
        ((18, 2, 0), "^18.0.0", True),
        ((19, 0, 0), "^18.0.0", False),
        ((20, 1, 0), ">=16 <21", True),
        ((22, 0, 0), "16.x || >=22", True),
        ((1, 2, 9), "~1.2", True),
        ((1, 3, 0), "~1.2", False),
    ],
)
def test_version_ranges(version: compat.Version, spec: str, fits: bool) -> None:
    assert compat.satisfies(version, spec) is fits


def test_user_config_number_range_required_and_home_default(
    tmp_path: Path, places: Places, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    bundle = read_bundle(write_bundle(tmp_path / "b.mcpb", manifest()))
    with pytest.raises(MissingValues, match=r"needs a value for api_key \(API key\)"):
        install(bundle, places, Credentials(), {}, probe=no_runtime_probe)
    with pytest.raises(BundleError, match=r"limit: Limit must be at most 10, not 11"):
        install(bundle, places, Credentials(), {"api_key": "k", "limit": "11"}, probe=no_runtime_probe)
    with pytest.raises(BundleError, match=r"has no setting colour"):
        install(bundle, places, Credentials(), {"api_key": "k", "colour": "red"}, probe=no_runtime_probe)
    assert not places.mcp_file.exists()
    install(bundle, places, Credentials(), {"api_key": "k"}, probe=no_runtime_probe)
    settings = json.loads(places.settings_file.read_text())
    assert settings["extensions"]["python-probe"]["user_config"] == {"workspace": str(tmp_path / "user"), "limit": 3}


def test_variables_are_substituted_at_start_from_settings_and_keyring(
    tmp_path: Path, places: Places, memory_keyring: Any
) -> None:
    bundle = read_bundle(write_bundle(tmp_path / "b.mcpb", manifest()))
    credentials = Credentials()
    install(
        bundle, places, credentials, {"api_key": "sk-test-0123", "workspace": str(tmp_path)}, probe=no_runtime_probe
    )
    entry = config_edit.read_servers(places.mcp_file)["python-probe"]
    assert entry["extension"] == "python-probe" and "sk-test-0123" not in places.mcp_file.read_text()
    launched = resolve_launch("python-probe", ServerConfig.model_validate(entry), credentials.get)
    folder = places.data_dir / "extensions" / "python-probe"
    assert launched.args == [f"{folder}/server/main.py", "--workspace", str(tmp_path)]
    assert launched.env["PROBE_API_KEY"] == "sk-test-0123" and launched.env["PROBE_LIMIT"] == "3"
    assert launched.env["PROBE_HOME"] == str(Path.home())
    credentials.set("mcpb:python-probe:api_key", "sk-changed-4567")  # read when the server starts, not before
    assert resolve_launch("python-probe", ServerConfig.model_validate(entry), credentials.get).env["PROBE_API_KEY"] == (
        "sk-changed-4567"
    )
    assert uninstall("python-probe", places, credentials)
    assert credentials.get("mcpb:python-probe:api_key") is None
    assert installed(places) == {} and "python-probe" not in places.mcp_file.read_text()


def test_multiple_values_expand_into_one_argument_each() -> None:
    variables = {"user_config.folders": ["/a", "/b c"], "__dirname": "/x"}
    assert substitute(["${__dirname}/i.js", "${user_config.folders}", "--x=${user_config.folders}"], variables) == [
        "/x/i.js",
        "/a",
        "/b c",
        "--x=/a,/b c",
    ]


def test_signature_states_from_the_official_cli(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    plain = packed_bundles["python-probe"]
    assert verify(read_bundle(plain)).state == "unsigned"
    signed = sign_self_signed(plain, tmp_path)
    state = verify(read_bundle(signed))
    assert (state.state, state.publisher) == ("self-signed", "MCPB Self-Signed Certificate")
    assert state.summary.startswith("signed and valid")
    tampered = tmp_path / "tampered.mcpb"
    shutil.copyfile(signed, tampered)
    raw = bytearray(tampered.read_bytes())
    raw[10] ^= 1  # the first member's modification time: still a readable zip, no longer what was signed
    tampered.write_bytes(bytes(raw))
    bad = verify(read_bundle(tampered))
    assert bad.state == "invalid" and "changed after it was signed" in bad.summary
    with zipfile.ZipFile(io.BytesIO(read_bundle(tampered).archive)) as zf:
        assert "manifest.json" in zf.namelist()


def _verify_line(path: Path) -> str:
    """The verdict ``mcpb verify`` prints (``Signature is valid…`` or ``Extension is not signed``)."""
    done = mcpb("verify", path)
    lines = [line.removeprefix("ERROR: ") for line in (done.stdout + done.stderr).splitlines()]
    return next(line for line in lines if line.startswith(("Signature is valid", "Extension is not signed")))


def test_the_mcpb_verdict_is_what_mcpb_verify_prints(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    plain = packed_bundles["node-probe"]
    signed = sign_self_signed(plain, tmp_path)
    tampered = tmp_path / "tampered.mcpb"
    raw = bytearray(signed.read_bytes())
    raw[10] ^= 1
    tampered.write_bytes(bytes(raw))
    for path in (plain, signed, tampered):
        assert verify(read_bundle(path)).mcpb_verdict == _verify_line(path), path.name
    # The self-signed certificate is not in this computer's trust store: mcpb verify calls the bundle "not
    # signed"; Switchboard says it is signed and valid, and that nobody vouches for the publisher.
    state = verify(read_bundle(signed))
    assert not state.trusted and "no authority vouches" in state.summary


def test_a_certificate_in_the_trust_store_makes_the_signature_trusted(
    packed_bundles: dict[str, Path], tmp_path: Path
) -> None:
    from asn1crypto import cms

    bundle = read_bundle(sign_self_signed(packed_bundles["node-probe"], tmp_path))
    assert bundle.signature is not None
    certificate = cms.ContentInfo.load(bundle.signature)["content"]["certificates"][0].chosen.dump()
    trusted = verify(bundle, roots=[certificate])
    assert trusted.trusted and trusted.mcpb_verdict == "Signature is valid (self-signed)"
    assert trusted.summary == "signed and valid, self-signed by MCPB Self-Signed Certificate"
    assert not chain_trusted(certificate, [], roots=[])
    # The system's store (as loaded for real; warnings are errors here, and old roots make the library warn).
    assert not chain_trusted(certificate, [])


def test_a_bundle_without_mcp_config_runs_its_entry_point(tmp_path: Path, places: Places) -> None:
    """mcp_config is optional (the host runs the entry point; for uv: ``uv run --directory …``)."""
    from desktop_app.runtime.extensions.manifest import Manifest

    document = manifest(user_config={})
    del document["server"]["mcp_config"]
    document["compatibility"] = {"platforms": ["linux", "darwin", "win32"]}
    install(read_bundle(write_bundle(tmp_path / "p.mcpb", document)), places, Credentials(), {}, probe=no_runtime_probe)
    entry = json.loads(places.mcp_file.read_text())["mcpServers"]["python-probe"]
    assert (entry["command"], entry["args"]) == ("python", ["${__dirname}/server/main.py"])
    uv = manifest(manifest_version="0.4")
    uv["server"] = {"type": "uv", "entry_point": "src/server.py"}
    launch = Manifest.model_validate(uv).server.launch()
    assert (launch.command, launch.args) == ("uv", ["run", "--directory", "${__dirname}", "src/server.py"])
    node = Manifest.model_validate({**uv, "manifest_version": "0.3", "server": {"type": "node", "entry_point": "i.js"}})
    assert (node.server.launch().command, node.server.launch().args) == ("node", ["${__dirname}/i.js"])
