// Member paths through relationships: "customer.region" from Order is the relationship
// `customer` of Order, then the member `region` of Customer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "semantic/model.h"

namespace strata::semantic {

struct MemberPath {
  const Entity* start = nullptr;
  std::vector<const Relationship*> hops;  // in order from start
  const Entity* target = nullptr;         // the entity owning `member`
  std::string member;

  // Whether some hop is one_to_many (the rows would multiply).
  bool CrossesOneToMany() const;
  // "customer.region" (hops then member), relative to start.
  std::string Relative() const;
};

// Walks `dotted` ("rel.rel.member") from `start`. Errors with `code` naming the unknown
// relationship or member, with a "did you mean". The member may be any kind (dimension,
// measure, metric); callers check which.
Result<MemberPath> WalkPath(const SemanticModel& model, const Entity& start,
                            std::string_view dotted, ErrorCode code);

// Walks a member as a query writes it, "Entity.rel.member": the entity, then WalkPath from it.
// Errors with `code` when there is no dot, the entity is unknown (with a "did you mean") or
// WalkPath fails.
Result<MemberPath> WalkMemberPath(const SemanticModel& model, std::string_view written,
                                  ErrorCode code);

// Every path of relationships from `from` to `to` that visits no entity twice (at most
// `max_paths`), each as relationship names. `to_one_only` keeps to many_to_one/one_to_one hops.
std::vector<std::vector<const Relationship*>> FindPaths(const SemanticModel& model,
                                                        const Entity& from, const Entity& to,
                                                        bool to_one_only,
                                                        std::size_t max_paths = 16);

// "Order.customer.region"-style rendering of a relationship path from `from`.
std::string PathText(const Entity& from, const std::vector<const Relationship*>& hops);

}  // namespace strata::semantic
