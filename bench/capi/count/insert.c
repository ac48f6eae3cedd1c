/* Instruction-count driver (bench/capi/count.sh): the measured work is in timed_loop(). */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static unsigned long s=1; static unsigned rnd(void){s=s*6364136223846793005UL+1442695040888963407UL;return (unsigned)(s>>33);}
__attribute__((noinline)) void timed_loop(sqlite3*db,int n,int replace){sqlite3_stmt*st;char buf[100];
if(!replace){sqlite3_exec(db,"BEGIN; CREATE TABLE t(a INTEGER, b INTEGER, c TEXT);",0,0,0);sqlite3_prepare_v2(db,"INSERT INTO t VALUES(?1,?2,?3)",-1,&st,0);
for(int i=0;i<n;i++){unsigned x=rnd()%500000;int len=snprintf(buf,sizeof buf,"%u thousand %u hundred and %u",x/1000,(x/100)%10,x%100);sqlite3_bind_int64(st,1,x);sqlite3_bind_int64(st,2,i);sqlite3_bind_text(st,3,buf,len,SQLITE_STATIC);sqlite3_step(st);sqlite3_reset(st);}}
else{sqlite3_exec(db,"BEGIN; CREATE TABLE r(a INTEGER PRIMARY KEY, b TEXT);",0,0,0);sqlite3_prepare_v2(db,"REPLACE INTO r VALUES(?1,?2)",-1,&st,0);
for(int i=1;i<=n;i++){unsigned k=rnd()%(n/2);int len=snprintf(buf,sizeof buf,"%u thousand %u",k/1000,k%1000);sqlite3_bind_int64(st,1,k);sqlite3_bind_text(st,2,buf,len,SQLITE_STATIC);sqlite3_step(st);sqlite3_reset(st);}}
sqlite3_finalize(st);sqlite3_exec(db,"COMMIT",0,0,0);}
int main(int argc,char**argv){sqlite3*db;unlink("count_insert.db");unlink("count_insert.db-journal");sqlite3_open("count_insert.db",&db);timed_loop(db,atoi(argv[1]),atoi(argv[2]));return 0;}
