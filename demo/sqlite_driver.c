/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sqlite_driver — the main job's workload: real SQLite code doing a
 * realistic mix on an in-memory database, for a few CPU-seconds.
 *
 *   sqlite_driver [ROWS]      (default 200000; work grows about linearly)
 *
 * Linked against the distribution's libsqlite3.a, so SQLite's functions are
 * in the executable; the C library's (memcmp, memmove, ...) are in libc.so.
 * Phases: bulk insert in one transaction, two index builds, grouped and
 * sorted aggregate queries, point lookups through the index, an update.
 * Prints a checksum of the query results, so the work cannot be skipped.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static sqlite3 *db;

static void exec(const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sqlite_driver: %s: %s\n", sql, msg ? msg : "error");
		exit(1);
	}
}

static sqlite3_stmt *prepare(const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlite_driver: %s: %s\n", sql, sqlite3_errmsg(db));
		exit(1);
	}
	return st;
}

/* Sum of every column of every row, as a checksum. */
static double run_query(const char *sql)
{
	sqlite3_stmt *st = prepare(sql);
	double sum = 0;
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < sqlite3_column_count(st); i++)
			sum += sqlite3_column_double(st, i) + sqlite3_column_bytes(st, i);
	sqlite3_finalize(st);
	return sum;
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 200000;
	if (rows < 1)
		rows = 1;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	exec("PRAGMA cache_size=-200000");
	exec("CREATE TABLE orders(id INTEGER PRIMARY KEY, customer TEXT, region INTEGER,"
	     " amount REAL, note TEXT)");

	/* Bulk insert in one transaction. */
	exec("BEGIN");
	sqlite3_stmt *ins = prepare("INSERT INTO orders(customer, region, amount, note)"
				    " VALUES(?1, ?2, ?3, ?4)");
	unsigned seed = 12345;
	char cust[32], note[64];
	for (long i = 0; i < rows; i++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(cust, sizeof cust, "customer-%05u", (seed >> 8) % 20000);
		snprintf(note, sizeof note, "order %ld note %08x padding text", i, seed);
		sqlite3_bind_text(ins, 1, cust, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 2, (int)((seed >> 4) % 50));
		sqlite3_bind_double(ins, 3, (double)((seed >> 12) % 100000) / 100.0);
		sqlite3_bind_text(ins, 4, note, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return 1;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	exec("COMMIT");

	/* Index builds. */
	exec("CREATE INDEX orders_customer ON orders(customer)");
	exec("CREATE INDEX orders_region_amount ON orders(region, amount)");

	/* Grouped and sorted queries. */
	double sum = 0;
	for (int pass = 0; pass < 3; pass++) {
		sum += run_query("SELECT region, count(*), sum(amount), avg(amount) FROM orders"
				 " GROUP BY region ORDER BY 3 DESC");
		sum += run_query("SELECT customer, count(*), max(amount) FROM orders"
				 " GROUP BY customer HAVING count(*) > 2 ORDER BY customer");
		sum += run_query("SELECT note FROM orders WHERE amount > 500"
				 " ORDER BY note LIMIT 2000");
		sum += run_query("SELECT count(DISTINCT customer), sum(length(note)) FROM orders");
	}

	/* Point lookups through the index. */
	sqlite3_stmt *look = prepare("SELECT sum(amount) FROM orders WHERE customer = ?1");
	for (long i = 0; i < rows / 4; i++) {
		snprintf(cust, sizeof cust, "customer-%05ld", (i * 7919) % 20000);
		sqlite3_bind_text(look, 1, cust, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(look) == SQLITE_ROW)
			sum += sqlite3_column_double(look, 0);
		sqlite3_reset(look);
	}
	sqlite3_finalize(look);

	exec("UPDATE orders SET amount = amount * 1.01 WHERE region % 7 = 3");
	sum += run_query("SELECT sum(amount) FROM orders");
	printf("sqlite_driver: %ld rows, checksum %.2f\n", rows, sum);
	sqlite3_close(db);
	return 0;
}
