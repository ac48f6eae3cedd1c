/* Instruction-count driver (bench/capi/count.sh): the measured work is in timed_loop(). */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static unsigned long s=1; static unsigned rnd(void){s=s*6364136223846793005UL+1442695040888963407UL;return (unsigned)(s>>33);}
__attribute__((noinline)) long timed_loop(sqlite3*db,int n){sqlite3_stmt*st;long sum=0;sqlite3_prepare_v2(db,"SELECT DISTINCT a FROM t",-1,&st,0);for(int k=0;k<n;k++){while(sqlite3_step(st)==SQLITE_ROW)sum+=sqlite3_column_int64(st,0);sqlite3_reset(st);}sqlite3_finalize(st);return sum;}
int main(int argc,char**argv){sqlite3*db;unlink("count_distinct.db");sqlite3_open("count_distinct.db",&db);sqlite3_stmt*st;
sqlite3_exec(db,"BEGIN; CREATE TABLE t(a INTEGER, b INTEGER, c TEXT);",0,0,0);sqlite3_prepare_v2(db,"INSERT INTO t VALUES(?1,?2,?3)",-1,&st,0);
int N=atoi(argv[1]);for(int i=0;i<N;i++){sqlite3_bind_int64(st,1,rnd()%(N*5));sqlite3_bind_int64(st,2,i);sqlite3_bind_text(st,3,"some text here",-1,SQLITE_STATIC);sqlite3_step(st);sqlite3_reset(st);}
sqlite3_finalize(st);sqlite3_exec(db,"COMMIT",0,0,0);printf("%ld\n",timed_loop(db,atoi(argv[2])));return 0;}
