/*
** The SQLite version the library reports: sqlite3_version[] (a data symbol
** of the API) and the source id behind sqlite3_sourceid().
**
** Compiled twice. In the Rust build (capi/build.rs) without settings: weak
** definitions giving the reference SQLite 3.54.1's strings, so every build
** of the crate links and reports those. By `make` with
** -DRINGLITE_SQLITE_VERSION='"x.y.z"' -DRINGLITE_SQLITE_SOURCE_ID='"..."':
** strong definitions linked beside the static library into the shared one,
** which override the weak ones. Choosing the version is thus a link of a few
** seconds, never a rebuild of the engine (Debian's sqlite3 shell refuses a
** library whose source id differs from its own header's).
*/
#ifdef RINGLITE_SQLITE_VERSION
#define RINGLITE_LINKAGE
#else
#define RINGLITE_SQLITE_VERSION "3.54.1"
#define RINGLITE_SQLITE_SOURCE_ID "2026-10-16 14:45:20 555e07ef33f69a0957d24d8e555b702464a131d6f1607f4c3c1e4551e8e6ca76"
#define RINGLITE_LINKAGE __attribute__((weak))
#endif

RINGLITE_LINKAGE const char sqlite3_version[] = RINGLITE_SQLITE_VERSION;
RINGLITE_LINKAGE const char ringlite_reported_source_id[] = RINGLITE_SQLITE_SOURCE_ID;
