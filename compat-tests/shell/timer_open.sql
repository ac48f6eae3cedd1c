-- .timer (times masked), .open of a new file, .databases-free checks, .exit
.timer on
SELECT 1;
.timer off
.open --new scratch.db
CREATE TABLE k(x);
INSERT INTO k VALUES (42);
.open scratch.db
SELECT * FROM k;
.open --readonly scratch.db
INSERT INTO k VALUES (1);
.print a printed line
.exit 3
SELECT 'not reached';
