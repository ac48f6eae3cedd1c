/* sqlite3_file_control on connections using the default VFS: the opcodes
** SQLite's core answers (file, journal and VFS pointers, data version,
** reserved bytes, cache reset) and those its unix VFS answers (lock state,
** persistent WAL, powersafe overwrite, chunk size, VFS name, temporary
** names, moved files, external readers), on a file and in memory. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite3.h"

static sqlite3 *open_db(const char *name) {
  sqlite3 *db = 0;
  if (sqlite3_open(name, &db) != SQLITE_OK) printf("open %s failed\n", name);
  return db;
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = 0;
  if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) printf("exec [%s]: %s\n", sql, err ? err : "?");
  sqlite3_free(err);
}

static long long file_size(const char *name) {
  struct stat st;
  return stat(name, &st) == 0 ? (long long)st.st_size : -1;
}

static unsigned data_version(sqlite3 *db) {
  unsigned v = 0;
  int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &v);
  if (rc != SQLITE_OK) printf("data_version rc=%d\n", rc);
  return v;
}

static int int_op(sqlite3 *db, const char *schema, int op, int in, int *out) {
  int v = in;
  int rc = sqlite3_file_control(db, schema, op, &v);
  *out = v;
  return rc;
}

static void pointers(void) {
  sqlite3 *db = open_db("fc-main.db");
  sqlite3_file *f = 0, *j = 0;
  sqlite3_vfs *vfs = 0;
  sqlite3_int64 sz = -1;
  unsigned char hdr[100];
  int rc, lock = -1;
  exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1),(2),(3);");
  rc = sqlite3_file_control(db, 0, SQLITE_FCNTL_FILE_POINTER, &f);
  printf("file_pointer rc=%d object=%d methods=%d\n", rc, f != 0, f && f->pMethods != 0);
  if (f && f->pMethods) {
    rc = f->pMethods->xFileSize(f, &sz);
    printf("  xFileSize rc=%d size=%lld\n", rc, sz);
    rc = f->pMethods->xRead(f, hdr, 100, 0);
    printf("  xRead rc=%d magic=%.15s page_size=%d\n", rc, (char *)hdr, hdr[16] << 8 | hdr[17]);
    rc = f->pMethods->xFileControl(f, SQLITE_FCNTL_LOCKSTATE, &lock);
    printf("  xFileControl(LOCKSTATE) rc=%d lock=%d\n", rc, lock);
    printf("  xSectorSize=%d xDeviceCharacteristics&PSOW=%d\n", f->pMethods->xSectorSize(f),
           (f->pMethods->xDeviceCharacteristics(f) & SQLITE_IOCAP_POWERSAFE_OVERWRITE) != 0);
  }
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs);
  printf("vfs_pointer rc=%d name=%s\n", rc, vfs && vfs->zName ? vfs->zName : "NULL");
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &j);
  printf("journal_pointer (no journal) rc=%d object=%d methods=%d\n", rc, j != 0, j && j->pMethods != 0);
  exec(db, "PRAGMA journal_mode=WAL; INSERT INTO t VALUES(4);");
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &j);
  printf("journal_pointer (wal) rc=%d object=%d methods=%d\n", rc, j != 0, j && j->pMethods != 0);
  if (j && j->pMethods) {
    rc = j->pMethods->xFileSize(j, &sz);
    printf("  wal xFileSize rc=%d positive=%d\n", rc, sz > 0);
  }
  exec(db, "PRAGMA journal_mode=DELETE;");
  sqlite3_close(db);
}

static void names_and_flags(void) {
  sqlite3 *db = open_db("fc-main.db");
  char *name = 0;
  int rc, v;
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_VFSNAME, &name);
  printf("vfsname rc=%d name=%s\n", rc, name ? name : "NULL");
  sqlite3_free(name);
  name = 0;
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_TEMPFILENAME, &name);
  printf("tempfilename rc=%d etilqs=%d absolute=%d\n", rc, name && strstr(name, "etilqs_") != 0, name && name[0] == '/');
  sqlite3_free(name);
  rc = int_op(db, "main", SQLITE_FCNTL_LAST_ERRNO, -5, &v);
  printf("last_errno rc=%d errno=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_LOCKSTATE, -5, &v);
  printf("lockstate idle rc=%d lock=%d\n", rc, v);
  exec(db, "BEGIN IMMEDIATE;");
  rc = int_op(db, "main", SQLITE_FCNTL_LOCKSTATE, -5, &v);
  printf("lockstate in BEGIN IMMEDIATE rc=%d lock=%d\n", rc, v);
  exec(db, "COMMIT;");
  rc = int_op(db, "main", SQLITE_FCNTL_HAS_MOVED, -5, &v);
  printf("has_moved rc=%d moved=%d\n", rc, v);
  rename("fc-main.db", "fc-moved.db");
  rc = int_op(db, "main", SQLITE_FCNTL_HAS_MOVED, -5, &v);
  printf("has_moved after rename rc=%d moved=%d\n", rc, v);
  rename("fc-moved.db", "fc-main.db");
  rc = int_op(db, "main", SQLITE_FCNTL_EXTERNAL_READER, -5, &v);
  printf("external_reader rc=%d reader=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_POWERSAFE_OVERWRITE, -1, &v);
  printf("psow ask rc=%d on=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_POWERSAFE_OVERWRITE, 0, &v);
  rc = int_op(db, "main", SQLITE_FCNTL_POWERSAFE_OVERWRITE, -1, &v);
  printf("psow after setting 0 rc=%d on=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_PERSIST_WAL, -1, &v);
  printf("persist_wal ask rc=%d on=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_PERSIST_WAL, 7, &v);
  rc = int_op(db, "main", SQLITE_FCNTL_PERSIST_WAL, -1, &v);
  printf("persist_wal after setting 7 rc=%d on=%d\n", rc, v);
  exec(db, "PRAGMA journal_mode=WAL; INSERT INTO t VALUES(5);");
  sqlite3_close(db);
  printf("wal kept after close: %d\n", access("fc-main.db-wal", F_OK) == 0);
  db = open_db("fc-main.db");
  exec(db, "PRAGMA journal_mode=DELETE;");
  sqlite3_close(db);
  printf("wal after journal_mode=DELETE: %d\n", access("fc-main.db-wal", F_OK) == 0);
  db = open_db("fc-main.db");
  rc = sqlite3_file_control(db, "nosuch", SQLITE_FCNTL_LOCKSTATE, &v);
  printf("unknown schema rc=%d\n", rc);
  rc = sqlite3_file_control(db, "main", 9999, &v);
  printf("unknown opcode rc=%d\n", rc);
  v = 0;
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_RESET_CACHE, &v);
  printf("reset_cache rc=%d\n", rc);
  {
    sqlite3_int64 hint = 1 << 20;
    rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_SIZE_HINT, &hint);
    printf("size_hint without chunks rc=%d size unchanged=%d\n", rc, file_size("fc-main.db") < (1 << 20));
  }
  sqlite3_close(db);
}

static void data_versions(void) {
  sqlite3 *a = open_db("fc-main.db"), *b = open_db("fc-main.db");
  unsigned v0, v1;
  exec(a, "SELECT count(*) FROM t;");
  v0 = data_version(a);
  exec(a, "SELECT count(*) FROM t;");
  v1 = data_version(a);
  printf("data_version after a read: %s\n", v1 == v0 ? "same" : "changed");
  exec(a, "INSERT INTO t VALUES(6);");
  v0 = v1;
  v1 = data_version(a);
  printf("data_version after own commit: %s\n", v1 == v0 ? "same" : "changed");
  exec(b, "INSERT INTO t VALUES(7);");
  v0 = v1;
  v1 = data_version(a);
  printf("data_version after another's commit, before reading: %s\n", v1 == v0 ? "same" : "changed");
  exec(a, "SELECT count(*) FROM t;");
  v0 = v1;
  v1 = data_version(a);
  printf("data_version after another's commit, after reading: %s\n", v1 == v0 ? "same" : "changed");
  sqlite3_close(a);
  sqlite3_close(b);
}

static void chunks(void) {
  sqlite3 *db;
  int rc, chunk = 65536;
  unlink("fc-chunk.db");
  db = open_db("fc-chunk.db");
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_CHUNK_SIZE, &chunk);
  printf("chunk_size rc=%d\n", rc);
  exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(randomblob(3000));");
  printf("size with 64 KiB chunks: %lld\n", file_size("fc-chunk.db"));
  exec(db, "INSERT INTO t SELECT randomblob(3000) FROM t; INSERT INTO t SELECT randomblob(3000) FROM t;"
           "INSERT INTO t SELECT randomblob(3000) FROM t; INSERT INTO t SELECT randomblob(3000) FROM t;"
           "INSERT INTO t SELECT randomblob(3000) FROM t;");
  printf("size after growing: %lld\n", file_size("fc-chunk.db"));
  exec(db, "DELETE FROM t WHERE rowid > 2; VACUUM;");
  printf("size after VACUUM: %lld\n", file_size("fc-chunk.db"));
  sqlite3_close(db);
  unlink("fc-chunk.db");
}

static void header_byte(const char *name, const char *what) {
  unsigned char hdr[100];
  FILE *f = fopen(name, "rb");
  if (!f || fread(hdr, 1, 100, f) != 100) {
    printf("%s: no header\n", what);
  } else {
    printf("%s: page_size=%d reserved=%d\n", what, hdr[16] << 8 | hdr[17], hdr[20]);
  }
  if (f) fclose(f);
}

static void reserve_bytes(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int rc, v;
  unlink("fc-reserve.db");
  db = open_db("fc-reserve.db");
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, -1, &v);
  printf("reserve ask (new db) rc=%d reserve=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, 8, &v);
  printf("reserve set 8 rc=%d before=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, -1, &v);
  printf("reserve ask rc=%d reserve=%d\n", rc, v);
  exec(db, "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, randomblob(5000)), (2, 'x');");
  sqlite3_close(db);
  header_byte("fc-reserve.db", "created with reserve 8");
  db = open_db("fc-reserve.db");
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, -1, &v);
  printf("reserve ask (reopened) rc=%d reserve=%d\n", rc, v);
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, 20, &v);
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, -1, &v);
  printf("reserve ask after asking 20 rc=%d reserve=%d\n", rc, v);
  exec(db, "INSERT INTO t VALUES(3, randomblob(3000));");
  sqlite3_close(db);
  header_byte("fc-reserve.db", "before VACUUM");
  db = open_db("fc-reserve.db");
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, 20, &v);
  exec(db, "VACUUM;");
  sqlite3_close(db);
  header_byte("fc-reserve.db", "after VACUUM");
  db = open_db("fc-reserve.db");
  if (sqlite3_prepare_v2(db, "SELECT group_concat(a), sum(length(b)) FROM t", -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    printf("rows=%s bytes=%d\n", sqlite3_column_text(st, 0), sqlite3_column_int(st, 1));
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, 0) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    printf("integrity=%s\n", sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  unlink("fc-reserve.db");
}

static void psow_uri(void) {
  sqlite3 *db = 0;
  int rc, v, i;
  for (i = 0; i < 2; i++) {
    const char *uri = i ? "file:fc-psow.db?psow=0" : "file:fc-psow.db?psow=1";
    unlink("fc-psow.db");
    rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
    rc = int_op(db, "main", SQLITE_FCNTL_POWERSAFE_OVERWRITE, -1, &v);
    printf("%s: psow rc=%d on=%d\n", uri, rc, v);
    exec(db, "PRAGMA journal_mode=PERSIST; CREATE TABLE t(a); INSERT INTO t VALUES(1); BEGIN; INSERT INTO t VALUES(2);");
    printf("  journal size in a transaction: %lld\n", file_size("fc-psow.db-journal"));
    exec(db, "COMMIT;");
    sqlite3_close(db);
    unlink("fc-psow.db-journal");
  }
  unlink("fc-psow.db");
}

static void in_memory(void) {
  sqlite3 *db = open_db(":memory:");
  sqlite3_file *f = 0;
  char *name = 0;
  int rc, v;
  exec(db, "CREATE TABLE t(a); INSERT INTO t VALUES(1);");
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &f);
  printf("memory file_pointer rc=%d object=%d methods=%d\n", rc, f != 0, f && f->pMethods != 0);
  rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_VFSNAME, &name);
  printf("memory vfsname rc=%d\n", rc);
  sqlite3_free(name);
  rc = int_op(db, "main", SQLITE_FCNTL_PERSIST_WAL, -1, &v);
  printf("memory persist_wal rc=%d\n", rc);
  rc = int_op(db, "main", SQLITE_FCNTL_RESERVE_BYTES, -1, &v);
  printf("memory reserve rc=%d reserve=%d\n", rc, v);
  sqlite3_close(db);
}

int main(void) {
  unlink("fc-main.db");
  unlink("fc-main.db-wal");
  pointers();
  names_and_flags();
  data_versions();
  chunks();
  reserve_bytes();
  psow_uri();
  in_memory();
  unlink("fc-main.db");
  unlink("fc-main.db-wal");
  unlink("fc-main.db-shm");
  return 0;
}
