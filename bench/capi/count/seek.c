/* Instruction-count driver (bench/capi/count.sh): the measured work is in timed_loop(), argv[1] run argv[2] times, bound to a pseudo-random rowid of the 50,000-row table each time. */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) long timed_loop(sqlite3*db,const char*q,int n){sqlite3_stmt*st;long sum=0;sqlite3_prepare_v2(db,q,-1,&st,0);for(int k=0;k<n;k++){sqlite3_bind_int(st,1,(k*7919)%50000+1);while(sqlite3_step(st)==SQLITE_ROW)sum+=sqlite3_column_int64(st,0);sqlite3_reset(st);}sqlite3_finalize(st);return sum;}
int main(int argc,char**argv){sqlite3*db;unlink("count_seek.db");sqlite3_open("count_seek.db",&db);
sqlite3_exec(db,"CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<50000) INSERT INTO t SELECT i, i*13, printf('row %d with some text %d', i, i*7) FROM n; SELECT count(*) FROM t;",0,0,0);
printf("%ld\n",timed_loop(db,argv[1],atoi(argv[2])));return 0;}
