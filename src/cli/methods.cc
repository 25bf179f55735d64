// File: methods.cc
// `devplace methods`: the placement methods, one line each.
#include <algorithm>
#include <iostream>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "place/placer.h"

namespace devplace::cli {

namespace {
const CommandSpec kSpec = {"devplace methods", "Lists the placement methods that --placement and --method accept.", {}};
}  // namespace

Status run_methods(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  // By role (PlacerRole's order: the exact methods last), registry order within one.
  std::vector<const PlacerInfo*> sorted;
  for (const PlacerInfo& info : placer_registry()) sorted.push_back(&info);
  std::stable_sort(sorted.begin(), sorted.end(), [](const PlacerInfo* a, const PlacerInfo* b) { return a->role < b->role; });
  for (const PlacerInfo* info : sorted) std::cout << pad_right(std::string(info->name), 14) << info->summary << "\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
