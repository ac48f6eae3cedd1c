-- a dump read back into a fresh database dumps the same
.read dump_input.sql
.dump
SELECT count(*), sum(a) FROM t;
