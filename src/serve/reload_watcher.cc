#include "serve/reload_watcher.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/time.h"
#include "semantic/loader.h"
#include "serve/log_line.h"

namespace strata::serve {
namespace {

// The semantic files' names, sizes and modification times: a reload when they change.
using ModelStamp = std::vector<std::tuple<std::string, std::uintmax_t, std::int64_t>>;
ModelStamp StampOf(const std::filesystem::path& folder) {
  ModelStamp stamp;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const auto written = it->last_write_time(error).time_since_epoch().count();
    stamp.emplace_back(it->path().string(), it->file_size(error), written);
  }
  std::sort(stamp.begin(), stamp.end());
  return stamp;
}

}  // namespace

void WatchModel(const ReloadSource& source, CurrentGeneration& current, std::atomic<bool>& hangup,
                const std::atomic<bool>& stop) {
  const std::filesystem::path folder = source.project->root / source.project->semantic_dir;
  ModelStamp last = StampOf(folder);
  // A changed file is read once it has stayed unchanged for two polls (500 ms), and not while a
  // file is empty: an editor's or cp's write truncates the file first, and a model loaded from
  // the half-written file would replace the working one (an empty file loads as a model without
  // entities). SIGHUP reloads at once.
  int settled_polls = -1;  // -1: no change pending
  const auto has_empty_file = [](const ModelStamp& stamp) {
    return std::any_of(stamp.begin(), stamp.end(),
                       [](const auto& file) { return std::get<1>(file) == 0; });
  };
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const bool hangup_now = hangup.exchange(false);
    ModelStamp stamp = StampOf(folder);
    if (stamp != last) {
      last = std::move(stamp);
      settled_polls = 0;
      if (!hangup_now) continue;
    } else if (settled_polls >= 0 && ++settled_polls < 2 && !hangup_now) {
      continue;
    }
    if (!hangup_now && (settled_polls < 0 || has_empty_file(last))) continue;
    settled_polls = -1;
    semantic::SemanticLoadOutcome outcome =
        semantic::LoadProjectSemanticModel(*source.project, source.dialect);
    nlohmann::ordered_json line = {{"event", "reload"},
                                   {"ts", FormatIso8601(SystemClock().Now())},
                                   {"trigger", hangup_now ? "SIGHUP" : "file"},
                                   {"ok", outcome.model.has_value()}};
    if (!outcome.model) {
      nlohmann::ordered_json errors = nlohmann::ordered_json::array();
      for (const Error& error : outcome.errors) errors.push_back(error.ToString());
      line["errors"] = std::move(errors);
      line["kept"] = "the model loaded before";
      WriteJsonLine(line);
      continue;
    }
    line["entities"] = outcome.model->entities.size();
    current.Replace(MakeGeneration(std::move(*outcome.model), *source.base, *source.control));
    WriteJsonLine(line);
  }
}

}  // namespace strata::serve
