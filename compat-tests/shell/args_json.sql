SELECT 1 AS a, 'x' AS b, NULL AS c;
SELECT 2 AS a, 'y' AS b, 3 AS c;
