/* How soon sqlite3_interrupt stops the prepare of a huge statement (issue
** #18): each statement of 1,000,000 items is prepared whole once (timed),
** then again while a second thread calls sqlite3_interrupt every
** millisecond from 20 ms after the prepare began; printed: the prepare's
** result code and how long after the first interrupt it returned. Timing
** only, no assertion (the deterministic test is
** tests/engine/sql_limits_hostile.rs, a_pending_interrupt_stops_the_parse_before_its_end).
**   cc -O2 -o /tmp/int bench/interrupt_prepare.c -Iinclude -Lbuild/lib -l:libsqlite3.so.0 -lpthread
**   LD_LIBRARY_PATH=build/lib /tmp/int     (and build/ref for SQLite)
** Results: bench/RESULTS.md, "Interrupting a huge prepare". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <time.h>
#include "sqlite3.h"
static sqlite3 *db; static volatile int state; static double t_int;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void *intr(void *a){ (void)a; while(!state) usleep(50); usleep(20000); t_int=now(); while(state==1){sqlite3_interrupt(db); usleep(1000);} return 0;}
static char *build(const char *head,const char *term,const char *sep,const char *tail,int n){size_t cap=strlen(head)+strlen(tail)+(size_t)n*(strlen(term)+strlen(sep)+12)+1;char*s=malloc(cap),*p=s;int i;p+=sprintf(p,"%s",head);for(i=0;i<n;i++){if(i)p+=sprintf(p,"%s",sep);p+=sprintf(p,term,i);}sprintf(p,"%s",tail);return s;}
int main(void){
  int n=1000000, k;
  const char *names[]={"IN list","result columns","compound","VALUES in FROM"};
  sqlite3_open(":memory:",&db); sqlite3_exec(db,"CREATE TABLE t(a); INSERT INTO t VALUES(1)",0,0,0);
  for(k=0;k<4;k++){
    char *sql = k==0? build("SELECT a FROM t WHERE a IN (","%d",",",")",n) : k==1? build("SELECT ","%d",","," FROM t",n) : k==2? build("","SELECT %d"," UNION ALL ","",n) : build("INSERT INTO t SELECT 1 FROM (VALUES ","(%d,'x',2.5)",",",")",n);
    sqlite3_stmt *st=0; double t0=now(); int rc=sqlite3_prepare_v2(db,sql,-1,&st,0); double full=now()-t0; if(st) sqlite3_finalize(st);
    pthread_t th; state=0; pthread_create(&th,0,intr,0); t0=now(); state=1; rc=sqlite3_prepare_v2(db,sql,-1,&st,0); double end=now(); state=2; pthread_join(th,0);
    printf("%-15s whole prepare %.3f s; interrupted 20 ms in: rc=%d, returned %.1f ms after the first sqlite3_interrupt\n",names[k],full,rc,(end-t_int)*1000);
    if(st) sqlite3_finalize(st); free(sql);
  }
  return 0;
}
