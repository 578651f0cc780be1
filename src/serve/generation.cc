#include "serve/generation.h"

#include "warehouse/from_config.h"

namespace strata::serve {

Result<warehouse::Warehouse*> SharedWarehouse::Get() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!warehouse_) {
    STRATA_ASSIGN_OR_RETURN(warehouse_, warehouse::OpenWarehouse(project_, warehouse_config_,
                                                                 warehouse::AccessMode::kReadOnly));
  }
  return warehouse_.get();
}

std::shared_ptr<Generation> MakeGeneration(semantic::SemanticModel model, const ApiConfig& base,
                                           const ControlParts& control) {
  auto generation = std::make_shared<Generation>();
  generation->model = std::move(model);
  ApiConfig api = base;
  api.model = &generation->model;
  generation->query = std::make_unique<QueryApi>(std::move(api));
  if (control.jobs != nullptr) {
    generation->control =
        std::make_unique<ControlApi>(ControlConfig{&generation->model, control.store, control.jobs,
                                                   control.hook_token, control.max_body_bytes});
  }
  return generation;
}

}  // namespace strata::serve
