#ifndef TOKENCACHE_CSQLITE_SHIM_H
#define TOKENCACHE_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import as a macro.
static inline sqlite3_destructor_type tc_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// An acquire load of a 32-bit word another process may be writing (SQLite's shared-memory WAL
// index, mapped read-only by the store to notice commits without a query).
static inline unsigned int tc_load_acquire_u32(const void *address) {
    return __atomic_load_n((const unsigned int *)address, __ATOMIC_ACQUIRE);
}

// SQLite's own mapping of the first region of a WAL database's shared-memory index (its header is
// documented in "WAL-Index Format"), reached through the public VFS interface. Valid while the
// connection stays open. Reusing SQLite's mapping matters: opening and closing another descriptor
// of the -shm file would drop the process's POSIX locks on it, SQLite's included.
static inline const void *tc_wal_index(sqlite3 *db) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
    if (file == 0 || file->pMethods == 0 || file->pMethods->iVersion < 2 || file->pMethods->xShmMap == 0) return 0;
    volatile void *region = 0;
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return (const void *)region;
}

// Renames `from` to `to` unless `to` exists (renameat2 with RENAME_NOREPLACE): the store's
// publication step where the file system has no hard links. Returns 0, or -1 with errno set
// (ENOSYS where the system has no such call).
static inline int tc_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* RENAME_NOREPLACE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

// The descriptor SQLite itself reads the database (`journal` 0) or its write-ahead log (`journal`
// 1) through, or -1 when that file is not open or the VFS is not the unix one. fstat(2) on it
// checks the very file SQLite uses; opening and closing another descriptor of the file instead
// would drop this process's POSIX locks on it, SQLite's included. Relies on the unix VFS keeping
// the descriptor as the fourth member of its file object (unchanged since SQLite 3.6); the caller
// verifies the result against the path.
static inline int tc_sqlite_descriptor(sqlite3 *db, int journal) {
    sqlite3_vfs *vfs = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || vfs == 0) return -1;
    if (vfs->zName == 0 || vfs->zName[0] != 'u' || vfs->zName[1] != 'n' || vfs->zName[2] != 'i' || vfs->zName[3] != 'x') return -1;
    sqlite3_file *file = 0;
    int op = journal ? SQLITE_FCNTL_JOURNAL_POINTER : SQLITE_FCNTL_FILE_POINTER;
    if (sqlite3_file_control(db, "main", op, &file) != SQLITE_OK || file == 0 || file->pMethods == 0) return -1;
    struct tc_unix_file_prefix { const sqlite3_io_methods *methods; sqlite3_vfs *vfs; void *inode; int fd; };
    return ((const struct tc_unix_file_prefix *)file)->fd;
}


// tokencache_plain(account): 1 when the value is text that is "plain" as CacheStore's LeftOutItems
// defines it (ASCII without NUL or capital letters, no white space at either end), else 0. One
// pass over the bytes: the same test in SQL (lower, length, trim) costs SQLite several times as much.
static inline int tc_is_space(unsigned char c) { return c == 0x20 || (c >= 0x09 && c <= 0x0D); }

static inline void tc_plain(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) { sqlite3_result_int(context, 0); return; }
    const unsigned char *text = sqlite3_value_text(argv[0]);
    int count = sqlite3_value_bytes(argv[0]);
    if (text == 0 || count == 0) { sqlite3_result_int(context, count == 0); return; }
    if (tc_is_space(text[0]) || tc_is_space(text[count - 1])) { sqlite3_result_int(context, 0); return; }
    // Eight bytes at a time (accounts are about a hundred bytes): a byte of 0x80 or more, a NUL,
    // or one from 'A' (0x41) to 'Z' (0x5A). With the high bits clear, adding 0x3F sets a byte's high
    // bit from 0x41 up and adding 0x25 from 0x5B up, with no carry into the next byte.
    const unsigned long long high = 0x8080808080808080ULL, ones = 0x0101010101010101ULL;
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        unsigned long long word;
        memcpy(&word, text + i, 8);
        if ((word & high) != 0 || ((word - ones) & ~word & high) != 0
            || ((word + 0x3F * ones) & ~(word + 0x25 * ones) & high) != 0) {
            sqlite3_result_int(context, 0);
            return;
        }
    }
    for (; i < count; i++) {
        unsigned char c = text[i];
        if (c == 0 || c >= 0x80 || (c >= 'A' && c <= 'Z')) { sqlite3_result_int(context, 0); return; }
    }
    sqlite3_result_int(context, 1);
}

// Registers the functions above on a connection.
static inline int tc_register_functions(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "tokencache_plain", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      0, tc_plain, 0, 0, 0);
}

#endif
