-- .width: fixed widths cut long values into lines, negative widths align right
.mode column
.width 5 -6 0
SELECT 1 AS a, 22 AS b, 333 AS c;
SELECT 'abcdefghijkl' AS a, 'x' AS b, 'hello world foo' AS c;
SELECT 'ab' AS a, 'a long value here' AS b;
.mode table
SELECT 'abcdefghijkl' AS a, 12 AS b;
.mode box
SELECT 'abcdefghijkl' AS a, NULL AS b, 'z' AS c;
.mode markdown
SELECT 'abcdefghijkl' AS a, 12 AS b;
.width
SELECT 1 AS a;
.mode column
.width 3
SELECT 'ünïcödé' AS u;
