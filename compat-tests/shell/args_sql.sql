SELECT 'stdin is not read when SQL is given';
