// File: resnet50.cc
// zoo:resnet50, ResNet-50 v1 (He et al. 2016) on 224x224x3 images, batch 32,
// 1000 classes: a 7x7 stem, 16 bottleneck blocks in stages of 3, 4, 6, 3
// (widths 64-512, expansion 4, projection shortcuts on each stage's first
// block), global average pooling and the logits layer; every convolution is
// Conv2D + FusedBatchNorm (+ Relu). 25.6 M parameters, ~4.1 GFLOPs
// (multiply-adds x2 ~ 8.2 GFLOP) per image forward.
//
// Layer marks: the stem is 0, block i is i + 1, the head is 17.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

Result<Graph> build_resnet50(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 32, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t image, options.get_int("image", 224, 32, 4096));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t classes, options.get_int("classes", 1000, 2, 1 << 20));

  ModelBuilder m("resnet50");
  auto conv_bn = [&](const std::string& name, TensorId x, int64_t out, int64_t k, int64_t stride) {
    return m.batch_norm(name + "/BatchNorm", m.conv2d(name + "/Conv2D", x, out, k, k, stride, true));
  };
  int32_t mark = 0;
  m.set_layer(mark);
  TensorId x = m.input("images", {batch, image, image, 3});
  x = m.relu("conv1/Relu", conv_bn("conv1", x, 64, 7, 2));
  x = m.pool("pool1", "MaxPool", x, 3, 2, true);
  const int64_t blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = 64 << stage;
    for (int64_t i = 0; i < blocks[stage]; ++i) {
      m.set_layer(++mark);
      const std::string n = "block" + std::to_string(stage + 1) + "_" + std::to_string(i + 1);
      const int64_t stride = (i == 0 && stage > 0) ? 2 : 1;
      TensorId shortcut = x;
      if (i == 0) shortcut = conv_bn(n + "/shortcut", x, 4 * width, 1, stride);
      TensorId y = m.relu(n + "/conv1/Relu", conv_bn(n + "/conv1", x, width, 1, 1));
      y = m.relu(n + "/conv2/Relu", conv_bn(n + "/conv2", y, width, 3, stride));
      y = conv_bn(n + "/conv3", y, 4 * width, 1, 1);
      x = m.relu(n + "/Relu", m.add(n + "/add", y, shortcut));
    }
  }
  m.set_layer(++mark);
  x = m.global_avg_pool("pool5", x);
  const TensorId logits = m.dense("fc1000", x, classes);
  const TensorId labels = m.input("labels", {batch}, DType::kInt32);
  m.softmax_cross_entropy("loss", logits, labels);
  return std::move(m).build();
}

}  // namespace devplace
