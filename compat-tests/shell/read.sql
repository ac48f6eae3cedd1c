-- .read runs a file's statements; errors inside it name its lines
.read sub.sql
.headers on
.read sub.sql
.read missing.sql
SELECT 'end';
