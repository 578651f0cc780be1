// Reading rows shared by the state store's .cc files.
#pragma once

#include <string>

#include "base/result.h"
#include "state/internal/database.h"
#include "state/state_store.h"

namespace strata::state::internal {

// The PartitionStatus in text column `column`; kStateStore naming `path` if it is not one.
inline Result<PartitionStatus> ReadStatus(const Statement& statement, int column,
                                          const std::string& path) {
  const std::string text = statement.ColumnText(column);
  const std::optional<PartitionStatus> status = ParsePartitionStatus(text);
  if (!status) {
    return MakeError(ErrorCode::kStateStore,
                     "state store " + path + " holds an unknown partition status \"" + text + "\"",
                     "the file was edited by hand or written by a newer strata");
  }
  return *status;
}

}  // namespace strata::state::internal
