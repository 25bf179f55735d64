// File: inception_v3.cc
// zoo:inception_v3, Inception-V3 (Szegedy et al. 2016) on 299x299x3 images,
// batch 32, 1000 classes, as in TensorFlow-Slim: a 7-conv stem, three
// Inception-A blocks (Mixed_5b-d), a grid reduction (Mixed_6a), four
// Inception-C blocks with factorized 7x7 convolutions (Mixed_6b-e), a second
// reduction (Mixed_7a), two Inception-E blocks (Mixed_7b-c), global average
// pooling and the logits layer. Every convolution is Conv2D + FusedBatchNorm
// + Relu. The auxiliary classifier is left out (it is dropped after
// training and adds ~3% of the FLOPs).
//
// Layer marks: each stem convolution and each Mixed block is one layer, the
// head is the last; the expert placement splits these contiguously into
// parts of roughly equal layer counts, as the paper's expert did.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

namespace {

class Inception {
 public:
  explicit Inception(ModelBuilder& m) : m_(m) {}

  // Conv2D + FusedBatchNorm + Relu.
  TensorId conv(const std::string& name, TensorId x, int64_t out, int64_t kh, int64_t kw, int64_t stride = 1,
                bool same = true) {
    const TensorId y = m_.conv2d(name + "/Conv2D", x, out, kh, kw, stride, same);
    return m_.relu(name + "/Relu", m_.batch_norm(name + "/BatchNorm", y));
  }
  TensorId avg_pool_same(const std::string& name, TensorId x) { return m_.pool(name, "AvgPool", x, 3, 1, true); }

  TensorId block_a(const std::string& n, TensorId x, int64_t pool_features) {
    const TensorId b0 = conv(n + "/b0_1x1", x, 64, 1, 1);
    const TensorId b1 = conv(n + "/b1_5x5", conv(n + "/b1_1x1", x, 48, 1, 1), 64, 5, 5);
    const TensorId b2 = conv(n + "/b2_3x3b", conv(n + "/b2_3x3a", conv(n + "/b2_1x1", x, 64, 1, 1), 96, 3, 3), 96, 3, 3);
    const TensorId b3 = conv(n + "/b3_1x1", avg_pool_same(n + "/b3_pool", x), pool_features, 1, 1);
    return m_.concat(n + "/concat", {b0, b1, b2, b3}, 3);
  }
  TensorId block_b(const std::string& n, TensorId x) {
    const TensorId b0 = conv(n + "/b0_3x3", x, 384, 3, 3, 2, false);
    const TensorId b1 = conv(n + "/b1_3x3b", conv(n + "/b1_3x3a", conv(n + "/b1_1x1", x, 64, 1, 1), 96, 3, 3), 96, 3, 3, 2, false);
    const TensorId b2 = m_.pool(n + "/b2_pool", "MaxPool", x, 3, 2, false);
    return m_.concat(n + "/concat", {b0, b1, b2}, 3);
  }
  TensorId block_c(const std::string& n, TensorId x, int64_t c7) {
    const TensorId b0 = conv(n + "/b0_1x1", x, 192, 1, 1);
    TensorId b1 = conv(n + "/b1_1x1", x, c7, 1, 1);
    b1 = conv(n + "/b1_7x1", conv(n + "/b1_1x7", b1, c7, 1, 7), 192, 7, 1);
    TensorId b2 = conv(n + "/b2_1x1", x, c7, 1, 1);
    b2 = conv(n + "/b2_1x7a", conv(n + "/b2_7x1a", b2, c7, 7, 1), c7, 1, 7);
    b2 = conv(n + "/b2_1x7b", conv(n + "/b2_7x1b", b2, c7, 7, 1), 192, 1, 7);
    const TensorId b3 = conv(n + "/b3_1x1", avg_pool_same(n + "/b3_pool", x), 192, 1, 1);
    return m_.concat(n + "/concat", {b0, b1, b2, b3}, 3);
  }
  TensorId block_d(const std::string& n, TensorId x) {
    const TensorId b0 = conv(n + "/b0_3x3", conv(n + "/b0_1x1", x, 192, 1, 1), 320, 3, 3, 2, false);
    TensorId b1 = conv(n + "/b1_1x7", conv(n + "/b1_1x1", x, 192, 1, 1), 192, 1, 7);
    b1 = conv(n + "/b1_3x3", conv(n + "/b1_7x1", b1, 192, 7, 1), 192, 3, 3, 2, false);
    const TensorId b2 = m_.pool(n + "/b2_pool", "MaxPool", x, 3, 2, false);
    return m_.concat(n + "/concat", {b0, b1, b2}, 3);
  }
  TensorId block_e(const std::string& n, TensorId x) {
    const TensorId b0 = conv(n + "/b0_1x1", x, 320, 1, 1);
    const TensorId b1 = conv(n + "/b1_1x1", x, 384, 1, 1);
    const TensorId b1c = m_.concat(n + "/b1_concat", {conv(n + "/b1_1x3", b1, 384, 1, 3), conv(n + "/b1_3x1", b1, 384, 3, 1)}, 3);
    const TensorId b2 = conv(n + "/b2_3x3", conv(n + "/b2_1x1", x, 448, 1, 1), 384, 3, 3);
    const TensorId b2c = m_.concat(n + "/b2_concat", {conv(n + "/b2_1x3", b2, 384, 1, 3), conv(n + "/b2_3x1", b2, 384, 3, 1)}, 3);
    const TensorId b3 = conv(n + "/b3_1x1", avg_pool_same(n + "/b3_pool", x), 192, 1, 1);
    return m_.concat(n + "/concat", {b0, b1c, b2c, b3}, 3);
  }

 private:
  ModelBuilder& m_;
};

}  // namespace

Result<Graph> build_inception_v3(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 32, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t image, options.get_int("image", 299, 75, 4096));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t classes, options.get_int("classes", 1000, 2, 1 << 20));

  ModelBuilder m("inception_v3");
  Inception net(m);
  int32_t mark = 0;
  m.set_layer(mark);
  TensorId x = m.input("images", {batch, image, image, 3});
  x = net.conv("Conv2d_1a_3x3", x, 32, 3, 3, 2, false);
  m.set_layer(++mark);
  x = net.conv("Conv2d_2a_3x3", x, 32, 3, 3, 1, false);
  m.set_layer(++mark);
  x = net.conv("Conv2d_2b_3x3", x, 64, 3, 3);
  x = m.pool("MaxPool_3a_3x3", "MaxPool", x, 3, 2, false);
  m.set_layer(++mark);
  x = net.conv("Conv2d_3b_1x1", x, 80, 1, 1, 1, false);
  m.set_layer(++mark);
  x = net.conv("Conv2d_4a_3x3", x, 192, 3, 3, 1, false);
  x = m.pool("MaxPool_5a_3x3", "MaxPool", x, 3, 2, false);
  const std::pair<const char*, int64_t> a_blocks[] = {{"Mixed_5b", 32}, {"Mixed_5c", 64}, {"Mixed_5d", 64}};
  for (auto [name, pool_features] : a_blocks) {
    m.set_layer(++mark);
    x = net.block_a(name, x, pool_features);
  }
  m.set_layer(++mark);
  x = net.block_b("Mixed_6a", x);
  const std::pair<const char*, int64_t> c_blocks[] = {{"Mixed_6b", 128}, {"Mixed_6c", 160}, {"Mixed_6d", 160}, {"Mixed_6e", 192}};
  for (auto [name, c7] : c_blocks) {
    m.set_layer(++mark);
    x = net.block_c(name, x, c7);
  }
  m.set_layer(++mark);
  x = net.block_d("Mixed_7a", x);
  for (const char* name : {"Mixed_7b", "Mixed_7c"}) {
    m.set_layer(++mark);
    x = net.block_e(name, x);
  }
  m.set_layer(++mark);
  x = m.global_avg_pool("AvgPool", x);
  const TensorId logits = m.dense("Logits", x, classes);
  const TensorId labels = m.input("labels", {batch}, DType::kInt32);
  m.softmax_cross_entropy("loss", logits, labels);
  return std::move(m).build();
}

}  // namespace devplace
