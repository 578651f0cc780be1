// The rollup store: a folder of rollups, each a folder of Parquet files plus the manifest that
// names the files of its current version (docs/rollup-store.md has the layout and the rules).
//
//   <store>/<rollup>/manifest.json        the current version (rollup/manifest.h)
//   <store>/<rollup>/<label>-<stamp>-<pid>-<n>-<random>.parquet   data files, never reused names
//   <store>/<rollup>/.lock                the build lock (base/file_lock.h; holder pid inside)
//   <store>/<rollup>/.readers             the reader lock (shared flock per reader lease)
//
// A build:
//   STRATA_ASSIGN_OR_RETURN(BuildLock lock, store.LockForBuild(name));   // whole build
//   STRATA_ASSIGN_OR_RETURN(auto previous, store.Load(name));           // to keep old periods
//   for each period: path = store.NewFilePath(name, "2026-04"); COPY ... TO path; ChecksumFile
//   STRATA_ASSIGN_OR_RETURN(auto version, store.Publish(lock, manifest));
//   store.CollectGarbage(lock);                                          // old files, if unread
// A query:
//   STRATA_ASSIGN_OR_RETURN(auto lease, store.OpenForRead(name));  // nullopt: never built
//   ... DuckDB reads lease->FilePath(file) for the files of lease->manifest() ...
//   lease.reset();  // after the last statement that reads the files
//
// Crash safety: Publish replaces manifest.json by rename(2) of a complete, fsynced temp file and
// then fsyncs the folder, after fsyncing every file the new manifest references. A crash (or
// SIGKILL) at any point leaves the old manifest or the new one in force, never a mix, and every
// file the manifest in force references exists with its recorded size. A crashed build leaves at
// most unreferenced files and a "manifest.json.tmp-*"; CollectGarbage removes them.
//
// Concurrency: builds of one rollup are serialized by the build lock (across processes and within
// one: each lock is its own open file description). Readers never wait for a build; a reader sees
// the manifest that was current when it opened it, and the files of that manifest stay until its
// lease ends: CollectGarbage deletes files only while it holds the reader lock exclusively, which
// it takes without waiting (so a garbage collection never blocks a query; steadily overlapping
// readers postpone it to a later build). Locks are flock(2): the kernel drops them when the
// process dies, so no lock is ever stale. Lock descriptors are O_CLOEXEC; a child made by fork()
// without exec shares the parent's locks until it exits (flock semantics).
//
// Thread safety: RollupStore holds only its root and is safe to use from any number of threads.
// BuildLock and ReaderLease are move-only values with one owner at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/env.h"
#include "base/file_lock.h"
#include "base/result.h"
#include "project/project.h"
#include "rollup/manifest.h"

namespace strata::rollup {

// The environment variable that overrides the store folder (the seed's name).
inline constexpr char kStoreDirEnv[] = "ENGINE_ROLLUP_STORE_DIR";

// The store folder: `env_value` (the value of ENGINE_ROLLUP_STORE_DIR) when set and not empty,
// made absolute against the current directory; else config.rollup_store_dir (`[rollups]
// store_dir` resolved against the project folder, default <project>/.strata/rollups).
std::filesystem::path ResolveStoreDir(const project::ProjectConfig& config,
                                      std::optional<std::string_view> env_value);
// ResolveStoreDir with the process's ENGINE_ROLLUP_STORE_DIR.
std::filesystem::path ResolveStoreDir(const project::ProjectConfig& config);

// Whether `name` can be a rollup folder: 1..128 of [A-Za-z0-9_-], not starting with '-'.
bool IsValidRollupName(std::string_view name);

// The size and XXH3-64 checksum (16 lowercase hex digits) of a file's bytes, read in chunks.
struct FileDigest {
  std::uint64_t bytes = 0;
  std::string checksum;
};
// Errors: kIo (with the OS's reason) when the file cannot be opened or read.
Result<FileDigest> ChecksumFile(const std::filesystem::path& path);

// The exclusive build lock of one rollup. Move-only; released by the destructor or Release().
// May outlive the RollupStore that made it.
class BuildLock {
 public:
  BuildLock() = default;  // holds nothing
  BuildLock(BuildLock&& other) noexcept = default;
  BuildLock& operator=(BuildLock&& other) noexcept = default;
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;
  ~BuildLock() = default;

  bool held() const { return lock_.held(); }
  const std::string& rollup() const { return rollup_; }
  // The locked rollup's folder (RollupStore::FolderOf of the store that took the lock).
  const std::filesystem::path& folder() const { return folder_; }
  // The file system the lock was taken through (the store's Env).
  Env& env() const { return lock_.env(); }
  void Release() { lock_.Release(); }

 private:
  friend class RollupStore;
  BuildLock(FileLock lock, std::string rollup, std::filesystem::path folder)
      : lock_(std::move(lock)), rollup_(std::move(rollup)), folder_(std::move(folder)) {}
  FileLock lock_;  // base/file_lock.h: the flock and the holder record
  std::string rollup_;
  std::filesystem::path folder_;
};

// A reader's hold on one manifest: while it lives, no file of manifest() is deleted. Move-only;
// released by the destructor or Release().
class ReaderLease {
 public:
  ReaderLease() = default;  // holds nothing
  ReaderLease(ReaderLease&& other) noexcept;
  ReaderLease& operator=(ReaderLease&& other) noexcept;
  ReaderLease(const ReaderLease&) = delete;
  ReaderLease& operator=(const ReaderLease&) = delete;
  ~ReaderLease();

  bool held() const { return fd_ >= 0; }
  const Manifest& manifest() const { return manifest_; }
  // The rollup's folder (absolute when the store root is); manifest paths are relative to it.
  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path FilePath(const ManifestFile& file) const { return folder_ / file.path; }
  // Releases the hold; manifest() stays readable, but its files may then be deleted.
  void Release();

 private:
  friend class RollupStore;
  ReaderLease(int fd, Env& env, Manifest manifest, std::filesystem::path folder)
      : fd_(fd), env_(&env), manifest_(std::move(manifest)), folder_(std::move(folder)) {}
  int fd_ = -1;
  Env* env_ = &Env::Default();
  Manifest manifest_;
  std::filesystem::path folder_;
};

// The identity of the version of a rollup's manifest.json: Publish renames a new file into
// place, so every publish changes it (another inode, and a new ctime even if the number is
// reused). For caches of parsed manifests (rollup/manifest_cache.h).
struct ManifestStamp {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const ManifestStamp& other) const = default;
};

struct StampedManifest {
  Manifest manifest;
  ManifestStamp stamp;  // of the file version `manifest` was parsed from
};

// What a garbage collection did.
struct GarbageReport {
  int removed = 0;  // unreferenced data files and stale temp manifests deleted
  int kept = 0;     // unreferenced data files left because a reader holds a lease (or a build runs)
  bool readers_active = false;  // the reader lock was held by someone: data files were kept
  bool build_running = false;   // CollectGarbage(rollup) found a build holding the lock
  std::string summary;          // one line for logs: "removed 3 files", "kept 2 files: ..."
};

class RollupStore {
 public:
  // `root` is the store folder (ResolveStoreDir). Nothing is created until something is written.
  // Every file operation of the store's own (manifests, locks, renames, fsync, collection) goes
  // through `env`, which must outlive the store and its locks and leases. The Parquet files are
  // written by DuckDB and read by ChecksumFile directly.
  explicit RollupStore(std::filesystem::path root, Env& env = Env::Default());

  const std::filesystem::path& root() const { return root_; }
  // The file system the store's own files go through.
  Env& env() const { return *env_; }
  // <root>/<rollup>. REQUIRES: IsValidRollupName(rollup) (unchecked here).
  std::filesystem::path FolderOf(std::string_view rollup) const { return root_ / rollup; }

  // The rollup's current manifest; nullopt when it was never published (no folder or no
  // manifest.json). Errors: kConfig for a name that is not IsValidRollupName; kIo when the file
  // cannot be read; kRollupManifest when it does not parse or validate, or names another rollup.
  Result<std::optional<Manifest>> Load(std::string_view rollup) const;

  // A new, never-used path <root>/<rollup>/<period_label>-<UTC stamp>-<pid>-<n>-<random>.parquet
  // for one file of a build, creating the rollup folder. Nothing is written at the path. Labels
  // are the builder's ("2026-04", "all", "null"): 1..64 of [A-Za-z0-9_.-]. Errors: kConfig for a
  // bad rollup name, kInternal for a bad label, kIo when the folder cannot be created.
  Result<std::filesystem::path> NewFilePath(std::string_view rollup,
                                            std::string_view period_label) const;

  // Takes the rollup's build lock without waiting, creating the folder and .lock, and records
  // this process's pid and the time in it. Errors: kRollupLocked when another holder has it
  // (another process, or another BuildLock in this one), naming its pid and since when; kConfig
  // for a bad name; kIo when the lock file cannot be created, locked or written.
  Result<BuildLock> LockForBuild(std::string_view rollup) const;

  // Makes `manifest` the rollup's current version, atomically (see crash safety above), with
  // version = the previous manifest's version + 1 (1 when none, or when the previous one is
  // unreadable); returns that version. Every referenced file is checked to exist with its
  // recorded bytes and fsynced first. The checksum is not recomputed (use ChecksumFile when
  // writing the file). Also creates the reader lock file, so that a read-only mount of the store
  // can serve leases. REQUIRES: `lock` is held for manifest.rollup in this store.
  // Errors: kInternal when `lock` is not held or is for another rollup or store; kRollupManifest
  // when ValidateManifest refuses `manifest` or a file's size differs from its `bytes`; kIo when a
  // file is missing or the manifest cannot be written or synced (the previous manifest stays in
  // force), or when the folder's sync after the rename fails (the new one is in force, its
  // durability unknown: the next publish syncs the folder again).
  Result<std::int64_t> Publish(const BuildLock& lock, Manifest manifest) const;

  // Checks that every file of `manifest` is in the rollup's folder with its recorded bytes and,
  // with `checksums`, its recorded checksum (reads every byte). For `strata rollups status` and
  // tests; queries rely on DuckDB's own read errors instead. Errors: kIo for a missing or
  // unreadable file; kRollupManifest for a size or checksum that differs; each names the file.
  Status VerifyFiles(const Manifest& manifest, bool checksums) const;

  // The stamp of the rollup's manifest.json now (one stat(2)); nullopt when never built.
  // Errors: kConfig for a bad name; kIo when it cannot be stat'ed.
  Result<std::optional<ManifestStamp>> Stamp(std::string_view rollup) const;
  // Load, with the stamp of the file version read. Errors: as Load.
  Result<std::optional<StampedManifest>> LoadStamped(std::string_view rollup) const;

  // A reader lease on `cached` (from LoadStamped, perhaps long ago) when it is still the
  // rollup's current version: takes the reader lock as OpenForRead does, then compares the
  // manifest's stamp. nullopt when it changed since (the caller loads again): a garbage
  // collection may have removed the cached version's files. Costs one stat(2) and the lock, no
  // parse. Errors: as OpenForRead.
  Result<std::optional<ReaderLease>> OpenForReadIfCurrent(std::string_view rollup,
                                                          const StampedManifest& cached) const;

  // Loads the current manifest under a reader lease. nullopt when never built. Waits only while a
  // garbage collection holds the reader lock (a few unlink calls). Errors: as Load; kIo when the
  // reader lock cannot be opened or taken.
  Result<std::optional<ReaderLease>> OpenForRead(std::string_view rollup) const;

  // Removes from the rollup folder the stale temp manifests and, when no reader holds a lease
  // (the reader lock is taken exclusively without waiting), every data file (*.parquet) the
  // current manifest does not reference: old versions' files and files of crashed builds. Other
  // files are never touched. With readers active the data files are kept for the next call and
  // the report says so. REQUIRES: `lock` is held for the rollup (no build is writing files).
  // Errors: kInternal for a lock not held; kRollupManifest when the current manifest is unreadable
  // (nothing is removed then); kIo when the folder cannot be listed or a file removed.
  Result<GarbageReport> CollectGarbage(const BuildLock& lock) const;

  // CollectGarbage under a build lock it takes itself without waiting; when a build holds the
  // lock, nothing is removed and the report has build_running. A rollup never built and without
  // folder is an empty report.
  Result<GarbageReport> CollectGarbage(std::string_view rollup) const;

 private:
  // Opens and share-locks the rollup's reader lock (waiting out a garbage collection).
  Result<int> LockForReading(const std::filesystem::path& folder) const;

  std::filesystem::path root_;
  Env* env_;
};

}  // namespace strata::rollup
