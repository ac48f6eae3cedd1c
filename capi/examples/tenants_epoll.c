/* Many tenants, one thread, an epoll loop on sqlite3_io_fd.
 *
 * The same tenants as tenants_poll.c, but the thread sleeps in epoll_wait,
 * where a server would also wait for its sockets and timers. The ring's
 * eventfd (sqlite3_io_fd) becomes readable when completions are waiting.
 * Two rules make this work:
 *   - sqlite3_step only queues its requests; sqlite3_io_poll(db, 0) hands
 *     them to the kernel. Call it before sleeping, or nothing will ever
 *     complete to wake you.
 *   - after the descriptor fires, sqlite3_io_poll(db, 0) reaps the
 *     completions (and re-arms the descriptor); then step the tenants again.
 * epoll_wait may also fail with EINTR with no signal handler involved: the
 * kernel interrupts the sleep to finish io_uring requests on this thread
 * (buffered reads retried after a page-cache miss, completions while the
 * completion queue is full). That is a wakeup like any other.
 * Where no ring can be set up, sqlite3_io_fd returns -1 and steps never
 * answer SQLITE_IO, so the loop below never sleeps.
 *
 * Build: cc -Ibuild/include tenants_epoll.c -Lbuild/lib -lsqlite3
 */
#include <errno.h>
#include <sys/epoll.h>
#include "tenants.h"

int main(void) {
  char dir[256], path[N_TENANTS][300];
  tenant tenants[N_TENANTS];
  make_temp_dir(dir, sizeof dir, "tenants_epoll");
  for (int t = 0; t < N_TENANTS; t++) {
    create_tenant_db(dir, t, path[t], sizeof path[t]);
    open_tenant(&tenants[t], t, path[t]);
  }
  sqlite3 *any = tenants[0].db;
  int uring = backend_is_uring(any);
  int io_fd = sqlite3_io_fd(any);
  for (int t = 1; t < N_TENANTS; t++) CHECK(sqlite3_io_fd(tenants[t].db) == io_fd); /* one ring per thread */
  CHECK(uring ? io_fd >= 0 : 1);

  int ep = epoll_create1(EPOLL_CLOEXEC);
  CHECK(ep >= 0);
  if (io_fd >= 0) {
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = io_fd};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, io_fd, &ev) == 0);
  }

  long long sleeps = 0, ios = 0, interrupted = 0;
  for (;;) {
    int running = 0, waiting = 0;
    for (int t = 0; t < N_TENANTS; t++) {
      if (tenant_done(&tenants[t])) continue;
      if (tenant_turn(&tenants[t])) waiting++;
      else if (!tenant_done(&tenants[t])) running++;
    }
    if (!running && !waiting) break;
    if (!waiting) continue;
    /* Submit what the tenants queued; reap what is already done. */
    CHECK(sqlite3_io_poll(any, 0) == SQLITE_OK);
    if (running || io_fd < 0) continue;
    /* Everyone waits for the disk: sleep until the ring has completions
     * (a server would have its sockets in this epoll set too). */
    struct epoll_event got;
    int n = epoll_wait(ep, &got, 1, 5000);
    if (n < 0 && errno == EINTR) {
      interrupted++;
      CHECK(sqlite3_io_poll(any, 0) == SQLITE_OK);
      continue;
    }
    CHECK(n == 1 && got.data.fd == io_fd); /* 5 s without a completion: stuck */
    sleeps++;
    CHECK(sqlite3_io_poll(any, 0) == SQLITE_OK);
  }

  long long rows = 0;
  for (int t = 0; t < N_TENANTS; t++) {
    tenant_verify(&tenants[t]);
    rows += tenants[t].streamed;
    ios += tenants[t].ios;
    CHECK(sqlite3_close(tenants[t].db) == SQLITE_OK);
    verify_durable(path[t], &tenants[t]);
  }
  close(ep);
  if (uring) CHECK(ios > 0 && sleeps > 0);
  printf("tenants_epoll: %d tenants, %lld rows streamed, SQLITE_IO %lld times, %lld epoll wakeups, %lld EINTR (%s): OK\n",
         N_TENANTS, rows, ios, sleeps, interrupted, uring ? "io_uring" : "sync fallback");
  remove_temp_dir(dir);
  return 0;
}
