#include "sqlite_fault_vfs.h"

#include <sqlite3.h>

#include <mutex>

namespace strata::testing {
namespace {

SqliteFaults faults;
sqlite3_vfs* real_vfs = nullptr;
sqlite3_vfs fault_vfs;

// Our file: the real VFS's file follows it in the same allocation (szOsFile covers both).
struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real;
  bool wal;
  sqlite3_io_methods methods;
};

sqlite3_file* Real(sqlite3_file* file) { return reinterpret_cast<FaultFile*>(file)->real; }

int Write(sqlite3_file* file, const void* data, int size, sqlite3_int64 offset) {
  if (reinterpret_cast<FaultFile*>(file)->wal) {
    const std::int64_t n = ++faults.writes;
    const std::int64_t fail_at = faults.fail_at.load();
    if (fail_at > 0 && n >= fail_at) {
      faults.fired = true;
      return SQLITE_FULL;
    }
  }
  return Real(file)->pMethods->xWrite(Real(file), data, size, offset);
}
int Close(sqlite3_file* file) { return Real(file)->pMethods->xClose(Real(file)); }
int Read(sqlite3_file* file, void* data, int size, sqlite3_int64 offset) {
  return Real(file)->pMethods->xRead(Real(file), data, size, offset);
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  return Real(file)->pMethods->xTruncate(Real(file), size);
}
int Sync(sqlite3_file* file, int flags) { return Real(file)->pMethods->xSync(Real(file), flags); }
int FileSize(sqlite3_file* file, sqlite3_int64* size) {
  return Real(file)->pMethods->xFileSize(Real(file), size);
}
int Lock(sqlite3_file* file, int level) { return Real(file)->pMethods->xLock(Real(file), level); }
int Unlock(sqlite3_file* file, int level) {
  return Real(file)->pMethods->xUnlock(Real(file), level);
}
int CheckReservedLock(sqlite3_file* file, int* out) {
  return Real(file)->pMethods->xCheckReservedLock(Real(file), out);
}
int FileControl(sqlite3_file* file, int op, void* arg) {
  return Real(file)->pMethods->xFileControl(Real(file), op, arg);
}
int SectorSize(sqlite3_file* file) { return Real(file)->pMethods->xSectorSize(Real(file)); }
int DeviceCharacteristics(sqlite3_file* file) {
  return Real(file)->pMethods->xDeviceCharacteristics(Real(file));
}
int ShmMap(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
  return Real(file)->pMethods->xShmMap(Real(file), region, size, extend, out);
}
int ShmLock(sqlite3_file* file, int offset, int n, int flags) {
  return Real(file)->pMethods->xShmLock(Real(file), offset, n, flags);
}
void ShmBarrier(sqlite3_file* file) { Real(file)->pMethods->xShmBarrier(Real(file)); }
int ShmUnmap(sqlite3_file* file, int remove) {
  return Real(file)->pMethods->xShmUnmap(Real(file), remove);
}
int Fetch(sqlite3_file* file, sqlite3_int64 offset, int size, void** out) {
  return Real(file)->pMethods->xFetch(Real(file), offset, size, out);
}
int Unfetch(sqlite3_file* file, sqlite3_int64 offset, void* data) {
  return Real(file)->pMethods->xUnfetch(Real(file), offset, data);
}

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  auto* ours = reinterpret_cast<FaultFile*>(file);
  ours->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + sizeof(FaultFile));
  ours->wal = (flags & SQLITE_OPEN_WAL) != 0;
  const int result = real_vfs->xOpen(real_vfs, name, ours->real, flags, out_flags);
  if (ours->real->pMethods == nullptr) {
    file->pMethods = nullptr;
    return result;
  }
  sqlite3_io_methods& methods = ours->methods;
  methods = *ours->real->pMethods;
  methods.xClose = Close;
  methods.xRead = Read;
  methods.xWrite = Write;
  methods.xTruncate = Truncate;
  methods.xSync = Sync;
  methods.xFileSize = FileSize;
  methods.xLock = Lock;
  methods.xUnlock = Unlock;
  methods.xCheckReservedLock = CheckReservedLock;
  methods.xFileControl = FileControl;
  methods.xSectorSize = SectorSize;
  methods.xDeviceCharacteristics = DeviceCharacteristics;
  if (methods.iVersion >= 2) {
    methods.xShmMap = ShmMap;
    methods.xShmLock = ShmLock;
    methods.xShmBarrier = ShmBarrier;
    methods.xShmUnmap = ShmUnmap;
  }
  if (methods.iVersion >= 3) {
    methods.xFetch = Fetch;
    methods.xUnfetch = Unfetch;
  }
  file->pMethods = &methods;
  return result;
}

}  // namespace

SqliteFaults& InstallSqliteFaultVfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    real_vfs = sqlite3_vfs_find(nullptr);
    fault_vfs = *real_vfs;
    fault_vfs.zName = "strata-fault";
    fault_vfs.szOsFile = static_cast<int>(sizeof(FaultFile)) + real_vfs->szOsFile;
    fault_vfs.xOpen = Open;
    sqlite3_vfs_register(&fault_vfs, /*makeDflt=*/1);
  });
  return faults;
}

}  // namespace strata::testing
