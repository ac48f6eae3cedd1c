/* R*Tree query functions: sqlite3_rtree_query_callback (depth-first and
** breadth-first scores, FULLY/PARTLY/NOT_WITHIN, pUser freed at the end of
** each query, the destructor of the context on replacement and close) and
** the legacy sqlite3_rtree_geometry_callback. Entries of equal score come
** back in an order neither library promises, so rows are sorted, and the
** score order is checked through the sequence of scores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static int n_deluser = 0, n_destroy = 0, n_calls = 0;

static void del_user(void *p) { n_deluser++; free(p); }
static void destroy_ctx(void *p) { (void)p; n_destroy++; }

/* circle(x, y, r [, breadth]): a box is FULLY_WITHIN if its four corners
** are inside, NOT_WITHIN if its nearest point is outside. */
static int circle_query(sqlite3_rtree_query_info *p) {
  double x, y, r, dx, dy, nx, ny;
  int inside = 0, i;
  n_calls++;
  if (p->nParam < 3) return SQLITE_ERROR;
  if (p->pUser == 0) {
    p->pUser = malloc(16);
    p->xDelUser = del_user;
  }
  x = p->aParam[0]; y = p->aParam[1]; r = p->aParam[2];
  nx = x < p->aCoord[0] ? p->aCoord[0] : (x > p->aCoord[1] ? p->aCoord[1] : x);
  ny = y < p->aCoord[2] ? p->aCoord[2] : (y > p->aCoord[3] ? p->aCoord[3] : y);
  dx = nx - x; dy = ny - y;
  if (dx * dx + dy * dy > r * r) { p->eWithin = NOT_WITHIN; return SQLITE_OK; }
  for (i = 0; i < 4; i++) {
    double cx = p->aCoord[i & 1], cy = p->aCoord[2 + (i >> 1)];
    if ((cx - x) * (cx - x) + (cy - y) * (cy - y) <= r * r) inside++;
  }
  p->eWithin = inside == 4 ? FULLY_WITHIN : PARTLY_WITHIN;
  if (p->nParam > 3 && sqlite3_value_int(p->apSqlParam[3]) == 1)
    p->rScore = p->mxLevel - p->iLevel;
  else if (p->nParam > 3 && sqlite3_value_int(p->apSqlParam[3]) == 2)
    p->rScore = p->iLevel == 0 ? (double)(p->iRowid % 7) : 0.0; /* entries by id mod 7 */
  else
    p->rScore = p->iLevel;
  return SQLITE_OK;
}

static int fails_query(sqlite3_rtree_query_info *p) { (void)p; return SQLITE_NOMEM; }

static int box_geom(sqlite3_rtree_geometry *g, int n, sqlite3_rtree_dbl *a, int *res) {
  if (n != 4 || g->nParam != 4) return SQLITE_ERROR;
  *res = !(a[1] < g->aParam[0] || a[0] > g->aParam[1] || a[3] < g->aParam[2] || a[2] > g->aParam[3]);
  return SQLITE_OK;
}

static void q(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0), n = 0;
  printf("%s\n ", sql);
  if (rc) { printf("prepare error %d %s\n", rc, sqlite3_errmsg(db)); return; }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    printf(" %s", (const char *)sqlite3_column_text(st, 0));
    n++;
  }
  if (rc != SQLITE_DONE) printf(" error %d %s", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  printf(" (%d rows)\n", n);
}

int main(void) {
  sqlite3 *db;
  int i, rc;
  char sql[200];
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db, "CREATE VIRTUAL TABLE rt USING rtree(id, x0, x1, y0, y1); BEGIN", 0, 0, 0);
  for (i = 1; i <= 400; i++) {
    double x = (i * 37) % 100, y = (i * 61) % 100;
    sprintf(sql, "INSERT INTO rt VALUES(%d, %g, %g, %g, %g)", i, x, x + (i % 3), y, y + (i % 5));
    sqlite3_exec(db, sql, 0, 0, 0);
  }
  sqlite3_exec(db, "COMMIT", 0, 0, 0);
  rc = sqlite3_rtree_query_callback(db, "circle", circle_query, (void *)1, destroy_ctx);
  printf("register circle: %d\n", rc);
  rc = sqlite3_rtree_geometry_callback(db, "box", box_geom, 0);
  printf("register box: %d\n", rc);
  q(db, "SELECT id FROM rt WHERE id MATCH circle(50, 50, 12) ORDER BY id");
  q(db, "SELECT id FROM rt WHERE id MATCH circle(50, 50, 12, 1) ORDER BY id");
  q(db, "SELECT id FROM rt WHERE id MATCH circle(20, 70, 15, 2) ORDER BY id");
  q(db, "SELECT group_concat(id % 7, '') FROM (SELECT id FROM rt WHERE id MATCH circle(20, 70, 15, 2))");
  q(db, "SELECT id FROM rt WHERE x0 MATCH circle(50, 50, 12) AND y0 > 50 ORDER BY id");
  q(db, "SELECT count(*) FROM rt WHERE id MATCH circle(0, 0, 1000)");
  q(db, "SELECT id FROM rt WHERE id MATCH box(10, 30, 40, 45)");
  q(db, "SELECT id FROM rt WHERE id MATCH box(10, 30, 40, 45) AND id MATCH circle(20, 40, 10)");
  q(db, "SELECT id FROM rt WHERE id MATCH circle(1, 2)");
  q(db, "SELECT id FROM rt WHERE id MATCH 5");
  q(db, "SELECT count(*) FROM rt WHERE id MATCH circle(50, 50, 12) AND id IN (SELECT id FROM rt WHERE id MATCH circle(40, 40, 12))");
  printf("pUser freed %d times (one per query that set it)\n", n_deluser);
  printf("callback called: %s\n", n_calls > 0 ? "yes" : "no");
  rc = sqlite3_rtree_query_callback(db, "fails", fails_query, 0, 0);
  q(db, "SELECT id FROM rt WHERE id MATCH fails(1)");
  rc = sqlite3_rtree_query_callback(db, "circle", circle_query, (void *)2, destroy_ctx);
  printf("replaced circle: %d, destructor calls %d\n", rc, n_destroy);
  q(db, "SELECT count(*) FROM rt WHERE id MATCH circle(50, 50, 30)");
  sqlite3_close(db);
  printf("after close: destructor calls %d\n", n_destroy);
  return 0;
}
