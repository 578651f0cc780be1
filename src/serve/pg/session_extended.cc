// The simple and extended query protocols of a SQL connection (session.h).
#include <fmt/format.h>

#include "serve/pg/internal_session.h"
#include "serve/pg/statement_text.h"
#include "serve/pg/values.h"

namespace strata::serve::pg::internal {
namespace {

Error Violation(std::string message) {
  return MakeError(ErrorCode::kProtocolViolation, std::move(message),
                   "the client does not speak PostgreSQL's protocol v3 as the server expects");
}

// The format of parameter `index` under Bind's parameter format codes.
std::int16_t FormatOf(const std::vector<std::int16_t>& formats, std::size_t index) {
  if (formats.empty()) return 0;
  if (formats.size() == 1) return formats[0];
  return index < formats.size() ? formats[index] : std::int16_t{0};
}

// The format result column `index` of `type` is sent in: binary when asked and the type has a
// binary form here (values.h), else text.
std::int16_t ResultFormatOf(const std::vector<std::int16_t>& formats, std::size_t index,
                            PgType type) {
  return FormatOf(formats, index) == 1 && HasBinaryForm(type) ? std::int16_t{1} : std::int16_t{0};
}

}  // namespace

void Connection::SendRowDescription(const ResultSet& result,
                                    const std::vector<std::int16_t>& formats) {
  MessageBuilder message;
  message.Begin('T').Int16(static_cast<std::int16_t>(result.columns.size()));
  for (std::size_t index = 0; index < result.columns.size(); ++index) {
    const PgColumn& column = result.columns[index];
    message.CString(column.name).Int32(0).Int16(0);
    message.Int32(static_cast<std::int32_t>(column.type)).Int16(PgTypeSize(column.type));
    message.Int32(-1).Int16(ResultFormatOf(formats, index, column.type));
  }
  message.End();
  Queue(message);
}

Status Connection::SendRows(Portal& portal, std::int64_t max_rows, bool* suspended) {
  const ResultSet& result = *portal.result;
  *suspended = false;
  std::int64_t sent = 0;
  while (portal.position < result.rows.size()) {
    if (max_rows > 0 && sent == max_rows) {
      *suspended = true;
      return OkStatus();
    }
    const auto& row = result.rows[portal.position];
    MessageBuilder message;
    message.Begin('D').Int16(static_cast<std::int16_t>(row.size()));
    for (std::size_t index = 0; index < row.size(); ++index) {
      if (!row[index]) {
        message.Int32(-1);
        continue;
      }
      if (ResultFormatOf(portal.result_formats, index, result.columns[index].type) == 1) {
        STRATA_ASSIGN_OR_RETURN(std::string bytes,
                                BinaryFromText(*row[index], result.columns[index].type));
        message.Int32(static_cast<std::int32_t>(bytes.size())).Bytes(bytes);
      } else {
        message.Int32(static_cast<std::int32_t>(row[index]->size())).Bytes(*row[index]);
      }
    }
    message.End();
    Queue(message);
    ++portal.position;
    ++sent;
  }
  return OkStatus();
}

void Connection::SendComplete(const Outcome& outcome, std::size_t rows_sent) {
  std::string tag = outcome.result.tag;
  if (tag.empty()) tag = fmt::format("SELECT {}", rows_sent);
  MessageBuilder message;
  message.Begin('C').CString(tag).End();
  Queue(message);
}

Status Connection::SimpleQuery(std::string_view sql) {
  Result<std::vector<std::string>> statements = SplitStatements(sql);
  if (!statements.ok()) {
    SendError(statements.error(), /*fatal=*/false);
    if (transaction_ == 'T') transaction_ = 'E';
    SendReady();
    return OkStatus();
  }
  if (statements->empty()) {
    MessageBuilder empty;
    empty.Begin('I').End();
    Queue(empty);
  }
  for (const std::string& statement : *statements) {
    Result<Outcome> outcome = RunStatement(statement, {}, nullptr, /*describe_only=*/false);
    if (!outcome.ok()) {
      if (outcome.error().code == ErrorCode::kUnauthenticated) return outcome.error();
      SendError(outcome.error(), /*fatal=*/false);
      if (transaction_ == 'T') transaction_ = 'E';
      break;
    }
    Portal portal;
    if (outcome->has_rows) {
      SendRowDescription(outcome->result, {});
      portal.result = std::move(outcome->result);
      bool suspended = false;
      if (Status sent = SendRows(portal, 0, &suspended); !sent.ok()) {
        SendError(sent.error(), /*fatal=*/false);
        break;
      }
      Outcome done;
      done.result.tag = portal.result->tag;
      SendComplete(done, portal.result->rows.size());
    } else {
      SendComplete(*outcome, 0);
    }
  }
  // An implicit transaction (outside BEGIN) ends with the message: so do its cursors.
  if (transaction_ == 'I') EndTransactionCursors();
  SendReady();
  return OkStatus();
}

Status Connection::ParseMessage(FieldReader& reader) {
  STRATA_ASSIGN_OR_RETURN(std::string_view name, reader.CString());
  STRATA_ASSIGN_OR_RETURN(std::string_view sql, reader.CString());
  STRATA_ASSIGN_OR_RETURN(std::int16_t count, reader.Int16());
  if (count < 0) return Violation("Parse declares a negative number of parameter types");
  auto statement = std::make_shared<Prepared>();
  statement->sql = std::string(sql);
  for (std::int16_t index = 0; index < count; ++index) {
    STRATA_ASSIGN_OR_RETURN(std::int32_t oid, reader.Int32());
    statement->parameter_types.push_back(oid == 0 ? PgType::kUnknown : static_cast<PgType>(oid));
  }
  STRATA_TRY(reader.ExpectEnd());
  STRATA_ASSIGN_OR_RETURN(int used, ParameterCount(sql));
  if (static_cast<int>(statement->parameter_types.size()) < used) {
    statement->parameter_types.resize(static_cast<std::size_t>(used), PgType::kUnknown);
  }
  if (!name.empty() && statements_.count(std::string(name)) != 0) {
    return MakeError(ErrorCode::kSqlUnsupported,
                     fmt::format("prepared statement \"{}\" already exists", name),
                     "Close it first, or use the unnamed statement");
  }
  statements_[std::string(name)] = std::move(statement);
  MessageBuilder message;
  message.Begin('1').End();
  Queue(message);
  return OkStatus();
}

Status Connection::BindMessage(FieldReader& reader) {
  STRATA_ASSIGN_OR_RETURN(std::string_view portal_name, reader.CString());
  STRATA_ASSIGN_OR_RETURN(std::string_view statement_name, reader.CString());
  auto found = statements_.find(std::string(statement_name));
  if (found == statements_.end()) {
    return MakeError(ErrorCode::kSqlUnsupported,
                     fmt::format("prepared statement \"{}\" does not exist", statement_name),
                     "Parse it first");
  }
  Portal portal;
  portal.statement = found->second;
  STRATA_ASSIGN_OR_RETURN(std::int16_t format_count, reader.Int16());
  if (format_count < 0) return Violation("Bind declares a negative number of formats");
  std::vector<std::int16_t> formats;
  for (std::int16_t index = 0; index < format_count; ++index) {
    STRATA_ASSIGN_OR_RETURN(std::int16_t format, reader.Int16());
    formats.push_back(format);
  }
  STRATA_ASSIGN_OR_RETURN(std::int16_t value_count, reader.Int16());
  if (value_count < 0) return Violation("Bind declares a negative number of parameters");
  if (static_cast<std::size_t>(value_count) != portal.statement->parameter_types.size()) {
    return Violation(fmt::format("Bind has {} parameters; the statement takes {}", value_count,
                                 portal.statement->parameter_types.size()));
  }
  for (std::int16_t index = 0; index < value_count; ++index) {
    STRATA_ASSIGN_OR_RETURN(std::int32_t length, reader.Int32());
    if (length < -1) return Violation("Bind has a parameter of negative length");
    if (length == -1) {
      portal.parameters.emplace_back();
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(std::string_view bytes, reader.Bytes(static_cast<std::size_t>(length)));
    const std::int16_t format = FormatOf(formats, static_cast<std::size_t>(index));
    if (format == 1) {
      const PgType type = portal.statement->parameter_types[static_cast<std::size_t>(index)];
      STRATA_ASSIGN_OR_RETURN(std::string text, TextFromBinary(bytes, type));
      portal.parameters.emplace_back(std::move(text));
    } else {
      portal.parameters.emplace_back(std::string(bytes));
    }
  }
  STRATA_ASSIGN_OR_RETURN(std::int16_t result_count, reader.Int16());
  if (result_count < 0) return Violation("Bind declares a negative number of result formats");
  for (std::int16_t index = 0; index < result_count; ++index) {
    STRATA_ASSIGN_OR_RETURN(std::int16_t format, reader.Int16());
    if (format != 0 && format != 1) return Violation(fmt::format("result format {}", format));
    portal.result_formats.push_back(format);
  }
  STRATA_TRY(reader.ExpectEnd());
  portals_[std::string(portal_name)] = std::move(portal);
  MessageBuilder message;
  message.Begin('2').End();
  Queue(message);
  return OkStatus();
}

Status Connection::DescribeMessage(FieldReader& reader) {
  STRATA_ASSIGN_OR_RETURN(std::string_view kind, reader.Bytes(1));
  STRATA_ASSIGN_OR_RETURN(std::string_view name, reader.CString());
  STRATA_TRY(reader.ExpectEnd());
  if (kind[0] == 'S') {
    auto found = statements_.find(std::string(name));
    if (found == statements_.end()) {
      return MakeError(ErrorCode::kSqlUnsupported,
                       fmt::format("prepared statement \"{}\" does not exist", name), "");
    }
    auto described = std::make_shared<Prepared>(*found->second);
    STRATA_ASSIGN_OR_RETURN(Outcome outcome,
                            RunStatement(described->sql, {}, &described->parameter_types,
                                         /*describe_only=*/true));
    for (PgType& type : described->parameter_types) {
      if (type == PgType::kUnknown) type = PgType::kText;
    }
    found->second = described;
    MessageBuilder parameters;
    parameters.Begin('t').Int16(static_cast<std::int16_t>(described->parameter_types.size()));
    for (const PgType type : described->parameter_types) {
      parameters.Int32(static_cast<std::int32_t>(type));
    }
    parameters.End();
    Queue(parameters);
    if (outcome.has_rows) {
      SendRowDescription(outcome.result, {});
    } else {
      MessageBuilder none;
      none.Begin('n').End();
      Queue(none);
    }
    return OkStatus();
  }
  if (kind[0] != 'P') return Violation(fmt::format("Describe of kind '{}'", kind));
  Portal* found = FindPortal(std::string(name));
  if (found == nullptr) {
    return MakeError(ErrorCode::kSqlUnsupported, fmt::format("portal \"{}\" does not exist", name),
                     "");
  }
  active_portal_ = std::string(name);
  Portal& portal = *found;
  if (!portal.result) {
    STRATA_ASSIGN_OR_RETURN(Outcome outcome,
                            RunStatement(portal.statement->sql, portal.parameters, nullptr,
                                         /*describe_only=*/false));
    if (!outcome.has_rows) outcome.result.columns.clear();
    portal.result = std::move(outcome.result);
  }
  if (portal.result->columns.empty()) {
    MessageBuilder none;
    none.Begin('n').End();
    Queue(none);
  } else {
    SendRowDescription(*portal.result, portal.result_formats);
  }
  return OkStatus();
}

Status Connection::ExecuteMessage(FieldReader& reader) {
  STRATA_ASSIGN_OR_RETURN(std::string_view name, reader.CString());
  STRATA_ASSIGN_OR_RETURN(std::int32_t max_rows, reader.Int32());
  STRATA_TRY(reader.ExpectEnd());
  Portal* found = FindPortal(std::string(name));
  if (found == nullptr) {
    return MakeError(ErrorCode::kSqlUnsupported, fmt::format("portal \"{}\" does not exist", name),
                     "Bind it first");
  }
  active_portal_ = std::string(name);
  Portal& portal = *found;
  if (portal.statement != nullptr && FirstKeyword(portal.statement->sql).empty()) {
    MessageBuilder empty;
    empty.Begin('I').End();
    Queue(empty);
    return OkStatus();
  }
  if (!portal.result) {
    STRATA_ASSIGN_OR_RETURN(Outcome outcome,
                            RunStatement(portal.statement->sql, portal.parameters, nullptr,
                                         /*describe_only=*/false));
    if (!outcome.has_rows) {
      SendComplete(outcome, 0);
      portal.result = ResultSet();
      portal.result->tag = outcome.result.tag;
      return OkStatus();
    }
    portal.result = std::move(outcome.result);
  }
  bool suspended = false;
  const std::size_t before = portal.position;
  STRATA_TRY(SendRows(portal, max_rows, &suspended));
  if (suspended) {
    MessageBuilder message;
    message.Begin('s').End();
    Queue(message);
    return OkStatus();
  }
  Outcome done;
  done.result.tag = portal.result->tag;
  SendComplete(done, portal.position - before);
  return OkStatus();
}

Status Connection::CloseMessage(FieldReader& reader) {
  STRATA_ASSIGN_OR_RETURN(std::string_view kind, reader.Bytes(1));
  STRATA_ASSIGN_OR_RETURN(std::string_view name, reader.CString());
  STRATA_TRY(reader.ExpectEnd());
  if (kind[0] == 'S') {
    statements_.erase(std::string(name));
  } else if (kind[0] == 'P') {
    portals_.erase(std::string(name));
  } else {
    return Violation(fmt::format("Close of kind '{}'", kind));
  }
  MessageBuilder message;
  message.Begin('3').End();
  Queue(message);
  return OkStatus();
}

}  // namespace strata::serve::pg::internal
