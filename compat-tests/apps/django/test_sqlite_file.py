# Same as test_sqlite, but the test databases are files (exercises the pager,
# journal and file locking instead of the shared-cache in-memory database).
import os

_dir = os.environ.get("DJ_DB_DIR", "/tmp/dj/db")
os.makedirs(_dir, exist_ok=True)

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "TEST": {"NAME": os.path.join(_dir, "default.sqlite3")},
    },
    "other": {
        "ENGINE": "django.db.backends.sqlite3",
        "TEST": {"NAME": os.path.join(_dir, "other.sqlite3")},
    },
}

SECRET_KEY = "django_tests_secret_key"

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
]

DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

USE_TZ = False
