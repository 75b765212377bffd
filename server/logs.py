"""How the server logs: one setup for ``gambit serve``, its app workers and ``gambit hub``.

* To stderr by default. Under systemd (which sets ``JOURNAL_STREAM`` when stderr is the
  journal) each line starts with its syslog priority, ``<3>`` … ``<7>``, and has no timestamp:
  the journal keeps both, and ``journalctl -p warning`` can filter.
* ``--log-file FILE``: a file that may be rotated under the server (logrotate's default moves
  it): the handler notices and opens a new one, no restart needed.
* ``--log-json``: one JSON object per line (``ts``, ``level``, ``logger``, ``message``, and
  ``exc`` with a plain traceback), for a log collector.

Tracebacks never carry local variables (see ssh/app_settings.py for the apps' own crashes).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import sys
import time

#: Syslog priorities by logging level (sd-daemon(3) prefixes).
PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JournalFormatter(logging.Formatter):
    """``<priority>logger: message`` (the journal adds the time and the unit)."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{PRIORITY.get(record.levelno, 6)}>"
        text = super().format(record)
        # A traceback's lines each get the record's priority, so none is lost as "info".
        return "\n".join(prefix + line for line in text.splitlines())


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(log_file: str | None, verbose: bool, json_lines: bool = False) -> None:
    handler: logging.Handler
    if log_file:
        handler = logging.handlers.WatchedFileHandler(log_file)
    else:
        handler = logging.StreamHandler(sys.stderr)
    if json_lines:
        handler.setFormatter(JsonFormatter())
    elif not log_file and os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter(TEXT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("server").setLevel(logging.INFO)
    logging.getLogger("asyncssh").setLevel(logging.INFO if verbose else logging.WARNING)
