// File: layered.h
// zoo:layered, a synthetic layered network for tests and benchmarks.
#pragma once

#include "common/status.h"
#include "graph/graph.h"
#include "zoo/zoo.h"

namespace devplace {

// `layers` layers of `width` MatMul ops (hidden x hidden weights each); op j
// of layer l reads ops j, j+1, ..., j+fanin-1 (mod width) of layer l-1 (all
// read the input at layer 0); a Loss op reads the last layer. Layer marks are
// set. Options: layers (default 16), width (4), fanin (2), batch (64), hidden (1024).
Result<Graph> build_layered(ZooOptions& options);

}  // namespace devplace
