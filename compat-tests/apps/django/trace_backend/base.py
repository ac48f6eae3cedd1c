# Django's sqlite3 backend, logging every statement SQLite runs (expanded SQL)
# with the connection and database it ran on, for replay on two engines
# (compat-tests/apps/django/replay.py). Settings: DJ_TRACE_FILE names the log.
import itertools, json, os, threading
from django.db.backends.sqlite3 import base as sqlite_base

_lock = threading.Lock()
_counter = itertools.count(1)
_out = open(os.environ["DJ_TRACE_FILE"], "a", buffering=1)


def _log(rec):
    with _lock:
        _out.write(json.dumps(rec) + "\n")


class DatabaseWrapper(sqlite_base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        conn = super().get_new_connection(conn_params)
        cid = next(_counter)
        _log({"o": cid, "db": conn_params["database"]})
        self._trace_cid = cid
        # Run by get_new_connection before the trace callback was set.
        _log({"c": cid, "s": "PRAGMA foreign_keys = ON"})
        _log({"c": cid, "s": "PRAGMA legacy_alter_table = OFF"})
        conn.set_trace_callback(lambda sql, cid=cid: _log({"c": cid, "s": sql}))
        return conn

    def _close(self):
        had = self.connection is not None
        super()._close()
        if had:
            _log({"x": getattr(self, "_trace_cid", None)})
