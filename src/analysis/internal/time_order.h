// How the two sides of a bounding comparison (`x >= @start_date`) order time. Private to
// analysis/ (the rules are listed in analysis/bounds.h).
//
// A truncation to a unit u maps a time t to the start of its u-bucket: it never increases t and
// keeps the order (monotone non-decreasing). CAST(x AS DATE) and DATE(x) truncate to the day,
// DATE_TRUNC('u', x) to u, and casts to a timestamp type truncate nothing (kInstant).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/partition.h"
#include "sql/ast.h"

namespace strata::analysis::internal {

// kInstant: no truncation. The others in the order of their bucket lengths.
enum class TimeUnit { kInstant, kSecond, kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear };

std::string_view TimeUnitName(TimeUnit unit);  // "instant" | "second" | ... | "year"

// True when every boundary of a `grain` window is also a boundary of `unit`'s buckets, so a
// truncation to `unit` leaves @start_date and @end_date unchanged (hour: every grain; day: day,
// month, year; week: none; month: month, year; quarter: year; year: year).
bool IsExactFor(TimeUnit unit, Grain grain);

// A column reference by name: `t.order_date` is {{"t"}, "order_date"}.
struct ColumnName {
  std::vector<std::string_view> qualifier;
  std::string_view name;
};

ColumnName NameOf(const sql::ColumnRef& column);

// The comparison side that reads the rows (x in `x >= @start_date`).
enum class ColumnShape {
  kNone,         // reads no column outside a subquery: bounds nothing
  kTime,         // one column through time-keeping casts and truncations (unit, column)
  kOpaque,       // reads columns some other way (COALESCE, `x + INTERVAL ...`, AT TIME ZONE, a
                 // JSON path cast to TIMESTAMP...): trusted as the time, as a bare column
  kNonMonotone,  // its outermost operation does not keep the time's order or is no time: part
                 // extraction (EXTRACT, DATE_PART, HOUR(), ...), string functions and casts to
                 // strings, unary minus, `c - x`, and *, /, % or + between columns
};

struct ColumnSide {
  ColumnShape shape = ColumnShape::kNone;
  TimeUnit unit = TimeUnit::kInstant;  // kTime only
  std::optional<ColumnName> column;    // kTime only
};

ColumnSide ClassifyColumnSide(const sql::Expr& expr);

enum class WindowEdge { kStart, kEnd };

// The placeholder side: @start_date or @end_date (also quoted), in parentheses, casts (to DATE:
// a day truncation; any other type: none), DATE(...) and DATE_TRUNC('unit', ...).
struct PlaceholderSide {
  WindowEdge edge = WindowEdge::kStart;
  TimeUnit unit = TimeUnit::kInstant;
};

// nullopt when `expr` is no placeholder in that sense (arithmetic, other functions...).
std::optional<PlaceholderSide> ClassifyPlaceholderSide(const sql::Expr& expr);

}  // namespace strata::analysis::internal
