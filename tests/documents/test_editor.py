"""Editors work offline: yaml-language-server (the engine of VS Code's YAML extension) finds the
schema from a bundled file's modeline, resolves every ``$ref`` locally, completes the kind's
fields and reports a misspelt field. The server is installed with npm into pytest's cache the
first time (skipped, with the reason, when node/npm or the package are not available);
``check-jsonschema`` (in the ``test`` extra) validates a rule file with the command of
docs/validate.md."""
from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import sys
import subprocess
from pathlib import Path

import pytest

from lsp_client import LspClient

pytestmark = pytest.mark.slow  # crash, kill, fuzz or install runs: skip with -m 'not slow'

ROOT = Path(__file__).resolve().parents[2]
RULE_FILE = ROOT / "rulesets" / "magipunk" / "equipment.yaml"  # one document, kind Equipment
SETTINGS = {"yaml": {"validate": True, "completion": True, "hover": True,
                     "schemaStore": {"enable": False}, "schemas": {}}}


@pytest.fixture(scope="module")
def yaml_language_server(request: pytest.FixtureRequest) -> list[str]:
    """The command that starts yaml-language-server on stdio, installing it once if needed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm are needed to run yaml-language-server")
    config_cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = Path(config_cache.mkdir("yaml-language-server")) if config_cache is not None \
        else Path(os.environ.get("TMPDIR", "/tmp")) / "mprules-yaml-language-server"
    cache.mkdir(parents=True, exist_ok=True)
    server = cache / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    with open(cache / ".lock", "w") as lock:  # xdist workers install once, one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not server.exists():
            try:
                done = subprocess.run([npm, "install", "--prefix", str(cache), "--no-audit",
                                       "--no-fund", "yaml-language-server"], capture_output=True,
                                      stdin=subprocess.DEVNULL, text=True, timeout=180)
            except subprocess.TimeoutExpired:
                pytest.skip("npm install yaml-language-server timed out (offline?)")
            if done.returncode != 0 or not server.exists():
                pytest.skip(f"npm could not install yaml-language-server (offline?): "
                            f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return [node, str(server), "--stdio"]


def _open(client: LspClient, text: str) -> list[dict]:
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": ROOT.as_uri(),
        "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": False}},
                                          "publishDiagnostics": {}},
                         "workspace": {"configuration": True}}}, timeout=60)
    client.notify("initialized", {})
    client.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
    uri = RULE_FILE.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}})
    message = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri, timeout=60)
    return message["params"]["diagnostics"]


def test_editor_completes_the_kinds_fields_and_flags_a_misspelt_one(yaml_language_server) -> None:
    original = RULE_FILE.read_text(encoding="utf-8")
    assert original.startswith("# yaml-language-server: $schema=../../schemas/rule.json")
    kind_schema = json.loads((ROOT / "schemas" / "kinds" / "equipment.json").read_text(encoding="utf-8"))
    field = next(name for name in kind_schema["required"] if name not in ("kind", "inputs")
                 and re.search(rf"^{name}:", original, re.M))
    lines = original.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field}:"))
    misspelt = field[:-2] + field[-1] + field[-2]
    text = "\n".join(lines[:at] + [lines[at].replace(field, misspelt, 1)] + lines[at + 1:]) + "\n"
    client = LspClient(yaml_language_server, SETTINGS)
    try:
        diagnostics = _open(client, text)
        flagged = [d for d in diagnostics if misspelt in d["message"]]
        assert flagged and flagged[0]["range"]["start"]["line"] == at, diagnostics
        assert all("ENOTFOUND" not in d["message"] and "Unable to load" not in d["message"]
                   for d in diagnostics), diagnostics
        blank = "\n".join(lines[:at] + [""] + lines[at + 1:]) + "\n"  # the field left out
        client.notify("textDocument/didChange", {"textDocument": {"uri": RULE_FILE.as_uri(), "version": 2},
                                                 "contentChanges": [{"text": blank}]})
        result = client.request("textDocument/completion", {
            "textDocument": {"uri": RULE_FILE.as_uri()}, "position": {"line": at, "character": 0}},
            timeout=60)
        labels = {item["label"] for item in (result["items"] if isinstance(result, dict) else result)}
        assert field in labels, labels
        client.notify("textDocument/didChange", {"textDocument": {"uri": RULE_FILE.as_uri(), "version": 3},
                                                 "contentChanges": [{"text": original}]})
        hover = client.request("textDocument/hover", {
            "textDocument": {"uri": RULE_FILE.as_uri()}, "position": {"line": at, "character": 1}},
            timeout=60)
        shown = json.dumps(hover, ensure_ascii=False)
        japanese = kind_schema["properties"][field]["description"]
        assert japanese in shown or japanese.replace("`", "\\`") in shown, shown  # hover: Japanese first
    finally:
        client.close()


def test_check_jsonschema_validates_a_rule_file(tmp_path: Path) -> None:
    beside = Path(sys.executable).parent / "check-jsonschema"
    exe = str(beside) if beside.is_file() else shutil.which("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install -e '.[test]' installs it)")
    command = [exe, "--schemafile", str(ROOT / "schemas" / "rule.json")]
    good = subprocess.run([*command, str(RULE_FILE)], capture_output=True, text=True, timeout=120)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text(RULE_FILE.read_text(encoding="utf-8").replace("kind: Equipment", "kind: Equipmnt"),
                   encoding="utf-8")
    found = subprocess.run([*command, str(bad)], capture_output=True, text=True, timeout=120)
    assert found.returncode == 1 and "Equipmnt" in found.stdout


def test_schemas_resolve_offline() -> None:
    """No schema names a host: every ``$ref`` is relative to the file it is in."""
    for path in sorted((ROOT / "schemas").rglob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert "invalid" not in str(schema.get("$id", "")), path
        for ref in re.findall(r'"\$ref":\s*"([^"]*)"', path.read_text(encoding="utf-8")):
            target = ref.split("#", 1)[0]
            assert "://" not in ref and (not target or (path.parent / target).resolve().exists()), (path, ref)


# ---- every document of a multi-document file gets its schema (#24 item 3) ----
#
# yaml-language-server reads a modeline from the comments of each document separately (the
# comments before a document's content, after its `---`): a modeline on the first line of a file
# is the first document's only. So every document carries its own.

MODELINE_PREFIX = "# yaml-language-server: $schema="
MULTI = ROOT / "rulesets" / "magipunk" / "cohabitation.yaml"


def _last_document(text: str) -> int:
    """The line (0-based) where the last document's content begins, after its `---` and modeline."""
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == "---")
    return next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("#"))


def _diagnose_and_hover(server: list[str], root: Path, file: Path, text: str, field: str,
                        settings: dict | None = None) -> tuple[list[dict], int, str]:
    """Open ``text`` as ``file``, with the last document's top-level ``field`` misspelt: the
    diagnostics, the line of the misspelt field, and the hover on that field when written right."""
    lines = text.splitlines()
    at = next(i for i in range(_last_document(text), len(lines)) if lines[i].startswith(f"{field}:"))
    misspelt = "\n".join(lines[:at] + [lines[at].replace(field, field + "x", 1)] + lines[at + 1:]) + "\n"
    settings = settings or SETTINGS
    client = LspClient(server, settings)
    try:
        client.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {"textDocument": {"publishDiagnostics": {}, "hover": {}},
                             "workspace": {"configuration": True, "workspaceFolders": True}}}, timeout=60)
        client.notify("initialized", {})
        client.notify("workspace/didChangeConfiguration", {"settings": settings})
        uri = file.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": misspelt}})
        message = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                              and m["params"]["uri"] == uri, timeout=60)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": text}]})
        hover = client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": at, "character": 1}}, timeout=60)
        return message["params"]["diagnostics"], at, json.dumps(hover, ensure_ascii=False)
    finally:
        client.close()


def _field_description(kind_module: str, field: str) -> str:
    schema = json.loads((ROOT / "schemas" / "kinds" / f"{kind_module}.json").read_text(encoding="utf-8"))
    return schema["properties"][field]["description"]


@pytest.mark.parametrize("keep_modeline", [True, False])
def test_the_last_document_of_a_bundled_file_gets_diagnostics_and_hover(yaml_language_server, keep_modeline) -> None:
    text = MULTI.read_text(encoding="utf-8")
    assert text.count("\n---\n") >= 2
    if not keep_modeline:  # the control: without its own modeline the last document gets nothing
        lines = text.splitlines()
        start = max(i for i, line in enumerate(lines) if line.strip() == "---")
        text = "\n".join(lines[:start + 1] + [line for line in lines[start + 1:]
                                              if not line.startswith(MODELINE_PREFIX)]) + "\n"
    assert "\nkind: RollTable\n" in text[text.rindex("\n---\n"):]
    diagnostics, at, hover = _diagnose_and_hover(yaml_language_server, ROOT, MULTI, text, "rows")
    flagged = [d for d in diagnostics if "rowsx" in d["message"]]
    if keep_modeline:
        assert flagged and flagged[0]["range"]["start"]["line"] == at, diagnostics
        assert _field_description("roll_table", "rows") in hover, hover  # Japanese first
    else:
        assert not flagged, diagnostics


def test_a_gm_folder_made_by_init_gets_diagnostics_and_hover_in_its_last_document(
        yaml_language_server, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "interpreter", "init", str(tmp_path / "gm")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = tmp_path / "gm"
    house = root / "rules" / "house"
    # init writes one rule a file (check-jsonschema reads those); a GM may join them with ---
    file = house / "weather.yaml"
    text = file.read_text(encoding="utf-8") + "---\n" + (house / "weather_shift.yaml").read_text(encoding="utf-8")
    (house / "weather_shift.yaml").unlink()
    file.write_text(text, encoding="utf-8")
    assert text.count("\n---\n") == 1
    assert "\nkind: RollTable\n" in text[text.rindex("\n---\n"):]
    diagnostics, at, hover = _diagnose_and_hover(yaml_language_server, root, file, text, "rows")
    flagged = [d for d in diagnostics if "rowsx" in d["message"]]
    assert flagged and flagged[0]["range"]["start"]["line"] == at, diagnostics
    assert all("Unable to load" not in d["message"] for d in diagnostics), diagnostics
    assert _field_description("roll_table", "rows") in hover, hover


def test_a_gm_folders_editor_settings_give_every_document_its_schema(yaml_language_server, tmp_path: Path) -> None:
    """Without modelines, the `yaml.schemas` of the `.vscode/settings.json` that init writes give
    every document of a file its schema (a diagnostic in the last one)."""
    done = subprocess.run([sys.executable, "-m", "interpreter", "init", str(tmp_path / "gm")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = tmp_path / "gm"
    mapped = json.loads((root / ".vscode" / "settings.json").read_text(encoding="utf-8"))["yaml.schemas"]
    settings = {"yaml": {**SETTINGS["yaml"], "schemas": mapped}}
    house = root / "rules" / "house"
    file = house / "weather.yaml"
    joined = file.read_text(encoding="utf-8") + "---\n" + (house / "weather_shift.yaml").read_text(encoding="utf-8")
    text = "".join(line for line in joined.splitlines(keepends=True)
                   if not line.startswith(MODELINE_PREFIX))
    diagnostics, at, hover = _diagnose_and_hover(yaml_language_server, root, file, text, "rows", settings)
    flagged = [d for d in diagnostics if "rowsx" in d["message"]]
    assert flagged and flagged[-1]["range"]["start"]["line"] == at, diagnostics
    assert _field_description("roll_table", "rows") in hover, hover
