// File: methods.cc
// `devplace methods`: the placement methods, one line each.
#include <iostream>

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
  for (const PlacerInfo& info : placer_registry()) std::cout << pad_right(std::string(info.name), 14) << info.summary << "\n";
  return Status::ok_status();
}

}  // namespace devplace::cli
