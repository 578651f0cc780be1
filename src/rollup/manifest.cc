#include "rollup/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace strata::rollup {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr char kRebuildHint[] =
    "rebuild the rollup (strata rollups build --rollup NAME --full); until then queries that "
    "could use it run on the warehouse";

Error ManifestError(std::string message) {
  return MakeError(ErrorCode::kRollupManifest, std::move(message), kRebuildHint);
}

bool IsLowerHex16(std::string_view text) {
  return text.size() == 16 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsPlainFileName(std::string_view path) {
  return !path.empty() && path.front() != '.' && path.find('/') == std::string_view::npos &&
         path.find('\0') == std::string_view::npos;
}

// Reads the fields of one JSON object, keeping the first problem ("files[2].rows: expected an
// integer") so that parsing stays a sequence of plain reads.
class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string context, std::optional<std::string>* problem)
      : object_(object), context_(std::move(context)), problem_(problem) {}

  const Json* Field(std::string_view key, bool required) {
    const auto found = object_.find(std::string(key));
    if (found == object_.end() || found->is_null()) {
      if (required) Fail(key, "is missing");
      return nullptr;
    }
    return &*found;
  }
  std::string String(std::string_view key) {
    return OptionalString(key, /*required=*/true).value_or("");
  }
  std::optional<std::string> OptionalString(std::string_view key, bool required = false) {
    const Json* value = Field(key, required);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) return Fail(key, "expected a string"), std::nullopt;
    return value->get<std::string>();
  }
  std::int64_t Integer(std::string_view key) {
    const Json* value = Field(key, /*required=*/true);
    if (value == nullptr) return 0;
    if (!value->is_number_integer()) return Fail(key, "expected an integer"), 0;
    if (value->is_number_unsigned() && value->get<std::uint64_t>() > INT64_MAX) {
      return Fail(key, "is too large"), 0;
    }
    return value->get<std::int64_t>();
  }
  std::uint64_t Unsigned(std::string_view key) {
    const Json* value = Field(key, /*required=*/true);
    if (value == nullptr) return 0;
    if (!value->is_number_unsigned()) return Fail(key, "expected a non-negative integer"), 0;
    return value->get<std::uint64_t>();
  }
  double Number(std::string_view key) {
    const Json* value = Field(key, /*required=*/true);
    if (value == nullptr) return 0;
    if (!value->is_number()) return Fail(key, "expected a number"), 0;
    return value->get<double>();
  }
  bool Boolean(std::string_view key) {
    const Json* value = Field(key, /*required=*/false);
    if (value == nullptr) return false;
    if (!value->is_boolean()) return Fail(key, "expected true or false"), false;
    return value->get<bool>();
  }
  std::optional<UnixSeconds> OptionalTime(std::string_view key) {
    const std::optional<std::string> text = OptionalString(key);
    if (!text) return std::nullopt;
    const std::optional<UnixSeconds> seconds = ParseIso8601(*text);
    if (!seconds) Fail(key, fmt::format("\"{}\" is not an ISO 8601 UTC time", *text));
    return seconds;
  }
  const Json* Array(std::string_view key) {
    const Json* value = Field(key, /*required=*/true);
    if (value != nullptr && !value->is_array()) return Fail(key, "expected an array"), nullptr;
    return value;
  }
  void Fail(std::string_view key, std::string_view what) {
    if (!problem_->has_value()) *problem_ = fmt::format("{}{}: {}", context_, key, what);
  }

 private:
  const Json& object_;
  std::string context_;
  std::optional<std::string>* problem_;
};

ManifestColumn ReadColumn(const Json& json, std::string context,
                          std::optional<std::string>* problem) {
  ObjectReader reader(json, std::move(context), problem);
  ManifestColumn column;
  column.name = reader.String("name");
  column.type = reader.String("type");
  column.role = reader.String("role");
  column.source = reader.String("source");
  column.part = reader.OptionalString("part").value_or("");
  return column;
}

ManifestFile ReadFile(const Json& json, std::string context, std::optional<std::string>* problem) {
  ObjectReader reader(json, std::move(context), problem);
  ManifestFile file;
  file.start = reader.OptionalTime("start");
  file.end = reader.OptionalTime("end");
  file.null_time = reader.Boolean("null_time");
  file.path = reader.String("path");
  file.rows = reader.Integer("rows");
  file.bytes = reader.Unsigned("bytes");
  file.checksum = reader.String("checksum");
  file.build_ms = reader.Number("build_ms");
  file.built_at = reader.String("built_at");
  return file;
}

// Reads each object of the array `key` with `read`.
template <typename T, typename ReadOne>
std::vector<T> ReadArray(ObjectReader& reader, std::string_view key, ReadOne read,
                         std::optional<std::string>* problem) {
  std::vector<T> items;
  const Json* array = reader.Array(key);
  if (array == nullptr) return items;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string context = fmt::format("{}[{}].", key, i);
    if (!(*array)[i].is_object()) {
      reader.Fail(fmt::format("[{}]", i), "expected an object");
      break;
    }
    items.push_back(read((*array)[i], context, problem));
  }
  return items;
}

Manifest ReadManifest(const Json& json, std::optional<std::string>* problem) {
  ObjectReader reader(json, "", problem);
  Manifest manifest;
  const std::int64_t format_version = reader.Integer("format_version");
  if (problem->has_value()) return manifest;
  if (format_version != kManifestFormatVersion) {
    reader.Fail("format_version", fmt::format("{} is not supported (this strata reads {})",
                                              format_version, kManifestFormatVersion));
    return manifest;
  }
  manifest.format_version = static_cast<int>(format_version);
  manifest.rollup = reader.String("rollup");
  manifest.definition_hash = reader.String("definition_hash");
  manifest.version = reader.Integer("version");
  manifest.built_at = reader.String("built_at");
  manifest.freshness_marker = reader.OptionalString("freshness_marker");
  manifest.append_marker = reader.OptionalString("append_marker");
  manifest.append_slice_from = reader.OptionalString("append_slice_from");
  if (reader.Field("append_slice_rows", false) != nullptr) {
    manifest.append_slice_rows = reader.Integer("append_slice_rows");
  }
  manifest.built_through = reader.OptionalTime("built_through");
  manifest.range_start = reader.OptionalTime("range_start");
  manifest.range_end = reader.OptionalTime("range_end");
  manifest.partition_by = reader.OptionalString("partition_by").value_or("");
  manifest.time_dimension = reader.OptionalString("time_dimension").value_or("");
  manifest.columns = ReadArray<ManifestColumn>(reader, "columns", ReadColumn, problem);
  manifest.files = ReadArray<ManifestFile>(reader, "files", ReadFile, problem);
  if (reader.Field("append_bases", false) != nullptr) {
    manifest.append_bases = ReadArray<ManifestFile>(reader, "append_bases", ReadFile, problem);
  }
  return manifest;
}

OrderedJson TimeJson(const std::optional<UnixSeconds>& seconds) {
  return seconds ? OrderedJson(FormatIso8601(*seconds)) : OrderedJson(nullptr);
}

std::optional<std::string> ColumnProblem(const ManifestColumn& column, std::size_t index,
                                         std::set<std::string>* names) {
  const std::string at = fmt::format("columns[{}]", index);
  if (column.name.empty()) return at + ".name is empty";
  if (!names->insert(column.name).second) {
    return fmt::format("{}.name \"{}\" is used twice", at, column.name);
  }
  if (column.type.empty()) return at + ".type is empty";
  if (column.source.empty()) return at + ".source is empty";
  if (column.role != "dimension" && column.role != "measure") {
    return fmt::format("{}.role \"{}\" is neither \"dimension\" nor \"measure\"", at, column.role);
  }
  return std::nullopt;
}

std::optional<std::string> FileProblem(const ManifestFile& file, std::size_t index,
                                       bool partitioned, std::set<std::string>* paths) {
  const std::string at = fmt::format("files[{}]", index);
  if (!IsPlainFileName(file.path)) {
    return fmt::format("{}.path \"{}\" is not a file name inside the rollup folder", at, file.path);
  }
  if (!paths->insert(file.path).second) {
    return fmt::format("{}.path \"{}\" is used twice", at, file.path);
  }
  if (file.start.has_value() != file.end.has_value()) {
    return at + ": start and end must both be set or both be null";
  }
  if (file.start && *file.start >= *file.end) return at + ": start is not before end";
  if (file.null_time && file.start) return at + ": a null_time file has no period";
  if (file.null_time && !partitioned) return at + ": null_time in an unpartitioned rollup";
  const bool whole = !file.start && !file.null_time;
  if (whole && partitioned) return at + ": a file without a period in a partitioned rollup";
  if (file.start && !partitioned) return at + ": a period in an unpartitioned rollup";
  if (file.rows < 0) return at + ".rows is negative";
  if (!IsLowerHex16(file.checksum)) {
    return fmt::format("{}.checksum \"{}\" is not 16 lowercase hex digits", at, file.checksum);
  }
  if (!(file.build_ms >= 0)) return at + ".build_ms is negative";
  if (!ParseIso8601(file.built_at)) {
    return fmt::format("{}.built_at \"{}\" is not an ISO 8601 UTC time", at, file.built_at);
  }
  return std::nullopt;
}

// Overlapping periods, or more than one null_time / whole-rollup file.
std::optional<std::string> LayoutProblem(const std::vector<ManifestFile>& files) {
  std::vector<std::pair<UnixSeconds, UnixSeconds>> periods;
  int null_time_files = 0;
  int whole_files = 0;
  for (const ManifestFile& file : files) {
    if (file.start) {
      periods.emplace_back(*file.start, *file.end);
    } else if (file.null_time) {
      ++null_time_files;
    } else {
      ++whole_files;
    }
  }
  if (null_time_files > 1) return "more than one null_time file";
  if (whole_files > 1) return "more than one file without a period";
  std::sort(periods.begin(), periods.end());
  for (std::size_t i = 1; i < periods.size(); ++i) {
    if (periods[i].first < periods[i - 1].second) {
      return fmt::format("the periods starting {} and {} overlap",
                         FormatIso8601(periods[i - 1].first), FormatIso8601(periods[i].first));
    }
  }
  return std::nullopt;
}

std::optional<std::string> ManifestProblem(const Manifest& manifest) {
  if (manifest.format_version != kManifestFormatVersion) {
    return fmt::format("format_version {} is not supported (this strata reads {})",
                       manifest.format_version, kManifestFormatVersion);
  }
  if (manifest.rollup.empty()) return "rollup is empty";
  if (manifest.definition_hash.empty()) return "definition_hash is empty";
  if (manifest.version < 1) return fmt::format("version {} is not positive", manifest.version);
  if (!ParseIso8601(manifest.built_at)) {
    return fmt::format("built_at \"{}\" is not an ISO 8601 UTC time", manifest.built_at);
  }
  if (manifest.range_start && manifest.range_end && *manifest.range_start >= *manifest.range_end) {
    return "range_start is not before range_end";
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < manifest.columns.size(); ++i) {
    if (auto problem = ColumnProblem(manifest.columns[i], i, &names)) return problem;
  }
  std::set<std::string> paths;
  const bool partitioned = !manifest.partition_by.empty();
  for (std::size_t i = 0; i < manifest.files.size(); ++i) {
    if (auto problem = FileProblem(manifest.files[i], i, partitioned, &paths)) return problem;
  }
  if (auto problem = LayoutProblem(manifest.files)) return problem;
  if (manifest.append_slice_rows && *manifest.append_slice_rows < 0) {
    return "append_slice_rows is negative";
  }
  for (std::size_t i = 0; i < manifest.append_bases.size(); ++i) {
    const ManifestFile& base = manifest.append_bases[i];
    if (auto problem = FileProblem(base, i, partitioned, &paths))
      return "append_bases: " + *problem;
    const bool has_file =
        std::any_of(manifest.files.begin(), manifest.files.end(), [&](const ManifestFile& file) {
          return file.start == base.start && file.end == base.end &&
                 file.null_time == base.null_time;
        });
    if (!has_file) return fmt::format("append_bases[{}]: no file has its period", i);
  }
  return LayoutProblem(manifest.append_bases);
}

}  // namespace

std::int64_t Manifest::TotalRows() const {
  std::int64_t total = 0;
  for (const ManifestFile& file : files) total += file.rows;
  return total;
}

const ManifestColumn* Manifest::FindColumn(std::string_view name) const {
  for (const ManifestColumn& column : columns) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

const ManifestFile* Manifest::AppendBaseOf(const ManifestFile& file) const {
  for (const ManifestFile& base : append_bases) {
    if (base.start == file.start && base.end == file.end && base.null_time == file.null_time) {
      return &base;
    }
  }
  return nullptr;
}

Status ValidateManifest(const Manifest& manifest) {
  if (std::optional<std::string> problem = ManifestProblem(manifest)) {
    return ManifestError(
        fmt::format("invalid manifest for rollup \"{}\": {}", manifest.rollup, *problem));
  }
  return OkStatus();
}

std::string ManifestToJson(const Manifest& manifest) {
  OrderedJson columns = OrderedJson::array();
  for (const ManifestColumn& column : manifest.columns) {
    columns.push_back({{"name", column.name},
                       {"type", column.type},
                       {"role", column.role},
                       {"source", column.source},
                       {"part", column.part}});
  }
  const auto files_json = [](const std::vector<ManifestFile>& list) {
    OrderedJson files = OrderedJson::array();
    for (const ManifestFile& file : list) {
      files.push_back({{"start", TimeJson(file.start)},
                       {"end", TimeJson(file.end)},
                       {"null_time", file.null_time},
                       {"path", file.path},
                       {"rows", file.rows},
                       {"bytes", file.bytes},
                       {"checksum", file.checksum},
                       {"build_ms", file.build_ms},
                       {"built_at", file.built_at}});
    }
    return files;
  };
  const auto optional_json = [](const auto& value) {
    return value ? OrderedJson(*value) : OrderedJson(nullptr);
  };
  const OrderedJson document = {
      {"format_version", manifest.format_version},
      {"rollup", manifest.rollup},
      {"definition_hash", manifest.definition_hash},
      {"version", manifest.version},
      {"built_at", manifest.built_at},
      {"freshness_marker",
       manifest.freshness_marker ? OrderedJson(*manifest.freshness_marker) : OrderedJson(nullptr)},
      {"append_marker", optional_json(manifest.append_marker)},
      {"append_slice_from", optional_json(manifest.append_slice_from)},
      {"append_slice_rows", optional_json(manifest.append_slice_rows)},
      {"built_through", TimeJson(manifest.built_through)},
      {"range_start", TimeJson(manifest.range_start)},
      {"range_end", TimeJson(manifest.range_end)},
      {"partition_by", manifest.partition_by},
      {"time_dimension", manifest.time_dimension},
      {"total_rows", manifest.TotalRows()},  // informational; not read back
      {"columns", std::move(columns)},
      {"files", files_json(manifest.files)},
      {"append_bases", files_json(manifest.append_bases)}};
  // Invalid UTF-8 in a name is replaced rather than thrown: the manifest stays writable.
  return document.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

Result<Manifest> ParseManifestJson(std::string_view text, std::string_view display_path) {
  const Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return ManifestError(fmt::format(
        "{} is not a manifest: {}", display_path,
        text.empty()
            ? "the file is empty"
            : (json.is_discarded() ? "not valid JSON (truncated?)" : "not a JSON object")));
  }
  std::optional<std::string> problem;
  Manifest manifest = ReadManifest(json, &problem);
  if (!problem) problem = ManifestProblem(manifest);
  if (problem) return ManifestError(fmt::format("{}: {}", display_path, *problem));
  return manifest;
}

}  // namespace strata::rollup
