// File: onnx_shape_inference.h
// libonnx's shape inference, run where its crashes cannot take devplace down.
// Debian's libonnx 1.13 dereferences null inside InferShapes on some models
// (fuzz/known_crashes/), so inference runs in a forked child that sends back
// only the shapes it found; a child that dies is reported, and the model is
// read with the shapes it carries itself.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace devplace {

// Adds the inferred value_info (and output types) to `model`. Tries data
// propagation first (it resolves shapes torch exports compute at run time
// from Shape ops), then plain inference if that crashes. Each failure prints
// one warning line naming `source` on stderr; the model is left as it was
// when no inference survives.
void infer_onnx_shapes(onnx::ModelProto& model, const std::string& source);

}  // namespace devplace
