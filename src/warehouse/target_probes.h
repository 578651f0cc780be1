// What the runner reads from a target before writing it, behind one interface so that no code
// outside warehouse/ sends a dialect's own probe statements: the types of a query's output
// columns (where the warehouse describes queries), and how a target's checksums hash a row.
//
// Each function runs its statements on `connection` (one thread at a time, as any Connection)
// and writes nothing. Errors are the connection's.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "warehouse/emitter.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// The output columns of `select` (a SELECT that returns no rows, e.g. BootstrapProbe's), each
// with the warehouse's own type name, without reading rows. kWarehouseUnsupported where the
// dialect cannot describe a query (Emitter::DescribeQuery).
Result<std::vector<Column>> DescribeQueryColumns(Connection& connection, const Emitter& emitter,
                                                 std::string_view select);

// How `target`'s checksums hash a row (RowHash): kText unless the emitter chooses row hashes
// (Emitter::ChoosesRowHash, PostgreSQL) and its capabilities, as discovered for the target
// (registry.h's DiscoverCapabilities), have the per-column hash (row_hash_by_columns); then from
// the target's column types and their collations (PostgresRowHash).
Result<RowHash> ChooseRowHash(Connection& connection, const Emitter& emitter,
                              const TableName& target);

}  // namespace strata::warehouse
