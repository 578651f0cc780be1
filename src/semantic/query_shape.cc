#include "semantic/query_shape.h"

#include <algorithm>

#include "semantic/internal/plan.h"
#include "semantic/path.h"

namespace strata::semantic {
namespace {

// Records each partial's inputs instead of building it; never Complete, so no plan is composed.
class ShapeCollector final : public StoredPartials {
 public:
  explicit ShapeCollector(QueryShape* shape) : shape_(*shape) {}

  Result<Partial> Build(const StoredInputs& in, const Entity& base, Partial partial) override {
    shape_.zone = in.zone;
    PartialShape out;
    out.entity = &base;
    const auto member = [&](const MemberRef& ref,
                            const Dimension* dimension) -> Result<ShapeMember> {
      STRATA_ASSIGN_OR_RETURN(const int node, partial.Resolve(ref));
      return ShapeMember{partial.RelativePath(node, dimension->name), ref.written, dimension};
    };
    for (const DimensionRequest& request : in.dimensions) {
      STRATA_ASSIGN_OR_RETURN(ShapeMember resolved, member(request.ref, request.dimension));
      out.keys.push_back({std::move(resolved), request.grain});
    }
    for (const DimensionFilter& filter : in.filters) {
      for (const FilterTarget& target : filter.targets) {
        STRATA_ASSIGN_OR_RETURN(ShapeMember resolved, member(target.ref, target.dimension));
        out.filters.push_back({std::move(resolved), target.filter});
      }
    }
    for (const RangeRequest& range : in.ranges) {
      STRATA_ASSIGN_OR_RETURN(ShapeMember resolved, member(range.ref, range.dimension));
      out.ranges.push_back({std::move(resolved), range.from_seconds, range.to_seconds});
    }
    for (const NeededMeasure& needed : in.needed) {
      if (needed.entity == &base && std::find(out.measures.begin(), out.measures.end(),
                                              needed.measure) == out.measures.end()) {
        out.measures.push_back(needed.measure);
      }
    }
    STRATA_TRY(RowFilters(in, partial, out));
    shape_.partials.push_back(std::move(out));
    return partial;
  }

  bool Complete() const override { return false; }

 private:
  static Status RowFilters(const StoredInputs& in, const Partial& partial, PartialShape& out) {
    if (in.role == nullptr || in.role->all) return OkStatus();
    for (const JoinNode& node : partial.nodes()) {
      if (!node.from_query) continue;
      const EntityAccess* access = in.role->Find(node.entity->name);
      if (access == nullptr || !access->row_filter) continue;
      STRATA_ASSIGN_OR_RETURN(MemberPath path,
                              WalkPath(in.model, *node.entity, access->row_filter->member,
                                       ErrorCode::kSemanticInvalid));
      std::string relative = node.key.empty() ? path.Relative() : node.key + "." + path.Relative();
      if (std::find(out.row_filters.begin(), out.row_filters.end(), relative) ==
          out.row_filters.end()) {
        out.row_filters.push_back(std::move(relative));
      }
    }
    return OkStatus();
  }

  QueryShape& shape_;
};

}  // namespace

Result<QueryShape> ResolveQueryShape(const SemanticModel& model, const SemanticQuery& query,
                                     const PlanOptions& options) {
  QueryShape shape;
  PlanOptions duckdb = options;
  duckdb.dialect = sql::Dialect::kDuckDb;
  ShapeCollector collector(&shape);
  STRATA_TRY(PlanWithStoredPartials(model, query, duckdb, collector));
  return shape;
}

}  // namespace strata::semantic
