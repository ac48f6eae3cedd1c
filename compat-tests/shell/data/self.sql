.read self.sql
SELECT 1;
