// The syntax tree of one SQL query statement, as produced by ParseStatement (parser.h) and
// rendered back to SQL by Print (printer.h).
//
// Shape: a Statement owns a Query; a Query is WITH + a body (SetExpr) + ORDER BY/LIMIT; a body is
// a SELECT, a set operation, VALUES or a parenthesized Query; a SELECT reads a tree of TableRefs
// and computes Exprs. Each node kind is its own struct deriving from Expr, TableRef or SetExpr
// with a `kind` tag; downcast with As<T>() (checked) after testing `kind`.
//
// Ownership: every child is a std::unique_ptr owned by its parent. All std::string_view members
// (identifier names, literal and operator texts) point into Statement::source or
// Statement::names, so they live exactly as long as the Statement; moving the Statement (or its
// unique_ptr) keeps them valid.
//
// Spans: every node has the line/column (1-based, columns in bytes) of its first token.
//
// Nodes are plain data: not thread-safe to mutate, safe to read from many threads.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "sql/dialect.h"
#include "sql/node_pool.h"

namespace strata::sql {

// The allocator of the vectors inside nodes (names, argument lists): the node pool as well
// (node_pool.h), since a compile builds and frees hundreds of them per model. Stateless: any two
// compare equal, and a vector may be freed on another thread than the one that filled it.
template <typename T>
class NodeAllocator {
 public:
  using value_type = T;  // NOLINT(readability-identifier-naming): the Allocator requirements
  NodeAllocator() = default;
  template <typename U>
  NodeAllocator(const NodeAllocator<U>& /*other*/) noexcept {
  }  // NOLINT(google-explicit-constructor)

  T* allocate(std::size_t count) {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    return static_cast<T*>(internal::AllocateNode(count * sizeof(T)));
  }
  void deallocate(T* block, std::size_t count) noexcept {
    internal::FreeNode(block, count * sizeof(T));
  }

  template <typename U>
  bool operator==(const NodeAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

template <typename T>
using NodeVector = std::vector<T, NodeAllocator<T>>;

struct Span {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based, in bytes
};

// A name part. `name` is the name as meant (quotes removed, escapes resolved, case kept);
// `quoted` says whether the source quoted it.
struct Identifier {
  std::string_view name;
  bool quoted = false;
  Span span;
};

struct Query;
struct Expr;
struct TableRef;
struct SetExpr;
using ExprPtr = std::unique_ptr<Expr>;
using TableRefPtr = std::unique_ptr<TableRef>;
using SetExprPtr = std::unique_ptr<SetExpr>;
using QueryPtr = std::unique_ptr<Query>;

// Base of the three node families: a kind tag, a span and a checked downcast.
template <typename Kind>
struct Node {
  Node(Kind node_kind, Span node_span) : kind(node_kind), span(node_span) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Nodes live in a per-thread pool (node_pool.h); the virtual destructor makes the sized delete
  // receive the derived type's size.
  static void* operator new(std::size_t size) { return internal::AllocateNode(size); }
  static void operator delete(void* block, std::size_t size) noexcept {
    internal::FreeNode(block, size);
  }

  // REQUIRES: kind == T::kKind (checked; a mismatch is a bug and throws InvariantViolation).
  template <typename T>
  const T& As() const {
    STRATA_CHECK(kind == T::kKind);
    return static_cast<const T&>(*this);
  }

  Kind kind;
  Span span;
};

// ---------------------------------------------------------------------------------------------
// Types

// A data type as written: name words ("DOUBLE PRECISION", "TIMESTAMP WITH TIME ZONE"), optional
// parameters in (...) or <...>, and [] suffixes. A parameter is a number (name = its text, no
// parameters) or a type, optionally with a field name (STRUCT(a INT), STRUCT<a INT64>).
struct DataType {
  NodeVector<Identifier> words;
  struct Parameter {
    std::optional<Identifier> field;
    std::unique_ptr<DataType> type;
  };
  std::vector<Parameter> parameters;
  bool has_parameters = false;                   // "()" written, possibly empty
  bool angle_brackets = false;                   // ARRAY<INT64> rather than DECIMAL(10, 2)
  std::vector<std::string_view> array_suffixes;  // "" for [], "3" for [3]
  Span span;
};

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind {
  kLiteral,
  kTypedLiteral,
  kInterval,
  kPlaceholder,
  kParameter,
  kColumn,
  kStar,
  kUnary,
  kBinary,
  kLike,
  kBetween,
  kInList,
  kInSubquery,
  kIs,
  kIsDistinct,
  kQuantified,
  kExists,
  kSubquery,
  kFunction,
  kKeywordFunction,
  kCast,
  kCase,
  kArray,
  kStruct,
  kMap,
  kRow,
  kNested,
  kSubscript,
  kField,
  kJsonPath,
  kNamedArgument,
  kCollate,
  kAtTimeZone,
  kGrouping,
};

struct Expr : Node<ExprKind> {
  using Node::Node;
};

enum class LiteralKind { kNumber, kString, kTrue, kFalse, kNull };

struct Literal : Expr {
  static constexpr ExprKind kKind = ExprKind::kLiteral;
  explicit Literal(Span s) : Expr(kKind, s) {}
  LiteralKind literal_kind = LiteralKind::kNull;
  std::string_view text;  // the token as written (strings with prefix and quotes)
};

// DATE '2024-01-01', TIMESTAMP '...', JSON '...': a type keyword then a string.
struct TypedLiteral : Expr {
  static constexpr ExprKind kKind = ExprKind::kTypedLiteral;
  explicit TypedLiteral(Span s) : Expr(kKind, s) {}
  DataType type;
  std::string_view text;  // the string token as written
};

// INTERVAL '1 day', INTERVAL '1' DAY, INTERVAL 1 DAY, INTERVAL '1:2' HOUR TO MINUTE.
struct Interval : Expr {
  static constexpr ExprKind kKind = ExprKind::kInterval;
  explicit Interval(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  std::string_view unit;     // empty when the unit is inside the string
  std::string_view to_unit;  // empty unless "... TO unit"
};

// @name, or the quoted form '@name' (see placeholders.h).
struct Placeholder : Expr {
  static constexpr ExprKind kKind = ExprKind::kPlaceholder;
  explicit Placeholder(Span s) : Expr(kKind, s) {}
  std::string_view name;  // without '@' and quotes
  bool quoted = false;    // written as '@name'
};

// ?, $1, $name, :name and @@variable, kept as written.
struct Parameter : Expr {
  static constexpr ExprKind kKind = ExprKind::kParameter;
  explicit Parameter(Span s) : Expr(kKind, s) {}
  std::string_view text;
};

// a, t.a, db.schema.t.a (also bare keywords used as values: CURRENT_DATE).
struct ColumnRef : Expr {
  static constexpr ExprKind kKind = ExprKind::kColumn;
  explicit ColumnRef(Span s) : Expr(kKind, s) {}
  NodeVector<Identifier> parts;
};

struct SelectItem {
  ExprPtr expr;
  std::optional<Identifier> alias;
};

// *, t.*, with DuckDB/Snowflake EXCLUDE (BigQuery/Databricks EXCEPT) and REPLACE modifiers.
struct Star : Expr {
  static constexpr ExprKind kKind = ExprKind::kStar;
  explicit Star(Span s) : Expr(kKind, s) {}
  NodeVector<Identifier> qualifier;
  NodeVector<Identifier> excluded;                          // the excluded columns' names
  std::vector<NodeVector<Identifier>> excluded_qualifiers;  // per excluded name: t in t.id, or {}
  std::vector<SelectItem> replaced;                         // expr AS name
};

enum class UnaryOp { kNot, kMinus, kPlus, kBitNot };

struct Unary : Expr {
  static constexpr ExprKind kKind = ExprKind::kUnary;
  explicit Unary(Span s) : Expr(kKind, s) {}
  UnaryOp op = UnaryOp::kNot;
  ExprPtr operand;
};

enum class BinaryOp {
  kOr,
  kAnd,
  kEq,
  kNotEq,
  kLess,
  kLessEq,
  kGreater,
  kGreaterEq,
  kNullSafeEq,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kIntegerDivide,
  kModulo,
  kPower,
  kConcat,
  kBitAnd,
  kBitOr,
  kBitXor,
  kShiftLeft,
  kShiftRight,
  kArrow,
  kLongArrow,
  kHashArrow,
  kHashLongArrow,
  kContains,
  kOverlaps,
  kTextMatch,
  kRegexMatch,
  kRegexNotMatch,
  kRegexIMatch,
  kRegexNotIMatch,  // ~  !~  ~*  !~*
};

struct Binary : Expr {
  static constexpr ExprKind kKind = ExprKind::kBinary;
  explicit Binary(Span s) : Expr(kKind, s) {}
  BinaryOp op = BinaryOp::kAnd;
  ExprPtr left;
  ExprPtr right;
  // DuckDB `lambda x, y: body`: op is kArrow, `left` the parameter (a ColumnRef) or parameters
  // (a Row of ColumnRefs), `right` the body; printed back in the same form.
  bool python_lambda = false;
};

enum class LikeOp { kLike, kILike, kSimilarTo, kRLike, kRegexp, kGlob };

struct Like : Expr {
  static constexpr ExprKind kKind = ExprKind::kLike;
  explicit Like(Span s) : Expr(kKind, s) {}
  LikeOp op = LikeOp::kLike;
  bool negated = false;
  ExprPtr value;
  ExprPtr pattern;
  ExprPtr escape;  // may be null
};

struct Between : Expr {
  static constexpr ExprKind kKind = ExprKind::kBetween;
  explicit Between(Span s) : Expr(kKind, s) {}
  bool negated = false;
  bool symmetric = false;
  ExprPtr value;
  ExprPtr low;
  ExprPtr high;
};

struct InList : Expr {
  static constexpr ExprKind kKind = ExprKind::kInList;
  explicit InList(Span s) : Expr(kKind, s) {}
  bool negated = false;
  ExprPtr value;
  NodeVector<ExprPtr> list;
};

struct InSubquery : Expr {
  static constexpr ExprKind kKind = ExprKind::kInSubquery;
  explicit InSubquery(Span s) : Expr(kKind, s) {}
  bool negated = false;
  ExprPtr value;
  QueryPtr query;
};

enum class IsTest { kNull, kTrue, kFalse, kUnknown };

// x IS [NOT] NULL/TRUE/FALSE/UNKNOWN (also ISNULL / NOTNULL, printed as IS [NOT] NULL).
struct Is : Expr {
  static constexpr ExprKind kKind = ExprKind::kIs;
  explicit Is(Span s) : Expr(kKind, s) {}
  bool negated = false;
  IsTest test = IsTest::kNull;
  ExprPtr value;
};

struct IsDistinct : Expr {
  static constexpr ExprKind kKind = ExprKind::kIsDistinct;
  explicit IsDistinct(Span s) : Expr(kKind, s) {}
  bool negated = false;  // IS NOT DISTINCT FROM
  ExprPtr left;
  ExprPtr right;
};

// x = ANY (subquery or array), x > ALL (...), x = SOME (...).
struct Quantified : Expr {
  static constexpr ExprKind kKind = ExprKind::kQuantified;
  explicit Quantified(Span s) : Expr(kKind, s) {}
  BinaryOp op = BinaryOp::kEq;  // a comparison
  std::string_view quantifier;  // "ANY", "ALL" or "SOME"
  ExprPtr left;
  QueryPtr query;  // exactly one of query and right is set
  ExprPtr right;
};

struct Exists : Expr {
  static constexpr ExprKind kKind = ExprKind::kExists;
  explicit Exists(Span s) : Expr(kKind, s) {}
  QueryPtr query;
};

// A scalar (or ARRAY(...)) subquery used as a value.
struct Subquery : Expr {
  static constexpr ExprKind kKind = ExprKind::kSubquery;
  explicit Subquery(Span s) : Expr(kKind, s) {}
  QueryPtr query;
  bool parenthesized = true;  // false for a bare query argument: ARRAY(SELECT ...)
};

struct OrderItem {
  enum class Direction { kDefault, kAsc, kDesc };
  enum class Nulls { kDefault, kFirst, kLast };
  ExprPtr expr;
  Direction direction = Direction::kDefault;
  Nulls nulls = Nulls::kDefault;
};

struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  ExprPtr offset;  // for kPreceding / kFollowing
};

struct WindowFrame {
  enum class Unit { kRows, kRange, kGroups };
  enum class Exclude { kNone, kCurrentRow, kGroup, kTies, kNoOthers };
  Unit unit = Unit::kRows;
  FrameBound start;
  std::optional<FrameBound> end;  // set when written as BETWEEN start AND end
  Exclude exclude = Exclude::kNone;
};

// OVER (base PARTITION BY ... ORDER BY ... frame); also the body of a named WINDOW.
struct WindowSpec {
  std::optional<Identifier> base;
  NodeVector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  std::optional<WindowFrame> frame;
};

// name(args) with every modifier: DISTINCT, ORDER BY inside the call, IGNORE/RESPECT NULLS,
// WITHIN GROUP, FILTER (WHERE ...), OVER. Arguments may be Star, Subquery or NamedArgument.
struct FunctionCall : Expr {
  static constexpr ExprKind kKind = ExprKind::kFunction;
  explicit FunctionCall(Span s) : Expr(kKind, s) {}
  NodeVector<Identifier> name;
  bool distinct = false;
  NodeVector<ExprPtr> args;
  std::vector<OrderItem> order_by;   // inside the parentheses: STRING_AGG(x, ',' ORDER BY y)
  ExprPtr limit;                     // BigQuery ARRAY_AGG(x ORDER BY y LIMIT 5) (null: none)
  std::string_view nulls_treatment;  // "IGNORE NULLS", "RESPECT NULLS" or empty
  bool nulls_inside = false;         // written inside the parentheses (BigQuery)
  std::vector<OrderItem> within_group;
  bool has_within_group = false;
  ExprPtr filter;
  std::optional<Identifier> over_name;  // OVER w
  std::unique_ptr<WindowSpec> over;     // OVER (...)
  // DuckDB's *COLUMNS(...) as a function argument: the selected columns spread into the
  // enclosing call's arguments (hash(*COLUMNS(*))). Only COLUMNS calls carry it.
  bool unpacked = false;
};

// A call whose arguments are separated by keywords: EXTRACT(YEAR FROM x),
// SUBSTRING(s FROM 2 FOR 3), POSITION('a' IN s), TRIM(BOTH 'x' FROM s).
// Each part is (keyword written before the argument, or "", argument or null).
struct KeywordFunction : Expr {
  static constexpr ExprKind kKind = ExprKind::kKeywordFunction;
  explicit KeywordFunction(Span s) : Expr(kKind, s) {}
  std::string_view name;  // upper case
  std::vector<std::pair<std::string_view, ExprPtr>> parts;
};

enum class CastStyle { kCast, kTryCast, kSafeCast, kDoubleColon };

struct Cast : Expr {
  static constexpr ExprKind kKind = ExprKind::kCast;
  explicit Cast(Span s) : Expr(kKind, s) {}
  CastStyle style = CastStyle::kCast;
  ExprPtr value;
  DataType type;
};

struct Case : Expr {
  static constexpr ExprKind kKind = ExprKind::kCase;
  explicit Case(Span s) : Expr(kKind, s) {}
  ExprPtr operand;                                 // CASE x WHEN ...; null for CASE WHEN cond ...
  std::vector<std::pair<ExprPtr, ExprPtr>> whens;  // (condition or value, result)
  ExprPtr else_result;
};

// [1, 2], ARRAY[1, 2], ARRAY<INT64>[1, 2].
struct ArrayLiteral : Expr {
  static constexpr ExprKind kKind = ExprKind::kArray;
  explicit ArrayLiteral(Span s) : Expr(kKind, s) {}
  bool array_keyword = false;
  std::optional<DataType> element_type;
  NodeVector<ExprPtr> elements;
  // DuckDB list comprehension [element FOR variable IN source IF condition]: `elements` holds
  // the one element expression.
  struct Comprehension {
    Identifier variable;
    ExprPtr source;
    ExprPtr condition;  // may be null
  };
  std::unique_ptr<Comprehension> comprehension;
};

// {'a': 1, b: 2} (DuckDB, Snowflake) or STRUCT(1 AS a, 2 AS b) / STRUCT<a INT64>(1) (BigQuery).
struct StructLiteral : Expr {
  static constexpr ExprKind kKind = ExprKind::kStruct;
  explicit StructLiteral(Span s) : Expr(kKind, s) {}
  bool struct_keyword = false;
  std::optional<DataType> type;  // STRUCT<...>
  struct Field {
    ExprPtr key;  // braces form: the key as written
    ExprPtr value;
    std::optional<Identifier> alias;  // STRUCT form: value AS alias
  };
  std::vector<Field> fields;
};

// MAP {'k': v, ...} (DuckDB).
struct MapLiteral : Expr {
  static constexpr ExprKind kKind = ExprKind::kMap;
  explicit MapLiteral(Span s) : Expr(kKind, s) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> entries;
};

// (a, b) or ROW(a, b); also () as an empty grouping set.
struct Row : Expr {
  static constexpr ExprKind kKind = ExprKind::kRow;
  explicit Row(Span s) : Expr(kKind, s) {}
  bool row_keyword = false;
  NodeVector<ExprPtr> elements;
};

// (expr) as written; kept so printing reproduces the source's grouping.
struct Nested : Expr {
  static constexpr ExprKind kKind = ExprKind::kNested;
  explicit Nested(Span s) : Expr(kKind, s) {}
  ExprPtr inner;
};

// x[i], x[a:b] (slice: `slice` true, either bound may be null).
struct Subscript : Expr {
  static constexpr ExprKind kKind = ExprKind::kSubscript;
  explicit Subscript(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  ExprPtr index;
  bool slice = false;
  ExprPtr slice_end;
};

// (expr).field and expr[i].field: field access on something that is not a plain name.
struct FieldAccess : Expr {
  static constexpr ExprKind kKind = ExprKind::kField;
  explicit FieldAccess(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  Identifier field;
};

// Snowflake / Databricks semi-structured path: col:a.b[0].
struct JsonPath : Expr {
  static constexpr ExprKind kKind = ExprKind::kJsonPath;
  explicit JsonPath(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  struct Step {
    std::optional<Identifier> key;  // .key (the first step follows ':')
    ExprPtr index;                  // [index]
  };
  std::vector<Step> steps;
};

// name => value, name := value (function arguments).
struct NamedArgument : Expr {
  static constexpr ExprKind kKind = ExprKind::kNamedArgument;
  explicit NamedArgument(Span s) : Expr(kKind, s) {}
  Identifier name;
  std::string_view op;  // "=>" or ":="
  ExprPtr value;
};

struct Collate : Expr {
  static constexpr ExprKind kKind = ExprKind::kCollate;
  explicit Collate(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  std::string_view collation;  // identifier or string token as written
};

struct AtTimeZone : Expr {
  static constexpr ExprKind kKind = ExprKind::kAtTimeZone;
  explicit AtTimeZone(Span s) : Expr(kKind, s) {}
  ExprPtr value;
  ExprPtr zone;
};

// ROLLUP (...), CUBE (...), GROUPING SETS (...) inside GROUP BY.
struct Grouping : Expr {
  static constexpr ExprKind kKind = ExprKind::kGrouping;
  explicit Grouping(Span s) : Expr(kKind, s) {}
  enum class Kind { kRollup, kCube, kGroupingSets };
  Kind grouping = Kind::kRollup;
  NodeVector<ExprPtr> items;
};

// ---------------------------------------------------------------------------------------------
// FROM

enum class TableRefKind { kTable, kFunction, kDerived, kJoin, kParenthesized, kPivot, kUnpivot };

struct TableAlias {
  Identifier name;
  NodeVector<Identifier> columns;
};

// TABLESAMPLE [method] (size [PERCENT|ROWS]) [REPEATABLE (seed)], Snowflake SAMPLE (...), and
// DuckDB's clause USING SAMPLE size [%|PERCENT|ROWS] [(method [, seed])].
struct TableSample {
  std::string_view keyword;        // "TABLESAMPLE", "SAMPLE" or "USING SAMPLE"
  bool method_after_size = false;  // USING SAMPLE 10% (bernoulli[, seed])
  std::optional<Identifier> method;
  bool parenthesized = true;  // DuckDB also writes TABLESAMPLE 10%
  ExprPtr size;
  std::string_view unit;          // "PERCENT", "ROWS", "%" or empty
  std::string_view seed_keyword;  // "REPEATABLE" or "SEED" or empty
  ExprPtr seed;
};

struct TableRef : Node<TableRefKind> {
  using Node::Node;
  std::optional<TableAlias> alias;
  std::unique_ptr<TableSample> sample;
};

struct NamedTable : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kTable;
  explicit NamedTable(Span s) : TableRef(kKind, s) {}
  NodeVector<Identifier> name;  // db.schema.table parts; empty for a file
  std::string_view file;        // DuckDB replacement scan FROM 'data.parquet': the literal's
                                // text, quotes included; empty for a named table
};

// GENERATE_SERIES(...), range(...), read_parquet(...), UNNEST(...) in FROM.
struct TableFunction : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kFunction;
  explicit TableFunction(Span s) : TableRef(kKind, s) {}
  bool lateral = false;
  std::unique_ptr<FunctionCall> call;
  bool with_ordinality = false;  // WITH ORDINALITY
  bool with_offset = false;      // BigQuery WITH OFFSET [AS alias]
  std::optional<Identifier> offset_alias;
};

struct DerivedTable : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kDerived;
  explicit DerivedTable(Span s) : TableRef(kKind, s) {}
  bool lateral = false;
  QueryPtr query;
};

enum class JoinKind { kComma, kInner, kLeft, kRight, kFull, kCross, kSemi, kAnti, kPositional };

struct Join : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kJoin;
  explicit Join(Span s) : TableRef(kKind, s) {}
  JoinKind join = JoinKind::kInner;
  bool natural = false;
  bool asof = false;
  bool left_keyword = false;  // LEFT SEMI / LEFT ANTI
  TableRefPtr left;
  TableRefPtr right;
  ExprPtr match_condition;  // Snowflake ASOF JOIN t MATCH_CONDITION (a >= b) (null: none)
  // Spark LATERAL VIEW [OUTER] gen(args) t [AS] c1, c2: a kCross join whose right side is the
  // TableFunction, its alias the table name and column names.
  bool lateral_view = false;
  bool lateral_view_outer = false;
  ExprPtr on;
  NodeVector<Identifier> using_columns;
  bool has_using = false;
};

// (a JOIN b) as a table.
struct ParenthesizedTable : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kParenthesized;
  explicit ParenthesizedTable(Span s) : TableRef(kKind, s) {}
  TableRefPtr inner;
};

// source PIVOT (agg [AS a], ... FOR col IN (value [AS a], ...)).
struct Pivot : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kPivot;
  explicit Pivot(Span s) : TableRef(kKind, s) {}
  TableRefPtr source;
  std::vector<SelectItem> aggregates;
  NodeVector<Identifier> for_columns;  // one, or several written as (a, b)
  std::vector<SelectItem> in_values;
  NodeVector<ExprPtr> group_by;  // DuckDB: PIVOT (... FOR ... IN (...) GROUP BY x)
};

// source UNPIVOT [INCLUDE|EXCLUDE NULLS] (value FOR name IN (col [AS a], ...)).
struct Unpivot : TableRef {
  static constexpr TableRefKind kKind = TableRefKind::kUnpivot;
  explicit Unpivot(Span s) : TableRef(kKind, s) {}
  TableRefPtr source;
  std::string_view nulls;                // "INCLUDE NULLS", "EXCLUDE NULLS" or empty
  NodeVector<Identifier> value_columns;  // one, or several written as (a, b)
  Identifier name_column;
  std::vector<SelectItem> in_columns;
};

// ---------------------------------------------------------------------------------------------
// Queries

enum class SetExprKind { kSelect, kSetOperation, kValues, kNested };

struct SetExpr : Node<SetExprKind> {
  using Node::Node;
};

struct NamedWindow {
  Identifier name;
  WindowSpec spec;
};

struct Select : SetExpr {
  static constexpr SetExprKind kKind = SetExprKind::kSelect;
  explicit Select(Span s) : SetExpr(kKind, s) {}
  enum class Distinct { kNone, kAll, kDistinct };
  Distinct distinct = Distinct::kNone;
  NodeVector<ExprPtr> distinct_on;  // DISTINCT ON (...)
  ExprPtr top;                      // TOP n
  bool top_percent = false;
  std::vector<SelectItem> items;
  bool from_first = false;  // DuckDB FROM t [SELECT ...]; printed as SELECT ... FROM t
  TableRefPtr from;         // null without FROM
  ExprPtr where;
  bool has_group_by = false;
  bool group_by_all = false;
  NodeVector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<NamedWindow> windows;
  ExprPtr qualify;
  std::unique_ptr<TableSample> using_sample;  // DuckDB USING SAMPLE (after QUALIFY)
};

enum class SetOp { kUnion, kIntersect, kExcept };

struct SetOperation : SetExpr {
  static constexpr SetExprKind kKind = SetExprKind::kSetOperation;
  explicit SetOperation(Span s) : SetExpr(kKind, s) {}
  SetOp op = SetOp::kUnion;
  enum class Quantifier { kNone, kAll, kDistinct };
  Quantifier quantifier = Quantifier::kNone;
  bool minus_keyword = false;  // EXCEPT written as MINUS
  bool by_name = false;        // DuckDB UNION [ALL] BY NAME
  SetExprPtr left;
  SetExprPtr right;
};

struct Values : SetExpr {
  static constexpr SetExprKind kKind = SetExprKind::kValues;
  explicit Values(Span s) : SetExpr(kKind, s) {}
  std::vector<NodeVector<ExprPtr>> rows;
};

// ( query ) used as a set operand: keeps its own WITH / ORDER BY / LIMIT.
struct NestedQuery : SetExpr {
  static constexpr SetExprKind kKind = SetExprKind::kNested;
  explicit NestedQuery(Span s) : SetExpr(kKind, s) {}
  QueryPtr query;
};

struct Cte {
  Identifier name;
  NodeVector<Identifier> columns;
  NodeVector<Identifier> using_key;  // DuckDB WITH RECURSIVE t USING KEY (k) AS (...)
  std::string_view materialized;     // "MATERIALIZED", "NOT MATERIALIZED" or empty
  QueryPtr query;
  Span span;
};

struct Query {
  Span span;
  bool has_with = false;
  bool recursive = false;
  std::vector<Cte> ctes;
  SetExprPtr body;
  std::vector<OrderItem> order_by;
  ExprPtr limit;               // LIMIT n (null: none)
  bool limit_all = false;      // LIMIT ALL
  bool limit_percent = false;  // DuckDB: LIMIT 10% / LIMIT 10 PERCENT
  ExprPtr offset;              // OFFSET n
  ExprPtr fetch;               // FETCH FIRST n ROWS ONLY (null: none)
  bool fetch_with_ties = false;
  bool has_fetch = false;  // FETCH FIRST ROW ONLY has no count
};

struct Statement {
  std::shared_ptr<const std::string> source;  // the parsed text; spans index into it
  Dialect dialect = Dialect::kDuckDb;         // the dialect it was parsed as
  Span span;
  QueryPtr query;
  std::deque<std::string> names;  // storage for names that differ from their source text
};

using StatementPtr = std::unique_ptr<Statement>;

}  // namespace strata::sql
