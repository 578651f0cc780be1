#include "rollup/store.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>

namespace strata::rollup {
namespace {

constexpr char kManifestName[] = "manifest.json";
constexpr char kBuildLockName[] = ".lock";
constexpr char kReaderLockName[] = ".readers";
constexpr char kTempManifestPrefix[] = "manifest.json.tmp-";

bool IsNameCharacter(char c, bool allow_dot) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || (allow_dot && c == '.');
}

bool IsValidLabel(std::string_view label) {
  if (label.empty() || label.size() > 64 || label.front() == '.') return false;
  for (char c : label) {
    if (!IsNameCharacter(c, /*allow_dot=*/true)) return false;
  }
  return true;
}

Status CheckRollupName(std::string_view rollup) {
  if (IsValidRollupName(rollup)) return OkStatus();
  return MakeError(
      ErrorCode::kConfig,
      fmt::format("rollup name \"{}\" cannot name a folder of the rollup store", rollup),
      "use 1 to 128 letters, digits, '_' or '-' (not starting with '-')");
}

// "<pid>-<n>-<8 random hex digits>": unique across processes (pid), threads and calls (n) and
// pid reuse after a crash (random).
std::string UniqueSuffix() {
  static std::atomic<std::uint64_t> counter{0};
  static std::mutex mutex;
  static std::mt19937_64 random(std::random_device{}());
  std::uint32_t bits;
  {
    std::lock_guard<std::mutex> guard(mutex);
    bits = static_cast<std::uint32_t>(random());
  }
  return fmt::format("{}-{}-{:08x}", getpid(), counter.fetch_add(1) + 1, bits);
}

// "20260407T130000Z"
std::string CompactStamp(UnixSeconds seconds) {
  const CivilTime civil = ToCivil(seconds);
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z", civil.year, civil.month, civil.day,
                     civil.hour, civil.minute, civil.second);
}

std::string HolderRecord() {
  return FormatLockRecord(
      {{"pid", std::to_string(getpid())}, {"started_at", FormatIso8601(SystemClock().Now())}});
}

// "pid 123 (since 2026-...)" from a holder record, or a neutral phrase.
std::string DescribeHolder(const std::string& record) {
  std::string pid;
  std::string since;
  for (const auto& [key, value] : ParseLockRecord(record)) {
    if (key == "pid") pid = value;
    if (key == "started_at") since = value;
  }
  if (pid.empty()) return "another build (its pid is not recorded yet)";
  std::string text = "pid " + pid;
  if (pid == std::to_string(getpid())) text += ", this process";
  if (!since.empty()) text += ", since " + since;
  return text;
}

Error LockedError(std::string_view rollup, const std::filesystem::path& path,
                  const std::string& record) {
  return MakeError(
      ErrorCode::kRollupLocked,
      fmt::format("rollup \"{}\" is being built by {} (lock {})", rollup, DescribeHolder(record),
                  path.string()),
      "wait for that build to finish; the lock is released automatically when its process exits, "
      "so there is no lock file to delete");
}

Status CheckLock(const BuildLock& lock, std::string_view rollup, const RollupStore& store) {
  if (lock.held() && lock.rollup() == rollup && lock.folder() == store.FolderOf(rollup)) {
    return OkStatus();
  }
  return MakeError(ErrorCode::kInternal,
                   fmt::format("rollup \"{}\" changed without its build lock (lock held: {}, for "
                               "\"{}\"; store {})",
                               rollup, lock.held(), lock.rollup(), store.root().string()));
}

// The file exists as a regular file with the manifest's size. `action` starts the messages.
Status CheckFileSize(Env& env, const std::filesystem::path& folder, const Manifest& manifest,
                     const ManifestFile& file, std::string_view action) {
  const std::filesystem::path path = folder / file.path;
  struct stat info {};
  STRATA_ASSIGN_OR_RETURN(const bool exists, env.StatFile(path, &info));
  if (!exists) {
    return IoError(fmt::format("{} rollup \"{}\": its file", action, manifest.rollup), path,
                   ENOENT);
  }
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) == file.bytes) {
    return OkStatus();
  }
  return MakeError(ErrorCode::kRollupManifest,
                   fmt::format("cannot {} rollup \"{}\": {} has {} bytes, the manifest records {}",
                               action, manifest.rollup, path.string(), info.st_size, file.bytes),
                   "record the size ChecksumFile reports after the file is written; a file "
                   "changed after publishing needs a rebuild");
}

// Every file exists with its recorded size; each is fsynced so the manifest never outlives
// (across a power loss) the data it names.
Status CheckAndSyncFiles(Env& env, const std::filesystem::path& folder, const Manifest& manifest) {
  for (const std::vector<ManifestFile>* list : {&manifest.files, &manifest.append_bases}) {
    for (const ManifestFile& file : *list) {
      STRATA_TRY(CheckFileSize(env, folder, manifest, file, "publish"));
      STRATA_TRY(env.SyncPath(folder / file.path));
    }
  }
  return env.SyncPath(folder);  // the files' names, before a manifest can name them
}

// The version a new manifest gets: one more than the current one's (1 when none is readable).
Result<std::int64_t> NextVersion(const RollupStore& store, std::string_view rollup) {
  Result<std::optional<Manifest>> previous = store.Load(rollup);
  if (!previous.ok()) {
    if (previous.error().code == ErrorCode::kRollupManifest) return 1;  // being replaced
    return std::move(previous).error();
  }
  return *previous ? (*previous)->version + 1 : 1;
}

std::string Summarize(const GarbageReport& report, const std::vector<std::string>& kept) {
  std::string text = fmt::format("removed {} file(s)", report.removed);
  if (report.build_running) text += "; a build is running, so nothing else was looked at";
  if (!kept.empty()) {
    text += fmt::format("; kept {} unreferenced file(s) that a reader may still use", kept.size());
    for (std::size_t i = 0; i < kept.size() && i < 3; ++i) text += (i ? ", " : ": ") + kept[i];
    if (kept.size() > 3) text += ", ...";
    text += " (the next build removes them)";
  }
  return text;
}

// The manifest text of `path`, which must name `rollup`.
Result<Manifest> ParseOwnManifest(const std::string& text, const std::filesystem::path& path,
                                  std::string_view rollup) {
  STRATA_ASSIGN_OR_RETURN(Manifest manifest, ParseManifestJson(text, path.string()));
  if (manifest.rollup != rollup) {
    return MakeError(ErrorCode::kRollupManifest,
                     fmt::format("{} belongs to rollup \"{}\", not \"{}\"", path.string(),
                                 manifest.rollup, rollup),
                     "a rollup folder was copied or renamed by hand; rebuild the rollup");
  }
  return manifest;
}

ManifestStamp StampOf(const struct stat& info) {
  ManifestStamp stamp;
  stamp.device = static_cast<std::uint64_t>(info.st_dev);
  stamp.inode = static_cast<std::uint64_t>(info.st_ino);
  stamp.size = static_cast<std::uint64_t>(info.st_size);
  stamp.mtime_ns =
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  stamp.ctime_ns =
      static_cast<std::int64_t>(info.st_ctim.tv_sec) * 1000000000 + info.st_ctim.tv_nsec;
  return stamp;
}

}  // namespace

std::filesystem::path ResolveStoreDir(const project::ProjectConfig& config,
                                      std::optional<std::string_view> env_value) {
  if (env_value && !env_value->empty()) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(*env_value, error);
    return error ? std::filesystem::path(*env_value) : absolute;
  }
  if (!config.rollup_store_dir.empty()) return config.rollup_store_dir;
  return config.root / ".strata" / "rollups";
}

std::filesystem::path ResolveStoreDir(const project::ProjectConfig& config) {
  const char* value = std::getenv(kStoreDirEnv);
  return ResolveStoreDir(config, value ? std::optional<std::string_view>(value) : std::nullopt);
}

bool IsValidRollupName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name.front() == '-') return false;
  for (char c : name) {
    if (!IsNameCharacter(c, /*allow_dot=*/false)) return false;
  }
  return true;
}

Result<FileDigest> ChecksumFile(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rbe");
  if (file == nullptr) return IoError("open", path, errno);
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  FileDigest digest;
  std::vector<char> buffer(1 << 20);
  std::size_t got;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), file)) > 0) {
    XXH3_64bits_update(state, buffer.data(), got);
    digest.bytes += got;
  }
  const bool failed = std::ferror(file) != 0;
  const int error_number = errno;
  std::fclose(file);
  const std::uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  if (failed) return IoError("read", path, error_number);
  digest.checksum = fmt::format("{:016x}", hash);
  return digest;
}

ReaderLease::ReaderLease(ReaderLease&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      env_(other.env_),
      manifest_(std::move(other.manifest_)),
      folder_(std::move(other.folder_)) {}

ReaderLease& ReaderLease::operator=(ReaderLease&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    env_ = other.env_;
    manifest_ = std::move(other.manifest_);
    folder_ = std::move(other.folder_);
  }
  return *this;
}

ReaderLease::~ReaderLease() { Release(); }

void ReaderLease::Release() {
  if (fd_ >= 0) env_->CloseFd(fd_);
  fd_ = -1;
}

RollupStore::RollupStore(std::filesystem::path root, Env& env)
    : root_(std::move(root)), env_(&env) {}

Result<std::optional<Manifest>> RollupStore::Load(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  const std::filesystem::path path = FolderOf(rollup) / kManifestName;
  STRATA_ASSIGN_OR_RETURN(std::optional<std::string> text, env_->ReadWholeFile(path, nullptr));
  if (!text) return std::optional<Manifest>();
  STRATA_ASSIGN_OR_RETURN(Manifest manifest, ParseOwnManifest(*text, path, rollup));
  return std::optional<Manifest>(std::move(manifest));
}

Result<std::filesystem::path> RollupStore::NewFilePath(std::string_view rollup,
                                                       std::string_view period_label) const {
  STRATA_TRY(CheckRollupName(rollup));
  if (!IsValidLabel(period_label)) {
    return MakeError(
        ErrorCode::kInternal,
        fmt::format("period label \"{}\" cannot be part of a file name", period_label));
  }
  const std::filesystem::path folder = FolderOf(rollup);
  STRATA_TRY(env_->CreateFolders(folder));
  const std::string stamp = CompactStamp(SystemClock().Now());
  while (true) {  // a collision needs the same pid, counter and 32 random bits: never in practice
    std::filesystem::path path =
        folder / fmt::format("{}-{}-{}.parquet", period_label, stamp, UniqueSuffix());
    struct stat info {};
    const Result<bool> exists = env_->StatFile(path, &info);
    if (!exists.ok() || !*exists) return path;
  }
}

Result<BuildLock> RollupStore::LockForBuild(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  const std::filesystem::path folder = FolderOf(rollup);
  STRATA_TRY(env_->CreateFolders(folder));
  const std::filesystem::path path = folder / kBuildLockName;
  STRATA_ASSIGN_OR_RETURN(
      FileLock lock, AcquireFileLock(*env_, path, HolderRecord(), [&](const std::string& record) {
        return LockedError(rollup, path, record);
      }));
  return BuildLock(std::move(lock), std::string(rollup), folder);
}

Result<std::int64_t> RollupStore::Publish(const BuildLock& lock, Manifest manifest) const {
  STRATA_TRY(CheckRollupName(manifest.rollup));
  STRATA_TRY(CheckLock(lock, manifest.rollup, *this));
  const std::filesystem::path folder = FolderOf(manifest.rollup);
  STRATA_ASSIGN_OR_RETURN(manifest.version, NextVersion(*this, manifest.rollup));
  STRATA_TRY(ValidateManifest(manifest));
  STRATA_TRY(CheckAndSyncFiles(*env_, folder, manifest));
  STRATA_ASSIGN_OR_RETURN(int reader_lock, env_->OpenLockFile(folder / kReaderLockName));
  env_->CloseFd(reader_lock);  // only created here; see OpenForRead
  const std::filesystem::path temp = folder / (kTempManifestPrefix + UniqueSuffix());
  STRATA_TRY(WriteNewFileDurably(*env_, temp, ManifestToJson(manifest)));
  if (Status renamed = env_->RenameReplacing(temp, folder / kManifestName); !renamed.ok()) {
    (void)env_->RemoveFile(temp);  // best effort: a collection removes it otherwise
    return std::move(renamed).error();
  }
  // The rename is durable once the folder is; the new manifest is in force for readers already.
  STRATA_TRY(env_->SyncPath(folder));
  return manifest.version;
}

Status RollupStore::VerifyFiles(const Manifest& manifest, bool checksums) const {
  STRATA_TRY(CheckRollupName(manifest.rollup));
  const std::filesystem::path folder = FolderOf(manifest.rollup);
  std::vector<const ManifestFile*> files;
  for (const ManifestFile& file : manifest.files) files.push_back(&file);
  for (const ManifestFile& file : manifest.append_bases) files.push_back(&file);
  for (const ManifestFile* file_pointer : files) {
    const ManifestFile& file = *file_pointer;
    STRATA_TRY(CheckFileSize(*env_, folder, manifest, file, "read"));
    if (!checksums) continue;
    STRATA_ASSIGN_OR_RETURN(FileDigest digest, ChecksumFile(folder / file.path));
    if (digest.checksum != file.checksum) {
      return MakeError(ErrorCode::kRollupManifest,
                       fmt::format("cannot read rollup \"{}\": {} has checksum {}, the manifest "
                                   "records {}",
                                   manifest.rollup, (folder / file.path).string(), digest.checksum,
                                   file.checksum),
                       "the file changed after it was published; rebuild the rollup");
    }
  }
  return OkStatus();
}

Result<int> RollupStore::LockForReading(const std::filesystem::path& folder) const {
  const std::filesystem::path path = folder / kReaderLockName;
  STRATA_ASSIGN_OR_RETURN(int fd, env_->OpenLockFile(path));
  // A garbage collection holds the lock exclusively only for its unlink calls; wait that out, but
  // never forever (a stopped collector must not hang queries: they go live instead).
  constexpr int kAttempts = 5000;
  for (int attempt = 0;; ++attempt) {
    Result<bool> taken = env_->TryLock(fd, Env::LockMode::kShared, path);
    if (!taken.ok()) return env_->CloseFd(fd), std::move(taken).error();
    if (*taken) return fd;
    if (attempt == kAttempts) {
      env_->CloseFd(fd);
      return MakeError(ErrorCode::kIo,
                       fmt::format("the reader lock {} stayed locked for 5 s", path.string()),
                       "a garbage collection of this rollup seems stuck; the query runs live");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Result<std::optional<ReaderLease>> RollupStore::OpenForRead(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  const std::filesystem::path folder = FolderOf(rollup);
  struct stat info {};
  const Result<bool> exists = env_->StatFile(folder / kManifestName, &info);
  if (!exists.ok() || !*exists) return std::optional<ReaderLease>();
  STRATA_ASSIGN_OR_RETURN(const int fd, LockForReading(folder));
  ReaderLease lease(fd, *env_, Manifest{}, folder);
  STRATA_ASSIGN_OR_RETURN(std::optional<Manifest> manifest, Load(rollup));
  if (!manifest) return std::optional<ReaderLease>();
  lease.manifest_ = std::move(*manifest);
  return std::optional<ReaderLease>(std::move(lease));
}

Result<std::optional<ManifestStamp>> RollupStore::Stamp(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  struct stat info {};
  STRATA_ASSIGN_OR_RETURN(const bool exists,
                          env_->StatFile(FolderOf(rollup) / kManifestName, &info));
  if (!exists) return std::optional<ManifestStamp>();
  return std::optional<ManifestStamp>(StampOf(info));
}

Result<std::optional<StampedManifest>> RollupStore::LoadStamped(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  const std::filesystem::path path = FolderOf(rollup) / kManifestName;
  struct stat info {};
  STRATA_ASSIGN_OR_RETURN(std::optional<std::string> text, env_->ReadWholeFile(path, &info));
  if (!text) return std::optional<StampedManifest>();
  STRATA_ASSIGN_OR_RETURN(Manifest manifest, ParseOwnManifest(*text, path, rollup));
  return std::optional<StampedManifest>(StampedManifest{std::move(manifest), StampOf(info)});
}

Result<std::optional<ReaderLease>> RollupStore::OpenForReadIfCurrent(
    std::string_view rollup, const StampedManifest& cached) const {
  STRATA_TRY(CheckRollupName(rollup));
  const std::filesystem::path folder = FolderOf(rollup);
  STRATA_ASSIGN_OR_RETURN(const int fd, LockForReading(folder));
  ReaderLease lease(fd, *env_, Manifest{}, folder);
  // Under the lock no collection runs: the version in force now keeps its files until release.
  STRATA_ASSIGN_OR_RETURN(const std::optional<ManifestStamp> now, Stamp(rollup));
  if (!now || !(*now == cached.stamp)) return std::optional<ReaderLease>();
  lease.manifest_ = cached.manifest;
  return std::optional<ReaderLease>(std::move(lease));
}

Result<GarbageReport> RollupStore::CollectGarbage(const BuildLock& lock) const {
  STRATA_TRY(CheckRollupName(lock.rollup()));
  STRATA_TRY(CheckLock(lock, lock.rollup(), *this));
  const std::filesystem::path folder = FolderOf(lock.rollup());
  // Load first: an unreadable manifest removes nothing (every file may be the one it names).
  STRATA_ASSIGN_OR_RETURN(std::optional<Manifest> manifest, Load(lock.rollup()));
  std::set<std::string> referenced;
  if (manifest) {
    for (const ManifestFile& file : manifest->files) referenced.insert(file.path);
    for (const ManifestFile& file : manifest->append_bases) referenced.insert(file.path);
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListFiles(folder));
  GarbageReport report;
  std::vector<std::string> unreferenced;
  for (const std::string& name : names) {
    if (name.starts_with(kTempManifestPrefix)) {
      // No publisher is writing one: we hold the build lock. Readers never open them.
      STRATA_TRY(env_->RemoveFile(folder / name));
      ++report.removed;
    } else if (name.ends_with(".parquet") && !referenced.contains(name)) {
      unreferenced.push_back(name);
    }
  }
  if (!unreferenced.empty()) {
    const std::filesystem::path path = folder / kReaderLockName;
    STRATA_ASSIGN_OR_RETURN(int fd, env_->OpenLockFile(path));
    Result<bool> taken = env_->TryLock(fd, Env::LockMode::kExclusive, path);
    if (!taken.ok()) return env_->CloseFd(fd), std::move(taken).error();
    report.readers_active = !*taken;
    for (std::size_t i = 0; *taken && i < unreferenced.size(); ++i) {
      if (Status removed = env_->RemoveFile(folder / unreferenced[i]); !removed.ok()) {
        env_->CloseFd(fd);
        return std::move(removed).error();
      }
      ++report.removed;
    }
    env_->CloseFd(fd);
    if (report.readers_active) report.kept = static_cast<int>(unreferenced.size());
  }
  report.summary =
      Summarize(report, report.readers_active ? unreferenced : std::vector<std::string>());
  return report;
}

Result<GarbageReport> RollupStore::CollectGarbage(std::string_view rollup) const {
  STRATA_TRY(CheckRollupName(rollup));
  struct stat info {};
  const Result<bool> exists = env_->StatFile(FolderOf(rollup), &info);
  if (!exists.ok() || !*exists) {
    GarbageReport report;
    report.summary = Summarize(report, {});
    return report;
  }
  Result<BuildLock> lock = LockForBuild(rollup);
  if (!lock.ok()) {
    if (lock.error().code != ErrorCode::kRollupLocked) return std::move(lock).error();
    GarbageReport report;
    report.build_running = true;
    report.summary = Summarize(report, {});
    return report;
  }
  return CollectGarbage(*lock);
}

}  // namespace strata::rollup
