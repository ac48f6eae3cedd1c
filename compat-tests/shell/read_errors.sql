-- errors inside a .read file: counted, and .quit ends everything
.read bad.sql
SELECT 'after read';
.quit
