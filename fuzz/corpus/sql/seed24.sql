SELECT 'a;b' FROM t; -- x;
SELECT - -(5), -9223372036854775808 FROM date; /* ; */ SELECT a FROM t WHERE NOT NOT (a = 1) = (b <> 2)