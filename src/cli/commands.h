// File: commands.h
// The devplace subcommands. Each parses its own arguments, calls the
// library, prints, and returns an error for main.cc to map to an exit code.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace devplace::cli {

using ArgList = std::vector<std::string>;

Status run_inspect(const ArgList& args);
Status run_simulate(const ArgList& args);
Status run_place(const ArgList& args);
Status run_compare(const ArgList& args);
Status run_cluster(const ArgList& args);
Status run_methods(const ArgList& args);
Status run_zoo(const ArgList& args);
Status run_convert(const ArgList& args);
Status run_calibrate(const ArgList& args);
Status run_report(const ArgList& args);
Status run_pretrain(const ArgList& args);

}  // namespace devplace::cli
