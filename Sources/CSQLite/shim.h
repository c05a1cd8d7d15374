#ifndef TOKENCACHE_CSQLITE_SHIM_H
#define TOKENCACHE_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import as a macro.
static inline sqlite3_destructor_type tokencache_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// An acquire load of a 32-bit word another process may be writing (SQLite's shared-memory WAL
// index, mapped read-only by the store to notice commits without a query).
static inline unsigned int tokencache_load_acquire_u32(const void *address) {
    return __atomic_load_n((const unsigned int *)address, __ATOMIC_ACQUIRE);
}

// SQLite's own mapping of the first region of a WAL database's shared-memory index (its header is
// documented in "WAL-Index Format"), reached through the public VFS interface. Valid while the
// connection stays open. Reusing SQLite's mapping matters: opening and closing another descriptor
// of the -shm file would drop the process's POSIX locks on it, SQLite's included.
static inline const void *tokencache_wal_index(sqlite3 *db) {
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
static inline int tokencache_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* RENAME_NOREPLACE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
