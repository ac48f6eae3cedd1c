-- .parameter: values bound by name into later statements
SELECT :a, @b, $c, ?1;
.parameter set :a 42
.parameter set @b 'text'
.parameter set $c 2+3
.parameter set ?1 99
.parameter list
SELECT :a, @b, $c, ?1;
SELECT typeof(:a), typeof($c), :missing IS NULL;
.parameter unset :a
SELECT :a IS NULL, @b;
.schema
.tables
.parameter clear
SELECT @b IS NULL;
.parameter list
