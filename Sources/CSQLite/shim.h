#ifndef SYBIL_CSQLITE_SHIM_H
#define SYBIL_CSQLITE_SHIM_H

#include <sqlite3.h>

// Swift cannot call C variadic functions or use macros that cast integers to function
// pointers, so the few we need are wrapped here as plain inline functions.

/// `sqlite3_db_config` with one int argument and one int* result (e.g. SQLITE_DBCONFIG_ENABLE_FKEY).
static inline int sybil_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/// `SQLITE_TRANSIENT`: SQLite copies bound text/blob bytes before the call returns.
static inline sqlite3_destructor_type sybil_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
