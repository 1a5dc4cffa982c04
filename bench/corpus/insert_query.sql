-- insert_query.sql — sqlite3 on an in-memory database (every page through
-- malloc): @ROWS@ rows inserted by a recursive CTE, two indexes built, then
-- point queries, a join, grouping, an update and a delete. corpus.sh replaces
-- @ROWS@.
PRAGMA cache_size = -65536;
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, owner INTEGER, price REAL, note TEXT);
CREATE TABLE owner(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @ROWS@ / 20)
INSERT INTO owner SELECT x, 'owner' || x, 'city' || (x % 97) FROM c;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @ROWS@)
INSERT INTO item SELECT x, printf('%08x', (x * 2654435761) % 4294967296), 1 + (x * 7919) % (@ROWS@ / 20),
  ((x * 48271) % 100000) / 100.0, substr('lorem ipsum dolor sit amet consectetur', 1 + x % 20) FROM c;
CREATE INDEX item_name ON item(name);
CREATE INDEX item_owner ON item(owner, price);
SELECT count(*) FROM item WHERE name BETWEEN '1' AND '7';
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @ROWS@ / 4)
SELECT sum(length(i.note)) FROM c JOIN item i ON i.id = (c.x * 7919) % @ROWS@ + 1;
SELECT o.city, count(*), round(avg(i.price), 2) FROM item i JOIN owner o ON o.id = i.owner
  GROUP BY o.city ORDER BY 2 DESC LIMIT 5;
SELECT owner, group_concat(name, ',') FROM item WHERE owner % 50 = 0 GROUP BY owner ORDER BY owner LIMIT 3;
UPDATE item SET note = note || ' updated', price = price * 1.1 WHERE id % 3 = 0;
DELETE FROM item WHERE id % 5 = 0;
SELECT count(*), round(sum(price), 2) FROM item;
