/* Instruction-count driver (bench/capi/count.sh): the measured work is in timed_loop(). */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((noinline)) long timed_loop(sqlite3*db,const char*q,int n){sqlite3_stmt*st;long sum=0;sqlite3_prepare_v2(db,q,-1,&st,0);for(int k=0;k<n;k++){while(sqlite3_step(st)==SQLITE_ROW)sum+=sqlite3_column_int64(st,0)+sqlite3_column_bytes(st,1);sqlite3_reset(st);}sqlite3_finalize(st);return sum;}
int main(int argc,char**argv){sqlite3*db;unlink("count_scan.db");sqlite3_open("count_scan.db",&db);
sqlite3_exec(db,"CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<50000) INSERT INTO t SELECT i, printf('row %d with some text %d', i, i*7), i*13 FROM n;",0,0,0);
printf("%ld\n",timed_loop(db,argv[1],atoi(argv[2])));return 0;}
