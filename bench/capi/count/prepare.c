/* Instruction-count driver (bench/capi/count.sh): the measured work is in timed_loop(). */
#include "sqlite3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const char *SIMPLE="SELECT b FROM t WHERE a = ?1";
static const char *COMPLEX="SELECT c.region, i.label, count(*) AS n, sum(o.qty * i.price) AS revenue,\n       max(CASE WHEN o.qty > 5 THEN o.qty ELSE 0 END) AS big_qty\n  FROM orders o JOIN customers c ON c.id = o.cust JOIN items i ON i.id = o.item\n WHERE i.price BETWEEN ?1 AND ?2 AND c.name LIKE 'a%' AND o.id NOT IN (SELECT id FROM orders WHERE qty = 0)\n GROUP BY c.region, i.label HAVING count(*) > 1\n ORDER BY revenue DESC, c.region LIMIT 20";
/* qs[i % nq]: nq = 1 prepares the same text again and again; nq = n gives each prepare a text of its own (the statement and a distinct comment). */
__attribute__((noinline)) void timed_loop(sqlite3*db,char**qs,int nq,int n){for(int i=0;i<n;i++){sqlite3_stmt*s;if(sqlite3_prepare_v2(db,qs[i%nq],-1,&s,0))abort();sqlite3_finalize(s);}}
int main(int argc,char**argv){sqlite3*db;unlink("count_prepare.db");sqlite3_open("count_prepare.db",&db);
sqlite3_exec(db,"CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, region INTEGER);CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT, price INTEGER);CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INTEGER, item INTEGER, qty INTEGER);CREATE TABLE big(g INTEGER, v INTEGER);",0,0,0);
const char*q=strcmp(argv[1],"simple")==0?SIMPLE:COMPLEX; int n=atoi(argv[2]); int distinct=argc>3&&strcmp(argv[3],"distinct")==0;
int nq=distinct?n+10:1; char**qs=malloc(sizeof(char*)*nq); for(int i=0;i<nq;i++){qs[i]=malloc(strlen(q)+32); if(distinct) sprintf(qs[i],"%s /* %d */",q,i); else strcpy(qs[i],q);}
timed_loop(db,qs+(nq-(distinct?10:1)),distinct?10:1,10); timed_loop(db,qs,distinct?n:1,n); return 0;}
