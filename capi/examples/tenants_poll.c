/* Many tenants, one thread, sqlite3_io_poll.
 *
 * Every tenant's connection is opened with SQLITE_OPEN_ASYNC; connections
 * of one thread share one I/O ring. The loop gives each tenant a turn (its
 * job until it ends or waits for I/O, see tenants.h), then polls the shared ring: without
 * waiting while some tenant can still run, and until at least one request
 * completes when every tenant is waiting for the disk. A poll through any
 * one connection reaps completions for all of them.
 *
 * Build: cc -Ibuild/include tenants_poll.c -Lbuild/lib -lsqlite3
 */
#include "tenants.h"

int main(void) {
  char dir[256], path[N_TENANTS][300];
  tenant tenants[N_TENANTS];
  make_temp_dir(dir, sizeof dir, "tenants_poll");
  for (int t = 0; t < N_TENANTS; t++) {
    create_tenant_db(dir, t, path[t], sizeof path[t]);
    open_tenant(&tenants[t], t, path[t]);
  }
  sqlite3 *any = tenants[0].db; /* all share one ring: poll through any */
  int uring = backend_is_uring(any);

  long long polls = 0, ios = 0, turns = 0;
  for (;;) {
    int running = 0, waiting = 0;
    for (int t = 0; t < N_TENANTS; t++) {
      if (tenant_done(&tenants[t])) continue;
      turns++;
      if (tenant_turn(&tenants[t])) waiting++;
      else if (!tenant_done(&tenants[t])) running++;
    }
    if (!running && !waiting) break;
    if (waiting) {
      /* 0: submit and reap what is ready; -1: sleep until something is. */
      CHECK(sqlite3_io_poll(any, running ? 0 : -1) == SQLITE_OK);
      polls++;
    }
  }

  long long rows = 0;
  for (int t = 0; t < N_TENANTS; t++) {
    tenant_verify(&tenants[t]);
    rows += tenants[t].streamed;
    ios += tenants[t].ios;
    CHECK(sqlite3_close(tenants[t].db) == SQLITE_OK);
    verify_durable(path[t], &tenants[t]);
  }
  if (uring) CHECK(ios > 0); /* cold data must have made steps yield */
  printf("tenants_poll: %d tenants, %lld rows streamed, %lld turns, SQLITE_IO %lld times, %lld polls (%s): OK\n",
         N_TENANTS, rows, turns, ios, polls, uring ? "io_uring" : "sync fallback");
  remove_temp_dir(dir);
  return 0;
}
