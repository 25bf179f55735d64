// File: chrome_trace.h
// Writes a simulated step as a Chrome trace (the JSON Trace Event Format),
// which Perfetto (ui.perfetto.dev) and chrome://tracing open: one lane per
// device with its ops, one lane per link direction with its transfers, and a
// memory counter per device. Times are in microseconds, as the format wants.
#pragma once

#include <string>

#include "common/json_reader.h"
#include "common/status.h"
#include "sim/problem.h"
#include "sim/simulator.h"

namespace devplace {

// `result` must come from a run with SimOptions::record_timeline.
json::Json chrome_trace_json(const Problem& problem, const SimResult& result);
Status write_chrome_trace(const std::string& path, const Problem& problem, const SimResult& result);

}  // namespace devplace
