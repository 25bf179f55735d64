// lstm_cell: the vectorised exp, sigmoid and tanh are as accurate as
// libm's float functions, and the cell loops compute the LSTM equations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "rl/lstm_cell.h"

namespace devplace::rl {
namespace {

double exact_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(LstmCell, ExpIsWithinTwoUlpOverItsRange) {
  double worst = 0.0;
  for (float x = -87.0f; x < 88.0f; x += 0.00137f) {
    const float exact = static_cast<float>(std::exp(static_cast<double>(x)));
    const float ulp = std::nextafter(exact, INFINITY) - exact;
    worst = std::max(worst, std::fabs(static_cast<double>(exp_approx(x)) - std::exp(static_cast<double>(x))) / ulp);
  }
  EXPECT_LT(worst, 2.0);
  EXPECT_EQ(exp_approx(0.0f), 1.0f);
  // Clamped, not overflowed into garbage.
  EXPECT_TRUE(std::isfinite(exp_approx(1000.0f)));
  EXPECT_GT(exp_approx(1000.0f), 1e38f);
  EXPECT_GE(exp_approx(-1000.0f), 0.0f);
  EXPECT_LT(exp_approx(-1000.0f), 1e-37f);
  // A NaN stays a NaN (a diverged network shows as one, not as a number).
  EXPECT_TRUE(std::isnan(exp_approx(NAN)));
  EXPECT_TRUE(std::isnan(sigmoid_approx(NAN)));
  EXPECT_TRUE(std::isnan(tanh_approx(NAN)));
}

TEST(LstmCell, SigmoidAndTanhAreAsCloseAsLibm) {
  double worst_sigmoid = 0.0, worst_tanh = 0.0;
  for (float x = -40.0f; x < 40.0f; x += 0.000173f) {
    worst_sigmoid = std::max(worst_sigmoid, std::fabs(sigmoid_approx(x) - exact_sigmoid(x)));
    worst_tanh = std::max(worst_tanh, std::fabs(tanh_approx(x) - std::tanh(static_cast<double>(x))));
  }
  EXPECT_LT(worst_sigmoid, 1.2e-7);
  EXPECT_LT(worst_tanh, 1.2e-7);
  EXPECT_EQ(tanh_approx(0.0f), 0.0f);
  EXPECT_EQ(tanh_approx(-1000.0f), -1.0f);
  EXPECT_EQ(tanh_approx(1000.0f), 1.0f);
  EXPECT_EQ(sigmoid_approx(1000.0f), 1.0f);
  EXPECT_GE(sigmoid_approx(-1000.0f), 0.0f);
  EXPECT_LT(sigmoid_approx(-1000.0f), 1e-30f);
}

TEST(LstmCell, ForwardAndStepComputeTheLstmEquations) {
  const int64_t batch = 3, n = 13;  // n not a multiple of the vector width
  std::vector<float> z(batch * 4 * n), c_prev(batch * n);
  for (size_t k = 0; k < z.size(); ++k) z[k] = 3.0f * std::sin(0.7f * static_cast<float>(k) + 0.3f);
  for (size_t k = 0; k < c_prev.size(); ++k) c_prev[k] = 2.0f * std::cos(1.3f * static_cast<float>(k));
  const std::vector<float> raw = z;

  std::vector<float> c(batch * n), tanh_c(batch * n), h(batch * n);
  lstm_cell_forward(z.data(), c_prev.data(), c.data(), tanh_c.data(), h.data(), batch, n);
  std::vector<float> step_h(batch * n, -5.0f), step_c = c_prev;
  lstm_cell_step(raw.data(), step_h.data(), step_c.data(), batch, n);
  std::vector<float> zero_c(batch * n), zero_t(batch * n), zero_h(batch * n), z0 = raw;
  lstm_cell_forward(z0.data(), nullptr, zero_c.data(), zero_t.data(), zero_h.data(), batch, n);

  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < n; ++j) {
      const float* r = raw.data() + b * 4 * n;
      const double i = exact_sigmoid(r[j]), f = exact_sigmoid(r[n + j]), g = std::tanh(static_cast<double>(r[2 * n + j])),
                   o = exact_sigmoid(r[3 * n + j]);
      const int64_t at = b * n + j;
      const double cell = f * c_prev[at] + i * g;
      EXPECT_NEAR(z[b * 4 * n + j], i, 1e-6);
      EXPECT_NEAR(z[b * 4 * n + n + j], f, 1e-6);
      EXPECT_NEAR(z[b * 4 * n + 2 * n + j], g, 1e-6);
      EXPECT_NEAR(z[b * 4 * n + 3 * n + j], o, 1e-6);
      EXPECT_NEAR(c[at], cell, 1e-6);
      EXPECT_NEAR(tanh_c[at], std::tanh(cell), 1e-6);
      EXPECT_NEAR(h[at], o * std::tanh(cell), 1e-6);
      EXPECT_FLOAT_EQ(step_c[at], c[at]);
      EXPECT_FLOAT_EQ(step_h[at], h[at]);
      EXPECT_NEAR(zero_c[at], i * g, 1e-6);
      EXPECT_NEAR(zero_h[at], o * std::tanh(i * g), 1e-6);
    }
  }
}

}  // namespace
}  // namespace devplace::rl
