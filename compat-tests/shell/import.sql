-- .import: new table from a CSV header, --skip, existing table, short and long rows
.import --csv people.csv people
.schema people
.mode quote
SELECT * FROM people;
CREATE TABLE p2(id INTEGER, name TEXT, score INTEGER);
.import --csv --skip 1 people.csv p2
SELECT id, typeof(id), name, score, typeof(score) FROM p2;
.mode list
.import pipes.txt pipes
SELECT * FROM pipes;
.mode csv
.import people.csv viacsvmode
SELECT count(*) FROM viacsvmode;
.import nosuchfile.csv x
