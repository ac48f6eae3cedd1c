-- .bail on: the first error stops the script, exit code 1
SELECT 'before';
SELECT nosuchfunc(1);
SELECT 'still running';
.bail on
SELECT 'bail is on';
SELECT * FROM nowhere_table;
SELECT 'never printed';
