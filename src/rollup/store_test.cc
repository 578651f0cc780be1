#include "rollup/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "base/testing/fault_env.h"
#include "rollup/manifest_cache.h"

namespace strata::rollup {
namespace {

namespace fs = std::filesystem;

constexpr char kRollup[] = "monthly_order_summary";
constexpr UnixSeconds kJanuary = 1767225600;             // 2026-01-01T00:00:00Z
constexpr UnixSeconds kMonth = UnixSeconds{31} * 86400;  // periods need not be calendar months here

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("strata_rollup_store_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
};

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Writes `bytes` at a new path of the rollup and describes it as the file of period `index`.
ManifestFile WriteFile(const RollupStore& store, std::string_view rollup, int index,
                       const std::string& bytes) {
  Result<fs::path> path = store.NewFilePath(rollup, "p" + std::to_string(index));
  STRATA_CHECK(path.ok());
  WriteBytes(*path, bytes);
  Result<FileDigest> digest = ChecksumFile(*path);
  STRATA_CHECK(digest.ok());
  ManifestFile file;
  file.start = kJanuary + index * kMonth;
  file.end = kJanuary + (index + 1) * kMonth;
  file.path = path->filename().string();
  file.rows = static_cast<std::int64_t>(bytes.size());
  file.bytes = digest->bytes;
  file.checksum = digest->checksum;
  file.built_at = FormatIso8601(SystemClock().Now());
  return file;
}

Manifest NewManifest(std::string_view rollup, std::vector<ManifestFile> files) {
  Manifest manifest;
  manifest.rollup = std::string(rollup);
  manifest.definition_hash = "0123456789abcdef";
  manifest.built_at = FormatIso8601(SystemClock().Now());
  manifest.partition_by = "month";
  manifest.time_dimension = "order_date";
  manifest.columns = {{"order_date", "TIMESTAMP", "dimension", "order_date", ""},
                      {"revenue", "DOUBLE", "measure", "revenue", ""}};
  manifest.files = std::move(files);
  return manifest;
}

std::set<std::string> ParquetFiles(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".parquet") || name.starts_with("manifest.json.tmp-")) names.insert(name);
  }
  return names;
}

// Every file of the rollup's manifest exists with its recorded size and checksum.
void ExpectConsistent(const RollupStore& store, std::string_view rollup) {
  Result<std::optional<Manifest>> manifest = store.Load(rollup);
  ASSERT_TRUE(manifest.ok()) << manifest.error().ToString();
  ASSERT_TRUE(manifest->has_value());
  for (const ManifestFile& file : (*manifest)->files) {
    Result<FileDigest> digest = ChecksumFile(store.FolderOf(rollup) / file.path);
    ASSERT_TRUE(digest.ok()) << digest.error().ToString();
    EXPECT_EQ(digest->bytes, file.bytes) << file.path;
    EXPECT_EQ(digest->checksum, file.checksum) << file.path;
  }
}

TEST_F(StoreTest, NeverBuiltIsNotAnError) {
  RollupStore store(root_ / "store");
  Result<std::optional<Manifest>> loaded = store.Load(kRollup);
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  EXPECT_FALSE(loaded->has_value());
  Result<std::optional<ReaderLease>> lease = store.OpenForRead(kRollup);
  ASSERT_TRUE(lease.ok()) << lease.error().ToString();
  EXPECT_FALSE(lease->has_value());
  Result<GarbageReport> garbage = store.CollectGarbage(kRollup);
  ASSERT_TRUE(garbage.ok());
  EXPECT_EQ(garbage->removed, 0);
  EXPECT_FALSE(fs::exists(root_ / "store")) << "reading must not create folders";
}

TEST_F(StoreTest, RefusesNamesThatAreNotFolders) {
  RollupStore store(root_);
  for (const char* name : {"", "..", "a/b", "-x", ".hidden", "with space"}) {
    EXPECT_EQ(store.Load(name).error().code, ErrorCode::kConfig) << name;
    EXPECT_EQ(store.LockForBuild(name).error().code, ErrorCode::kConfig) << name;
  }
  EXPECT_FALSE(store.NewFilePath(kRollup, "../x").ok());
  EXPECT_FALSE(store.NewFilePath(kRollup, "").ok());
}

TEST_F(StoreTest, NewFilePathsAreFreshAndInsideTheRollupFolder) {
  RollupStore store(root_);
  std::set<fs::path> seen;
  for (int i = 0; i < 100; ++i) {
    Result<fs::path> path = store.NewFilePath(kRollup, "2026-04");
    ASSERT_TRUE(path.ok()) << path.error().ToString();
    EXPECT_EQ(path->parent_path(), root_ / kRollup);
    EXPECT_TRUE(path->filename().string().starts_with("2026-04-")) << *path;
    EXPECT_EQ(path->extension(), ".parquet");
    EXPECT_TRUE(seen.insert(*path).second) << "reused " << *path;
  }
  EXPECT_TRUE(fs::is_directory(root_ / kRollup));
}

TEST_F(StoreTest, PublishesAndLoadsWithRisingVersions) {
  RollupStore store(root_);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok()) << lock.error().ToString();
  Manifest manifest = NewManifest(kRollup, {WriteFile(store, kRollup, 0, "january"),
                                            WriteFile(store, kRollup, 1, "february!")});
  manifest.version = 77;  // ignored: the store numbers versions
  Result<std::int64_t> version = store.Publish(*lock, manifest);
  ASSERT_TRUE(version.ok()) << version.error().ToString();
  EXPECT_EQ(*version, 1);
  Result<std::optional<Manifest>> loaded = store.Load(kRollup);
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  EXPECT_EQ((*loaded)->version, 1);
  EXPECT_EQ((*loaded)->TotalRows(), 16);
  manifest.version = 1;
  EXPECT_EQ(ManifestToJson(**loaded), ManifestToJson(manifest));
  EXPECT_EQ(*store.Publish(*lock, manifest), 2);
  EXPECT_EQ((*store.Load(kRollup))->version, 2);
  ExpectConsistent(store, kRollup);
}

// The order of a publish (store.h, "Crash safety"): every referenced file and the folder are
// synced, then the temporary manifest is written, synced, renamed into place, and the folder
// synced. A publish that skipped one of these syncs would not be durable across a power loss.
TEST_F(StoreTest, APublishSyncsTheManifestBeforeItsRenameAndTheFolderAfter) {
  testing::FaultEnv env;
  RollupStore store(root_, env);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok()) << lock.error().ToString();
  const ManifestFile file = WriteFile(store, kRollup, 0, "january");
  env.FailAt(0);
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {file})).ok());
  std::vector<std::string> order;
  for (const std::string& call : env.log()) {
    if (call.starts_with("ReadWholeFile") || call.starts_with("StatFile") ||
        call.starts_with("OpenLockFile")) {
      continue;  // reads, and the reader lock's creation
    }
    order.push_back(call.starts_with("WriteNewFile manifest.json.tmp-")
                        ? "WriteNewFile manifest.json.tmp"
                    : call.starts_with("SyncPath manifest.json.tmp-") ? "SyncPath manifest.json.tmp"
                                                                      : call);
  }
  const std::string folder = store.FolderOf(kRollup).filename().string();
  EXPECT_EQ(order, (std::vector<std::string>{
                       "SyncPath " + file.path, "SyncPath " + folder,
                       "WriteNewFile manifest.json.tmp", "SyncPath manifest.json.tmp",
                       "RenameReplacing manifest.json", "SyncPath " + folder}));
}

// Each file-system call of a publish fails in turn (EIO, ENOSPC, a short write): the publish
// fails with kIo, the previous manifest stays in force with all its files, no torn manifest is
// ever read, and the next publish succeeds.
TEST_F(StoreTest, AFailedCallOfAPublishKeepsThePreviousManifest) {
  testing::FaultEnv env;
  RollupStore store(root_, env);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {WriteFile(store, kRollup, 0, "a")})).ok());
  for (const auto& [error_number, short_write] :
       {std::pair{EIO, false}, std::pair{ENOSPC, false}, std::pair{ENOSPC, true}}) {
    for (int call = 1;; ++call) {
      const Manifest before = **store.Load(kRollup);
      const ManifestFile file =
          WriteFile(store, kRollup, call % 5 + 1, "more " + std::to_string(call));
      env.FailAt(call, error_number, short_write);
      Result<std::int64_t> published = store.Publish(*lock, NewManifest(kRollup, {file}));
      const std::vector<std::string> log = env.log();
      env.FailAt(0);
      if (published.ok()) {
        EXPECT_GT(call, 3) << "a publish has more than three file-system calls";
        break;
      }
      EXPECT_EQ(published.error().code, ErrorCode::kIo) << published.error().ToString();
      Result<std::optional<Manifest>> after = store.Load(kRollup);
      ASSERT_TRUE(after.ok()) << "call " << call << ": " << after.error().ToString();
      // Only the folder's sync after the rename fails with the new version in force (not yet
      // known durable); every earlier failure leaves the previous one.
      const auto failed = static_cast<std::size_t>(call - 1);  // log[failed]: the failed call
      const bool renamed =
          failed >= 1 && failed < log.size() && log[failed - 1] == "RenameReplacing manifest.json";
      if (renamed) {
        EXPECT_EQ((*after)->version, before.version + 1) << "call " << call;
        EXPECT_EQ((*after)->files.front().path, file.path) << "call " << call;
      } else {
        EXPECT_EQ(ManifestToJson(**after), ManifestToJson(before)) << "call " << call;
      }
      ExpectConsistent(store, kRollup);
      ASSERT_LT(call, 50) << "the publish never completed";
    }
    ExpectConsistent(store, kRollup);
  }
}

TEST_F(StoreTest, PublishRefusesAndKeepsThePreviousManifest) {
  RollupStore store(root_);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  const ManifestFile good = WriteFile(store, kRollup, 0, "rows");
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {good})).ok());

  ManifestFile missing = good;
  missing.path = "gone.parquet";
  missing.start = *good.end;
  missing.end = *good.end + kMonth;
  EXPECT_EQ(store.Publish(*lock, NewManifest(kRollup, {good, missing})).error().code,
            ErrorCode::kIo);
  ManifestFile wrong_size = good;
  wrong_size.bytes = 999;
  EXPECT_EQ(store.Publish(*lock, NewManifest(kRollup, {wrong_size})).error().code,
            ErrorCode::kRollupManifest);
  Manifest invalid = NewManifest(kRollup, {good});
  invalid.definition_hash.clear();
  EXPECT_EQ(store.Publish(*lock, invalid).error().code, ErrorCode::kRollupManifest);

  BuildLock none;
  EXPECT_EQ(store.Publish(none, NewManifest(kRollup, {good})).error().code, ErrorCode::kInternal);
  Result<BuildLock> other = store.LockForBuild("other_rollup");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(store.Publish(*other, NewManifest(kRollup, {good})).error().code, ErrorCode::kInternal);
  Result<BuildLock> other_store = RollupStore(root_ / "elsewhere").LockForBuild(kRollup);
  ASSERT_TRUE(other_store.ok());
  EXPECT_EQ(store.Publish(*other_store, NewManifest(kRollup, {good})).error().code,
            ErrorCode::kInternal);

  Result<std::optional<Manifest>> loaded = store.Load(kRollup);
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  EXPECT_EQ((*loaded)->version, 1);
  EXPECT_EQ((*loaded)->files.size(), 1u);
}

TEST_F(StoreTest, VerifyFilesFindsMissingTruncatedAndChangedFiles) {
  RollupStore store(root_);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  Manifest manifest = NewManifest(
      kRollup, {WriteFile(store, kRollup, 0, "abcdef"), WriteFile(store, kRollup, 1, "ghijkl")});
  ASSERT_TRUE(store.Publish(*lock, manifest).ok());
  EXPECT_TRUE(store.VerifyFiles(manifest, /*checksums=*/true).ok());
  const fs::path first = root_ / kRollup / manifest.files[0].path;
  WriteBytes(first, "abcdeX");  // same size, other bytes
  EXPECT_TRUE(store.VerifyFiles(manifest, /*checksums=*/false).ok());
  EXPECT_EQ(store.VerifyFiles(manifest, true).error().code, ErrorCode::kRollupManifest);
  WriteBytes(first, "abc");
  EXPECT_EQ(store.VerifyFiles(manifest, false).error().code, ErrorCode::kRollupManifest);
  fs::remove(first);
  Status missing = store.VerifyFiles(manifest, false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kIo);
  EXPECT_NE(missing.error().message.find(manifest.files[0].path), std::string::npos);
}

TEST_F(StoreTest, MalformedManifestOnDiskIsACodedError) {
  RollupStore store(root_);
  {
    Result<BuildLock> lock = store.LockForBuild(kRollup);
    ASSERT_TRUE(lock.ok());
    ASSERT_TRUE(
        store.Publish(*lock, NewManifest(kRollup, {WriteFile(store, kRollup, 0, "x")})).ok());
  }
  const fs::path manifest_path = root_ / kRollup / "manifest.json";
  std::ifstream in(manifest_path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& bad :
       {text.substr(0, text.size() / 2), std::string(), std::string("{\"format_version\": 9}")}) {
    WriteBytes(manifest_path, bad);
    EXPECT_EQ(store.Load(kRollup).error().code, ErrorCode::kRollupManifest);
    EXPECT_EQ(store.OpenForRead(kRollup).error().code, ErrorCode::kRollupManifest);
    Result<GarbageReport> garbage = store.CollectGarbage(kRollup);
    ASSERT_FALSE(garbage.ok());  // an unreadable manifest removes nothing
    EXPECT_EQ(garbage.error().code, ErrorCode::kRollupManifest);
    EXPECT_EQ(ParquetFiles(root_ / kRollup).size(), 1u);
  }
  // A manifest copied from another rollup's folder is not this rollup's.
  WriteBytes(manifest_path, text);
  fs::create_directories(root_ / "copy");
  fs::copy_file(manifest_path, root_ / "copy" / "manifest.json");
  EXPECT_EQ(store.Load("copy").error().code, ErrorCode::kRollupManifest);
  // A new publish replaces the broken manifest.
  WriteBytes(manifest_path, "garbage");
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  EXPECT_TRUE(store.Publish(*lock, NewManifest(kRollup, {})).ok());
  EXPECT_TRUE(store.Load(kRollup).ok());
}

TEST_F(StoreTest, ASecondBuildIsRefusedNamingTheHolder) {
  RollupStore store(root_);
  Result<BuildLock> first = store.LockForBuild(kRollup);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  Result<BuildLock> second = store.LockForBuild(kRollup);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kRollupLocked);
  EXPECT_NE(second.error().message.find("pid " + std::to_string(getpid())), std::string::npos)
      << second.error().message;
  EXPECT_TRUE(store.LockForBuild("another_rollup").ok());
  first->Release();
  EXPECT_TRUE(store.LockForBuild(kRollup).ok());
}

TEST_F(StoreTest, ABuildInAnotherProcessIsRefusedUntilItExits) {
  RollupStore store(root_);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<BuildLock> lock = store.LockForBuild(kRollup);
    const char byte = lock.ok() ? 'y' : 'n';
    (void)!write(ready[1], &byte, 1);
    pause();  // killed by the parent
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  Result<BuildLock> refused = store.LockForBuild(kRollup);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kRollupLocked);
  EXPECT_NE(refused.error().message.find("pid " + std::to_string(child)), std::string::npos)
      << refused.error().message;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  EXPECT_TRUE(store.LockForBuild(kRollup).ok()) << "the kernel released the dead build's lock";
}

TEST_F(StoreTest, AReaderKeepsItsFilesUntilItsLeaseEnds) {
  RollupStore store(root_);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  const ManifestFile old_file = WriteFile(store, kRollup, 0, "old rows");
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {old_file})).ok());

  Result<std::optional<ReaderLease>> lease = store.OpenForRead(kRollup);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  ReaderLease reader = std::move(**lease);
  EXPECT_TRUE(reader.held());
  EXPECT_EQ(reader.manifest().version, 1);

  const ManifestFile new_file = WriteFile(store, kRollup, 0, "new rows!");
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {new_file})).ok());
  Result<GarbageReport> garbage = store.CollectGarbage(*lock);
  ASSERT_TRUE(garbage.ok()) << garbage.error().ToString();
  EXPECT_TRUE(garbage->readers_active);
  EXPECT_EQ(garbage->removed, 0);
  EXPECT_EQ(garbage->kept, 1);
  EXPECT_NE(garbage->summary.find(old_file.path), std::string::npos) << garbage->summary;
  // The old reader still sees its manifest and its files.
  ASSERT_EQ(reader.manifest().files.size(), 1u);
  EXPECT_EQ(reader.manifest().files[0].path, old_file.path);
  EXPECT_TRUE(fs::exists(reader.FilePath(reader.manifest().files[0])));
  // A new reader sees the new version.
  Result<std::optional<ReaderLease>> fresh = store.OpenForRead(kRollup);
  ASSERT_TRUE(fresh.ok() && fresh->has_value());
  EXPECT_EQ((*fresh)->manifest().version, 2);
  EXPECT_EQ((*fresh)->manifest().files[0].path, new_file.path);

  fresh->reset();
  EXPECT_TRUE(store.CollectGarbage(*lock)->readers_active) << "the old reader still holds on";
  reader.Release();
  garbage = store.CollectGarbage(*lock);
  ASSERT_TRUE(garbage.ok());
  EXPECT_FALSE(garbage->readers_active);
  EXPECT_EQ(garbage->removed, 1);
  EXPECT_EQ(garbage->kept, 0);
  EXPECT_FALSE(fs::exists(root_ / kRollup / old_file.path));
  EXPECT_TRUE(fs::exists(root_ / kRollup / new_file.path));
  ExpectConsistent(store, kRollup);
}

// A cached manifest is reused while manifest.json is unchanged, reloaded after a publish, and
// leased only while it is still the version in force.
TEST_F(StoreTest, CachedManifestsAreLeasedOnlyWhileCurrent) {
  RollupStore store(root_);
  const ManifestCache cache(store);
  Result<std::shared_ptr<const StampedManifest>> never = cache.Current(kRollup);
  ASSERT_TRUE(never.ok());
  EXPECT_EQ(*never, nullptr);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  const ManifestFile first = WriteFile(store, kRollup, 0, "first");
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {first})).ok());

  Result<std::shared_ptr<const StampedManifest>> v1 = cache.Current(kRollup);
  ASSERT_TRUE(v1.ok() && *v1 != nullptr);
  EXPECT_EQ((*v1)->manifest.version, 1);
  Result<std::shared_ptr<const StampedManifest>> again = cache.Current(kRollup);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), v1->get()) << "unchanged manifest.json: the cached parse";
  Result<std::optional<ReaderLease>> lease = store.OpenForReadIfCurrent(kRollup, **v1);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  EXPECT_EQ((*lease)->manifest().files.at(0).path, first.path);
  lease->reset();

  // Publish the same manifest shape again (same size): the stamp still changes.
  const ManifestFile second = WriteFile(store, kRollup, 0, "secnd");
  ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, {second})).ok());
  ASSERT_TRUE(store.CollectGarbage(*lock).ok());
  EXPECT_FALSE(fs::exists(root_ / kRollup / first.path));
  Result<std::optional<ReaderLease>> stale = store.OpenForReadIfCurrent(kRollup, **v1);
  ASSERT_TRUE(stale.ok());
  EXPECT_FALSE(stale->has_value()) << "the cached version's files are gone";
  Result<std::shared_ptr<const StampedManifest>> v2 = cache.Current(kRollup);
  ASSERT_TRUE(v2.ok() && *v2 != nullptr);
  EXPECT_EQ((*v2)->manifest.version, 2);
  EXPECT_EQ((*v2)->manifest.files.at(0).path, second.path);
  EXPECT_FALSE((*v2)->stamp == (*v1)->stamp);
  Result<std::optional<ReaderLease>> current = store.OpenForReadIfCurrent(kRollup, **v2);
  ASSERT_TRUE(current.ok() && current->has_value());
}

TEST_F(StoreTest, GarbageCollectionRemovesCrashLeftoversOnly) {
  RollupStore store(root_);
  const fs::path folder = root_ / kRollup;
  {
    Result<BuildLock> lock = store.LockForBuild(kRollup);
    ASSERT_TRUE(lock.ok());
    ASSERT_TRUE(
        store.Publish(*lock, NewManifest(kRollup, {WriteFile(store, kRollup, 0, "a")})).ok());
    WriteFile(store, kRollup, 1, "a crashed build's file");
    WriteBytes(folder / "manifest.json.tmp-123-1-deadbeef", "{\"format_ver");
  }
  WriteBytes(folder / "notes.txt", "a user's file");
  {
    Result<BuildLock> building = store.LockForBuild(kRollup);
    ASSERT_TRUE(building.ok());
    Result<GarbageReport> during = store.CollectGarbage(kRollup);
    ASSERT_TRUE(during.ok());
    EXPECT_TRUE(during->build_running);
    EXPECT_EQ(during->removed, 0);
    EXPECT_EQ(ParquetFiles(folder).size(), 3u);
  }
  Result<GarbageReport> garbage = store.CollectGarbage(kRollup);
  ASSERT_TRUE(garbage.ok()) << garbage.error().ToString();
  EXPECT_EQ(garbage->removed, 2) << garbage->summary;
  EXPECT_EQ(ParquetFiles(folder).size(), 1u);
  EXPECT_TRUE(fs::exists(folder / "notes.txt"));
  EXPECT_TRUE(fs::exists(folder / ".lock"));
  ExpectConsistent(store, kRollup);
}

TEST_F(StoreTest, GarbageCollectionOfAFirstBuildThatCrashedRemovesItsFiles) {
  RollupStore store(root_);
  WriteFile(store, kRollup, 0, "never published");
  Result<GarbageReport> garbage = store.CollectGarbage(kRollup);
  ASSERT_TRUE(garbage.ok()) << garbage.error().ToString();
  EXPECT_EQ(garbage->removed, 1);
  EXPECT_TRUE(ParquetFiles(root_ / kRollup).empty());
}

TEST_F(StoreTest, ReadersDuringRebuildsAlwaysFindTheirFiles) {
  RollupStore store(root_);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  ASSERT_TRUE(lock.ok());
  ASSERT_TRUE(
      store.Publish(*lock, NewManifest(kRollup, {WriteFile(store, kRollup, 0, "v1")})).ok());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> bad_reads{0};
  auto read_loop = [&] {
    while (!done.load()) {
      Result<std::optional<ReaderLease>> lease = store.OpenForRead(kRollup);
      if (!lease.ok() || !lease->has_value()) {
        ++bad_reads;
        continue;
      }
      for (const ManifestFile& file : (*lease)->manifest().files) {
        Result<FileDigest> digest = ChecksumFile((*lease)->FilePath(file));
        if (!digest.ok() || digest->checksum != file.checksum) ++bad_reads;
      }
      ++reads;
    }
  };
  std::thread first(read_loop);
  std::thread second(read_loop);
  int removed = 0;
  for (int round = 0; round < 30; ++round) {
    const ManifestFile file = WriteFile(store, kRollup, round % 3, std::string(200 + round, 'x'));
    Result<std::optional<Manifest>> current = store.Load(kRollup);
    ASSERT_TRUE(current.ok() && current->has_value());
    std::vector<ManifestFile> files = (*current)->files;
    std::erase_if(files, [&](const ManifestFile& f) { return f.start == file.start; });
    files.push_back(file);
    ASSERT_TRUE(store.Publish(*lock, NewManifest(kRollup, files)).ok());
    Result<GarbageReport> garbage = store.CollectGarbage(*lock);
    ASSERT_TRUE(garbage.ok()) << garbage.error().ToString();
    removed += garbage->removed;
  }
  done = true;
  first.join();
  second.join();
  EXPECT_EQ(bad_reads.load(), 0);
  EXPECT_GT(reads.load(), 0);
  Result<GarbageReport> garbage = store.CollectGarbage(*lock);
  ASSERT_TRUE(garbage.ok());
  EXPECT_EQ(removed + garbage->removed, 28) << "every replaced file goes once readers are gone";
  EXPECT_EQ(ParquetFiles(root_ / kRollup).size(), 3u);
}

// Where a publishing child is, in memory shared with the parent.
enum Phase : int { kWritingFile = 0, kPublishing = 1, kCollecting = 2 };

// The child publishes and collects garbage in a loop until it is killed: a new file for one of
// four periods per round, keeping the other periods' files.
[[noreturn]] void PublishForever(const fs::path& root, int seed, int ready_fd,
                                 std::atomic<int>* phase) {
  RollupStore store(root);
  Result<BuildLock> lock = store.LockForBuild(kRollup);
  if (!lock.ok()) _exit(3);
  const char byte = 'y';
  if (write(ready_fd, &byte, 1) != 1) _exit(7);
  std::mt19937 random(static_cast<unsigned>(seed));
  while (true) {
    phase->store(kWritingFile);
    Result<std::optional<Manifest>> current = store.Load(kRollup);
    if (!current.ok() || !current->has_value()) _exit(4);
    std::vector<ManifestFile> files = (*current)->files;
    const int period = static_cast<int>(random() % 4);
    std::erase_if(files,
                  [&](const ManifestFile& f) { return f.start == kJanuary + period * kMonth; });
    files.push_back(WriteFile(store, kRollup, period, std::string(100 + random() % 5000, 'r')));
    phase->store(kPublishing);
    if (!store.Publish(*lock, NewManifest(kRollup, files)).ok()) _exit(5);
    phase->store(kCollecting);
    if (!store.CollectGarbage(*lock).ok()) _exit(6);
  }
}

// Forks a publishing child, kills it (SIGKILL) after a random delay; returns the phase it died in.
Phase KillAPublisher(const fs::path& root, int seed, std::mt19937& random,
                     std::atomic<int>* phase) {
  int ready[2];
  STRATA_CHECK(pipe(ready) == 0);
  const pid_t child = fork();
  STRATA_CHECK(child >= 0);
  if (child == 0) PublishForever(root, seed, ready[1], phase);
  close(ready[1]);
  char byte = 0;
  const bool started = read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  // A round takes milliseconds (mostly fsync); most kills land inside Publish.
  if (started) std::this_thread::sleep_for(std::chrono::microseconds(random() % 40000));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child failed by itself: " << status;
  return static_cast<Phase>(phase->load());
}

TEST_F(StoreTest, AKilledPublisherNeverLeavesABrokenManifest) {
  RollupStore store(root_);
  {
    Result<BuildLock> lock = store.LockForBuild(kRollup);
    ASSERT_TRUE(lock.ok());
    ASSERT_TRUE(
        store.Publish(*lock, NewManifest(kRollup, {WriteFile(store, kRollup, 0, "v1")})).ok());
  }
  void* shared = mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto* phase = new (shared) std::atomic<int>(kWritingFile);
  std::mt19937 random(::testing::UnitTest::GetInstance()->random_seed());
  std::int64_t last_version = 1;
  int killed_publishing = 0;
  constexpr int kPublishKills = 20;
  for (int trial = 0; trial < 100 && killed_publishing < kPublishKills; ++trial) {
    if (KillAPublisher(root_, trial, random, phase) == kPublishing) ++killed_publishing;
    ExpectConsistent(store, kRollup);
    if (HasFailure()) break;
    const std::int64_t version = (*store.Load(kRollup))->version;
    EXPECT_GE(version, last_version);
    last_version = version;
  }
  munmap(shared, sizeof(std::atomic<int>));
  EXPECT_GE(killed_publishing, kPublishKills);
  EXPECT_GT(last_version, 1) << "no child ever published";
  // What the killed builds left behind goes at the next collection.
  Result<GarbageReport> garbage = store.CollectGarbage(kRollup);
  ASSERT_TRUE(garbage.ok()) << garbage.error().ToString();
  std::set<std::string> referenced;
  Result<std::optional<Manifest>> final_manifest = store.Load(kRollup);
  ASSERT_TRUE(final_manifest.ok() && final_manifest->has_value());
  for (const ManifestFile& file : (*final_manifest)->files) referenced.insert(file.path);
  EXPECT_EQ(ParquetFiles(root_ / kRollup), referenced);
}

}  // namespace
}  // namespace strata::rollup
