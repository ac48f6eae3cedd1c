SELECT 'init missing';
