"""What the SSH host itself says (``server/ssh/messages.py``) is said in the player's language.

Its catalogs hold every sentence, translated with the same gaps; and real OpenSSH clients
read the words in Ukrainian or German: by the language stored with the player's key, else by
the locale the client sends (``SetEnv``/``SendEnv``), else in English, as the hub decides the
app's language; once an app has run, in the app's own language.
"""

from __future__ import annotations

import os
import string
import subprocess
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from protocol.requests import Profile
from server.apphost.in_process import InProcessLauncher
from server.ssh import messages
from tests.po_checks import assert_msgfmt_accepts

from .conftest import needs_openssh
from .harness import SSHTerminal, ThreadServer, idle_goodbye, key_fingerprint, ssh_command
from .standin import make_standin

LANGS = ("uk", "de")
SSH_DIR = Path(messages.__file__).parent

UK_NO_EXEC = "Gambit не виконує команд. Під’єднайтеся без команди:"
DE_NO_EXEC = "Gambit führt keine Befehle aus. Verbinden Sie sich ohne Befehl:"
EN_NO_EXEC = "Gambit runs no commands. Connect without one:"


def catalog_path(lang: str) -> Path:
    return messages.LOCALE_DIR / lang / "LC_MESSAGES" / f"{messages.DOMAIN}.po"


def load(lang: str):
    with catalog_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang)


def sentences() -> set[str]:
    """Every sentence marked with ``N_`` under server/ssh."""
    found = extract_from_dir(
        str(SSH_DIR),
        method_map=[("**/locale/**", "ignore"), ("**.py", "python")],
        keywords={"N_": None},
    )
    return {message for _file, _line, message, _comments, _context in found}


def gaps(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# --- the catalogs ------------------------------------------------------------------------------


def test_the_sentences_are_found():
    assert {messages.NEEDS_PTY, messages.NO_EXEC, messages.IDLE, messages.STOPPING} <= sentences()


@pytest.mark.parametrize("lang", LANGS)
def test_every_sentence_is_translated_and_nothing_else_is_kept(lang):
    catalog = load(lang)
    untranslated = []
    for sentence in sorted(sentences()):
        entry = catalog.get(sentence)
        if entry is None or entry.fuzzy or not entry.string:
            untranslated.append(sentence)
    assert not untranslated, f"translate in {catalog_path(lang)}: {untranslated}"
    stale = {entry.id for entry in catalog if entry.id} - sentences()
    assert not stale, f"{catalog_path(lang)} keeps sentences the code no longer says: {stale}"


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_the_gaps(lang):
    for entry in load(lang):
        if entry.id:
            assert gaps(entry.string) == gaps(entry.id), (lang, entry.id)


@pytest.mark.parametrize("lang", LANGS)
def test_msgfmt_accepts_the_catalog(lang):
    assert_msgfmt_accepts(catalog_path(lang))


def test_said_as_terminal_lines_in_the_apps_words():
    said = messages.say("uk", messages.NEEDS_PTY, port=2222, host="example.org").decode()
    assert said == (
        "У Gambit грають у терміналі, а це з’єднання його не має.\r\n"
        "Під’єднайтеся так:  ssh -t -p 2222 play@example.org\r\n"
    )
    assert "Ваше місце" in messages.say("uk", messages.STOPPING).decode()  # the app's "seat"
    assert "Ihr Platz" in messages.say("de", messages.STOPPING).decode()
    sorry = b"Sorry: the server could not run your session.\r\n"
    assert messages.say("en", messages.SORRY) == sorry
    assert messages.say("xx", messages.SORRY) == messages.say("en", messages.SORRY)


# --- through a real OpenSSH client -------------------------------------------------------------


def run_ssh(cmd: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """A non-interactive ssh run: its exit code and everything it printed, read as UTF-8."""
    proc = subprocess.run(
        cmd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
        env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
        | (env or {}),
        start_new_session=True,
    )
    return proc.returncode, (proc.stdout + proc.stderr).decode("utf-8", "replace")


def set_env(locale: str) -> list[str]:
    return ["-o", f"SetEnv=LANG={locale}"]


@needs_openssh
@pytest.mark.parametrize(
    ("extra", "env", "remote", "said"),
    [
        (set_env("uk_UA.UTF-8"), None, ["ls"], UK_NO_EXEC),
        (["-o", "SendEnv=LANG"], {"LANG": "de_DE.UTF-8"}, ["ls"], DE_NO_EXEC),
        (["-T", *set_env("de_DE.UTF-8")], None, [], "Gambit wird im Terminal gespielt"),
        (["-s", *set_env("uk_UA.UTF-8")], None, ["sftp"], "не надає ні передавання файлів"),
        ([], None, ["ls"], EN_NO_EXEC),  # no locale sent, no key: English
        (set_env("C.UTF-8"), None, ["ls"], EN_NO_EXEC),  # a locale that names no language
        (set_env("uk_UA.KOI8-U"), None, ["ls"], EN_NO_EXEC),  # not UTF-8: English's ASCII
    ],
    ids=["uk-setenv", "de-sendenv", "de-no-pty", "uk-sftp", "en", "c-utf8", "uk-koi8"],
)
def test_a_refusal_is_said_in_the_clients_language(standin_server, extra, env, remote, said):
    server = standin_server()
    code, out = run_ssh(ssh_command(server.port, extra=extra, remote=remote), env)
    assert code != 0
    assert said in out


@needs_openssh
def test_a_known_keys_stored_language_wins_over_the_clients_locale(standin_server, client_key):
    server = standin_server()
    fingerprint = key_fingerprint(client_key)

    def store_ukrainian() -> None:
        server.store.ensure_player(fingerprint, starting_chips=0)
        server.store.set_lang(fingerprint, "uk")

    server.sync(store_ukrainian)
    code, out = run_ssh(ssh_command(server.port, key=client_key, remote=["ls"]))
    assert code == 1 and UK_NO_EXEC in out
    # The hub's own rule: the stored choice comes first (a locale counts only for a key
    # without one).
    cmd = ssh_command(server.port, key=client_key, extra=set_env("de_DE.UTF-8"), remote=["ls"])
    code, out = run_ssh(cmd)
    assert code == 1 and UK_NO_EXEC in out
    code, out = run_ssh(ssh_command(server.port, extra=set_env("de_DE.UTF-8"), remote=["ls"]))
    assert code == 1 and DE_NO_EXEC in out
    # Another key (or none) knows nothing of it.
    code, out = run_ssh(ssh_command(server.port, remote=["ls"]))
    assert code == 1 and EN_NO_EXEC in out


def test_the_idle_goodbye_says_minutes_or_under_a_minute_seconds():
    assert messages.idle_goodbye(1800) == (messages.IDLE, {"minutes": 30})
    assert messages.idle_goodbye(90) == (messages.IDLE, {"minutes": 2})
    assert messages.idle_goodbye(60) == (messages.IDLE, {"minutes": 1})
    assert messages.idle_goodbye(20) == (messages.IDLE_SECONDS, {"seconds": 20})
    assert messages.idle_goodbye(0.2) == (messages.IDLE_SECONDS, {"seconds": 1})
    for lang in ("en", "uk", "de"):
        said = messages.say(lang, *messages.idle_goodbye(20)[:1], seconds=20).decode()
        assert " 20 " in said and "0 min" not in said


@needs_openssh
def test_the_idle_goodbye_is_said_in_the_players_language(standin_server):
    server = standin_server(idle_timeout=1.0)
    said = idle_goodbye(server.port, extra=set_env("uk_UA.UTF-8"))
    assert "розірвано: 1 с без жодного натискання клавіші" in said


@needs_openssh
def test_a_full_server_says_so_in_the_players_language(standin_server):
    server = standin_server(max_sessions=1)
    first = SSHTerminal(ssh_command(server.port))
    try:
        first.wait_for("hub name")
        cmd = ssh_command(server.port, extra=["-tt", "-o", "SendEnv=LANG"])
        code, out = run_ssh(cmd, {"LANG": "de_DE.UTF-8"})
        assert code == 1
        assert "Der Server ist voll (1 Spieler). Versuchen Sie es später noch einmal." in out
    finally:
        first.close()


@needs_openssh
def test_the_stopping_server_says_goodbye_in_each_players_language(tmp_path):
    server = ThreadServer(tmp_path, make_standin).start()
    running = True
    terms = {
        locale: SSHTerminal(ssh_command(server.port, extra=set_env(locale)))
        for locale in ("uk_UA.UTF-8", "de_DE.UTF-8", "C.UTF-8")
    }
    try:
        for term in terms.values():
            term.wait_for("hub name")
        running = False
        server.stop()
        for term in terms.values():
            term.wait_exit()
        assert "Сервер Gambit зупиняється." in terms["uk_UA.UTF-8"].output()
        assert "Der Gambit-Server wird beendet." in terms["de_DE.UTF-8"].output()
        assert "The Gambit server is stopping." in terms["C.UTF-8"].output()
    finally:
        for term in terms.values():
            term.close()
        if running:
            server.stop()


def german_standin(conn, term, identity, name):
    """The stand-in, speaking German whatever the client sent (as the Gambit app does once
    its player has chosen German in Settings)."""
    app = make_standin(conn, term, identity, name)
    app.lang = "de"
    return app


@needs_openssh
def test_once_an_app_has_run_the_goodbye_is_in_the_apps_language(standin_server):
    server = standin_server(idle_timeout=1.0)
    server.host.launcher = InProcessLauncher(german_standin)
    said = idle_goodbye(server.port, extra=set_env("uk_UA.UTF-8"))
    assert "Verbindung nach 1 s ohne Tastendruck getrennt." in said


@needs_openssh
def test_an_app_on_a_worker_tells_the_host_its_language(tmp_path, client_key):
    """The real app on a worker process: its player switches to German (as in Settings), and
    the goodbye follows, though the client still sends a Ukrainian locale."""
    server = ThreadServer(tmp_path, None, app_workers=1).start()
    running = True
    cmd = ssh_command(server.port, "Ada", key=client_key, extra=set_env("uk_UA.UTF-8"))
    term = SSHTerminal(cmd)
    try:
        term.wait_for("Вітаємо в Gambit", timeout=30)

        def choose_german() -> None:
            (player,) = server.hub.players.values()
            (session,) = player.sessions
            server.hub.on_profile(session, Profile(lang="de"))

        server.sync(choose_german)
        term.wait_for("Willkommen bei Gambit")
        running = False
        server.stop()
        term.wait_exit()
        assert "Der Gambit-Server wird beendet." in term.output()
    finally:
        term.close()
        if running:
            server.stop()


@needs_openssh
def test_a_guests_goodbye_is_in_the_language_they_chose(tmp_path):
    """Issue 38, item 11: a keyless player who chose Ukrainian read the stopping server's
    goodbye in English (a registered player's came in their stored language)."""
    server = ThreadServer(tmp_path, None, app_workers=1).start()
    running = True
    term = SSHTerminal(ssh_command(server.port, "Gus"))  # no key, no locale sent
    try:
        term.wait_for("Welcome to Gambit", timeout=30)

        def choose_ukrainian() -> None:
            (player,) = server.hub.players.values()
            assert player.guest
            (session,) = player.sessions
            server.hub.on_profile(session, Profile(lang="uk"))

        server.sync(choose_ukrainian)
        term.wait_for("Вітаємо в Gambit")
        running = False
        server.stop()
        term.wait_exit()
        assert "Сервер Gambit зупиняється." in term.output(), term.output()
    finally:
        term.close()
        if running:
            server.stop()


@needs_openssh
def test_a_guests_goodbye_is_in_their_language_when_their_app_cannot_tell(tmp_path):
    """Issue 38, item 11: when the app does not say its language (here the stand-in, which
    has none; the Gambit app when it fails), the goodbye followed the key's stored language,
    so a registered player read their own and a guest read English. The hub knows a guest's
    choice too."""
    server = ThreadServer(tmp_path, make_standin).start()
    running = True
    term = SSHTerminal(ssh_command(server.port, "Gus"))  # no key, no locale sent
    try:
        term.wait_for("hub name=Gus guest=True")

        def choose_ukrainian() -> None:
            (player,) = server.hub.players.values()
            (session,) = player.sessions
            server.hub.on_profile(session, Profile(lang="uk"))

        server.sync(choose_ukrainian)
        running = False
        server.stop()
        term.wait_exit()
        assert "Сервер Gambit зупиняється." in term.output(), term.output()[-300:]
    finally:
        term.close()
        if running:
            server.stop()
