SELECT 'from stdin', 2;
