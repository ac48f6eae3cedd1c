-- a file that .reads itself stops at the nesting limit (no stack overflow)
.read self.sql
SELECT 'after';
