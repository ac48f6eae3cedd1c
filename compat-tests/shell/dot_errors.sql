-- dot-command errors and .quit: the exit code says errors happened
.open /nonexistent/dir/x.db
SELECT 1;
.read
.tables extra args
.dump --bogus
.nullvalue
.print "a b" c
.separator
.quit
SELECT 2;
