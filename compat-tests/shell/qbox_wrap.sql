-- qbox and the columnar modes' wrapping at 60 characters; .mode reports the options
.mode qbox
SELECT 1 AS a, 'it''s' AS b, NULL AS c, x'01ff' AS d, 2.5 AS e, printf('%.80c','x') AS long;
SELECT 'word '||printf('%.70c','y') AS w;
.mode
.mode box
SELECT printf('%.70c','x') AS long, 'short' AS s;
.mode
.mode column
SELECT printf('%.130c','z') AS long;
.mode table --wrap 10
SELECT 'abcdefghijklmnopqrstuvwxyz' AS alpha, 'it''s' AS q;
.mode table --wrap 10 --quote
SELECT 'abcdefghijklmnopqrstuvwxyz' AS alpha, 'it''s' AS q;
.mode
.mode markdown --wrap 0
SELECT printf('%.70c','m') AS long;
.mode list
.mode
