// Printing expressions, types, names and literals.
#include "sql/internal/lex_rules.h"
#include "sql/internal/parser_impl.h"
#include "sql/internal/printer_impl.h"

namespace strata::sql::internal {
namespace {

// The value of a '...' or "..." literal read with the source dialect's rules; false when the
// literal has another form (prefix, dollar quotes, triple quotes) and must be copied.
bool DecodeSimpleString(std::string_view text, Dialect source, std::string* value) {
  if (text.size() < 2) return false;
  const char quote = text.front();
  if ((quote != '\'' && quote != '"') || text.back() != quote) return false;
  const LexRules rules = RulesFor(source);
  if (quote == '"' && !rules.double_quote_strings) return false;
  if (rules.triple_quotes && text.size() >= 6 && text.substr(0, 3) == std::string(3, quote)) {
    return false;
  }
  const std::string_view body = text.substr(1, text.size() - 2);
  value->clear();
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '\\' && rules.backslash_escapes && i + 1 < body.size()) {
      const char next = body[++i];
      *value += next == 'n' ? '\n' : next == 't' ? '\t' : next == 'r' ? '\r' : next;
    } else if (c == quote && i + 1 < body.size() && body[i + 1] == quote) {
      *value += quote;
      ++i;
    } else {
      *value += c;
    }
  }
  return true;
}

std::string_view UnaryText(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNot:
      return "NOT ";
    case UnaryOp::kMinus:
      return "-";
    case UnaryOp::kPlus:
      return "+";
    case UnaryOp::kBitNot:
      return "~";
  }
  return "";
}

std::string_view LikeText(LikeOp op) {
  switch (op) {
    case LikeOp::kLike:
      return "LIKE";
    case LikeOp::kILike:
      return "ILIKE";
    case LikeOp::kSimilarTo:
      return "SIMILAR TO";
    case LikeOp::kRLike:
      return "RLIKE";
    case LikeOp::kRegexp:
      return "REGEXP";
    case LikeOp::kGlob:
      return "GLOB";
  }
  return "LIKE";
}

}  // namespace

void Printer::WriteUpper(std::string_view text) {
  for (char c : text) out_ += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

void Printer::PrintName(const Identifier& name) {
  if (!name.quoted && (source_ == target_ || IsPlainIdentifier(name.name, target_))) {
    Write(name.name);
  } else {
    Write(QuoteIdentifier(name.name, target_));
  }
}

void Printer::PrintNames(const std::vector<Identifier>& names, std::string_view separator) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) Write(separator);
    PrintName(names[i]);
  }
}

void Printer::PrintString(std::string_view text) {
  std::string value;
  if (source_ == target_ || !DecodeSimpleString(text, source_, &value)) {
    Write(text);
    return;
  }
  Write(QuoteString(value, target_));
}

void Printer::PrintExprList(const std::vector<ExprPtr>& list) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i > 0) Write(", ");
    PrintExpr(*list[i]);
  }
}

void Printer::PrintOrderBy(const std::vector<OrderItem>& items) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) Write(", ");
    PrintExpr(*items[i].expr);
    if (items[i].direction == OrderItem::Direction::kAsc) Write(" ASC");
    if (items[i].direction == OrderItem::Direction::kDesc) Write(" DESC");
    if (items[i].nulls == OrderItem::Nulls::kFirst) Write(" NULLS FIRST");
    if (items[i].nulls == OrderItem::Nulls::kLast) Write(" NULLS LAST");
  }
}

void Printer::PrintType(const DataType& type) {
  for (std::size_t i = 0; i < type.words.size(); ++i) {
    if (i > 0) Write(" ");
    if (type.words[i].quoted) {
      PrintName(type.words[i]);
    } else {
      Write(type.words[i].name);
    }
  }
  if (type.has_parameters) {
    Write(type.angle_brackets ? "<" : "(");
    for (std::size_t i = 0; i < type.parameters.size(); ++i) {
      if (i > 0) Write(", ");
      if (type.parameters[i].field) {
        PrintName(*type.parameters[i].field);
        Write(" ");
      }
      PrintType(*type.parameters[i].type);
    }
    Write(type.angle_brackets ? ">" : ")");
  }
  for (std::string_view size : type.array_suffixes) {
    Write("[");
    Write(size);
    Write("]");
  }
}

// Parenthesizes a binary operand that binds looser than its parent (or as loosely, on the
// right of a left-associative operator), so trees not built by the parser print correctly.
void Printer::PrintOperand(const Expr& expr, int parent_precedence, bool right_side) {
  bool wrap = false;
  if (expr.kind == ExprKind::kBinary) {
    const int precedence = BinaryPrecedence(expr.As<Binary>().op);
    wrap = precedence < parent_precedence || (right_side && precedence == parent_precedence);
  }
  if (wrap) Write("(");
  PrintExpr(expr);
  if (wrap) Write(")");
}

void Printer::PrintExpr(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
      PrintLiteralLike(expr);
      return;
    case ExprKind::kUnary:
    case ExprKind::kBinary:
    case ExprKind::kLike:
    case ExprKind::kBetween:
    case ExprKind::kInList:
    case ExprKind::kInSubquery:
    case ExprKind::kIs:
    case ExprKind::kIsDistinct:
    case ExprKind::kQuantified:
    case ExprKind::kExists:
      PrintPredicate(expr);
      return;
    case ExprKind::kSubquery:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kNested:
    case ExprKind::kGrouping:
      PrintComposite(expr);
      return;
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
      PrintAccess(expr);
      return;
    case ExprKind::kStar:
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
    case ExprKind::kNamedArgument:
      PrintSpecial(expr);
      return;
  }
}

void Printer::PrintLiteralLike(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kLiteral: {
      const auto& literal = expr.As<Literal>();
      if (literal.literal_kind == LiteralKind::kString) {
        PrintString(literal.text);
      } else {
        WriteUpper(literal.text);
      }
      return;
    }
    case ExprKind::kTypedLiteral: {
      const auto& literal = expr.As<TypedLiteral>();
      WriteUpper(literal.type.words.front().name);
      Write(" ");
      PrintString(literal.text);
      return;
    }
    case ExprKind::kInterval: {
      const auto& interval = expr.As<Interval>();
      Write("INTERVAL ");
      PrintExpr(*interval.value);
      if (!interval.unit.empty()) {
        Write(" ");
        WriteUpper(interval.unit);
      }
      if (!interval.to_unit.empty()) {
        Write(" TO ");
        WriteUpper(interval.to_unit);
      }
      return;
    }
    case ExprKind::kPlaceholder: {
      const auto& placeholder = expr.As<Placeholder>();
      Write(placeholder.quoted ? "'@" : "@");
      Write(placeholder.name);
      if (placeholder.quoted) Write("'");
      return;
    }
    case ExprKind::kParameter:
      Write(expr.As<Parameter>().text);
      return;
    default:
      PrintNames(expr.As<ColumnRef>().parts, ".");
      return;
  }
}

void Printer::PrintPredicate(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kUnary: {
      const auto& unary = expr.As<Unary>();
      Write(UnaryText(unary.op));
      const bool wrap = unary.op != UnaryOp::kNot && unary.operand->kind == ExprKind::kBinary;
      if (wrap) Write("(");
      PrintExpr(*unary.operand);
      if (wrap) Write(")");
      return;
    }
    case ExprKind::kBinary: {
      const auto& binary = expr.As<Binary>();
      const int precedence = BinaryPrecedence(binary.op);
      PrintOperand(*binary.left, precedence, false);
      Write(" ");
      Write(BinaryOpText(binary.op));
      Write(" ");
      PrintOperand(*binary.right, precedence, true);
      return;
    }
    case ExprKind::kLike: {
      const auto& like = expr.As<Like>();
      PrintExpr(*like.value);
      Write(like.negated ? " NOT " : " ");
      Write(LikeText(like.op));
      Write(" ");
      PrintExpr(*like.pattern);
      if (like.escape) {
        Write(" ESCAPE ");
        PrintExpr(*like.escape);
      }
      return;
    }
    case ExprKind::kBetween: {
      const auto& between = expr.As<Between>();
      PrintExpr(*between.value);
      Write(between.negated ? " NOT BETWEEN " : " BETWEEN ");
      if (between.symmetric) Write("SYMMETRIC ");
      PrintExpr(*between.low);
      Write(" AND ");
      PrintExpr(*between.high);
      return;
    }
    case ExprKind::kInList: {
      const auto& in = expr.As<InList>();
      PrintExpr(*in.value);
      Write(in.negated ? " NOT IN (" : " IN (");
      PrintExprList(in.list);
      Write(")");
      return;
    }
    case ExprKind::kInSubquery: {
      const auto& in = expr.As<InSubquery>();
      PrintExpr(*in.value);
      Write(in.negated ? " NOT IN (" : " IN (");
      PrintQuery(*in.query);
      Write(")");
      return;
    }
    case ExprKind::kIs: {
      const auto& is = expr.As<Is>();
      PrintExpr(*is.value);
      Write(is.negated ? " IS NOT " : " IS ");
      switch (is.test) {
        case IsTest::kNull:
          Write("NULL");
          break;
        case IsTest::kTrue:
          Write("TRUE");
          break;
        case IsTest::kFalse:
          Write("FALSE");
          break;
        case IsTest::kUnknown:
          Write("UNKNOWN");
          break;
      }
      return;
    }
    case ExprKind::kIsDistinct: {
      const auto& distinct = expr.As<IsDistinct>();
      PrintExpr(*distinct.left);
      Write(distinct.negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
      PrintExpr(*distinct.right);
      return;
    }
    case ExprKind::kQuantified: {
      const auto& quantified = expr.As<Quantified>();
      PrintExpr(*quantified.left);
      Write(" ");
      Write(BinaryOpText(quantified.op));
      Write(" ");
      Write(quantified.quantifier);
      Write(" (");
      if (quantified.query) {
        PrintQuery(*quantified.query);
      } else {
        PrintExpr(*quantified.right);
      }
      Write(")");
      return;
    }
    default:
      Write("EXISTS (");
      PrintQuery(*expr.As<Exists>().query);
      Write(")");
      return;
  }
}

void Printer::PrintComposite(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kSubquery: {
      const auto& subquery = expr.As<Subquery>();
      if (subquery.parenthesized) Write("(");
      PrintQuery(*subquery.query);
      if (subquery.parenthesized) Write(")");
      return;
    }
    case ExprKind::kCase: {
      const auto& node = expr.As<Case>();
      Write("CASE");
      if (node.operand) {
        Write(" ");
        PrintExpr(*node.operand);
      }
      for (const auto& [condition, result] : node.whens) {
        Write(" WHEN ");
        PrintExpr(*condition);
        Write(" THEN ");
        PrintExpr(*result);
      }
      if (node.else_result) {
        Write(" ELSE ");
        PrintExpr(*node.else_result);
      }
      Write(" END");
      return;
    }
    case ExprKind::kArray: {
      const auto& array = expr.As<ArrayLiteral>();
      if (array.array_keyword) Write("ARRAY");
      if (array.element_type) {
        Write("<");
        PrintType(*array.element_type);
        Write(">");
      }
      Write("[");
      PrintExprList(array.elements);
      Write("]");
      return;
    }
    case ExprKind::kStruct: {
      const auto& node = expr.As<StructLiteral>();
      if (node.struct_keyword) {
        if (node.type) {
          PrintType(*node.type);
        } else {
          Write("STRUCT");
        }
      }
      Write(node.struct_keyword ? "(" : "{");
      for (std::size_t i = 0; i < node.fields.size(); ++i) {
        if (i > 0) Write(", ");
        if (node.fields[i].key) {
          PrintExpr(*node.fields[i].key);
          Write(": ");
        }
        PrintExpr(*node.fields[i].value);
        if (node.fields[i].alias) {
          Write(" AS ");
          PrintName(*node.fields[i].alias);
        }
      }
      Write(node.struct_keyword ? ")" : "}");
      return;
    }
    case ExprKind::kMap: {
      Write("MAP {");
      const auto& map = expr.As<MapLiteral>();
      for (std::size_t i = 0; i < map.entries.size(); ++i) {
        if (i > 0) Write(", ");
        PrintExpr(*map.entries[i].first);
        Write(": ");
        PrintExpr(*map.entries[i].second);
      }
      Write("}");
      return;
    }
    case ExprKind::kRow: {
      const auto& row = expr.As<Row>();
      Write(row.row_keyword ? "ROW(" : "(");
      PrintExprList(row.elements);
      Write(")");
      return;
    }
    case ExprKind::kNested:
      Write("(");
      PrintExpr(*expr.As<Nested>().inner);
      Write(")");
      return;
    default: {
      const auto& grouping = expr.As<Grouping>();
      Write(grouping.grouping == Grouping::Kind::kRollup ? "ROLLUP ("
            : grouping.grouping == Grouping::Kind::kCube ? "CUBE ("
                                                         : "GROUPING SETS (");
      PrintExprList(grouping.items);
      Write(")");
      return;
    }
  }
}

void Printer::PrintAccess(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kSubscript: {
      const auto& subscript = expr.As<Subscript>();
      PrintExpr(*subscript.value);
      Write("[");
      if (subscript.index) PrintExpr(*subscript.index);
      if (subscript.slice) Write(":");
      if (subscript.slice_end) PrintExpr(*subscript.slice_end);
      Write("]");
      return;
    }
    case ExprKind::kField: {
      const auto& field = expr.As<FieldAccess>();
      PrintExpr(*field.value);
      Write(".");
      PrintName(field.field);
      return;
    }
    case ExprKind::kJsonPath: {
      const auto& path = expr.As<JsonPath>();
      PrintExpr(*path.value);
      for (std::size_t i = 0; i < path.steps.size(); ++i) {
        if (path.steps[i].key) {
          Write(i == 0 ? ":" : ".");
          PrintName(*path.steps[i].key);
        } else {
          Write("[");
          PrintExpr(*path.steps[i].index);
          Write("]");
        }
      }
      return;
    }
    case ExprKind::kCollate: {
      const auto& collate = expr.As<Collate>();
      PrintExpr(*collate.value);
      Write(" COLLATE ");
      Write(collate.collation);
      return;
    }
    default: {
      const auto& at = expr.As<AtTimeZone>();
      PrintExpr(*at.value);
      Write(" AT TIME ZONE ");
      PrintExpr(*at.zone);
      return;
    }
  }
}

void Printer::PrintSpecial(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kStar:
      PrintStar(expr.As<Star>());
      return;
    case ExprKind::kFunction:
      PrintFunction(expr.As<FunctionCall>());
      return;
    case ExprKind::kCast:
      PrintCast(expr.As<Cast>());
      return;
    case ExprKind::kNamedArgument: {
      const auto& named = expr.As<NamedArgument>();
      PrintName(named.name);
      Write(" ");
      Write(named.op);
      Write(" ");
      PrintExpr(*named.value);
      return;
    }
    default: {
      const auto& call = expr.As<KeywordFunction>();
      Write(call.name);
      Write("(");
      for (std::size_t i = 0; i < call.parts.size(); ++i) {
        const auto& [keyword, argument] = call.parts[i];
        if (i > 0) Write(" ");
        Write(keyword);
        if (!keyword.empty() && argument) Write(" ");
        if (argument) PrintExpr(*argument);
      }
      Write(")");
      return;
    }
  }
}

void Printer::PrintStar(const Star& star) {
  if (!star.qualifier.empty()) {
    PrintNames(star.qualifier, ".");
    Write(".");
  }
  Write("*");
  if (!star.excluded.empty()) {
    const bool except = target_ == Dialect::kBigQuery || target_ == Dialect::kDatabricks;
    Write(except ? " EXCEPT (" : " EXCLUDE (");
    PrintNames(star.excluded, ", ");
    Write(")");
  }
  if (!star.replaced.empty()) {
    Write(" REPLACE ");
    PrintAliasedList(star.replaced);
  }
}

void Printer::PrintCast(const Cast& cast) {
  const bool colon = cast.style == CastStyle::kDoubleColon && target_ != Dialect::kBigQuery &&
                     target_ != Dialect::kTrino;
  if (colon) {
    PrintExpr(*cast.value);
    Write("::");
    PrintType(cast.type);
    return;
  }
  Write(cast.style == CastStyle::kTryCast    ? "TRY_CAST("
        : cast.style == CastStyle::kSafeCast ? "SAFE_CAST("
                                             : "CAST(");
  PrintExpr(*cast.value);
  Write(" AS ");
  PrintType(cast.type);
  Write(")");
}

void Printer::PrintFunction(const FunctionCall& call) {
  PrintNames(call.name, ".");
  Write("(");
  if (call.distinct) Write("DISTINCT ");
  PrintExprList(call.args);
  if (call.nulls_inside) {
    Write(" ");
    Write(call.nulls_treatment);
  }
  if (!call.order_by.empty()) {
    Write(" ORDER BY ");
    PrintOrderBy(call.order_by);
  }
  Write(")");
  if (call.has_within_group) {
    Write(" WITHIN GROUP (ORDER BY ");
    PrintOrderBy(call.within_group);
    Write(")");
  }
  if (call.filter) {
    Write(" FILTER (WHERE ");
    PrintExpr(*call.filter);
    Write(")");
  }
  if (!call.nulls_inside && !call.nulls_treatment.empty()) {
    Write(" ");
    Write(call.nulls_treatment);
  }
  if (call.over_name) {
    Write(" OVER ");
    PrintName(*call.over_name);
  }
  if (call.over) {
    Write(" OVER (");
    PrintWindow(*call.over);
    Write(")");
  }
}

void Printer::PrintWindow(const WindowSpec& spec) {
  std::string_view separator;
  if (spec.base) {
    PrintName(*spec.base);
    separator = " ";
  }
  if (!spec.partition_by.empty()) {
    Write(separator);
    Write("PARTITION BY ");
    PrintExprList(spec.partition_by);
    separator = " ";
  }
  if (!spec.order_by.empty()) {
    Write(separator);
    Write("ORDER BY ");
    PrintOrderBy(spec.order_by);
    separator = " ";
  }
  if (!spec.frame) return;
  const WindowFrame& frame = *spec.frame;
  Write(separator);
  Write(frame.unit == WindowFrame::Unit::kRows    ? "ROWS "
        : frame.unit == WindowFrame::Unit::kRange ? "RANGE "
                                                  : "GROUPS ");
  if (frame.end) Write("BETWEEN ");
  PrintFrameBound(frame.start);
  if (frame.end) {
    Write(" AND ");
    PrintFrameBound(*frame.end);
  }
  switch (frame.exclude) {
    case WindowFrame::Exclude::kNone:
      break;
    case WindowFrame::Exclude::kCurrentRow:
      Write(" EXCLUDE CURRENT ROW");
      break;
    case WindowFrame::Exclude::kGroup:
      Write(" EXCLUDE GROUP");
      break;
    case WindowFrame::Exclude::kTies:
      Write(" EXCLUDE TIES");
      break;
    case WindowFrame::Exclude::kNoOthers:
      Write(" EXCLUDE NO OTHERS");
      break;
  }
}

void Printer::PrintFrameBound(const FrameBound& bound) {
  switch (bound.kind) {
    case FrameBound::Kind::kUnboundedPreceding:
      Write("UNBOUNDED PRECEDING");
      return;
    case FrameBound::Kind::kUnboundedFollowing:
      Write("UNBOUNDED FOLLOWING");
      return;
    case FrameBound::Kind::kCurrentRow:
      Write("CURRENT ROW");
      return;
    case FrameBound::Kind::kPreceding:
    case FrameBound::Kind::kFollowing:
      PrintExpr(*bound.offset);
      Write(bound.kind == FrameBound::Kind::kPreceding ? " PRECEDING" : " FOLLOWING");
      return;
  }
}

}  // namespace strata::sql::internal
