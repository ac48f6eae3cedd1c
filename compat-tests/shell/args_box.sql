SELECT printf('%.70c','x') AS long, NULL AS n;
