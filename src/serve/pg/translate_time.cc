// Conditions on a time bucket (date_trunc('month', col), CAST(col AS DATE), EXTRACT(YEAR FROM
// col)) as conditions on the time column itself: a bucket starting at s and ending at n is
// `col >= s AND col < n`, so B(col) = s is that range, B(col) >= s is col >= s, B(col) <= s is
// col < n, and so on. Only a value that starts a bucket is read (B(col) = '2026-01-15' at the
// month grain is never true, and the other comparisons with it are easy to misread).
#include <fmt/format.h>

#include "base/time.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

using semantic::TimeGrain;

constexpr std::int64_t kSecondsPerDay = 86400;

std::string DateText(const CivilTime& civil) {
  return fmt::format("{:04}-{:02}-{:02}", civil.year, civil.month, civil.day);
}

CivilTime AddMonths(CivilTime civil, int months) {
  const int index = civil.year * 12 + (civil.month - 1) + months;
  civil.year = index / 12;
  civil.month = index % 12 + 1;
  return civil;
}

CivilTime AddDays(const CivilTime& civil, int days) {
  return ToCivil(ToUnixSeconds(civil) + days * kSecondsPerDay);
}

// Whether `civil` (at midnight) starts a bucket of `grain`: ISO weeks start on Monday.
bool StartsBucket(const CivilTime& civil, TimeGrain grain) {
  const std::int64_t days = ToUnixSeconds(civil) / kSecondsPerDay;  // 1970-01-01 was a Thursday
  switch (grain) {
    case TimeGrain::kDay:
      return true;
    case TimeGrain::kWeek:
      return ((days + 3) % 7 + 7) % 7 == 0;
    case TimeGrain::kMonth:
      return civil.day == 1;
    case TimeGrain::kQuarter:
      return civil.day == 1 && (civil.month - 1) % 3 == 0;
    case TimeGrain::kYear:
      return civil.day == 1 && civil.month == 1;
    case TimeGrain::kHour:
    case TimeGrain::kFiscalQuarter:
    case TimeGrain::kFiscalYear:
      return false;
  }
  return false;
}

CivilTime NextBucket(const CivilTime& civil, TimeGrain grain) {
  switch (grain) {
    case TimeGrain::kDay:
      return AddDays(civil, 1);
    case TimeGrain::kWeek:
      return AddDays(civil, 7);
    case TimeGrain::kMonth:
      return AddMonths(civil, 1);
    case TimeGrain::kQuarter:
      return AddMonths(civil, 3);
    case TimeGrain::kYear:
    case TimeGrain::kHour:
    case TimeGrain::kFiscalQuarter:
    case TimeGrain::kFiscalYear:
      return AddMonths(civil, 12);
  }
  return civil;
}

// The bucket [start, next) that `value` starts, as wall-clock dates of the query's zone; nulls
// for an unbound parameter.
Result<std::pair<Json, Json>> BucketBounds(const Term& bucket, const Json& value) {
  if (value.is_null()) return std::make_pair(Json(nullptr), Json(nullptr));
  const std::string grain(semantic::TimeGrainName(*bucket.grain));
  if (bucket.is_extract) {
    if (bucket.form != SqlOutputForm::kYear || !value.is_number_integer() ||
        value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 9998) {
      return Unsupported(fmt::format("a condition on EXTRACT({} ...) with {}", grain, value.dump()),
                         "compare EXTRACT(YEAR FROM col) with a year: = 2026");
    }
    const CivilTime start{static_cast<int>(value.get<std::int64_t>()), 1, 1};
    return std::make_pair(Json(DateText(start)), Json(DateText(AddMonths(start, 12))));
  }
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  const std::optional<TimeText> parsed = ParseTimeText(text);
  const bool midnight = parsed && parsed->civil.hour == 0 && parsed->civil.minute == 0 &&
                        parsed->civil.second == 0 && !parsed->zulu;
  if (!midnight || !StartsBucket(parsed->civil, *bucket.grain)) {
    return Unsupported(
        fmt::format("a condition on the {} bucket of {} with {}, which does not start a {}", grain,
                    bucket.member, value.dump(), grain),
        "compare with the first day of a bucket (weeks start on Monday), or compare the time "
        "column itself: order_date >= '2026-01-01' AND order_date < '2026-02-01'");
  }
  return std::make_pair(Json(DateText(parsed->civil)),
                        Json(DateText(NextBucket(parsed->civil, *bucket.grain))));
}

Json Bound(const Term& bucket, std::string_view op, Json value) {
  return Json{{"member", bucket.member}, {"op", op}, {"values", Json::array({std::move(value)})}};
}

}  // namespace

Result<Json> BucketComparison(const Term& bucket, sql::BinaryOp op, const Json& value) {
  if (bucket.grain == TimeGrain::kHour) {
    return Unsupported("a condition on an hour bucket", "compare the time column itself");
  }
  STRATA_ASSIGN_OR_RETURN(auto bounds, BucketBounds(bucket, value));
  auto& [start, next] = bounds;
  if (op == sql::BinaryOp::kEq) {
    return Json{{"and", Json::array({Bound(bucket, "gte", start), Bound(bucket, "lt", next)})}};
  }
  if (op == sql::BinaryOp::kNotEq) {
    return Json{{"or", Json::array({Bound(bucket, "lt", start), Bound(bucket, "gte", next)})}};
  }
  if (op == sql::BinaryOp::kLess) return Bound(bucket, "lt", start);
  if (op == sql::BinaryOp::kLessEq) return Bound(bucket, "lt", next);
  if (op == sql::BinaryOp::kGreater) return Bound(bucket, "gte", next);
  return Bound(bucket, "gte", start);
}

}  // namespace strata::serve::pg::internal
