"""What ``gambit connect`` says in the player's own terminal before the app starts (and if it
cannot start): the host key's first use and a changed key, as OpenSSH says them, and why a
connection failed. Kept with the app's catalogs so they are said in the player's language;
nothing here knows how the app is connected once it runs.
"""

from __future__ import annotations

from .i18n import N_, translations

UNKNOWN_HOST = N_(
    "The authenticity of host {host} can't be established.\n"
    "{kind} key fingerprint is {fingerprint}."
)
ASK_TRUST = N_("Are you sure you want to continue connecting (yes/no)? ")
ANSWER_YES = N_("yes")
ADDED = N_("Permanently added {host} to the list of known hosts ({path}).")
NOT_TRUSTED = N_("Host key not accepted: not connecting.")
CHANGED = N_(
    "WARNING: THE HOST KEY OF {host} HAS CHANGED!\n"
    "Someone could be listening in on you right now, or the server's key was replaced.\n"
    "The server offers {kind} key {fingerprint}; {path} holds another one for it.\n"
    "Not connecting. If the change is expected, remove the old key with:  ssh-keygen -R {host}"
)
CANNOT_CONNECT = N_("Cannot connect to {host}: {reason}")
NO_SUBSYSTEM = N_(
    "{host} does not offer Gambit to local apps. Play in its terminal session instead:  {command}"
)
PASSWORD = N_("Password for {user}@{host}: ")
# ``gambit connect`` with no host: the servers announced on the network.
LOOKING = N_("Looking for Gambit servers on this network...")
NONE_FOUND = N_(
    "No Gambit server answered on this network. Name one:  gambit connect HOST\n"
    "(or play in a terminal session:  ssh -p 2222 play@HOST)"
)
FOUND = N_("Gambit servers on this network:")
LISTED = N_("{number}. {name}  ({host}, port {port})")
ASK_WHICH = N_("Which one (1-{count})? ")
CONNECTING = N_("Connecting to {name} ({host}, port {port}).")


def say(lang: str, sentence: str, **fields: object) -> str:
    """``sentence`` in ``lang`` (English for a language without a catalog), gaps filled."""
    text = translations(lang).gettext(sentence)
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation's gaps gone wrong: English
        return sentence.format(**fields)
