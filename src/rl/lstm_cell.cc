// File: lstm_cell.cc
// The LSTM cell's elementwise loops (see lstm_cell.h). Built with
// -fno-trapping-math (src/CMakeLists.txt) so that the loops vectorise.
#include "rl/lstm_cell.h"

#include <cmath>
#include <cstring>

namespace devplace::rl {

namespace {

inline float exp_inline(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  // n = round(x log2 e) by the 1.5 * 2^23 trick (rint would not
  // vectorise on plain SSE2): t's low mantissa bits hold n, read from its
  // bits rather than by a float-to-int cast (no undefined behaviour for a
  // NaN, which stays NaN through p). r = x - n ln2, with ln2 split in two
  // so that n * ln2_hi is exact.
  const float shifter = 12582912.0f;  // bits 0x4b400000
  const float t = x * 1.44269504088896341f + shifter;
  const float n = t - shifter;
  const float r = (x - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  uint32_t t_bits;
  std::memcpy(&t_bits, &t, sizeof t_bits);
  const uint32_t bits = (t_bits - 0x4b400000u + 127u) << 23;  // 2^n
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

inline float sigmoid_inline(float x) { return 1.0f / (1.0f + exp_inline(-x)); }

// tanh(x) = sign(x) (1 - e) / (1 + e), e = e^(-2|x|).
inline float tanh_inline(float x) {
  const float e = exp_inline(-2.0f * std::fabs(x));
  return std::copysign((1.0f - e) / (1.0f + e), x);
}

}  // namespace

float exp_approx(float x) { return exp_inline(x); }
float sigmoid_approx(float x) { return sigmoid_inline(x); }
float tanh_approx(float x) { return tanh_inline(x); }

namespace {

template <bool kHasPrevious>
void cell_forward_rows(float* __restrict z, const float* __restrict c_prev, float* __restrict c, float* __restrict tanh_c,
                       float* __restrict h, int64_t batch, int64_t n) {
  for (int64_t b = 0; b < batch; ++b) {
    float* __restrict zi = z + b * 4 * n;
    float* __restrict zf = zi + n;
    float* __restrict zg = zi + 2 * n;
    float* __restrict zo = zi + 3 * n;
    const float* __restrict cp = kHasPrevious ? c_prev + b * n : nullptr;
    float* __restrict cb = c + b * n;
    float* __restrict tb = tanh_c + b * n;
    float* __restrict hb = h + b * n;
    for (int64_t j = 0; j < n; ++j) {
      const float i = sigmoid_inline(zi[j]);
      const float f = sigmoid_inline(zf[j]);
      const float g = tanh_inline(zg[j]);
      const float o = sigmoid_inline(zo[j]);
      zi[j] = i;
      zf[j] = f;
      zg[j] = g;
      zo[j] = o;
      float cell = i * g;
      if constexpr (kHasPrevious) cell = f * cp[j] + cell;
      const float t = tanh_inline(cell);
      cb[j] = cell;
      tb[j] = t;
      hb[j] = o * t;
    }
  }
}

}  // namespace

void lstm_cell_forward(float* z, const float* c_prev, float* c, float* tanh_c, float* h, int64_t batch, int64_t n) {
  if (c_prev) {
    cell_forward_rows<true>(z, c_prev, c, tanh_c, h, batch, n);
  } else {
    cell_forward_rows<false>(z, c_prev, c, tanh_c, h, batch, n);
  }
}

void lstm_cell_step(const float* __restrict z, float* __restrict h, float* __restrict c, int64_t batch, int64_t n) {
  for (int64_t b = 0; b < batch; ++b) {
    const float* __restrict zi = z + b * 4 * n;
    const float* __restrict zf = zi + n;
    const float* __restrict zg = zi + 2 * n;
    const float* __restrict zo = zi + 3 * n;
    float* __restrict cb = c + b * n;
    float* __restrict hb = h + b * n;
    for (int64_t j = 0; j < n; ++j) {
      const float cell = sigmoid_inline(zf[j]) * cb[j] + sigmoid_inline(zi[j]) * tanh_inline(zg[j]);
      cb[j] = cell;
      hb[j] = sigmoid_inline(zo[j]) * tanh_inline(cell);
    }
  }
}

}  // namespace devplace::rl
