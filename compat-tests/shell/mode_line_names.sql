-- line mode pads names to the longest name's bytes
SELECT 1 AS "ünï", 2 AS a;
.mode line
SELECT 1 AS "ünï", 2 AS a, 3 AS "a long column name";
