// E020-E023, E025, E026: the time column of a time_interval model (model_check.h).
#include <fmt/format.h>

#include "analysis/output_columns.h"
#include "check/internal/checks.h"
#include "sql/parser.h"

namespace strata::check::internal {

using analysis::Nullability;
using analysis::ValueType;

Diagnostic Make(const project::Model& model, std::string code, std::string message,
                std::string hint, SourceSpan span) {
  Diagnostic diagnostic;
  diagnostic.model = model.name;
  diagnostic.code = std::move(code);
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  diagnostic.span = std::move(span);
  return diagnostic;
}

Diagnostic AtSql(const project::Model& model, const ModelFiles& files, sql::Span at,
                 std::string code, std::string message, std::string hint) {
  Diagnostic diagnostic = Make(model, std::move(code), std::move(message), std::move(hint),
                               SourceSpan{files.sql, at.line, at.column});
  if (at.line > 0) diagnostic.caret = sql::RenderCaret(model.sql, at.line, at.column);
  return diagnostic;
}

// Resolves a table name as written in the model's SQL the way reference rewriting does: a model
// source's table name first, then a model name (its target), else the name as written.
analysis::TableLookup CatalogLookup(const project::Project& project, const project::Model& model,
                                    Catalog* catalog) {
  if (catalog == nullptr) return {};
  return [&project, &model, catalog](const std::vector<std::string>& parts)
             -> std::optional<std::vector<analysis::TypedColumn>> {
    std::optional<project::ObjectName> object;
    if (parts.size() == 1) {
      for (const project::ObjectName& source : model.sources) {
        if (!object && analysis::SameName(source.table, parts[0])) object = source;
      }
      for (const project::Model& other : project.models) {
        if (!object && analysis::SameName(other.name, parts[0])) object = other.target;
      }
      if (!object) object = project::ObjectName{"", "", parts[0]};
    } else if (parts.size() == 2) {
      object = project::ObjectName{"", parts[0], parts[1]};
    } else if (parts.size() == 3) {
      object = project::ObjectName{parts[0], parts[1], parts[2]};
    } else {
      return std::nullopt;
    }
    std::optional<std::vector<CatalogColumn>> columns = catalog->Describe(*object);
    if (!columns) return std::nullopt;
    std::vector<analysis::TypedColumn> typed;
    for (const CatalogColumn& column : *columns) {
      typed.push_back({column.name, column.type,
                       column.nullable ? Nullability::kNullable : Nullability::kNotNull});
    }
    return typed;
  };
}

namespace {

std::string ColumnList(const analysis::OutputColumns& output) {
  std::string names;
  for (const analysis::OutputColumn& column : output.columns) {
    if (column.name.empty()) continue;
    names += names.empty() ? column.name : ", " + column.name;
  }
  return names.empty() ? "no named columns" : "columns: " + names;
}

// E031: in a zoned model, the bounds render as instants (naive_time = "utc") or as wall-clock
// times ("local"); a DATE holds local dates and a TIMESTAMPTZ instants, so each must have its own
// rendering or its windows shift by the zone's offset (docs/timezones.md).
void CheckZonedColumnType(const project::Model& model, const ModelFiles& files,
                          const analysis::OutputColumn& column, std::vector<Diagnostic>& out) {
  const project::TimeIntervalConfig& config = *model.time_interval;
  if (config.zone.is_utc()) return;
  const bool local = config.naive_time == project::NaiveTime::kLocal;
  if (column.type == ValueType::kDate && !local) {
    out.push_back(AtSql(
        model, files, column.span, "E031",
        fmt::format("time_column \"{}\" is a DATE in a model zoned {}: a DATE holds local dates, "
                    "but the window's bounds render as UTC instants",
                    config.time_column, config.zone.name()),
        "add naive_time = \"local\" to [strategy], so the bounds are local dates"));
  } else if (column.type == ValueType::kTimestampTz && local) {
    out.push_back(AtSql(
        model, files, column.span, "E031",
        fmt::format("time_column \"{}\" is a TIMESTAMPTZ (instants), but naive_time = \"local\" "
                    "renders the window's bounds as {} wall-clock times",
                    config.time_column, config.zone.name()),
        "remove naive_time (a TIMESTAMPTZ column takes instants), or output the local time: "
        "CAST(<column> AT TIME ZONE '<zone>' AS TIMESTAMP)"));
  }
}

}  // namespace

void CheckTimeIntervalConfig(const project::Model& model, const ModelFiles& files,
                             sql::Dialect dialect, std::vector<Diagnostic>& out) {
  const project::TimeIntervalConfig& config = *model.time_interval;
  if (!sql::IsPlainIdentifier(config.time_column, dialect)) {
    out.push_back(Make(model, "E023",
                       fmt::format("time_column \"{}\" is not a valid {} identifier",
                                   config.time_column, sql::DialectName(dialect)),
                       "use the plain name of an output column: a letter or _, then letters, "
                       "digits and _ (at most 63 bytes in postgres and redshift, 128 elsewhere)",
                       SourceSpan{files.toml, 0, 0}));
  }
  if (config.first_partition && config.first_partition->grain() != config.granularity) {
    out.push_back(
        Make(model, "E026",
             fmt::format("first_partition \"{}\" is a {} key but the model's granularity is {}",
                         config.first_partition->ToString(),
                         GrainName(config.first_partition->grain()), GrainName(config.granularity)),
             fmt::format("write first_partition like \"{}\"", GrainExample(config.granularity)),
             SourceSpan{files.toml, 0, 0}));
  }
}

void CheckTimeColumn(const project::Project& project, const project::Model& model,
                     const ModelFiles& files, const sql::Statement& statement, Catalog* catalog,
                     std::vector<Diagnostic>& out) {
  const project::TimeIntervalConfig& config = *model.time_interval;
  const analysis::OutputColumns output =
      analysis::AnalyzeOutputColumns(statement, CatalogLookup(project, model, catalog));
  const analysis::OutputColumn* column = nullptr;
  for (const analysis::OutputColumn& candidate : output.columns) {
    if (column == nullptr && analysis::SameName(candidate.name, config.time_column))
      column = &candidate;
  }
  if (column == nullptr) {
    if (!output.complete) return;  // a `*` over a table we know nothing about may provide it
    out.push_back(AtSql(model, files, output.select_span, "E020",
                        fmt::format("time_column \"{}\" is not a column of the output ({})",
                                    config.time_column, ColumnList(output)),
                        fmt::format("name the partition column in the SELECT list, e.g. "
                                    "DATE_TRUNC('{}', <timestamp>) AS {}, or set time_column to "
                                    "one of the output's columns",
                                    GrainName(config.granularity), config.time_column)));
    return;
  }
  if (column->type != ValueType::kUnknown && !analysis::IsTemporal(column->type)) {
    out.push_back(
        AtSql(model, files, column->span, "E021",
              fmt::format("time_column \"{}\" has type {}; a time_interval model needs "
                          "DATE or TIMESTAMP",
                          config.time_column, analysis::ValueTypeName(column->type)),
              fmt::format("cast it, e.g. CAST(<value> AS TIMESTAMP) AS {}", config.time_column)));
  }
  if (column->nullability == Nullability::kNullable) {
    out.push_back(AtSql(model, files, column->span, "E022",
                        fmt::format("time_column \"{}\" can be NULL, and a NULL row belongs to no "
                                    "partition",
                                    config.time_column),
                        "filter the column it comes from in WHERE (<column> >= @start_date, or "
                        "<column> IS NOT NULL), or COALESCE it"));
  }
  if (config.granularity == Grain::kHour && column->type == ValueType::kDate) {
    out.push_back(AtSql(model, files, column->span, "E025",
                        fmt::format("granularity = \"hour\" but time_column \"{}\" is a DATE: "
                                    "every row would land in the first hour of its day",
                                    config.time_column),
                        "keep the hour: a TIMESTAMP such as DATE_TRUNC('hour', <timestamp>), or "
                        "use granularity = \"day\""));
  }
  CheckZonedColumnType(model, files, *column, out);
}

}  // namespace strata::check::internal
