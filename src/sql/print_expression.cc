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

void Printer::PrintNames(const NodeVector<Identifier>& names, std::string_view separator) {
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

void Printer::PrintExprList(const NodeVector<ExprPtr>& list) {
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
      for (const Identifier& word : literal.type.words) {
        WriteUpper(word.name);
        Write(" ");
      }
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
    case ExprKind::kColumn:
      PrintNames(expr.As<ColumnRef>().parts, ".");
      return;
    // PrintExpr sends these kinds to the other printers.
    case ExprKind::kStar:
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
    case ExprKind::kSubquery:
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kNested:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kNamedArgument:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
    case ExprKind::kGrouping:
      break;
  }
  STRATA_CHECK(false);
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
    case ExprKind::kAtTimeZone: {
      const auto& at = expr.As<AtTimeZone>();
      PrintExpr(*at.value);
      Write(" AT TIME ZONE ");
      PrintExpr(*at.zone);
      return;
    }
    // PrintExpr sends these kinds to the other printers.
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
    case ExprKind::kStar:
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
    case ExprKind::kSubquery:
    case ExprKind::kFunction:
    case ExprKind::kKeywordFunction:
    case ExprKind::kCast:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kNested:
    case ExprKind::kNamedArgument:
    case ExprKind::kGrouping:
      break;
  }
  STRATA_CHECK(false);
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
    case ExprKind::kKeywordFunction: {
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
    // PrintExpr sends these kinds to the other printers.
    case ExprKind::kLiteral:
    case ExprKind::kTypedLiteral:
    case ExprKind::kInterval:
    case ExprKind::kPlaceholder:
    case ExprKind::kParameter:
    case ExprKind::kColumn:
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
    case ExprKind::kSubquery:
    case ExprKind::kCase:
    case ExprKind::kArray:
    case ExprKind::kStruct:
    case ExprKind::kMap:
    case ExprKind::kRow:
    case ExprKind::kNested:
    case ExprKind::kSubscript:
    case ExprKind::kField:
    case ExprKind::kJsonPath:
    case ExprKind::kCollate:
    case ExprKind::kAtTimeZone:
    case ExprKind::kGrouping:
      break;
  }
  STRATA_CHECK(false);
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
    for (std::size_t i = 0; i < star.excluded.size(); ++i) {
      if (i > 0) Write(", ");
      if (i < star.excluded_qualifiers.size() && !star.excluded_qualifiers[i].empty()) {
        PrintNames(star.excluded_qualifiers[i], ".");
        Write(".");
      }
      PrintNames({star.excluded[i]}, "");
    }
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
  if (call.unpacked) Write("*");
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
  if (call.limit) {
    Write(" LIMIT ");
    PrintExpr(*call.limit);
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
