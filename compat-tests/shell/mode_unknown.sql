-- .mode with an unknown name lists the modes ringlite has
.mode nosuchmode
.mode quote
SELECT 1, 2.5;
