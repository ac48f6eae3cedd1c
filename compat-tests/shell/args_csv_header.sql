SELECT 1 AS a, 'x,y' AS b;
