/* ATTACH through the C API: sqlite3_db_filename, sqlite3_db_readonly,
   sqlite3_txn_state and sqlite3_db_name with attached schema names,
   sqlite3_wal_checkpoint_v2 on an attached WAL database, a statement
   prepared before a DETACH/ATTACH, and errors of ATTACH/DETACH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"

static void q(sqlite3 *db, const char *sql) {
  char *err = 0;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  /* File names are random: only the statement's first word is shown. */
  printf("%.*s -> rc=%d%s%s\n", strncmp(sql, "ATTACH '/", 9) == 0 ? 6 : (int)strlen(sql), sql, rc, err ? " " : "", err ? err : "");
  sqlite3_free(err);
}

static void step_count(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  printf("step rc=%d count=%d\n", rc, sqlite3_column_int(st, 0));
  sqlite3_reset(st);
}

static void show_name(sqlite3 *db, const char *schema, const char *expect) {
  const char *f = sqlite3_db_filename(db, schema);
  printf("filename(%s): %s\n", schema, f == 0 ? "NULL" : *f == 0 ? "empty" : strcmp(f, expect) == 0 ? "the file" : f);
}

int main(void) {
  sqlite3 *db, *ro;
  char mainp[] = "/tmp/ringlite_attach_main_XXXXXX";
  char auxp[] = "/tmp/ringlite_attach_aux_XXXXXX";
  char sql[256], wal[80];
  sqlite3_stmt *st;
  int fd = mkstemp(mainp);
  close(fd);
  unlink(mainp);
  fd = mkstemp(auxp);
  close(fd);
  unlink(auxp);
  snprintf(wal, sizeof wal, "%s-wal", auxp);

  sqlite3_open(mainp, &db);
  q(db, "CREATE TABLE t(x)");
  snprintf(sql, sizeof sql, "ATTACH '%s' AS aux", auxp);
  q(db, sql);
  q(db, "ATTACH ':memory:' AS mem");
  show_name(db, "main", mainp);
  show_name(db, "aux", auxp);
  show_name(db, "mem", "");
  show_name(db, "nosuch", "");
  printf("db_name 2=%s 3=%s 4=%s\n", sqlite3_db_name(db, 2), sqlite3_db_name(db, 3),
         sqlite3_db_name(db, 4) ? sqlite3_db_name(db, 4) : "NULL");
  printf("readonly aux=%d mem=%d nosuch=%d\n", sqlite3_db_readonly(db, "aux"), sqlite3_db_readonly(db, "mem"),
         sqlite3_db_readonly(db, "nosuch"));
  q(db, "CREATE TABLE aux.t(y); INSERT INTO aux.t VALUES(1),(2)");
  q(db, "BEGIN; INSERT INTO aux.t VALUES(3)");
  printf("txn_state main=%d aux=%d mem=%d all=%d nosuch=%d\n", sqlite3_txn_state(db, "main"), sqlite3_txn_state(db, "aux"),
         sqlite3_txn_state(db, "mem"), sqlite3_txn_state(db, 0), sqlite3_txn_state(db, "nosuch"));
  q(db, "DETACH aux");
  q(db, "COMMIT");
  printf("txn_state aux=%d\n", sqlite3_txn_state(db, "aux"));

  /* A statement prepared before DETACH/ATTACH reads what is attached when it runs. */
  sqlite3_prepare_v2(db, "SELECT count(*) FROM aux.t", -1, &st, 0);
  step_count(st);
  q(db, "DETACH mem");
  step_count(st);
  q(db, "DETACH aux; ATTACH ':memory:' AS aux; CREATE TABLE aux.t(z)");
  step_count(st);
  sqlite3_finalize(st);

  /* WAL on an attached file, checkpointed by name. */
  q(db, "DETACH aux");
  q(db, sql);
  q(db, "PRAGMA aux.journal_mode=WAL");
  q(db, "INSERT INTO aux.t VALUES(4)");
  {
    int log = -7, done = -7;
    int rc = sqlite3_wal_checkpoint_v2(db, "aux", SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    printf("checkpoint aux: rc=%d log=%d ckpt=%d\n", rc, log, done);
    rc = sqlite3_wal_checkpoint_v2(db, "nosuch", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    printf("checkpoint nosuch: rc=%d %s\n", rc, sqlite3_errmsg(db));
  }
  q(db, "DETACH aux");

  /* A read-only connection attaches read-only. */
  sqlite3_open_v2(mainp, &ro, SQLITE_OPEN_READONLY, 0);
  q(ro, sql);
  printf("ro readonly aux=%d\n", sqlite3_db_readonly(ro, "aux"));
  q(ro, "INSERT INTO aux.t VALUES(5)");
  q(ro, "SELECT count(*) FROM aux.t");
  sqlite3_close(ro);

  q(db, "DETACH main");
  q(db, "DETACH nosuch");
  q(db, "ATTACH ':memory:' AS main");
  sqlite3_close(db);
  unlink(mainp);
  unlink(auxp);
  unlink(wal);
  return 0;
}
